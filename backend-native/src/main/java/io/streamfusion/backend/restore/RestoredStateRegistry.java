package io.streamfusion.backend.restore;

import io.streamfusion.backend.nativelib.EntryBatchWriter;
import io.streamfusion.backend.nativelib.NativeStateColumn;

import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import java.util.List;

/**
 * What a restore operation needs from the backend being built: a column for each restored
 * key/value state (registered on first sight) and a way to write batches into the store.
 */
public interface RestoredStateRegistry {

    /** The column of a restored key/value state or native timer queue, registered on first sight. */
    NativeStateColumn columnFor(StateMetaInfoSnapshot metaInfo);

    /** Writes the batch (its state indexes refer to {@code columns}) and clears it. */
    void write(List<NativeStateColumn> columns, EntryBatchWriter batch);
}
