package io.streamfusion.api.columnar;

import java.util.List;

/**
 * What a {@link Top1Ranker} ranks by.
 *
 * @param rowArity the number of fields of the input rows
 * @param sortFields the ORDER BY fields, most significant first; none for an arrival-order
 *     deduplication, where every row ties
 * @param replacement when a row takes its key's place
 * @param keepsRows whether a key's state value is its kept row ({@code RowData}); otherwise it is
 *     Flink's {@code Boolean} {@code true}, as keep-first deduplication on processing time keeps
 *     it, which only an unsorted {@link Top1Replacement#STRICTLY_FIRST} ranking can use
 * @param returnReplacedWinners whether results carry the bytes of winners a row replaced (needed to
 *     emit an UPDATE_BEFORE of them)
 * @param restampsSeenKeys whether every key of a batch has its kept row written again, which
 *     restarts its TTL, even when every row of the batch lost to it: Flink's row-time mini-batch
 *     deduplication rewrites each key's row at the end of every bundle
 * @param cacheBytes bytes of the slot's memory budget the ranker may keep hot winners in; 0 for no
 *     cache
 * @param batchMemoryBytes bytes the operator's Arrow batches may take; also charged to the slot's
 *     budget
 */
public record Top1RankerSpec(
        int rowArity,
        List<SortField> sortFields,
        Top1Replacement replacement,
        boolean keepsRows,
        boolean returnReplacedWinners,
        boolean restampsSeenKeys,
        long cacheBytes,
        long batchMemoryBytes) {

    public Top1RankerSpec {
        sortFields = List.copyOf(sortFields);
        if (!keepsRows
                && (replacement != Top1Replacement.STRICTLY_FIRST || !sortFields.isEmpty())) {
            throw new IllegalArgumentException(
                    "Only a ranking that keeps each key's first row (unsorted, strictly first) can"
                            + " keep seen flags instead of rows");
        }
        for (SortField field : sortFields) {
            if (field.position() >= rowArity) {
                throw new IllegalArgumentException(
                        "Sort field " + field + " is outside rows of " + rowArity + " fields");
            }
        }
        if (cacheBytes < 0 || batchMemoryBytes < 0) {
            throw new IllegalArgumentException("Memory sizes are not negative");
        }
    }
}
