package io.streamfusion.operators.deduplicate;

import io.streamfusion.operators.rank.Top1KernelSpec;

import org.apache.flink.types.RowKind;

import java.io.Serializable;

/**
 * How the planner configured one deduplication function, as {@link DeduplicateOperator} runs it.
 *
 * @param kernel the kept-row state and when a row replaces it
 * @param firstRowKind what a key's first row is emitted as: INSERT, unless Flink needs neither
 *     UPDATE_BEFORE nor INSERT (then UPDATE_AFTER, as its row-time deduplication emits)
 */
public record DeduplicateOperatorSpec(Top1KernelSpec kernel, RowKind firstRowKind)
        implements Serializable {}
