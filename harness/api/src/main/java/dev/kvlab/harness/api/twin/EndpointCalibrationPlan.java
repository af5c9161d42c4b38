package dev.kvlab.harness.api.twin;

/**
 * What {@code kvlab calibrate --endpoint} (and an {@code openai} cell's twin) times on an OpenAI-compatible engine; the
 * constructor refuses what is out of range, naming the option.
 *
 * @param shortTokens  the short cold prompt
 * @param longTokens   the long cold prompt (also the cached prefix)
 * @param suffixTokens the suffix behind the cached prefix
 * @param decodeTokens decode steps timed
 * @param repeats      timings per figure (the median is kept)
 */
public record EndpointCalibrationPlan(
        int shortTokens, int longTokens, int suffixTokens, int decodeTokens, int repeats) {
    public EndpointCalibrationPlan {
        if (shortTokens < 16 || longTokens <= shortTokens)
            throw new IllegalArgumentException("--prompt-tokens: two lengths, 16 <= short < long");
        if (suffixTokens < 1 || suffixTokens >= longTokens)
            throw new IllegalArgumentException("--suffix-tokens: in [1, long prompt)");
        if (decodeTokens < 2) throw new IllegalArgumentException("--decode-tokens: at least 2");
        if (repeats < 1) throw new IllegalArgumentException("repeats: at least 1");
    }
}
