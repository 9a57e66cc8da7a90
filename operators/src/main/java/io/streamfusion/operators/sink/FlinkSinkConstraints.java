package io.streamfusion.operators.sink;

import io.streamfusion.api.columnar.SinkConstraintsSpec;
import io.streamfusion.api.columnar.SinkConstraintsSpec.LengthField;
import io.streamfusion.api.columnar.SinkConstraintsSpec.LengthMode;
import io.streamfusion.api.columnar.SinkConstraintsSpec.NotNullMode;
import io.streamfusion.operators.substitution.FlinkFields;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.operators.sink.constraint.Constraint;
import org.apache.flink.table.runtime.operators.sink.constraint.ConstraintEnforcer;
import org.apache.flink.table.runtime.operators.sink.constraint.ConstraintEnforcerExecutor;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DistinctType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Reads the constraints of Flink's {@code ConstraintEnforcer} into a {@link SinkConstraintsSpec}:
 * its executor's constraint objects (package-private classes, read by name and field, pinned to
 * Flink 2.2.1), in the order Flink checks them. A constraint the native enforcer does not have
 * (nested rows, arrays and maps) is a reason to keep Flink's operator, and so is a sink with NOT
 * NULL constraints only, which Flink checks for less than a batch costs.
 */
final class FlinkSinkConstraints {

    private static final String NOT_NULL = "NotNullConstraint";
    private static final String CHAR_LENGTH = "CharLengthConstraint";
    private static final String BINARY_LENGTH = "BinaryLengthConstraint";

    private FlinkSinkConstraints() {}

    /** The constraints and column names, or why Flink's operator stays. */
    sealed interface Reading permits Replaceable, Kept {}

    record Replaceable(SinkConstraintsOperatorSpec spec) implements Reading {}

    record Kept(String reason) implements Reading {}

    static Reading read(ConstraintEnforcer enforcer, LogicalType[] rowTypes) {
        ConstraintEnforcerExecutor executor =
                FlinkFields.read(enforcer, ConstraintEnforcer.class, "executor");
        List<Integer> notNull = new ArrayList<>();
        List<String> notNullNames = new ArrayList<>();
        NotNullMode notNullMode = NotNullMode.ERROR;
        List<LengthField> charFields = new ArrayList<>();
        List<String> charNames = new ArrayList<>();
        List<LengthField> binaryFields = new ArrayList<>();
        List<String> binaryNames = new ArrayList<>();
        LengthMode lengthMode = LengthMode.TRIM_PAD;
        int stage = 0;
        for (Constraint constraint : executor.getConstraints()) {
            String kind = constraint.getClass().getSimpleName();
            int kindStage = List.of(NOT_NULL, CHAR_LENGTH, BINARY_LENGTH).indexOf(kind) + 1;
            if (kindStage == 0) {
                return new Kept(
                        "it enforces a "
                                + kind
                                + " (table.exec.sink.nested-constraint-enforcer), which the"
                                + " native enforcer does not have");
            }
            if (kindStage <= stage) {
                return new Kept("its constraints are not in Flink's usual order");
            }
            stage = kindStage;
            Class<?> type = constraint.getClass();
            if (kind.equals(NOT_NULL)) {
                notNullMode =
                        NotNullMode.valueOf(
                                FlinkFields.<Enum<?>>read(constraint, type, "enforcementStrategy")
                                        .name());
                for (int position :
                        FlinkFields.<int[]>read(constraint, type, "notNullFieldIndices")) {
                    notNull.add(position);
                }
                notNullNames.addAll(
                        List.of(FlinkFields.<String[]>read(constraint, type, "notNullFieldNames")));
                continue;
            }
            Enum<?> strategy =
                    FlinkFields.read(
                            constraint,
                            type,
                            kind.equals(CHAR_LENGTH)
                                    ? "enforcementStrategy"
                                    : "typeLengthEnforcementStrategy");
            lengthMode = strategy.name().equals("THROW") ? LengthMode.ERROR : LengthMode.TRIM_PAD;
            int[] positions = FlinkFields.read(constraint, type, "fieldIndices");
            int[] lengths = FlinkFields.read(constraint, type, "fieldLengths");
            BitSet pads = FlinkFields.read(constraint, type, "fieldCouldPad");
            List<LengthField> fields = kind.equals(CHAR_LENGTH) ? charFields : binaryFields;
            for (int i = 0; i < positions.length; i++) {
                if (lengths[i] < 0) {
                    return new Kept(
                            "field "
                                    + positions[i]
                                    + " is a CHAR or BINARY of the largest length, which"
                                    + " Flink's length constraint trims to nothing");
                }
                fields.add(new LengthField(positions[i], lengths[i], pads.get(i)));
            }
            (kind.equals(CHAR_LENGTH) ? charNames : binaryNames)
                    .addAll(List.of(FlinkFields.<String[]>read(constraint, type, "fieldNames")));
        }
        if (charFields.isEmpty() && binaryFields.isEmpty()) {
            return new Kept(
                    "it checks NOT NULL columns only, a null bit per row that Flink's operator"
                            + " tests for less than gathering the row into a batch costs"
                            + " (docs/operators.md); the columnar enforcer replaces it when"
                            + " table.exec.sink.type-length-enforcer is TRIM_PAD or ERROR");
        }
        SinkConstraintsSpec spec =
                new SinkConstraintsSpec(
                        rowTypes.length,
                        notNull,
                        notNullMode,
                        charFields,
                        binaryFields,
                        lengthMode,
                        variableFields(rowTypes));
        return new Replaceable(
                new SinkConstraintsOperatorSpec(
                        spec, notNullNames, charNames, binaryNames, executor));
    }

    /** The fields whose values {@code BinaryRowWriter} may put in the variable-length part. */
    static List<Integer> variableFields(LogicalType[] types) {
        List<Integer> fields = new ArrayList<>();
        for (int position = 0; position < types.length; position++) {
            if (isVariable(types[position])) {
                fields.add(position);
            }
        }
        return fields;
    }

    private static boolean isVariable(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
            case INTERVAL_YEAR_MONTH:
            case INTERVAL_DAY_TIME:
            case NULL:
                return false;
            case DECIMAL:
                return !DecimalData.isCompact(((DecimalType) type).getPrecision());
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return !TimestampData.isCompact(((TimestampType) type).getPrecision());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return !TimestampData.isCompact(((LocalZonedTimestampType) type).getPrecision());
            case DISTINCT_TYPE:
                return isVariable(((DistinctType) type).getSourceType());
            default:
                // Strings, binaries, nested and raw values; an unknown root is treated as one, so
                // its slot is read as an offset only if it points into the row.
                return true;
        }
    }
}
