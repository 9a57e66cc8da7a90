package io.streamfusion.operators.rank;

import io.streamfusion.api.columnar.BinaryFieldType;
import io.streamfusion.api.columnar.SortField;
import io.streamfusion.operators.batch.BinaryFieldTypes;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.generated.RecordComparator;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Learns a rank's ORDER BY from the planner's own generated code, since the runtime objects keep no
 * field indices (the plan is gone by the time a StreamGraph exists). It runs the sort-key selector
 * over rows with one field set to find which input field feeds each sort position, and the sort-key
 * comparator over pairs that differ in one position to find its direction and null placement. What
 * it reports is therefore what Flink's operator would do, whatever the SQL said.
 */
final class SortFieldProbe {

    private final RowType inputType;
    private final RowType sortKeyType;
    private final RowDataKeySelector sortKeySelector;
    private final RecordComparator comparator;

    SortFieldProbe(
            RowType inputType, RowDataKeySelector sortKeySelector, RecordComparator comparator) {
        this.inputType = inputType;
        this.sortKeyType = sortKeySelector.getProducedType().toRowType();
        // A copy, so the probe's compiled projection never rides along with the job's selector.
        this.sortKeySelector = sortKeySelector.copy();
        this.comparator = comparator;
    }

    /** The sort fields, or the reason they cannot be compared natively. */
    Result probe() throws Exception {
        List<SortField> fields = new ArrayList<>();
        for (int position = 0; position < sortKeyType.getFieldCount(); position++) {
            LogicalType type = sortKeyType.getTypeAt(position);
            Optional<BinaryFieldType> binaryType = BinaryFieldTypes.of(type);
            if (binaryType.isEmpty()) {
                return Result.unsupported(
                        "ORDER BY "
                                + sortKeyType.getFieldNames().get(position)
                                + " of type "
                                + type.asSummaryString()
                                + ": no native comparison for that type");
            }
            int inputField = inputFieldOf(position, type);
            if (inputField < 0) {
                return Result.unsupported(
                        "could not tell which input field sort position " + position + " reads");
            }
            int ascending =
                    comparator.compare(keyWith(position, low(type)), keyWith(position, high(type)));
            if (ascending == 0) {
                return Result.unsupported(
                        "the sort-key comparator does not order position "
                                + position
                                + " by value");
            }
            boolean nullsLast =
                    comparator.compare(keyWith(position, null), keyWith(position, low(type))) > 0;
            fields.add(new SortField(inputField, binaryType.get(), ascending < 0, nullsLast));
        }
        return fields.isEmpty()
                ? Result.unsupported("the rank has no ORDER BY")
                : Result.of(fields);
    }

    /** The input field the selector copies into sort position {@code position}, or -1. */
    private int inputFieldOf(int position, LogicalType type) throws Exception {
        int found = -1;
        for (int field = 0; field < inputType.getFieldCount(); field++) {
            if (!inputType.getTypeAt(field).copy(true).equals(type.copy(true))) {
                continue;
            }
            GenericRowData input = new GenericRowData(inputType.getFieldCount());
            input.setField(field, high(type));
            RowData key = sortKeySelector.getKey(input);
            if (!key.isNullAt(position)) {
                if (found >= 0) {
                    return -1;
                }
                found = field;
            }
        }
        return found;
    }

    /** A sort key whose positions all hold their type's low value, but {@code position}. */
    private GenericRowData keyWith(int position, Object value) {
        GenericRowData key = new GenericRowData(sortKeyType.getFieldCount());
        for (int p = 0; p < sortKeyType.getFieldCount(); p++) {
            key.setField(p, p == position ? value : low(sortKeyType.getTypeAt(p)));
        }
        return key;
    }

    private static Object low(LogicalType type) {
        return value(type, false);
    }

    private static Object high(LogicalType type) {
        return value(type, true);
    }

    /** Two internal values of a supported type, the high one greater than the low one. */
    private static Object value(LogicalType type, boolean high) {
        int sign = high ? 1 : -1;
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return high;
            case TINYINT:
                return (byte) sign;
            case SMALLINT:
                return (short) sign;
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
            case INTERVAL_YEAR_MONTH:
                return sign;
            case BIGINT:
            case INTERVAL_DAY_TIME:
                return (long) sign;
            case FLOAT:
                return (float) sign;
            case DOUBLE:
                return (double) sign;
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                // One unit of the last digit: it fits any precision and scale.
                return DecimalData.fromBigDecimal(
                        new BigDecimal(BigInteger.valueOf(sign), decimal.getScale()),
                        decimal.getPrecision(),
                        decimal.getScale());
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return TimestampData.fromEpochMillis(high ? 1 : 0);
            case CHAR:
            case VARCHAR:
                return StringData.fromString(high ? "b" : "a");
            case BINARY:
            case VARBINARY:
                return new byte[] {(byte) (high ? 2 : 1)};
            default:
                throw new IllegalArgumentException("No probe values for " + type);
        }
    }

    /** The probed sort fields, or why there are none. */
    record Result(List<SortField> fields, String unsupported) {
        static Result of(List<SortField> fields) {
            return new Result(List.copyOf(fields), null);
        }

        static Result unsupported(String reason) {
            return new Result(List.of(), reason);
        }

        boolean supported() {
            return unsupported == null;
        }
    }
}
