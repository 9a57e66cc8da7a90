package io.streamfusion.api.columnar;

/**
 * One field of an ORDER BY, as a native kernel compares it.
 *
 * @param position the field's position in the input row
 * @param type how the field is stored
 * @param ascending whether smaller values come first
 * @param nullsLast whether a null sorts after every value (else before)
 */
public record SortField(int position, BinaryFieldType type, boolean ascending, boolean nullsLast)
        implements java.io.Serializable {

    public SortField {
        if (position < 0) {
            throw new IllegalArgumentException(
                    "A sort field position is not negative: " + position);
        }
    }
}
