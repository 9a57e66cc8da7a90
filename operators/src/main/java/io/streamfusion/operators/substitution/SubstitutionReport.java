package io.streamfusion.operators.substitution;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Every node of one job that the operator layer looked at, with what happened to it: what a user
 * reads in the log at submission, or from {@code StreamFusionOperators.explain}.
 *
 * @param jobName the job's name
 * @param skipped why the whole job was left alone, or null if its nodes were considered
 * @param outcomes one per node considered, in node order
 */
public record SubstitutionReport(
        String jobName, String skipped, List<SubstitutionOutcome> outcomes) {

    public SubstitutionReport {
        outcomes = List.copyOf(outcomes);
    }

    public static SubstitutionReport skipped(String jobName, String reason) {
        return new SubstitutionReport(jobName, reason, List.of());
    }

    /** The outcomes of nodes that were replaced. */
    public List<SubstitutionOutcome> replaced() {
        return outcomes.stream()
                .filter(SubstitutionOutcome::isReplaced)
                .collect(Collectors.toList());
    }

    @Override
    public String toString() {
        if (skipped != null) {
            return "StreamFusion operators: job '" + jobName + "' left as it is: " + skipped;
        }
        if (outcomes.isEmpty()) {
            return "StreamFusion operators: job '"
                    + jobName
                    + "' has no node the operator layer knows";
        }
        return "StreamFusion operators, job '"
                + jobName
                + "': "
                + replaced().size()
                + " of "
                + outcomes.size()
                + " nodes replaced"
                + outcomes.stream().map(o -> "\n  " + o).collect(Collectors.joining());
    }
}
