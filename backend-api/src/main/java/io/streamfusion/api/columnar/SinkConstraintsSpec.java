package io.streamfusion.api.columnar;

import java.io.Serializable;
import java.util.List;

/**
 * What a {@link SinkConstraints} enforces: the constraints Flink's {@code ConstraintEnforcer} built
 * for one sink, in its order of checks.
 *
 * @param rowArity the number of fields of the sink's rows
 * @param notNullFields the NOT NULL columns, in Flink's order
 * @param notNullMode what a NULL in one of them does
 * @param charFields the CHAR/VARCHAR columns with a length constraint, in Flink's order
 * @param binaryFields the BINARY/VARBINARY columns with a length constraint, in Flink's order
 * @param lengthMode what a wrong length does (unused without length fields)
 * @param variableFields the positions, ascending, whose values may lie in a row's variable-length
 *     part: every string, binary, wide decimal, wide timestamp and nested field
 */
public record SinkConstraintsSpec(
        int rowArity,
        List<Integer> notNullFields,
        NotNullMode notNullMode,
        List<LengthField> charFields,
        List<LengthField> binaryFields,
        LengthMode lengthMode,
        List<Integer> variableFields)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** {@code table.exec.sink.not-null-enforcer}. */
    public enum NotNullMode {
        ERROR,
        DROP
    }

    /** {@code table.exec.sink.type-length-enforcer}, where it constrains anything. */
    public enum LengthMode {
        TRIM_PAD,
        ERROR
    }

    /**
     * A length constraint on one field.
     *
     * @param position the field's position in the row
     * @param length the declared length, in characters or bytes
     * @param pad whether the type is CHAR/BINARY (padded, and too short is wrong) rather than
     *     VARCHAR/VARBINARY
     */
    public record LengthField(int position, int length, boolean pad) implements Serializable {
        public LengthField {
            if (position < 0 || length < 0) {
                throw new IllegalArgumentException("A length field needs a position and a length");
            }
        }
    }

    public SinkConstraintsSpec {
        notNullFields = List.copyOf(notNullFields);
        charFields = List.copyOf(charFields);
        binaryFields = List.copyOf(binaryFields);
        variableFields = List.copyOf(variableFields);
        if (rowArity < 0) {
            throw new IllegalArgumentException("A row has no negative number of fields");
        }
    }
}
