package dev.kvlab.harness.report.text;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.Columns;
import java.io.PrintWriter;
import java.util.Locale;

/** The cells of a real-engine bundle as the demo prints them: TTFT, the hits, and the bytes moved per fetched token. */
public final class RealEngineText {

    private RealEngineText() {}

    /** Prints a row per cell of {@code summary} ({@code summary.json}). */
    public static void print(PrintWriter w, JsonNode summary) {
        w.println(
                "Real engine: llama.cpp in-process on the CPU (synthesized random weights), its real KV through kvlab's store over TCP:");
        w.printf(
                Locale.ROOT,
                "  %-34s %12s %11s %11s %12s %10s %10s%n",
                "cell",
                "ttft p50 ms",
                "local hit",
                "remote hit",
                "B/fetched tok",
                Columns.FALLBACKS.name(),
                "wrong hits");
        for (JsonNode c : summary.path("cells")) {
            JsonNode m = c.path("metrics");
            double tokens = m.path(Columns.FETCHED_TOKENS.name()).path("mean").asDouble();
            double perToken = tokens > 0
                    ? m.path(Columns.FETCHED_BYTES.name()).path("mean").asDouble() / tokens
                    : Double.NaN;
            w.printf(
                    Locale.ROOT,
                    "  %-34s %12.1f %11.3f %11.3f %12.1f %10.0f %10.0f%n",
                    c.path("cell").asText(),
                    m.path(Columns.TTFT_P50.name()).path("mean").asDouble(),
                    m.path(Columns.LOCAL_HIT_RATIO.name()).path("mean").asDouble(),
                    m.path(Columns.REMOTE_HIT_RATIO.name()).path("mean").asDouble(),
                    perToken,
                    m.path(Columns.FALLBACKS.name()).path("mean").asDouble(),
                    m.path(Columns.WRONG_HITS_USED.name()).path("mean").asDouble());
        }
    }

    /** The heading of the real-engine capacity table: what ran, what is measured and against which baseline. */
    public static void capacityHeading(PrintWriter w, JsonNode capacity) {
        w.println(
                "Real engine: does a cache raise the load that still meets the SLO? (llama.cpp in-process on this CPU, synthesized random "
                        + "weights, its real KV through kvlab's store over TCP; nothing emulated; gain over "
                        + capacity.path("baseline").asText("-")
                        + ", paired by seed; each prediction searched on the twin before the measurement)");
    }

    /**
     * One line over every run of {@code summary} (a capacity search's probes): the runs and requests, the blocks that
     * failed verification and were recomputed, the wrong hits used (0 unless a bug), and the bytes moved per fetched
     * token (the model's KV bytes per token and the blocks' headers).
     */
    public static void totals(PrintWriter w, JsonNode summary) {
        double runs = 0, requests = 0, fallbacks = 0, wrong = 0, bytes = 0, tokens = 0;
        for (JsonNode c : summary.path("cells")) {
            JsonNode m = c.path("metrics");
            int reps = Math.max(1, c.path("replicates").asInt(1));
            runs += reps;
            requests += reps * mean(m, Columns.COMPLETED.name());
            fallbacks += reps * mean(m, Columns.FALLBACKS.name());
            wrong += reps * mean(m, Columns.WRONG_HITS_USED.name());
            bytes += reps * mean(m, Columns.FETCHED_BYTES.name());
            tokens += reps * mean(m, Columns.FETCHED_TOKENS.name());
        }
        w.printf(
                Locale.ROOT,
                "  over its %.0f runs: %.0f requests completed, %.0f blocks failed verification and were recomputed, %.0f wrong hits used, "
                        + "%s bytes moved per fetched token%n",
                runs,
                requests,
                fallbacks,
                wrong,
                perToken(bytes, tokens));
    }

    private static String perToken(double bytes, double tokens) {
        if (tokens == 0) return "NaN (nothing fetched)";
        if (!Double.isFinite(bytes) || !Double.isFinite(tokens))
            return "NaN (a cell did not report its fetched bytes or tokens)";
        return String.format(Locale.ROOT, "%.1f", bytes / tokens);
    }

    /** A cell's mean of {@code column}; NaN where a cell does not know it, so that a total over it is NaN, not a 0 it never measured. */
    private static double mean(JsonNode metrics, String column) {
        JsonNode v = metrics.path(column).path("mean");
        return v.isNumber() ? v.asDouble() : Double.NaN;
    }
}
