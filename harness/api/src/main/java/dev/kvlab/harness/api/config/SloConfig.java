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

    /** Refuses an SLO that is given but not a finite number above 0. */
    public void check(ConfigCheck check) {
        positive(check, "slo.ttft_ms", ttftMs);
        positive(check, "slo.tpot_ms", tpotMs);
        positive(check, "slo.tbt_ms", tbtMs);
        positive(check, "slo.e2el_ms", e2elMs);
    }

    private static void positive(ConfigCheck check, String key, Double v) {
        if (v != null && !(v > 0 && Double.isFinite(v)))
            throw check.bad(key, "must be > 0 (or null for no SLO), got " + v);
    }
}
