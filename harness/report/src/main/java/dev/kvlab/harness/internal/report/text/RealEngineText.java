package dev.kvlab.harness.internal.report.text;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.Columns;
import java.io.PrintWriter;
import java.util.Locale;

/** The cells of a real-engine bundle as the demo prints them: TTFT, the hits, and the bytes moved per fetched token. */
public final class RealEngineText {

    private RealEngineText() {}

    /** Prints a row per cell of {@code summary} ({@code summary.json}). */
    public static void print(PrintWriter w, JsonNode summary) {
        w.println("Real engine: llama.cpp in-process on the CPU (synthesized random weights), its real KV through kvlab's store over TCP:");
        w.printf(Locale.ROOT, "  %-34s %12s %11s %11s %12s %10s %10s%n", "cell", "ttft p50 ms", "local hit", "remote hit", "B/fetched tok",
                Columns.FALLBACKS.name(), "wrong hits");
        for (JsonNode c : summary.path("cells")) {
            JsonNode m = c.path("metrics");
            double tokens = m.path(Columns.FETCHED_TOKENS.name()).path("mean").asDouble();
            double perToken = tokens > 0 ? m.path(Columns.FETCHED_BYTES.name()).path("mean").asDouble() / tokens : Double.NaN;
            w.printf(Locale.ROOT, "  %-34s %12.1f %11.3f %11.3f %12.1f %10.0f %10.0f%n", c.path("cell").asText(),
                    m.path(Columns.TTFT_P50.name()).path("mean").asDouble(), m.path(Columns.LOCAL_HIT_RATIO.name()).path("mean").asDouble(),
                    m.path(Columns.REMOTE_HIT_RATIO.name()).path("mean").asDouble(), perToken,
                    m.path(Columns.FALLBACKS.name()).path("mean").asDouble(),
                    m.path(Columns.WRONG_HITS_USED.name()).path("mean").asDouble());
        }
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
            requests += reps * finite(m.path(Columns.COMPLETED.name()).path("mean").asDouble());
            fallbacks += reps * finite(m.path(Columns.FALLBACKS.name()).path("mean").asDouble());
            wrong += reps * finite(m.path(Columns.WRONG_HITS_USED.name()).path("mean").asDouble());
            bytes += reps * finite(m.path(Columns.FETCHED_BYTES.name()).path("mean").asDouble());
            tokens += reps * finite(m.path(Columns.FETCHED_TOKENS.name()).path("mean").asDouble());
        }
        w.printf(Locale.ROOT, "  over its %.0f runs: %.0f requests completed, %.0f blocks failed verification and were recomputed, %.0f wrong hits used, "
                + "%s bytes moved per fetched token%n", runs, requests, fallbacks, wrong, tokens > 0 ? String.format(Locale.ROOT, "%.1f", bytes / tokens) : "NaN (nothing fetched)");
    }

    private static double finite(double v) {
        return Double.isFinite(v) ? v : 0;
    }
}
