package io.streamfusion.operators.deduplicate;

import io.streamfusion.api.columnar.BinaryFieldType;
import io.streamfusion.api.columnar.SortField;
import io.streamfusion.api.columnar.Top1Replacement;
import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.rank.Top1KernelSpec;
import io.streamfusion.operators.substitution.FlinkFields;
import io.streamfusion.operators.substitution.FlinkOperators;
import io.streamfusion.operators.substitution.NodeSubstitution;

import org.apache.flink.api.common.functions.Function;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.operators.deduplicate.ProcTimeDeduplicateKeepFirstRowFunction;
import org.apache.flink.table.runtime.operators.deduplicate.ProcTimeDeduplicateKeepLastRowFunction;
import org.apache.flink.table.runtime.operators.deduplicate.ProcTimeMiniBatchDeduplicateKeepFirstRowFunction;
import org.apache.flink.table.runtime.operators.deduplicate.ProcTimeMiniBatchDeduplicateKeepLastRowFunction;
import org.apache.flink.table.runtime.operators.deduplicate.RowTimeDeduplicateFunction;
import org.apache.flink.table.runtime.operators.deduplicate.RowTimeDeduplicateKeepFirstRowFunction;
import org.apache.flink.table.runtime.operators.deduplicate.RowTimeMiniBatchDeduplicateFunction;
import org.apache.flink.table.runtime.operators.deduplicate.RowTimeMiniBatchLatestChangeDeduplicateFunction;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.runtime.util.StateConfigUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.util.List;

/**
 * Replaces Flink's deduplications over insert-only input with {@link DeduplicateOperator} (keep
 * first or last, on processing or row time, with or without a count-triggered mini-batch), and the
 * row-time keep-first one with insert-only output, which waits for event-time timers, with {@link
 * RowTimeKeepFirstOperator}; keeps every other deduplication, naming why.
 */
public final class DeduplicateSubstitution implements NodeSubstitution {

    @Nullable
    @Override
    public String recognize(StreamNode node) {
        for (Function function :
                new Function[] {
                    FlinkOperators.functionOf(node), FlinkOperators.bundleFunctionOf(node)
                }) {
            if (function != null
                    && function.getClass()
                            .getPackageName()
                            .startsWith(FlinkDeduplication.PACKAGE)) {
                return function.getClass().getSimpleName();
            }
        }
        return null;
    }

    @Override
    public Decision decide(StreamNode node, OperatorConfig config) throws Exception {
        if (FlinkOperators.functionOf(node)
                instanceof RowTimeDeduplicateKeepFirstRowFunction keepFirst) {
            return keepFirstOnRowTimeInsertOnly(node, keepFirst, config);
        }
        FlinkDeduplication flink = FlinkDeduplication.of(node);
        if (flink == null) {
            Function function = FlinkOperators.functionOf(node);
            return Decision.keep(
                    whyNot(function != null ? function : FlinkOperators.bundleFunctionOf(node)));
        }
        Function function = flink.function();
        if (function instanceof ProcTimeDeduplicateKeepLastRowFunction) {
            return keepLastOnProcessingTime(node, flink, "inputIsInsertOnly", config);
        }
        if (function instanceof ProcTimeMiniBatchDeduplicateKeepLastRowFunction) {
            return keepLastOnProcessingTime(node, flink, "inputInsertOnly", config);
        }
        if (function instanceof ProcTimeDeduplicateKeepFirstRowFunction
                || function instanceof ProcTimeMiniBatchDeduplicateKeepFirstRowFunction) {
            return keepFirstOnProcessingTime(node, flink, config);
        }
        if (function instanceof RowTimeDeduplicateFunction
                || function instanceof RowTimeMiniBatchLatestChangeDeduplicateFunction) {
            return onRowTime(node, flink, config, false);
        }
        if (function instanceof RowTimeMiniBatchDeduplicateFunction) {
            // It rewrites each key's row at the end of every bundle, which restarts its TTL.
            return onRowTime(node, flink, config, flink.ttl().isEnabled());
        }
        return Decision.keep(whyNot(function));
    }

    private static Decision keepLastOnProcessingTime(
            StreamNode node,
            FlinkDeduplication flink,
            String insertOnlyField,
            OperatorConfig config) {
        if (!flink.<Boolean>field(insertOnlyField)) {
            return Decision.keep(
                    "its input is a changelog (a ChangelogNormalize or a deduplication of updates);"
                            + " only insert-only input is accelerated");
        }
        boolean generateUpdateBefore = flink.field("generateUpdateBefore");
        boolean generateInsert = flink.field("generateInsert");
        if (!generateUpdateBefore && !generateInsert) {
            return Decision.keep(
                    "it keeps no state (no UPDATE_BEFORE is needed and"
                            + " table.exec.deduplicate.insert-update-after-sensitive-enabled is"
                            + " false), so there is nothing to accelerate");
        }
        // Without TTL Flink's equaliser suppresses a row equal to the kept one; with TTL it
        // re-emits it, so that downstream state does not expire early.
        Top1Replacement replacement =
                flink.ttl().isEnabled()
                        ? Top1Replacement.FIRST_OR_TIE
                        : Top1Replacement.FIRST_OR_TIE_UNLESS_IDENTICAL;
        return replace(
                node,
                flink,
                config,
                kernel(flink, List.of(), replacement, generateUpdateBefore),
                generateUpdateBefore,
                true);
    }

    /** Flink keeps {@code true} per key seen and emits only a key's first row. */
    private static Decision keepFirstOnProcessingTime(
            StreamNode node, FlinkDeduplication flink, OperatorConfig config) {
        if (!(node.getTypeSerializersIn()[0] instanceof RowDataSerializer)) {
            return Decision.keep("its input serializer is " + node.getTypeSerializersIn()[0]);
        }
        Top1KernelSpec kernel =
                new Top1KernelSpec(
                        DeduplicateOperator.STATE_NAME,
                        flink.stateType(),
                        ((RowDataSerializer) node.getTypeSerializersIn()[0]).getArity(),
                        List.of(),
                        Top1Replacement.STRICTLY_FIRST,
                        false,
                        flink.ttl(),
                        false);
        return replace(
                node,
                config,
                new DeduplicateOperatorSpec(kernel, RowKind.INSERT, flink.miniBatch()));
    }

    /**
     * Flink emits each key's earliest row once, when an event-time timer at its row time fires; the
     * replacement keeps Flink's states and timers.
     */
    private static Decision keepFirstOnRowTimeInsertOnly(
            StreamNode node,
            RowTimeDeduplicateKeepFirstRowFunction function,
            OperatorConfig config) {
        Class<RowTimeDeduplicateKeepFirstRowFunction> type =
                RowTimeDeduplicateKeepFirstRowFunction.class;
        InternalTypeInfo<RowData> rowType = FlinkFields.read(function, type, "typeInfo");
        int rowtimeIndex = FlinkFields.read(function, type, "rowtimeIndex");
        long retention = FlinkFields.read(function, type, "stateRetentionTime");
        String rowtimeProblem = rowtimeProblem(rowType, rowtimeIndex);
        if (rowtimeProblem != null) {
            return Decision.keep(rowtimeProblem);
        }
        if (!(node.getStateKeySerializer() instanceof RowDataSerializer)) {
            return Decision.keep("its key serializer is " + node.getStateKeySerializer());
        }
        RowTimeKeepFirstSpec spec =
                new RowTimeKeepFirstSpec(
                        rowType, rowtimeIndex, StateConfigUtil.createTtlConfig(retention));
        return Decision.replaceNode(
                node,
                new RowTimeKeepFirstOperatorConstructor(spec, config),
                "RowTimeKeepFirstOperator");
    }

    /**
     * Why the row time cannot be read as Flink reads it, a long of milliseconds; null if it can.
     */
    @Nullable
    private static String rowtimeProblem(InternalTypeInfo<RowData> rowType, int rowtimeIndex) {
        LogicalType rowtime = rowType.toRowType().getTypeAt(rowtimeIndex);
        if (TimestampData.isCompact(LogicalTypeChecks.getPrecision(rowtime))) {
            return null;
        }
        return "its rowtime " + rowtime + " has a precision above 3, which Flink reads as a long";
    }

    /**
     * A deduplication on row time; with {@code restampsSeenKeys}, every key of a batch has its row
     * written again, as Flink's row-time mini-batch deduplication does at each bundle's end.
     */
    private static Decision onRowTime(
            StreamNode node,
            FlinkDeduplication flink,
            OperatorConfig config,
            boolean restampsSeenKeys) {
        int rowtimeIndex = flink.field("rowtimeIndex");
        boolean keepLastRow = flink.field("keepLastRow");
        String rowtimeProblem = rowtimeProblem(inputRowType(flink), rowtimeIndex);
        if (rowtimeProblem != null) {
            return Decision.keep(rowtimeProblem);
        }
        // Flink keeps the later row when pre.ts <= cur.ts (keep-last; ties go to the later row),
        // and keeps the first one unless cur.ts < pre.ts (keep-first).
        SortField byRowtime =
                new SortField(rowtimeIndex, BinaryFieldType.ROWTIME_MILLIS, !keepLastRow, false);
        Top1KernelSpec kernel =
                kernel(
                        flink,
                        List.of(byRowtime),
                        keepLastRow ? Top1Replacement.FIRST_OR_TIE : Top1Replacement.STRICTLY_FIRST,
                        flink.field("generateUpdateBefore"));
        return replace(
                node,
                flink,
                config,
                restampsSeenKeys ? kernel.restampingSeenKeys() : kernel,
                flink.field("generateUpdateBefore"),
                flink.field("generateInsert"));
    }

    /**
     * The columnar replacement of a deduplication that keeps rows, whose first rows are INSERTs
     * when Flink emits UPDATE_BEFORE or INSERT, else UPDATE_AFTER.
     */
    private static Decision replace(
            StreamNode node,
            FlinkDeduplication flink,
            OperatorConfig config,
            Top1KernelSpec kernel,
            boolean generateUpdateBefore,
            boolean generateInsert) {
        RowKind firstRowKind =
                generateUpdateBefore || generateInsert ? RowKind.INSERT : RowKind.UPDATE_AFTER;
        return replace(
                node, config, new DeduplicateOperatorSpec(kernel, firstRowKind, flink.miniBatch()));
    }

    /** The kernel of a deduplication that keeps each key's row in Flink's state. */
    private static Top1KernelSpec kernel(
            FlinkDeduplication flink,
            List<SortField> sortFields,
            Top1Replacement replacement,
            boolean generateUpdateBefore) {
        return Top1KernelSpec.keepingRows(
                DeduplicateOperator.STATE_NAME,
                inputRowType(flink),
                sortFields,
                replacement,
                generateUpdateBefore,
                flink.ttl());
    }

    private static Decision replace(
            StreamNode node, OperatorConfig config, DeduplicateOperatorSpec spec) {
        if (!(node.getStateKeySerializer() instanceof RowDataSerializer)) {
            return Decision.keep("its key serializer is " + node.getStateKeySerializer());
        }
        return Decision.replaceNode(
                node, new DeduplicateOperatorConstructor(spec, config), "DeduplicateOperator");
    }

    @SuppressWarnings("unchecked")
    private static InternalTypeInfo<RowData> inputRowType(FlinkDeduplication flink) {
        return (InternalTypeInfo<RowData>) flink.stateType();
    }

    private static String whyNot(@Nullable Function function) {
        if (function == null) {
            return "it is not a deduplication function the layer can read";
        }
        String name = function.getClass().getSimpleName();
        if (name.contains("MiniBatch")) {
            return "mini-batch is on and it is "
                    + name
                    + " and its bundle is not count-triggered, which the layer does not mirror";
        }
        if (name.startsWith("AsyncState")) {
            return "async state is on (table.exec.async-state.enabled), which runs Flink's async"
                    + " deduplication";
        }
        return "no columnar operator replaces " + name;
    }
}
