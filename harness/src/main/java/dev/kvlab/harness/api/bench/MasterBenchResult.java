package dev.kvlab.harness.api.bench;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Map;

/** What {@code kvlab bench master} reports: keys per second, and per RPC its call rate and latency (microseconds). */
@JsonPropertyOrder(alphabetic = false)
public record MasterBenchResult(
        @JsonProperty("master") String master,
        @JsonProperty("op") String op,
        @JsonProperty("clients") int clients,
        @JsonProperty("client_mode") String clientMode,
        @JsonProperty("batch_size") int batchSize,
        @JsonProperty("value_size") long valueSize,
        @JsonProperty("segments") int segments,
        @JsonProperty("segment_bytes") long segmentBytes,
        @JsonProperty("warmup_s") double warmupSeconds,
        @JsonProperty("jit_quiet") boolean jitQuiet,
        @JsonProperty("duration_s") double durationSeconds,
        @JsonProperty("keys") long keys,
        @JsonProperty("failed_keys") long failedKeys,
        @JsonProperty("keys_per_s") double keysPerSecond,
        @JsonProperty("ops_per_s") double opsPerSecond,
        @JsonProperty("rpcs") Map<String, RpcLatency> rpcs,
        @JsonProperty("cpu_seconds") double cpuSeconds,
        @JsonProperty("cpu_us_per_key") double cpuMicrosPerKey,
        @JsonProperty("data_moved") String dataMoved) {

    /** One RPC's figures over the measured window. */
    @JsonPropertyOrder(alphabetic = false)
    public record RpcLatency(
            @JsonProperty("calls") long calls,
            @JsonProperty("calls_per_s") double callsPerSecond,
            @JsonProperty("mean_us") double meanUs,
            @JsonProperty("p50_us") double p50Us,
            @JsonProperty("p99_us") double p99Us,
            @JsonProperty("p999_us") double p999Us,
            @JsonProperty("max_us") double maxUs) {}
}
