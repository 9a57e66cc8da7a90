package io.streamfusion.backend.nativelib;

import io.streamfusion.api.columnar.SinkConstraints;
import io.streamfusion.api.columnar.SinkConstraintsSpec;

import java.util.List;

/**
 * The native constraint enforcer of one operator instance (native/src/columnar/constraints): no
 * store, no state, no share of the slot budget; only the spec it checks rows against.
 */
public final class NativeSinkConstraints extends NativeHandle implements SinkConstraints {

    private NativeSinkConstraints(long handle) {
        super(handle, "StreamFusion sink constraint enforcer");
    }

    /**
     * Opens an enforcer.
     *
     * @param batchSchemaAddress an exported {@code ArrowSchema} of the batches; released here
     */
    public static NativeSinkConstraints open(SinkConstraintsSpec spec, long batchSchemaAddress) {
        NativeLibrary.ensureLoaded();
        long handle =
                NativeMethods.openSinkConstraints(
                        spec.rowArity(),
                        ints(spec.notNullFields()),
                        spec.notNullMode().ordinal(),
                        lengthFields(spec.charFields()),
                        lengthFields(spec.binaryFields()),
                        // Codes of native/src/jni/constraint_entry_points.rs: IGNORE is 0.
                        spec.lengthMode().ordinal() + 1,
                        ints(spec.variableFields()),
                        batchSchemaAddress);
        return new NativeSinkConstraints(handle);
    }

    private static int[] ints(List<Integer> values) {
        return values.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int[] lengthFields(List<SinkConstraintsSpec.LengthField> fields) {
        int[] ints = new int[fields.size() * 3];
        int at = 0;
        for (SinkConstraintsSpec.LengthField field : fields) {
            ints[at++] = field.position();
            ints[at++] = field.length();
            ints[at++] = field.pad() ? 1 : 0;
        }
        return ints;
    }

    @Override
    public void enforce(long batchArrayAddress, long resultArrayAddress, long resultSchemaAddress) {
        NativeMethods.enforceSinkConstraints(
                handle(), batchArrayAddress, resultArrayAddress, resultSchemaAddress);
    }

    @Override
    void free(long handle) {
        NativeMethods.closeSinkConstraints(handle);
    }
}
