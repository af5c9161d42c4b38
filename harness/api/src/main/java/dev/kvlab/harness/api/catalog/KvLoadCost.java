package dev.kvlab.harness.api.catalog;

/**
 * What putting fetched KV into the engine costs once its bytes have arrived: a fixed cost per load (one call into
 * the engine per fetched run of blocks) plus its bytes at a rate (for llama.cpp: assembling the blocks into the
 * engine's state format and {@code llama_state_seq_set_data}). The sim charges it as work that holds the whole
 * instance between iterations, fetched and handed-over KV alike, as a restore on the engine thread does, except its
 * {@code assembly}: the part an engine does off its engine thread (kvlab's llama.cpp target assembles on an I/O
 * thread), charged as time on the request's path that holds no instance. Measured for an engine by
 * {@code kvlab calibrate --engine}; a hardware entry without it loads fetched KV for free (the transfer is all).
 *
 * @param latencySeconds fixed seconds per load (&gt;= 0), the whole load
 * @param bytesPerSecond KV bytes loaded per second (&gt; 0), the whole load
 * @param assembly       the part of the load off the engine thread (its own fixed cost and rate), or null: none
 */
public record KvLoadCost(double latencySeconds, double bytesPerSecond, KvLoadCost assembly) {

    public KvLoadCost {
        if (!(latencySeconds >= 0 && Double.isFinite(latencySeconds)))
            throw new IllegalArgumentException(
                    "kv_load.latency_seconds must be a finite number >= 0, got " + latencySeconds);
        AttentionCost.positive("kv_load.bytes_per_second", bytesPerSecond);
        if (assembly != null && assembly.assembly() != null)
            throw new IllegalArgumentException("kv_load.assembly has no assembly of its own");
    }

    /** A load all on the engine thread. */
    public KvLoadCost(double latencySeconds, double bytesPerSecond) {
        this(latencySeconds, bytesPerSecond, null);
    }

    /** Seconds to load {@code bytes} bytes of KV. */
    public double seconds(double bytes) {
        return latencySeconds + bytes / bytesPerSecond;
    }

    /** The part of {@link #seconds} off the engine thread (0 without an {@code assembly}; never more than the whole). */
    public double assemblySeconds(double bytes) {
        return assembly == null ? 0 : Math.min(seconds(bytes), assembly.seconds(bytes));
    }
}
