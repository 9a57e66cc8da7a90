package io.streamfusion.operators.sink;

import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The serializer of the states the columnar upsert materializer registers under the names of
 * Flink's own materializer states ({@code values}, {@code list}) and never writes. Their only
 * purpose is the savepoint: Flink's operator, restored from it, asks for its state with its own
 * serializer, which is incompatible with this one, so the restore fails naming this class instead
 * of starting silently with no rows. The rows are in the candidate index, which only the columnar
 * operator reads.
 */
public final class UpsertIndexMarkerSerializer extends TypeSerializerSingleton<Boolean> {

    private static final long serialVersionUID = 1L;

    public static final UpsertIndexMarkerSerializer INSTANCE = new UpsertIndexMarkerSerializer();

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public Boolean createInstance() {
        return Boolean.FALSE;
    }

    @Override
    public Boolean copy(Boolean from) {
        return from;
    }

    @Override
    public Boolean copy(Boolean from, Boolean reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return 1;
    }

    @Override
    public void serialize(Boolean record, DataOutputView target) throws java.io.IOException {
        target.writeBoolean(record);
    }

    @Override
    public Boolean deserialize(DataInputView source) throws java.io.IOException {
        return source.readBoolean();
    }

    @Override
    public Boolean deserialize(Boolean reuse, DataInputView source) throws java.io.IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws java.io.IOException {
        target.writeBoolean(source.readBoolean());
    }

    @Override
    public TypeSerializerSnapshot<Boolean> snapshotConfiguration() {
        return new Snapshot();
    }

    @Override
    public String toString() {
        return "UpsertIndexMarkerSerializer (this sink's rows are in StreamFusion's candidate index"
                + " '"
                + UpsertOperatorSpec.INDEX_NAME
                + "'; restore with streamfusion.operators.enabled: true)";
    }

    /** The marker's snapshot; compatible with itself only. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Boolean> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
