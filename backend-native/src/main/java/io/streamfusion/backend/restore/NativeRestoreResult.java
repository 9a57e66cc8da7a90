package io.streamfusion.backend.restore;

import io.streamfusion.backend.nativelib.NativeStore;
import io.streamfusion.backend.snapshot.ConfirmedSnapshotFiles;

import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import javax.annotation.Nullable;

import java.util.List;
import java.util.UUID;

/**
 * What a native restore leaves behind: the open store, the states it holds, and, when the instance
 * is exactly the restored checkpoint's, the identity and files that later incremental checkpoints
 * continue from.
 *
 * @param confirmedFiles null after a rescaling restore, whose instance shares no files with the
 *     restored checkpoints
 */
public record NativeRestoreResult(
        NativeStore store,
        List<StateMetaInfoSnapshot> stateMetaInfos,
        UUID backendIdentifier,
        @Nullable ConfirmedSnapshotFiles confirmedFiles) {}
