package io.streamfusion.backend.columnar;

import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.api.common.state.ValueStateDescriptor;

/**
 * The registered state in which a Top-1 ranker whose winners wait for timers flags the keys whose
 * winner was emitted: its column family and its descriptor, which gives its TTL.
 */
public record EmittedFlags(NativeColumnFamily columnFamily, ValueStateDescriptor<Boolean> state) {}
