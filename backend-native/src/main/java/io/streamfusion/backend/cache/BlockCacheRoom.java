package io.streamfusion.backend.cache;

/**
 * What a {@link BlockCacheLender} can spare, read at once, in bytes.
 *
 * @param capacity the block cache's capacity now, after reservations and the current loan
 * @param idleBytes block cache RocksDB does not use now and would not use with every memtable full
 * @param lentBytes the loan now: less than last lent when an operator's reservation took part of it
 *     back
 */
public record BlockCacheRoom(long capacity, long idleBytes, long lentBytes) {}
