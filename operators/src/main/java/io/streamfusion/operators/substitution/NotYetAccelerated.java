package io.streamfusion.operators.substitution;

import io.streamfusion.operators.OperatorConfig;

import org.apache.flink.streaming.api.graph.StreamNode;

import javax.annotation.Nullable;

import java.util.List;

/**
 * The stateful SQL operators StreamFusion has no columnar operator for yet, named in the report so
 * that no node falls back silently. They are told by the planner's node names ({@code
 * GroupAggregate[3]} and the like).
 */
final class NotYetAccelerated implements NodeSubstitution {

    private static final List<String> NODE_NAMES =
            List.of(
                    "GroupAggregate",
                    "LocalGroupAggregate",
                    "GlobalGroupAggregate",
                    "IncrementalGroupAggregate",
                    "Deduplicate",
                    "Join",
                    "ChangelogNormalize",
                    "WindowAggregate",
                    "LocalWindowAggregate",
                    "GlobalWindowAggregate",
                    "GroupWindowAggregate",
                    "WindowDeduplicate",
                    "WindowRank",
                    "WindowJoin",
                    "IntervalJoin",
                    "TemporalJoin",
                    "OverAggregate",
                    "Match");

    @Nullable
    @Override
    public String recognize(StreamNode node) {
        String name = node.getOperatorName();
        for (String known : NODE_NAMES) {
            if (name != null && name.startsWith(known + "[")) {
                return known;
            }
        }
        return null;
    }

    @Override
    public Decision decide(StreamNode node, OperatorConfig config) {
        return Decision.keep(
                "StreamFusion has no columnar operator for " + recognize(node) + " yet");
    }
}
