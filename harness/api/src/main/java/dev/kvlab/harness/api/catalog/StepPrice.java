package dev.kvlab.harness.api.catalog;

import java.util.Arrays;

/**
 * The roofline's price of one engine step, built part by part: each decoding sequence's token and each prompt chunk,
 * as the step carries them. The sim's instances price their steps with it, and a real engine prices the steps it ran
 * with the same one (so that its measured step time can be set against what its twin would charge for those very
 * steps). Reused step after step ({@link #clear}); not thread-safe.
 *
 * <p>The step's time: on an engine whose sequences share one KV stream, one pass over the step's tokens spanning the
 * stream's cells in use; with a kernel per sequence's stream ({@link Roofline#ownStreamKernels}), {@link
 * Roofline#ownStreamStepSeconds} of its parts; else one pass of its tokens and causal pairs. Its output rows (a
 * decoding sequence's token, a prompt's last) beyond the first at {@link Roofline#outputRowsSeconds}.
 */
public final class StepPrice {

    /**
     * Beyond this, a real engine's step time over its twin's price for the same steps ({@code
     * engine_step_time_over_twin}) says the calibration did not hold while the engine ran.
     */
    public static final double TOLERANCE = 0.10;

    /**
     * What an engine's step time over its twin's price for those steps says, in words, when it is off 1 by more than
     * {@link #TOLERANCE}; "" when it is within it or unknown (NaN).
     */
    public static String reading(double stepOverTwin) {
        if (!Double.isFinite(stepOverTwin) || Math.abs(stepOverTwin - 1) <= TOLERANCE) return "";
        return String.format(
                java.util.Locale.ROOT,
                "the engine's steps took %.2f× what its twin's calibration charges for those very steps "
                        + "(engine_step_time_over_twin): the engine ran %s than when it was calibrated (the machine's speed "
                        + "moved, or the roofline does not hold at these steps)",
                stepOverTwin,
                stepOverTwin > 1 ? "slower" : "faster");
    }

    private final Roofline roofline;
    private final boolean sharedStream, ownStreams;
    private double tokens, pairs, kvRead;
    private int parts, outputs;
    private double[] rows = new double[8], context = new double[8];

    public StepPrice(Roofline roofline) {
        this.roofline = roofline;
        this.sharedStream = roofline.sharedStream();
        this.ownStreams = roofline.ownStreamKernels();
    }

    /** An empty step. */
    public void clear() {
        tokens = 0;
        pairs = 0;
        kvRead = 0;
        parts = 0;
        outputs = 0;
    }

    /** A decoding sequence's next token after {@code contextTokens} tokens of KV. */
    public void decode(long contextTokens) {
        tokens += 1;
        outputs++;
        pairs += contextTokens + 1;
        if (ownStreams) part(1, contextTokens);
        kvRead += contextTokens;
    }

    /**
     * {@code chunkTokens} prompt tokens after the sequence's {@code doneTokens} already in KV; {@code last}: the prompt's
     * last chunk, whose last token's logits the pass computes (an output row).
     */
    public void chunk(int chunkTokens, long doneTokens, boolean last) {
        if (last) outputs++;
        chunk(chunkTokens, doneTokens);
    }

    /** {@code chunkTokens} prompt tokens after the sequence's {@code doneTokens} already in KV (no output row). */
    public void chunk(int chunkTokens, long doneTokens) {
        tokens += chunkTokens;
        pairs += Roofline.causalPairs(chunkTokens, doneTokens);
        if (ownStreams) part(chunkTokens, doneTokens);
        kvRead += doneTokens;
    }

    /** Tokens in the step so far. */
    public double tokens() {
        return tokens;
    }

    /**
     * The step's seconds; {@code usedCells} the shared stream's cells in use at the step (NaN: unknown, the stream's
     * span at load; ignored without a shared stream).
     */
    public double seconds(double usedCells) {
        return passes(usedCells) + roofline.outputRowsSeconds(outputs);
    }

    private double passes(double usedCells) {
        return sharedStream
                ? roofline.passSeconds(tokens, pairs, kvRead, tokens, usedCells)
                : ownStreams
                        ? roofline.ownStreamStepSeconds(rows, context, parts)
                        : roofline.passSeconds(tokens, pairs, kvRead, tokens);
    }

    private void part(double r, double c) {
        if (parts == rows.length) {
            rows = Arrays.copyOf(rows, 2 * parts + 1);
            context = Arrays.copyOf(context, 2 * parts + 1);
        }
        rows[parts] = r;
        context[parts] = c;
        parts++;
    }
}
