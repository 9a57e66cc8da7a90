package io.streamfusion.api.columnar;

/**
 * When a row takes its key's place in a {@link Top1Ranker}. Flink's Top-1 and its deduplications
 * keep one row per key and differ only in this rule. The ordinals are the codes the native ranker
 * reads.
 */
public enum Top1Replacement {
    /**
     * A row that sorts strictly first: Flink's {@code FastTop1Function}, where a tie keeps the
     * incumbent.
     */
    STRICTLY_FIRST,
    /**
     * A row that sorts first or ties: keep-last deduplication, where the later of equal rows wins
     * (with no sort field, every row ties).
     */
    FIRST_OR_TIE,
    /**
     * Like {@link #FIRST_OR_TIE}, but a row byte-identical to the incumbent changes nothing:
     * Flink's keep-last deduplication on processing time without TTL, whose generated equaliser
     * compares two {@code BinaryRowData} by their bytes, RowKind included, and emits nothing when
     * they are equal.
     */
    FIRST_OR_TIE_UNLESS_IDENTICAL
}
