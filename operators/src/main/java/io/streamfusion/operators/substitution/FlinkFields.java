package io.streamfusion.operators.substitution;

import java.lang.reflect.Field;

/**
 * Reads fields that Flink 2.2.1's runtime objects keep private or protected: the only way to learn
 * how the planner configured an operator from the operator itself (the plan is gone by the time a
 * StreamGraph exists). Each read names the class that declares the field, so a Flink version that
 * renames one fails with a message saying which, and the node falls back.
 */
public final class FlinkFields {

    private FlinkFields() {}

    /** The value of field {@code name}, declared by {@code declaringClass}, of {@code target}. */
    @SuppressWarnings("unchecked")
    public static <T> T read(Object target, Class<?> declaringClass, String name) {
        try {
            return (T) field(declaringClass, name).get(target);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw unsupported("read", declaringClass, name, e);
        }
    }

    /** Sets field {@code name}, declared by {@code declaringClass}, of {@code target}. */
    public static void write(Object target, Class<?> declaringClass, String name, Object value) {
        try {
            field(declaringClass, name).set(target, value);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw unsupported("set", declaringClass, name, e);
        }
    }

    private static Field field(Class<?> declaringClass, String name) throws NoSuchFieldException {
        Field field = declaringClass.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }

    private static UnsupportedFlinkInternalsException unsupported(
            String action, Class<?> declaringClass, String name, Exception cause) {
        return new UnsupportedFlinkInternalsException(
                "cannot "
                        + action
                        + " "
                        + declaringClass.getName()
                        + "."
                        + name
                        + " ("
                        + cause
                        + "); this StreamFusion build supports Flink 2.2.1");
    }

    /** A Flink internal this build relies on is not what Flink 2.2.1 has. */
    public static final class UnsupportedFlinkInternalsException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnsupportedFlinkInternalsException(String message) {
            super(message);
        }
    }
}
