package io.streamfusion.migration.operators;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.RuntimeConverter;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A table sink ({@code 'connector' = 'streamfusion-test-collect'}) that appends every record it
 * receives, with its row kind, to an in-JVM list named by {@code 'output'}, in arrival order. It
 * accepts every changelog mode ({@code 'changelog-mode' = 'all'}, the default) or upserts only
 * ({@code 'upsert'}), which needs a primary key and lets the planner drop UPDATE_BEFORE.
 */
public final class CollectingSinkFactory implements DynamicTableSinkFactory {

    static final String IDENTIFIER = "streamfusion-test-collect";

    static final ConfigOption<String> OUTPUT =
            ConfigOptions.key("output").stringType().noDefaultValue();
    static final ConfigOption<String> CHANGELOG_MODE =
            ConfigOptions.key("changelog-mode").stringType().defaultValue("all");

    /** Fails the task when this many records have arrived; -1 never. */
    static final ConfigOption<Integer> FAIL_AFTER =
            ConfigOptions.key("fail-after").intType().defaultValue(-1);

    private static final Map<String, List<Row>> OUTPUTS = new ConcurrentHashMap<>();

    /** Everything collected into {@code output} so far, in arrival order. */
    static List<Row> collected(String output) {
        List<Row> rows = OUTPUTS.get(output);
        if (rows == null) {
            return List.of();
        }
        synchronized (rows) {
            return new ArrayList<>(rows);
        }
    }

    static void forget(String output) {
        OUTPUTS.remove(output);
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(OUTPUT);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(CHANGELOG_MODE, FAIL_AFTER);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        String output = helper.getOptions().get(OUTPUT);
        boolean upsert = "upsert".equals(helper.getOptions().get(CHANGELOG_MODE));
        DataType rowType = context.getCatalogTable().getResolvedSchema().toPhysicalRowDataType();
        return new CollectingTableSink(
                output, upsert, rowType, helper.getOptions().get(FAIL_AFTER));
    }

    private static final class CollectingTableSink implements DynamicTableSink {
        private final String output;
        private final boolean upsert;
        private final DataType rowType;
        private final int failAfter;

        CollectingTableSink(String output, boolean upsert, DataType rowType, int failAfter) {
            this.output = output;
            this.upsert = upsert;
            this.rowType = rowType;
            this.failAfter = failAfter;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return upsert ? ChangelogMode.upsert() : ChangelogMode.all();
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(
                    new CollectingSink(
                            output, context.createDataStructureConverter(rowType), failAfter));
        }

        @Override
        public DynamicTableSink copy() {
            return new CollectingTableSink(output, upsert, rowType, failAfter);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER;
        }
    }

    private static final class CollectingSink implements Sink<RowData> {
        private static final long serialVersionUID = 1L;
        private final String output;
        private final DynamicTableSink.DataStructureConverter converter;
        private final int failAfter;

        CollectingSink(
                String output, DynamicTableSink.DataStructureConverter converter, int failAfter) {
            this.output = output;
            this.converter = converter;
            this.failAfter = failAfter;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            converter.open(
                    RuntimeConverter.Context.create(
                            Thread.currentThread().getContextClassLoader()));
            List<Row> rows = OUTPUTS.computeIfAbsent(output, unused -> new ArrayList<>());
            return new SinkWriter<>() {
                @Override
                public void write(RowData element, Context context) {
                    Row row = (Row) converter.toExternal(element);
                    RowKind kind = element.getRowKind();
                    row.setKind(kind);
                    synchronized (rows) {
                        rows.add(row);
                        if (rows.size() == failAfter) {
                            throw new IllegalStateException(
                                    "Injected sink failure after " + failAfter + " records");
                        }
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
