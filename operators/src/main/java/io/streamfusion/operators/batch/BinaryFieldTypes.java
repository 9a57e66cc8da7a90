package io.streamfusion.operators.batch;

import io.streamfusion.api.columnar.BinaryFieldType;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import java.util.Optional;

/** How the native kernels read and compare a field of each SQL type in a {@code BinaryRowData}. */
public final class BinaryFieldTypes {

    private BinaryFieldTypes() {}

    /** How a field of {@code type} is stored, if a native kernel can compare it. */
    public static Optional<BinaryFieldType> of(LogicalType type) {
        LogicalTypeRoot root = type.getTypeRoot();
        switch (root) {
            case BOOLEAN:
                return Optional.of(BinaryFieldType.BOOLEAN);
            case TINYINT:
                return Optional.of(BinaryFieldType.TINYINT);
            case SMALLINT:
                return Optional.of(BinaryFieldType.SMALLINT);
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
            case INTERVAL_YEAR_MONTH:
                return Optional.of(BinaryFieldType.INT);
            case BIGINT:
            case INTERVAL_DAY_TIME:
                return Optional.of(BinaryFieldType.BIGINT);
            case FLOAT:
                return Optional.of(BinaryFieldType.FLOAT);
            case DOUBLE:
                return Optional.of(BinaryFieldType.DOUBLE);
            case DECIMAL:
                return Optional.of(
                        DecimalData.isCompact(((DecimalType) type).getPrecision())
                                ? BinaryFieldType.COMPACT_DECIMAL
                                : BinaryFieldType.DECIMAL);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Optional.of(
                        TimestampData.isCompact(precisionOf(type))
                                ? BinaryFieldType.COMPACT_TIMESTAMP
                                : BinaryFieldType.TIMESTAMP);
            case CHAR:
            case VARCHAR:
            case BINARY:
            case VARBINARY:
                return Optional.of(BinaryFieldType.BYTES);
            default:
                return Optional.empty();
        }
    }

    private static int precisionOf(LogicalType type) {
        return LogicalTypeChecks.getPrecision(type);
    }
}
