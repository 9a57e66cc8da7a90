package io.streamfusion.backend.restore;

import io.streamfusion.backend.nativelib.EntryBatchWriter;
import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import java.util.List;

/**
 * What a restore operation needs from the backend being built: a column family for each restored
 * key/value state (registered on first sight) and a way to write batches into the store.
 */
public interface RestoredStateRegistry {

    /**
     * The column family of a restored key/value state or native timer queue, registered on first
     * sight.
     */
    NativeColumnFamily columnFor(StateMetaInfoSnapshot metaInfo);

    /** Writes the batch (its state indexes refer to {@code columnFamilies}) and clears it. */
    void write(List<NativeColumnFamily> columnFamilies, EntryBatchWriter batch);
}
