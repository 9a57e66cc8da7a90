package io.streamfusion.operators.substitution;

import io.streamfusion.operators.OperatorConfig;
import io.streamfusion.operators.OperatorOptions;
import io.streamfusion.operators.aggregate.GroupAggregateSubstitution;
import io.streamfusion.operators.deduplicate.DeduplicateSubstitution;
import io.streamfusion.operators.rank.Top1Substitution;
import io.streamfusion.operators.sink.ConstraintEnforcerSubstitution;
import io.streamfusion.operators.sink.UpsertMaterializerSubstitution;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateChangelogOptions;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Replaces, in place, each node of a job's StreamGraph that a columnar operator supports: only the
 * node's operator factory changes; its id, uid, key selector, serializers, parallelism and edges
 * stay. Every node of a known SQL operator family is reported, replaced or not, with the reason,
 * and the report is logged once per job.
 */
public final class StreamGraphRewriter {

    private static final Logger LOG = LoggerFactory.getLogger(StreamGraphRewriter.class);

    /** What {@code state.backend.type} may say for StreamFusion. */
    private static final Set<String> STREAMFUSION_BACKENDS =
            Set.of("streamfusion", "io.streamfusion.backend.StreamFusionStateBackendFactory");

    private final List<NodeSubstitution> families =
            List.of(
                    new Top1Substitution(),
                    new DeduplicateSubstitution(),
                    new GroupAggregateSubstitution(),
                    new UpsertMaterializerSubstitution(),
                    new ConstraintEnforcerSubstitution(),
                    new NotYetAccelerated());

    /**
     * Rewrites {@code graph} under {@code config}, the job's configuration, and logs the report.
     */
    public SubstitutionReport rewrite(StreamGraph graph, ReadableConfig config) {
        SubstitutionReport report = consider(graph, config, true);
        LOG.info("{}", report);
        return report;
    }

    /** What {@link #rewrite} would do, without changing the graph. */
    public SubstitutionReport explain(StreamGraph graph, ReadableConfig config) {
        return consider(graph, config, false);
    }

    private SubstitutionReport consider(StreamGraph graph, ReadableConfig config, boolean replace) {
        String job = graph.getJobName();
        if (graph.getStreamNodes().stream()
                .anyMatch(
                        node ->
                                node.getOperatorFactory()
                                        instanceof ColumnarOrFlinkOperatorFactory)) {
            return SubstitutionReport.skipped(job, "its StreamGraph was rewritten already");
        }
        Optional<String> skip = whyNotThisJob(config);
        if (skip.isPresent()) {
            return SubstitutionReport.skipped(job, skip.get());
        }
        OperatorConfig operatorConfig = OperatorConfig.from(config);
        List<StreamNode> nodes = new ArrayList<>(graph.getStreamNodes());
        nodes.sort(Comparator.comparingInt(StreamNode::getId));
        List<SubstitutionOutcome> outcomes = new ArrayList<>();
        for (StreamNode node : nodes) {
            for (NodeSubstitution family : families) {
                String flinkOperator = family.recognize(node);
                if (flinkOperator != null) {
                    outcomes.add(decide(family, node, flinkOperator, operatorConfig, replace));
                    break;
                }
            }
        }
        return new SubstitutionReport(job, null, outcomes);
    }

    private static SubstitutionOutcome decide(
            NodeSubstitution family,
            StreamNode node,
            String flinkOperator,
            OperatorConfig operatorConfig,
            boolean replace) {
        NodeSubstitution.Decision decision;
        try {
            decision = family.decide(node, operatorConfig);
        } catch (Exception e) {
            decision = NodeSubstitution.Decision.keep("it could not be inspected: " + e);
        }
        if (decision.factory() == null) {
            return SubstitutionOutcome.kept(
                    node.getId(), node.getOperatorName(), flinkOperator, decision.reason());
        }
        if (replace) {
            node.setOperatorFactory(decision.factory());
        }
        return SubstitutionOutcome.replaced(
                node.getId(), node.getOperatorName(), flinkOperator, decision.replacement());
    }

    /** Why no node of a job with {@code config} is replaced, or empty if they may be. */
    static Optional<String> whyNotThisJob(ReadableConfig config) {
        if (!config.get(OperatorOptions.ENABLED)) {
            return Optional.of(OperatorOptions.ENABLED.key() + " is false");
        }
        Optional<String> backend = config.getOptional(StateBackendOptions.STATE_BACKEND);
        if (backend.isPresent()
                && !STREAMFUSION_BACKENDS.contains(backend.get().trim())
                && !STREAMFUSION_BACKENDS.contains(backend.get().trim().toLowerCase(Locale.ROOT))) {
            return Optional.of(
                    "the job's state backend is '"
                            + backend.get()
                            + "'; the columnar operators need state.backend.type: streamfusion");
        }
        if (config.get(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG)) {
            return Optional.of(
                    "the changelog state backend (state.changelog.enabled) would wrap StreamFusion's"
                            + " keyed backend");
        }
        return Optional.empty();
    }
}
