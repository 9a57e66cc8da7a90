package io.streamfusion.api.columnar;

import javax.annotation.Nullable;

import java.io.Serializable;

/**
 * One aggregate call of a {@code GROUP BY} as a {@link GroupAggregator} computes it.
 *
 * @param function the aggregate function
 * @param argumentField the argument's position in the input rows; -1 for {@code COUNT(*)}
 * @param argumentType how the argument is stored; null for {@code COUNT(*)}
 * @param filterField the position of the BOOLEAN field that FILTERs the call; -1 for none
 * @param decimalPrecision a DECIMAL argument's precision; 0 for other types
 * @param decimalScale a DECIMAL argument's scale; 0 for other types
 * @param elementTable the element table (see {@link ElementTableState}) the call keeps, or -1: a
 *     MIN or MAX over retractions counts its values in one of its own; a DISTINCT call shares one
 *     with the other DISTINCT calls of its argument, and its FILTER then says which rows the view
 *     counts for it, as Flink's distinct views do
 */
public record AggregateCall(
        AggregateFunction function,
        int argumentField,
        @Nullable BinaryFieldType argumentType,
        int filterField,
        int decimalPrecision,
        int decimalScale,
        int elementTable)
        implements Serializable {

    public AggregateCall {
        boolean decimal =
                argumentType == BinaryFieldType.COMPACT_DECIMAL
                        || argumentType == BinaryFieldType.DECIMAL;
        if (decimal != (decimalPrecision > 0)) {
            throw new IllegalArgumentException("A DECIMAL argument, and only one, has a precision");
        }
        if ((argumentField < 0) != (argumentType == null)) {
            throw new IllegalArgumentException("An argument needs a position and a type");
        }
        if ((function == AggregateFunction.COUNT_STAR) != (argumentField < 0)) {
            throw new IllegalArgumentException(
                    function + " takes " + (argumentField < 0 ? "an argument" : "no argument"));
        }
        if (function.keepsElementTable() && elementTable < 0) {
            throw new IllegalArgumentException(function + " keeps an element table");
        }
    }

    /** A call whose argument is no DECIMAL, keeping no element table. */
    public AggregateCall(
            AggregateFunction function,
            int argumentField,
            @Nullable BinaryFieldType argumentType,
            int filterField) {
        this(function, argumentField, argumentType, filterField, 0, 0, -1);
    }

    /** This call, keeping the element table {@code table}. */
    public AggregateCall keeping(int table) {
        return new AggregateCall(
                function,
                argumentField,
                argumentType,
                filterField,
                decimalPrecision,
                decimalScale,
                table);
    }

    /** {@code COUNT(*)}, filtered by {@code filterField} (-1 for none). */
    public static AggregateCall countStar(int filterField) {
        return new AggregateCall(AggregateFunction.COUNT_STAR, -1, null, filterField);
    }
}
