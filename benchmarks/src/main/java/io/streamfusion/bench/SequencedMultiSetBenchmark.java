package io.streamfusion.bench;

import org.apache.flink.api.common.functions.SerializerFactory;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.externalresource.ExternalResourceInfoProvider;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.DefaultKeyedStateStore;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.generated.GeneratedHashFunction;
import org.apache.flink.table.runtime.generated.GeneratedRecordEqualiser;
import org.apache.flink.table.runtime.generated.HashFunction;
import org.apache.flink.table.runtime.generated.RecordEqualiser;
import org.apache.flink.table.runtime.sequencedmultisetstate.SequencedMultiSetState;
import org.apache.flink.table.runtime.sequencedmultisetstate.SequencedMultiSetStateConfig;
import org.apache.flink.table.runtime.sequencedmultisetstate.SequencedMultiSetStateContext;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.VarCharType;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

import java.util.HashMap;
import java.util.Objects;

/**
 * The same upsert-materializer step as {@link CandidateIndexBenchmark} (append a candidate, retract
 * the oldest), on the structure of Flink 2.2's {@code SinkUpsertMaterializerV2}: its {@code
 * SequencedMultiSetState} with the MAP or ADAPTIVE strategy ({@code
 * table.exec.sink.upsert-materialize-strategy.type}), built through a task's runtime context on
 * each backend. The retracted row is never the latest, so, as in the operator, the step reads no
 * latest row; the candidate index step does, so this comparison favours Flink.
 */
public class SequencedMultiSetBenchmark extends UpsertStepBenchmarkBase {

    @Param({"MAP", "ADAPTIVE"})
    public String strategy;

    private SequencedMultiSetState<RowData> candidates;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        createBackendAndSequences();
        candidates = SequencedMultiSetState.create(context(), runtimeContext(), backend);
        for (int key = 0; key < keys; key++) {
            underTest.keyed().setCurrentKey((long) key);
            for (int i = 0; i < candidatesPerKey; i++) {
                candidates.append(row(key, nextAppended(key)), 0L);
            }
        }
    }

    @Benchmark
    public Object appendRetractLatest() throws Exception {
        int key = nextKey();
        candidates.append(row(key, nextAppended(key)), 0L);
        return candidates.remove(row(key, nextRetracted(key)));
    }

    /** The row of {@link CandidateIndexBenchmark}'s string, as the planner's internal row. */
    private static RowData row(int key, long sequence) {
        return GenericRowData.of(
                (long) key,
                sequence,
                StringData.fromString("0123456789abcdefghijklmnopqrstuvwxyz"));
    }

    private SequencedMultiSetStateContext context() {
        RowDataSerializer rows =
                new RowDataSerializer(new BigIntType(), new BigIntType(), new VarCharType(64));
        SequencedMultiSetStateConfig config =
                "MAP".equals(strategy)
                        ? SequencedMultiSetStateConfig.forMap(
                                TimeDomain.PROCESSING_TIME, StateTtlConfig.DISABLED)
                        : SequencedMultiSetStateConfig.adaptive(
                                TimeDomain.PROCESSING_TIME, null, null, StateTtlConfig.DISABLED);
        // Without an upsert key the operator compares whole rows; the planner generates these two.
        return new SequencedMultiSetStateContext(
                rows, new WholeRowEquality(), new WholeRowHash(), rows, row -> row, config);
    }

    private StreamingRuntimeContext runtimeContext() {
        return new StreamingRuntimeContext(
                underTest.environment(),
                new HashMap<>(),
                UnregisteredMetricsGroup.createOperatorMetricGroup(),
                new OperatorID(),
                null,
                new DefaultKeyedStateStore(
                        underTest.keyed(),
                        new SerializerFactory() {
                            @Override
                            public <T> TypeSerializer<T> createSerializer(TypeInformation<T> type) {
                                return type.createSerializer(new SerializerConfigImpl());
                            }
                        }),
                ExternalResourceInfoProvider.NO_EXTERNAL_RESOURCES);
    }

    private static boolean sameRow(RowData a, RowData b) {
        return a.getLong(0) == b.getLong(0)
                && a.getLong(1) == b.getLong(1)
                && a.getString(2).equals(b.getString(2));
    }

    /** What the planner's generated equaliser does for this row type. */
    private static final class WholeRowEquality extends GeneratedRecordEqualiser {
        private static final long serialVersionUID = 1L;

        WholeRowEquality() {
            super("", "", new Object[0]);
        }

        @Override
        public RecordEqualiser newInstance(ClassLoader classLoader) {
            return SequencedMultiSetBenchmark::sameRow;
        }
    }

    /** What the planner's generated hash function does for this row type. */
    private static final class WholeRowHash extends GeneratedHashFunction {
        private static final long serialVersionUID = 1L;

        WholeRowHash() {
            super("", "", new Object[0], new org.apache.flink.configuration.Configuration());
        }

        @Override
        public HashFunction newInstance(ClassLoader classLoader) {
            return data -> {
                RowData row = (RowData) data;
                return Objects.hash(row.getLong(0), row.getLong(1), row.getString(2));
            };
        }
    }
}
