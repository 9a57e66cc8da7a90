package io.streamfusion.operators.deduplicate;

import io.streamfusion.operators.batch.MiniBatchBundle;
import io.streamfusion.operators.rank.Top1KernelSpec;

import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.io.Serializable;

/**
 * How the planner configured one deduplication function, as {@link DeduplicateOperator} runs it.
 *
 * @param kernel the kept-row state and when a row replaces it
 * @param firstRowKind what a key's first row is emitted as: INSERT, unless Flink needs neither
 *     UPDATE_BEFORE nor INSERT (then UPDATE_AFTER, as its row-time deduplication emits)
 * @param miniBatch the bundle of Flink's mini-batch deduplication, or null without mini-batch
 */
public record DeduplicateOperatorSpec(
        Top1KernelSpec kernel, RowKind firstRowKind, @Nullable MiniBatchBundle.Spec miniBatch)
        implements Serializable {}
