package io.streamfusion.backend.columnar;

import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * What every native kernel of one keyed backend needs to know of it: how its state keys are laid
 * out (the key-group prefix width, the job's maximum parallelism, the backend's key groups) and the
 * clock its TTL follows.
 */
public record ColumnarKernelContext(
        int keyGroupPrefixBytes,
        int numberOfKeyGroups,
        KeyGroupRange keyGroupRange,
        TtlTimeProvider ttlClock) {}
