package dev.kvlab.harness.api.twin;

import dev.kvlab.harness.api.SummaryRow;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.ModelSpec;

/**
 * A real engine as the sim can run it: a roofline "hardware" fitted to the engine's own answers (prefill cold and
 * behind a context, decode steps, loading fetched KV), the model's shape, the engine's scheduling (requests at once,
 * tokens per pass) and the store path measured on this machine. What a target's {@code calibrate} gives the capacity
 * search so that the twin's capacity is searched on the sim clock before the engine's is measured.
 *
 * @param engine         what was calibrated, in words (for the bundle and the report)
 * @param model          the catalog model of the engine's weights' shape
 * @param hardware       the fitted "hardware"
 * @param kvDtype        the engine's KV dtype (its bytes per token)
 * @param batchTokens    the most tokens one engine step carries
 * @param sequences      requests one instance serves at once
 * @param instances      engine instances serving the cell (the cluster's, or the endpoints')
 * @param linkLatencySeconds  a fetch's fixed cost beyond one lookup, measured (NaN: no store path, no remote tier)
 * @param linkBytesPerSecond  the fetch path's throughput, measured (NaN: none)
 * @param lookupNanos    one metadata round trip, measured (0: none)
 * @param figures        what was measured and fitted, name → number or text, in the producer's order (written into
 *                       the bundle as they are)
 * @param tiers          the tiers the twin runs with where the cell's config does not say them (an engine's own prefix
 *                       cache: {@code local-only}, or {@code none} with it off); null: the cell's own
 * @param cacheTokens    most tokens the engine's local prefix cache keeps per instance, a tier of its own (llama.cpp's kept
 *                       blocks): the twin's local tier is bounded to it ({@code local.cache_capacity}); 0: the free pool
 * @param cacheChunks    the engine keeps a prompt's full blocks chunk by chunk, not at the prompt's end
 *                       ({@code scheduler.cache_chunks}: what llama.cpp's KV cache does)
 * @param handoffPath    {@code pd: disaggregated}: the legs a handover takes in turn, each a link its handovers share, as
 *                       the cell's path was measured (direct: one; through a store: a put, then a get); empty: one
 *                       transfer on the store's link
 */
public record TwinCalibration(
        String engine,
        ModelSpec model,
        HardwareSpec hardware,
        Dtype kvDtype,
        int batchTokens,
        int sequences,
        int instances,
        double linkLatencySeconds,
        double linkBytesPerSecond,
        long lookupNanos,
        SummaryRow figures,
        String tiers,
        long cacheTokens,
        boolean cacheChunks,
        java.util.List<dev.kvlab.transport.api.TransportModel> handoffPath) {

    /** An engine whose prefix cache is its free KV pool (or that has none). */
    public TwinCalibration(
            String engine,
            ModelSpec model,
            HardwareSpec hardware,
            Dtype kvDtype,
            int batchTokens,
            int sequences,
            int instances,
            double linkLatencySeconds,
            double linkBytesPerSecond,
            long lookupNanos,
            SummaryRow figures,
            String tiers) {
        this(
                engine,
                model,
                hardware,
                kvDtype,
                batchTokens,
                sequences,
                instances,
                linkLatencySeconds,
                linkBytesPerSecond,
                lookupNanos,
                figures,
                tiers,
                0,
                false,
                java.util.List.of());
    }

    public TwinCalibration {
        if (cacheTokens < 0) throw new IllegalArgumentException("a twin's cache_tokens must be >= 0");
        // in the producer's order (a Map.copyOf here reordered them per JVM: the prediction file's bytes too)
        java.util.Objects.requireNonNull(figures, "figures");
        figures.forEach((k, v) -> java.util.Objects.requireNonNull(v, k));
        handoffPath = handoffPath == null ? java.util.List.of() : java.util.List.copyOf(handoffPath);
        if (batchTokens < 1 || sequences < 1 || instances < 1)
            throw new IllegalArgumentException("a twin needs batch_tokens, sequences and instances >= 1");
    }

    /** The twin of an engine with its own prefix cache ({@code local-only}), or with it turned off ({@code none}). */
    public TwinCalibration withCacheOff(boolean off) {
        return with(hardware, off ? "none" : "local-only");
    }

    /**
     * The same twin on a machine {@code stepTimeRatio} times slower: every engine step priced that many times its
     * calibrated price (the roofline's peak compute and memory rates divided by it, its efficiencies as fitted), the store path and the loading of
     * fetched KV as measured. With the ratio the engine's steps showed against their price while it was measured
     * ({@code engine_step_time_over_twin}), what is left of a prediction's error is the model's, not the machine's drift.
     */
    public TwinCalibration atSpeed(double stepTimeRatio) {
        return with(hardware.slowerBy(stepTimeRatio), tiers);
    }

    /** This twin with {@code hw} and {@code tiers} instead of its own. */
    private TwinCalibration with(HardwareSpec hw, String tiers) {
        return new TwinCalibration(
                engine,
                model,
                hw,
                kvDtype,
                batchTokens,
                sequences,
                instances,
                linkLatencySeconds,
                linkBytesPerSecond,
                lookupNanos,
                figures,
                tiers,
                cacheTokens,
                cacheChunks,
                handoffPath);
    }

    /** Whether a store path was measured (a twin of a cell with a remote tier needs one). */
    public boolean hasLink() {
        return linkBytesPerSecond > 0 && Double.isFinite(linkBytesPerSecond);
    }
}
