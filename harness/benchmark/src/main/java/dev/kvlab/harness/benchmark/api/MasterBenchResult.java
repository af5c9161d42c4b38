package dev.kvlab.harness.benchmark.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code kvlab bench master} reports: keys per second, and per RPC its call rate and latency (microseconds); the
 * CPU this process used in the measured window, in all and by kind of thread (Linux; see the bench's {@code ThreadCpu}:
 * {@code grpc}, {@code oplog-shipper}, {@code etcd-http}, {@code standby}, {@code gc}, {@code jit}, ...), and, in an HA
 * run with an etcd of its own, etcd's CPU in the same window (NaN otherwise).
 */
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
        @JsonProperty("cpu_by_thread_s") Map<String, Double> cpuByThread,
        @JsonProperty("etcd_cpu_seconds") double etcdCpuSeconds,
        @JsonProperty("etcd_cpu_us_per_key") double etcdCpuMicrosPerKey,
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

    /** The result as {@code kvlab bench master} prints it; {@code ownMaster}: the master ran in this process (its CPU counted). */
    public String text(boolean ownMaster) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "master %s: %s, %d %s clients%s, %.1f s: %.0f keys/s (%d failed)%n",
                master,
                op,
                clients,
                clientMode,
                batchSize > 1 ? ", " + batchSize + " keys per call" : "",
                durationSeconds,
                keysPerSecond,
                failedKeys));
        rpcs.forEach((name, l) -> b.append(String.format(
                Locale.ROOT,
                "  %-16s %9.0f calls/s  p50 %7.1f us  p99 %7.1f us  p99.9 %7.1f us%n",
                name,
                l.callsPerSecond(),
                l.p50Us(),
                l.p99Us(),
                l.p999Us())));
        b.append(String.format(
                Locale.ROOT,
                "  cpu %.2f s in the measured window: %.1f us per key (this process: clients%s)%n",
                cpuSeconds,
                cpuMicrosPerKey,
                ownMaster ? " and master" : " only"));
        if (!cpuByThread.isEmpty()) {
            b.append("  by thread:");
            cpuByThread.forEach((k, v) -> b.append(String.format(Locale.ROOT, " %s %.2f s", k, v)));
            b.append(System.lineSeparator());
        }
        if (!Double.isNaN(etcdCpuSeconds))
            b.append(String.format(
                    Locale.ROOT, "  etcd cpu %.2f s: %.1f us per key%n", etcdCpuSeconds, etcdCpuMicrosPerKey));
        b.append(String.format(
                Locale.ROOT,
                "  warm-up %.1f s (JIT %s)%n",
                warmupSeconds,
                jitQuiet ? "quiet at its end" : "not waited for, or still busy"));
        return b.append("data moved: ")
                .append(dataMoved)
                .append(System.lineSeparator())
                .toString();
    }
}
