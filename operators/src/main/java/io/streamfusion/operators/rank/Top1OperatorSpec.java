package io.streamfusion.operators.rank;

import java.io.Serializable;

/**
 * How the planner configured one {@code FastTop1Function}, as the columnar Top-1 ranker needs it.
 *
 * @param kernel the winner state and the ranking
 * @param outputRankNumber whether the rank number (always 1) is appended to every output row
 */
public record Top1OperatorSpec(Top1KernelSpec kernel, boolean outputRankNumber)
        implements Serializable {

    /** Flink's name for the winner state of {@code FastTop1Function}. */
    public static final String STATE_NAME = "Top1-Rank-State";
}
