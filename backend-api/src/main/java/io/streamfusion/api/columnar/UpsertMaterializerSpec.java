package io.streamfusion.api.columnar;

import java.util.List;

/**
 * What an {@link UpsertMaterializer} matches rows by, and the memory it may use.
 *
 * @param rowArity the number of fields of the sink's rows
 * @param upsertKey the fields of the input's upsert key, or none to match whole rows (their row
 *     kind aside), as Flink's materializer does without an upsert key
 * @param cacheBytes bytes of the slot's memory budget the materializer may keep the candidate lists
 *     of hot keys in; 0 for no cache
 * @param batchMemoryBytes bytes the operator's Arrow batches may take; charged to the slot's budget
 */
public record UpsertMaterializerSpec(
        int rowArity, List<KeyField> upsertKey, long cacheBytes, long batchMemoryBytes) {

    /**
     * One field of an upsert key, compared as Flink's generated equaliser compares it.
     *
     * @param position the field's position in the row
     * @param type how the field is stored
     */
    public record KeyField(int position, BinaryFieldType type) implements java.io.Serializable {}

    public UpsertMaterializerSpec {
        upsertKey = List.copyOf(upsertKey);
        for (KeyField field : upsertKey) {
            if (field.position() < 0 || field.position() >= rowArity) {
                throw new IllegalArgumentException(
                        "Upsert key field "
                                + field
                                + " is outside rows of "
                                + rowArity
                                + " fields");
            }
        }
        if (cacheBytes < 0 || batchMemoryBytes < 0) {
            throw new IllegalArgumentException("Memory sizes are not negative");
        }
    }
}
