package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.Column;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Metric;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.Histogram;

/**
 * One cell's summary from the summaries of its request-split shards (docs/bundle-format.md, "Request-split shards"):
 * counts added, percentiles and means read off the shards' histograms added together, rates over the longest shard's
 * measured phase (every shard's intended times count from its own start), the engine's per-response token counts
 * added and its local hit ratio recomputed from them. What cannot be added is never faked: a figure the shards
 * disagree on and that has no rule is NaN (null) and named in {@code merge_not_added}; text they disagree on is kept
 * per shard ({@code 1/2: ...; 2/2: ...}).
 */
final class SplitSummary {

    /** What the merged requests.csv holds: the request counts every rate is computed from. */
    record Counts(long requests, long completed, long failed, long good, long outputTokens) {}

    private static final Set<String> ADDED = merged(Column.Merge.SUM),
            PER_REQUEST = merged(Column.Merge.PER_REQUEST),
            LARGEST = merged(Column.Merge.LARGEST);
    /** Recomputed below from the added histograms and counts, whatever the shards say. */
    private static final Set<String> RECOMPUTED = merged(Column.Merge.RECOMPUTED);
    /** The shards' own bookkeeping: replaced by {@link #HOSTS}, {@link #STATEMENT} and {@link #SKEW}. */
    private static final Set<String> SHARD_OWN =
            Set.of(Columns.REQUEST_SHARD.name(), Columns.MEASURED_PHASE_STARTED_EPOCH_MS.name());

    static final String HOSTS = "driven_from_hosts",
            STATEMENT = "request_split",
            SKEW = "shard_start_skew_s",
            NOT_ADDED = "merge_not_added";

    private SplitSummary() {}

    /**
     * @param shards the shards' {@code cell.json} summaries, in shard order
     * @param labels their shard labels ({@code 1/2}, ...)
     * @param totals every metric's histogram over all shards (µs)
     * @param counts from the merged requests.csv
     */
    static ObjectNode merge(List<JsonNode> shards, List<String> labels, Map<Metric, Histogram> totals, Counts counts) {
        ObjectNode out = shards.getFirst().deepCopy();
        List<String> notAdded = new ArrayList<>();
        java.util.Set<String> keys = new java.util.LinkedHashSet<>();
        for (JsonNode s : shards)
            s.fieldNames().forEachRemaining(keys::add); // a figure only some shards have (target_down) too
        for (String k : keys) {
            if (SHARD_OWN.contains(k)) {
                out.remove(k);
                continue;
            }
            List<JsonNode> vs = shards.stream().map(s -> s.path(k)).toList();
            if (RECOMPUTED.contains(k)) continue;
            if (ADDED.contains(k)) out.set(k, sum(vs));
            else if (LARGEST.contains(k)) out.set(k, largest(vs));
            else if (PER_REQUEST.contains(k)) out.set(k, perRequest(vs, shards));
            else if (!allEqual(vs)) {
                if (vs.stream().allMatch(v -> v.isTextual() || v.isMissingNode())) out.put(k, perShard(vs, labels));
                else {
                    out.putNull(k);
                    notAdded.add(k);
                }
            }
        }
        for (Column<?> c : Columns.all()) {
            if (c.latency() == null) continue;
            Histogram h = totals.get(c.latency().metric());
            boolean none = h == null || h.getTotalCount() == 0;
            put(
                    out,
                    c,
                    none
                            ? Double.NaN
                            : switch (c.latency().stat()) {
                                case P50 -> h.getValueAtPercentile(50.0) / 1000.0;
                                case P99 -> h.getValueAtPercentile(99.0) / 1000.0;
                                case MEAN -> h.getMean() / 1000.0;
                            });
        }
        double span = out.path(Columns.SIMULATED_SECONDS.name()).asDouble(Double.NaN);
        rate(out, Columns.GOODPUT_RPS, counts.good(), span);
        rate(out, Columns.THROUGHPUT_RPS, counts.completed(), span);
        rate(out, Columns.OUTPUT_TOKENS_PER_S, counts.outputTokens(), span);
        put(
                out,
                Columns.SLO_ATTAINMENT,
                counts.requests() == 0 ? Double.NaN : (double) counts.good() / counts.requests());
        JsonNode cachedTokens = out.path(Columns.ENGINE_CACHED_PROMPT_TOKENS.name());
        double prompt = out.path(Columns.ENGINE_PROMPT_TOKENS.name()).asDouble(Double.NaN),
                cached = cachedTokens.asDouble(Double.NaN);
        double all = prompt > 0 && cachedTokens.isNumber() && cached <= prompt ? cached / prompt : Double.NaN;
        // the per-response counts are the local tier's only on llama.cpp (every shard says so); else they count every
        // tier
        boolean perResponseLocal = shards.stream()
                .allMatch(s ->
                        s.path(Columns.ENGINE_HITS_SOURCE.name()).asText().startsWith("local: llama.cpp per-response"));
        if (out.has(Columns.ENGINE_CACHED_HIT_RATIO.name())) put(out, Columns.ENGINE_CACHED_HIT_RATIO, all);
        List<Column<?>> overlapping = new ArrayList<>(List.of(
                Columns.REMOTE_HIT_RATIO,
                Columns.ENGINE_EXTERNAL_HIT_RATIO,
                Columns.ENGINE_DEVICE_HIT_RATIO,
                Columns.ENGINE_HOST_HIT_RATIO,
                Columns.ENGINE_STORAGE_HIT_RATIO,
                Columns.ENGINE_LOOKUP_HIT_RATIO));
        if (perResponseLocal) {
            put(out, Columns.LOCAL_HIT_RATIO, all);
            put(out, Columns.ENGINE_LOCAL_HIT_RATIO, all);
        } else overlapping.addAll(List.of(Columns.LOCAL_HIT_RATIO, Columns.ENGINE_LOCAL_HIT_RATIO));
        for (Column<?> c : overlapping)
            if (out.has(c.name()) && !out.get(c.name()).isNull()) {
                out.putNull(c.name());
                notAdded.add(c.name());
            }
        if (out.has(Columns.ENGINE_HITS_SOURCE.name()))
            out.put(
                    Columns.ENGINE_HITS_SOURCE.name(),
                    (perResponseLocal ? "local and " : "")
                            + "all tiers: per-response cached/prompt tokens added over the "
                            + shards.size() + " shards"
                            + (Double.isNaN(all)
                                    ? " (not reported by every response of every shard, or impossible)"
                                    : "")
                            + "; the /metrics figures: not added (the engine's counters are engine-wide: concurrent shards' differences overlap)");
        long first = Long.MAX_VALUE, last = Long.MIN_VALUE;
        for (JsonNode s : shards) {
            long t = s.path(Columns.MEASURED_PHASE_STARTED_EPOCH_MS.name()).asLong();
            first = Math.min(first, t);
            last = Math.max(last, t);
        }
        out.put(HOSTS, shards.size());
        out.put(STATEMENT, statement(shards.size(), labels));
        out.set(SKEW, Rows.toJson((last - first) / 1000.0));
        out.put(
                NOT_ADDED,
                notAdded.isEmpty()
                        ? "none"
                        : String.join(", ", notAdded)
                                + ": the shards differ and the figure cannot be added from what they recorded");
        return out;
    }

    /** The names of the columns the shards combine by {@code rule}. */
    private static Set<String> merged(Column.Merge rule) {
        return Set.copyOf(Columns.all().stream()
                .filter(c -> c.merge() == rule)
                .map(Column::name)
                .toList());
    }

    /** "driven from N hosts (request-split shards 1/N..N/N): ..." */
    static String statement(int hosts, List<String> labels) {
        return "driven from " + hosts + " hosts (request-split shards " + String.join(", ", labels)
                + "): host K sent the requests at positions i" + " with i mod " + hosts
                + " = K-1 at their intended times from the same seed; counts and histograms added by kvlab merge";
    }

    /** Sets {@code c} where the shards' summary has it. */
    private static void put(ObjectNode o, Column<?> c, double v) {
        if (!o.has(c.name())) return;
        o.set(c.name(), Rows.toJson(v));
    }

    private static void rate(ObjectNode o, Column<?> c, long n, double span) {
        put(o, c, span > 0 ? n / span : Double.NaN);
    }

    /** The sum; a shard without the figure adds nothing (unsent_requests), one that has it as NaN (null) makes it NaN. */
    private static JsonNode sum(List<JsonNode> all) {
        List<JsonNode> vs = all.stream().filter(v -> !v.isMissingNode()).toList();
        if (vs.stream().anyMatch(v -> !v.isNumber())) return Rows.toJson(Double.NaN);
        if (vs.stream().allMatch(JsonNode::isIntegralNumber))
            return Rows.toJson(vs.stream().mapToLong(JsonNode::asLong).sum());
        return Rows.toJson(vs.stream().mapToDouble(JsonNode::asDouble).sum());
    }

    private static JsonNode largest(List<JsonNode> vs) {
        if (vs.stream().anyMatch(v -> !v.isNumber())) return Rows.toJson(Double.NaN);
        if (vs.stream().allMatch(JsonNode::isIntegralNumber))
            return Rows.toJson(vs.stream().mapToLong(JsonNode::asLong).max().orElseThrow());
        return Rows.toJson(vs.stream().mapToDouble(JsonNode::asDouble).max().orElseThrow());
    }

    /** A per-request mean, weighted by each shard's requests. */
    private static JsonNode perRequest(List<JsonNode> vs, List<JsonNode> shards) {
        double w = 0, n = 0;
        for (int i = 0; i < vs.size(); i++) {
            if (!vs.get(i).isNumber()) return Rows.toJson(Double.NaN);
            long r = shards.get(i).path(Columns.REQUESTS.name()).asLong();
            w += vs.get(i).asDouble() * r;
            n += r;
        }
        return Rows.toJson(n == 0 ? Double.NaN : w / n);
    }

    private static boolean allEqual(List<JsonNode> vs) {
        for (JsonNode v : vs) if (!v.equals(vs.getFirst())) return false;
        return true;
    }

    private static String perShard(List<JsonNode> vs, List<String> labels) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < vs.size(); i++)
            sb.append(i == 0 ? "" : "; ")
                    .append(labels.get(i))
                    .append(": ")
                    .append(vs.get(i).isMissingNode() ? "-" : vs.get(i).asText());
        return sb.toString();
    }
}
