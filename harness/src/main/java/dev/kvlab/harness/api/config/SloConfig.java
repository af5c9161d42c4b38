package dev.kvlab.harness.api.config;

/**
 * Service-level objectives; a request is good when it meets every one given (null = not given).
 *
 * @param ttftMs time to first token, ms
 * @param tpotMs time per output token, ms
 * @param tbtMs  mean of the longest 10% token gaps, ms
 * @param e2elMs end-to-end latency, ms
 */
public record SloConfig(Double ttftMs, Double tpotMs, Double tbtMs, Double e2elMs) {

    public boolean any() {
        return ttftMs != null || tpotMs != null || tbtMs != null || e2elMs != null;
    }
}
