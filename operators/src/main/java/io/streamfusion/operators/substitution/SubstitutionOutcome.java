package io.streamfusion.operators.substitution;

/**
 * What happened to one StreamGraph node the operator layer knows: replaced by a columnar operator,
 * or kept as Flink's with the reason.
 *
 * @param nodeId the StreamNode's id
 * @param nodeName the node's name, such as {@code Rank[5]}
 * @param flinkOperator what Flink runs there, such as {@code FastTop1Function}
 * @param replacement the columnar operator that replaced it, or null if it was kept
 * @param reason why it was kept, or null if it was replaced
 */
public record SubstitutionOutcome(
        int nodeId, String nodeName, String flinkOperator, String replacement, String reason) {

    public static SubstitutionOutcome replaced(
            int nodeId, String nodeName, String flinkOperator, String replacement) {
        return new SubstitutionOutcome(nodeId, nodeName, flinkOperator, replacement, null);
    }

    public static SubstitutionOutcome kept(
            int nodeId, String nodeName, String flinkOperator, String reason) {
        return new SubstitutionOutcome(nodeId, nodeName, flinkOperator, null, reason);
    }

    public boolean isReplaced() {
        return replacement != null;
    }

    @Override
    public String toString() {
        return isReplaced()
                ? nodeName + " (" + flinkOperator + "): replaced by StreamFusion's " + replacement
                : nodeName + " (" + flinkOperator + "): kept Flink's operator: " + reason;
    }
}
