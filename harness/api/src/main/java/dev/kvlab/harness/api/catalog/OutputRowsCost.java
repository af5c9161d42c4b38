package dev.kvlab.harness.api.catalog;

/**
 * What a pass's output rows cost beyond its first: the logits a pass computes (the model's output projection over its
 * vocabulary) for each token whose next token is wanted. A prompt's pass wants one row (its last token's); a decode
 * step one per decoding sequence. The rest of the roofline prices a pass as the engine's calibration timed it, with
 * one output row; this prices the others. Measured for llama.cpp on the CPU (check 27's 4-layer model, vocabulary
 * 32,000, prebuilt library): a 2-row pass with both rows' logits cost 2.1 ms more than with the last row's alone, 8
 * rows 4.8 ms, 64 rows 31 ms — a step from one row (a matrix-vector product) to more (a matrix product), then about
 * 0.47 ms a row. Measured by {@code kvlab calibrate --engine}; a hardware entry without it prices every output row in
 * the pass's linear work (as before).
 *
 * @param secondRowSeconds the second output row's seconds (&gt;= 0): the step from one row to two
 * @param rowSeconds       each output row's seconds after the second (&gt;= 0)
 */
public record OutputRowsCost(double secondRowSeconds, double rowSeconds) {

    public OutputRowsCost {
        nonNegative("output_rows.second_row_seconds", secondRowSeconds);
        nonNegative("output_rows.row_seconds", rowSeconds);
    }

    private static void nonNegative(String key, double v) {
        if (!(v >= 0 && Double.isFinite(v)))
            throw new IllegalArgumentException(key + " must be a finite number >= 0, got " + v);
    }

    /** Seconds a pass of {@code rows} output rows costs more than the same pass with one (0 for one row or none). */
    public double extraSeconds(double rows) {
        return rows < 2 ? 0 : secondRowSeconds + (rows - 2) * rowSeconds;
    }
}
