package dev.kvlab.harness.benchmark.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.kvlab.transport.api.ByteSize;
import java.util.Locale;

/** What {@code kvlab bench store} reports (latencies in microseconds, HdrHistogram percentiles). */
@JsonPropertyOrder(alphabetic = false)
public record StoreBenchResult(
        @JsonProperty("backend") String backend,
        @JsonProperty("backend_name") String backendName,
        @JsonProperty("transport") String transport,
        @JsonProperty("emulated") boolean emulated,
        @JsonProperty("op") String op,
        @JsonProperty("value_size") long valueSize,
        @JsonProperty("clients") int clients,
        @JsonProperty("keys") int keys,
        @JsonProperty("verify") boolean verify,
        @JsonProperty("duration_s") double durationSeconds,
        @JsonProperty("ops") long ops,
        @JsonProperty("ops_per_s") double opsPerSecond,
        @JsonProperty("throughput_bytes_per_s") double throughputBytesPerSecond,
        @JsonProperty("mean_us") double meanMicros,
        @JsonProperty("p50_us") long p50Micros,
        @JsonProperty("p90_us") long p90Micros,
        @JsonProperty("p99_us") long p99Micros,
        @JsonProperty("p999_us") long p999Micros,
        @JsonProperty("max_us") long maxMicros,
        @JsonProperty("hits") long hits,
        @JsonProperty("misses") long misses,
        @JsonProperty("errors") long errors,
        @JsonProperty("wrong_bytes") long wrongBytes,
        @JsonProperty("lease_expired") long leaseExpired,
        @JsonProperty("checksum_mismatches") long checksumMismatches,
        @JsonProperty("content_mismatches") long contentMismatches,
        @JsonProperty("copy_semantics") String copySemantics) {

    /** The result as {@code kvlab bench store} prints it: rates, latency percentiles, outcome counts, copies. */
    public String text() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "%s %s%s, %s values, %d clients, %.1f s: %.0f ops/s, %s/s%n",
                backendName,
                op,
                emulated ? " (emulated)" : "",
                ByteSize.format(valueSize),
                clients,
                durationSeconds,
                opsPerSecond,
                ByteSize.format((long) throughputBytesPerSecond)));
        b.append(String.format(
                Locale.ROOT,
                "latency us: p50 %d  p90 %d  p99 %d  p99.9 %d  max %d  mean %.1f%n",
                p50Micros,
                p90Micros,
                p99Micros,
                p999Micros,
                maxMicros,
                meanMicros));
        b.append(String.format(
                Locale.ROOT,
                "hits %d  misses %d  errors %d  wrong payloads %d  (lease expired %d, checksum %d, content %d)%n",
                hits,
                misses,
                errors,
                wrongBytes,
                leaseExpired,
                checksumMismatches,
                contentMismatches));
        return b.append("copies: ")
                .append(copySemantics)
                .append(System.lineSeparator())
                .toString();
    }
}
