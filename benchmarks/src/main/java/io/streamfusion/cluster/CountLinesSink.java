package io.streamfusion.cluster;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple2;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Writes every emitted {@code (key, count)} as a line to a file of its own per writer, flushed per
 * record, so that output survives a killed process. At least once: after a failover the replayed
 * records appear again, with the same counts if state was restored exactly.
 */
final class CountLinesSink implements Sink<Tuple2<Long, Long>> {

    private static final long serialVersionUID = 1L;

    private final String directory;

    CountLinesSink(Path directory) {
        this.directory = directory.toString();
    }

    @Override
    public SinkWriter<Tuple2<Long, Long>> createWriter(WriterInitContext context)
            throws IOException {
        Path file =
                Path.of(
                        directory,
                        "counts-"
                                + context.getTaskInfo().getIndexOfThisSubtask()
                                + "-"
                                + UUID.randomUUID()
                                + ".txt");
        BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        return new SinkWriter<>() {
            @Override
            public void write(Tuple2<Long, Long> element, Context context) throws IOException {
                out.write(element.f0 + "," + element.f1 + "\n");
                out.flush();
            }

            @Override
            public void flush(boolean endOfInput) throws IOException {
                out.flush();
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }
}
