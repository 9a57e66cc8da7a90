package io.streamfusion.backend.state;

import io.streamfusion.api.CandidateIndexState;
import io.streamfusion.backend.nativelib.EntryBatchWriter;
import io.streamfusion.backend.nativelib.NativeColumnFamily;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.util.MathUtils;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * {@link CandidateIndexState} on disk, stored as the entries of an ordinary Flink map state ({@code
 * MapState<byte[], byte[]>}) so that snapshots, rescaling and canonical savepoints need nothing of
 * their own. The user keys of one Flink key are:
 *
 * <ul>
 *   <li>{@code [0x00]}: the next sequence number, the count, the sequence of the latest candidate
 *       (-1 if none), and the time of the last write (or TTL-refreshing read), four longs;
 *   <li>{@code [0x01][sequence]}: a candidate, serialized, in append order;
 *   <li>{@code [0x02][hash]}: the candidates with that value hash, ascending by sequence, each as
 *       its sequence, its length and its serialized bytes.
 * </ul>
 *
 * Each kind has its own user-key length, so the length prefix that Flink's byte-array serializer
 * writes keeps the kinds apart and sequences in order. Append and retract are one point read of the
 * hash entry (and of the counter, unless the memo has it) and one atomic write batch of the
 * candidate and hash entries: the hash entry holds the candidates' bytes, so a retraction compares
 * them in place and never reads a candidate entry, and the counter is written back by the {@link
 * CandidateIndexMemo}. Only retracting the latest candidate also seeks backwards for the one before
 * it. No operation reads more than one hash entry's candidates, so memory per key is constant
 * however many candidates there are (as long as values rarely share a hash).
 *
 * <p>Under TTL every operation reads the counter first; an expired index is deleted there, so
 * nothing after it can see an expired candidate. Before that, {@link CandidateIndexSweep} checks a
 * few other keys, so indexes that are never touched again are deleted too.
 */
public final class StreamFusionCandidateIndexState<K, V>
        extends AbstractStreamFusionState<K, VoidNamespace, Map<byte[], byte[]>>
        implements CandidateIndexState<V> {

    private static final byte COUNTER = 0;
    private static final byte CANDIDATE = 1;
    private static final byte BY_HASH = 2;
    private static final byte[] KINDS = {COUNTER, BY_HASH, CANDIDATE};
    private static final int ITERATION_BATCH_BYTES = 32 << 10;

    /** A map-state value starts with Flink's not-null flag and the byte-array length. */
    static final int MAP_VALUE_HEADER = 1 + Integer.BYTES;

    private final TypeSerializer<V> candidateSerializer;
    private final CandidateIndexExpiry expiry;
    private final CandidateIndexMemo memo;
    private final CandidateIndexSweep sweep;
    private final DataInputDeserializer candidateIn = new DataInputDeserializer();
    private final StoredValueDecoding.Decoder<V> candidateDecoder = this::deserializeCandidate;
    private final EntryBatchWriter batch = new EntryBatchWriter(256);

    public StreamFusionCandidateIndexState(
            KeyedStateContext<K> context,
            NativeColumnFamily columnFamily,
            RegisteredKeyValueStateBackendMetaInfo<VoidNamespace, Map<byte[], byte[]>> metaInfo,
            TypeSerializer<V> candidateSerializer,
            CandidateIndexExpiry expiry,
            CandidateIndexMemo memo) {
        super(context, columnFamily, metaInfo, null);
        this.candidateSerializer = candidateSerializer;
        this.expiry = expiry;
        this.memo = memo;
        this.sweep =
                new CandidateIndexSweep(
                        columnFamily,
                        expiry,
                        memo,
                        context.keyGroupPrefixBytes(),
                        context.skippedCorruptEntries());
        setCurrentNamespace(VoidNamespace.INSTANCE);
    }

    @Override
    public long append(V candidate) {
        byte[] base = currentKeyBytes();
        CandidateCounter counter = readCounter(base);
        long sequence = counter.nextSequence();
        byte[] value = serialize(candidate, candidateSerializer);
        byte[] hashKey = hashKey(base, hash(value));
        byte[] sameHash = columnFamily.get(hashKey);
        CandidateCounter next = counter.appended(expiry.now());
        byte[] stored = mapValue(value);
        batch.clear();
        batch.add(0, candidateKey(base, sequence), stored);
        byte[] appended;
        try {
            appended = CandidateHashEntry.withAppended(sameHash, sequence, value);
        } catch (MalformedEntryException e) {
            throw corrupt(base, e);
        }
        batch.add(0, hashKey, appended);
        write(batch);
        memo.remember(base, next, true, stored);
        return sequence;
    }

    @Override
    public boolean retract(V candidate) {
        byte[] base = currentKeyBytes();
        CandidateCounter counter = readCounter(base);
        if (counter.count() == 0) {
            return false;
        }
        byte[] value = serialize(candidate, candidateSerializer);
        byte[] hashKey = hashKey(base, hash(value));
        byte[] sameHash = columnFamily.get(hashKey);
        if (sameHash == null) {
            return false;
        }
        CandidateHashEntry.Match match;
        try {
            match = CandidateHashEntry.find(sameHash, value);
        } catch (MalformedEntryException e) {
            throw corrupt(base, e);
        }
        if (match == null) {
            return false;
        }
        long sequence = match.sequence();
        boolean wasLatest = counter.latestSequence() == sequence;
        long latest = wasLatest ? latestSequenceBefore(base, sequence) : counter.latestSequence();
        byte[] latestStored = wasLatest ? null : memo.latest(base, latest);
        CandidateCounter next = counter.retracted(latest, expiry.now());
        byte[] rest = CandidateHashEntry.without(sameHash, match);
        batch.clear();
        batch.addDelete(0, candidateKey(base, sequence));
        if (rest == null) {
            batch.addDelete(0, hashKey);
        } else {
            batch.add(0, hashKey, rest);
        }
        write(batch);
        memo.remember(base, next, true, latestStored);
        return true;
    }

    /** A memo for the index stored in {@code columnFamily}, writing counters back into it. */
    public static CandidateIndexMemo newMemo(NativeColumnFamily columnFamily) {
        return new CandidateIndexMemo(
                (base, counter) -> columnFamily.put(counterKey(base), counter.toMapValue()));
    }

    /** One atomic write of the batch's puts and deletes. */
    private void write(EntryBatchWriter entries) {
        context.store().applyBatch(List.of(columnFamily), entries.toByteArray());
    }

    /**
     * The sequence of the last candidate before {@code latest}, which is being retracted, found by
     * one reverse seek below it; -1 if none.
     */
    private long latestSequenceBefore(byte[] base, long latest) {
        byte[] key =
                columnFamily.lastKeyWithPrefix(
                        kindPrefix(base, CANDIDATE), candidateKey(base, latest));
        return key == null
                ? -1
                : ByteBuffer.wrap(key, key.length - Long.BYTES, Long.BYTES).getLong();
    }

    @Nullable
    @Override
    public V latest() throws IOException {
        byte[] base = currentKeyBytes();
        CandidateCounter counter = readCounterForQuery(base);
        long latest = counter.latestSequence();
        if (latest < 0) {
            return null;
        }
        byte[] stored = memo.latest(base, latest);
        if (stored == null) {
            stored = columnFamily.get(candidateKey(base, latest));
            if (stored == null) {
                return null;
            }
            memo.remember(base, counter, false, stored);
        }
        return decodeStored(base, stored, candidateDecoder);
    }

    @Override
    public long count() {
        return readCounterForQuery(currentKeyBytes()).count();
    }

    @Override
    public Iterable<V> candidates() {
        byte[] base = currentKeyBytes();
        if (readCounterForQuery(base).count() == 0) {
            return List.of();
        }
        byte[] prefix = kindPrefix(base, CANDIDATE);
        return () ->
                new Iterator<>() {
                    private final PrefixEntries entries =
                            new PrefixEntries(columnFamily, prefix, ITERATION_BATCH_BYTES);

                    @Override
                    public boolean hasNext() {
                        return entries.hasNext();
                    }

                    @Override
                    public V next() {
                        PrefixEntries.Entry entry = entries.next();
                        return decodeStored(entry.key(), entry.value(), candidateDecoder);
                    }
                };
    }

    @Override
    public void clear() {
        byte[] base = currentKeyBytes();
        columnFamily.deletePrefix(base);
        memo.forget(base);
    }

    private V deserializeCandidate(byte[] mapValue) throws IOException {
        if (mapValue.length < MAP_VALUE_HEADER) {
            throw new IOException("a candidate entry shorter than its header");
        }
        candidateIn.setBuffer(mapValue, MAP_VALUE_HEADER, mapValue.length - MAP_VALUE_HEADER);
        return candidateSerializer.deserialize(candidateIn);
    }

    /** The counter of {@code base}; an expired index is deleted here and reads as empty. */
    private CandidateCounter readCounter(byte[] base) {
        sweep.run();
        CandidateCounter remembered = memo.counter(base);
        CandidateCounter read = remembered != null ? remembered : readStoredCounter(base);
        if (expiry.expired(read.lastAccess())) {
            columnFamily.deletePrefix(base);
            memo.forget(base);
            read = CandidateCounter.EMPTY;
        }
        if (read != remembered) {
            memo.remember(base, read, false, null);
        }
        return read;
    }

    private CandidateCounter readStoredCounter(byte[] base) {
        byte[] stored = columnFamily.get(counterKey(base));
        try {
            return stored == null ? CandidateCounter.EMPTY : CandidateCounter.parse(stored);
        } catch (MalformedEntryException e) {
            throw corrupt(base, e);
        }
    }

    private StateCorruptionException corrupt(byte[] base, MalformedEntryException e) {
        return StateCorruptionException.atKey(
                columnFamily.stateName(), base, context.keyGroupPrefixBytes(), e.getMessage());
    }

    /**
     * The key and namespace ({@code base}) of a stored index entry, told by the user key at its end
     * (length prefix and kind byte); null if the key is not an index entry.
     */
    @Nullable
    static byte[] baseOf(byte[] key) {
        for (byte kind : KINDS) {
            int userKeyLength = userKeyLength(kind);
            int start = key.length - Integer.BYTES - userKeyLength;
            if (start >= 0
                    && ByteBuffer.wrap(key, start, Integer.BYTES).getInt() == userKeyLength
                    && key[start + Integer.BYTES] == kind) {
                return Arrays.copyOf(key, start);
            }
        }
        return null;
    }

    /** Whether {@code key} is the counter entry of {@code base}. */
    static boolean isCounterKey(byte[] key, byte[] base) {
        return Arrays.equals(key, counterKey(base));
    }

    /** {@link #readCounter}, renewing the TTL when reads renew it ({@code OnReadAndWrite}). */
    private CandidateCounter readCounterForQuery(byte[] base) {
        CandidateCounter counter = readCounter(base);
        if (expiry.refreshOnRead() && counter.count() > 0) {
            CandidateCounter renewed = counter.accessed(expiry.now());
            memo.remember(base, renewed, true, memo.latest(base, counter.latestSequence()));
            return renewed;
        }
        return counter;
    }

    /** The hash that picks a candidate's hash entry, of its serialized bytes. */
    @VisibleForTesting
    public static int hash(byte[] serializedCandidate) {
        return MathUtils.murmurHash(Arrays.hashCode(serializedCandidate));
    }

    /** {@code base} followed by the user key as Flink's byte-array serializer writes it. */
    private static ByteBuffer userKey(byte[] base, int userKeyLength, int written) {
        ByteBuffer key = ByteBuffer.allocate(base.length + Integer.BYTES + written);
        return key.put(base).putInt(userKeyLength);
    }

    private static int userKeyLength(byte kind) {
        return kind == COUNTER ? 1 : kind == CANDIDATE ? 1 + Long.BYTES : 1 + Integer.BYTES;
    }

    private static byte[] kindPrefix(byte[] base, byte kind) {
        return userKey(base, userKeyLength(kind), 1).put(kind).array();
    }

    private static byte[] counterKey(byte[] base) {
        return kindPrefix(base, COUNTER);
    }

    private static byte[] candidateKey(byte[] base, long sequence) {
        return userKey(base, userKeyLength(CANDIDATE), userKeyLength(CANDIDATE))
                .put(CANDIDATE)
                .putLong(sequence)
                .array();
    }

    private static byte[] hashKey(byte[] base, int hash) {
        return userKey(base, userKeyLength(BY_HASH), userKeyLength(BY_HASH))
                .put(BY_HASH)
                .putInt(hash)
                .array();
    }

    /**
     * A map-state value: Flink's not-null flag, then the byte-array serializer's length and bytes.
     */
    static byte[] mapValue(byte[] payload) {
        return mapValueWithRoomFor(payload.length).put(payload).array();
    }

    /**
     * A map-state value of {@code payloadLength} bytes, its header written, positioned at the
     * payload.
     */
    static ByteBuffer mapValueWithRoomFor(int payloadLength) {
        return ByteBuffer.allocate(MAP_VALUE_HEADER + payloadLength)
                .put((byte) 0)
                .putInt(payloadLength);
    }
}
