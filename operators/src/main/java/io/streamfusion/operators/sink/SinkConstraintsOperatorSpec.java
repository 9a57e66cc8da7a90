package io.streamfusion.operators.sink;

import io.streamfusion.api.columnar.SinkConstraints;
import io.streamfusion.api.columnar.SinkConstraintsSpec;

import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.runtime.operators.sink.constraint.ConstraintEnforcerExecutor;
import org.apache.flink.table.runtime.operators.sink.constraint.EnforcerException;

import java.io.Serializable;
import java.util.List;

/**
 * What a {@link ConstraintEnforcerOperator} enforces: the native spec, the column names Flink's
 * messages name, and Flink's own executor for the one row shape the native enforcer cannot judge
 * (see {@link ConstraintEnforcerOperator}).
 */
record SinkConstraintsOperatorSpec(
        SinkConstraintsSpec constraints,
        List<String> notNullNames,
        List<String> charNames,
        List<String> binaryNames,
        ConstraintEnforcerExecutor flinkExecutor)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    SinkConstraintsOperatorSpec {
        notNullNames = List.copyOf(notNullNames);
        charNames = List.copyOf(charNames);
        binaryNames = List.copyOf(binaryNames);
    }

    /** Whether a NULL in field {@code position} reaches a length constraint's read. */
    boolean lengthConstrained(int position) {
        return constraints.charFields().stream().anyMatch(f -> f.position() == position)
                || constraints.binaryFields().stream().anyMatch(f -> f.position() == position);
    }

    /**
     * Flink's exception for a violation the native enforcer reported, with the message text of
     * Flink 2.2.1's constraint classes.
     */
    EnforcerException violation(byte outcome, int field, int length) {
        switch (outcome) {
            case SinkConstraints.NULL_VIOLATION:
                return new EnforcerException(
                        "Column '%s' is NOT NULL, however, a null value is being written into it. "
                                + String.format(
                                        "You can set job configuration '%s'='%s' "
                                                + "to suppress this exception and drop such records silently.",
                                        ExecutionConfigOptions.TABLE_EXEC_SINK_NOT_NULL_ENFORCER
                                                .key(),
                                        ExecutionConfigOptions.NotNullEnforcer.DROP.name()),
                        notNullNames.get(field));
            case SinkConstraints.CHAR_VIOLATION:
                return lengthViolation(
                        constraints.charFields().get(field),
                        "CHAR(",
                        "VARCHAR(",
                        length,
                        charNames.get(field));
            case SinkConstraints.BINARY_VIOLATION:
                return lengthViolation(
                        constraints.binaryFields().get(field),
                        "BINARY(",
                        "VARBINARY(",
                        length,
                        binaryNames.get(field));
            default:
                throw new IllegalStateException("Not a violation: outcome " + outcome);
        }
    }

    private static EnforcerException lengthViolation(
            SinkConstraintsSpec.LengthField field,
            String padded,
            String variable,
            int length,
            String name) {
        return new EnforcerException(
                "Column '%s'"
                        + String.format(
                                " is %s, however, a string of length %s is being written into it. "
                                        + "You can set job configuration '%s' "
                                        + "to control this behaviour.",
                                (field.pad() ? padded : variable) + field.length() + ")",
                                length,
                                ExecutionConfigOptions.TABLE_EXEC_SINK_TYPE_LENGTH_ENFORCER.key()),
                name);
    }
}
