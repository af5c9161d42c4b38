package dev.kvlab.harness.api.catalog;

/**
 * What putting fetched KV into the engine costs once its bytes have arrived: a fixed cost per load (one call into
 * the engine per fetched run of blocks) plus its bytes at a rate (for llama.cpp: assembling the blocks into the
 * engine's state format and {@code llama_state_seq_set_data}). The sim charges it as work that holds the whole
 * instance between iterations, fetched and handed-over KV alike, as a restore on the engine thread does. Measured for an engine by
 * {@code kvlab calibrate --engine}; a hardware entry without it loads fetched KV for free (the transfer is all).
 *
 * @param latencySeconds fixed seconds per load (&gt;= 0)
 * @param bytesPerSecond KV bytes loaded per second (&gt; 0)
 */
public record KvLoadCost(double latencySeconds, double bytesPerSecond) {

    public KvLoadCost {
        if (!(latencySeconds >= 0 && Double.isFinite(latencySeconds)))
            throw new IllegalArgumentException(
                    "kv_load.latency_seconds must be a finite number >= 0, got " + latencySeconds);
        AttentionCost.positive("kv_load.bytes_per_second", bytesPerSecond);
    }

    /** Seconds to load {@code bytes} bytes of KV. */
    public double seconds(double bytes) {
        return latencySeconds + bytes / bytesPerSecond;
    }
}
