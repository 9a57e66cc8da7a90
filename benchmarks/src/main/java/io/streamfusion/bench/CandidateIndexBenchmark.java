package io.streamfusion.bench;

import io.streamfusion.api.CandidateIndexBackend;
import io.streamfusion.api.CandidateIndexState;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;

import java.util.ArrayList;
import java.util.List;

/**
 * One upsert-materializer step per operation at a steady number of candidates per key: append a new
 * candidate, retract the oldest one, read the latest. StreamFusion runs its disk-backed candidate
 * index; {@code rocksdb} and {@code hashmap} run the structure of Flink's legacy {@code
 * SinkUpsertMaterializer}, a {@code ValueState<List>} read and rewritten whole on every change.
 * {@link SequencedMultiSetBenchmark} runs Flink 2.2's newer structure. Run with few keys ({@code -p
 * keys=10}, as bin/bench does): the point is many candidates per key.
 */
public class CandidateIndexBenchmark extends UpsertStepBenchmarkBase {

    private CandidateIndexState<String> index;
    private ValueState<List<String>> list;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        createBackendAndSequences();
        if (underTest.keyed() instanceof CandidateIndexBackend<?> candidates) {
            index = candidates.getCandidateIndexState("candidates", StringSerializer.INSTANCE);
        } else {
            list =
                    registerState(
                            new ValueStateDescriptor<>(
                                    "candidates", new ListSerializer<>(StringSerializer.INSTANCE)));
        }
        for (int key = 0; key < keys; key++) {
            underTest.keyed().setCurrentKey((long) key);
            List<String> initial = new ArrayList<>(candidatesPerKey);
            for (int i = 0; i < candidatesPerKey; i++) {
                String row = row(key, nextAppended(key));
                if (index != null) {
                    index.append(row);
                } else {
                    initial.add(row);
                }
            }
            if (list != null) {
                list.update(initial);
            }
        }
    }

    /** A row as a sink would see it: key, sequence and a payload of typical width. */
    private static String row(int key, long sequence) {
        return "key=" + key + ",seq=" + sequence + ",payload=0123456789abcdefghijklmnopqrstuvwxyz";
    }

    @Benchmark
    public String appendRetractLatest() throws Exception {
        int key = nextKey();
        String added = row(key, nextAppended(key));
        String retracted = row(key, nextRetracted(key));
        if (index != null) {
            index.append(added);
            index.retract(retracted);
            return index.latest();
        }
        List<String> rows = list.value();
        rows.add(added);
        list.update(rows);
        rows = list.value();
        rows.remove(retracted);
        list.update(rows);
        rows = list.value();
        return rows.get(rows.size() - 1);
    }
}
