package io.streamfusion.backend.restore;

import io.streamfusion.backend.nativelib.KeyRange;

import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.KeyGroupRange;

import java.util.ArrayList;
import java.util.List;

/**
 * Key ranges of sets of key groups. Every stored key starts with its key-group prefix, so key
 * groups {@code a..b} are exactly the keys from prefix {@code a} up to, not including, prefix
 * {@code b + 1}.
 */
final class KeyGroupKeyRanges {

    private KeyGroupKeyRanges() {}

    static KeyRange of(KeyGroupRange keyGroups, int prefixBytes) {
        return between(keyGroups.getStartKeyGroup(), keyGroups.getEndKeyGroup() + 1, prefixBytes);
    }

    /**
     * The ranges to delete from an instance holding {@code current} so that only {@code target}
     * remains.
     */
    static List<KeyRange> outside(KeyGroupRange current, KeyGroupRange target, int prefixBytes) {
        List<KeyRange> ranges = new ArrayList<>(2);
        if (current.getStartKeyGroup() < target.getStartKeyGroup()) {
            ranges.add(between(current.getStartKeyGroup(), target.getStartKeyGroup(), prefixBytes));
        }
        if (current.getEndKeyGroup() > target.getEndKeyGroup()) {
            ranges.add(
                    between(
                            target.getEndKeyGroup() + 1,
                            current.getEndKeyGroup() + 1,
                            prefixBytes));
        }
        return ranges;
    }

    private static KeyRange between(int beginKeyGroup, int endKeyGroup, int prefixBytes) {
        return new KeyRange(prefix(beginKeyGroup, prefixBytes), prefix(endKeyGroup, prefixBytes));
    }

    private static byte[] prefix(int keyGroup, int prefixBytes) {
        byte[] bytes = new byte[prefixBytes];
        CompositeKeySerializationUtils.serializeKeyGroup(keyGroup, bytes);
        return bytes;
    }
}
