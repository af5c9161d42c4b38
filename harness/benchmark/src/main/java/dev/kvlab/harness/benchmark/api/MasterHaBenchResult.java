package dev.kvlab.harness.benchmark.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Locale;

/**
 * What {@code kvlab bench master --ha} reports: per operation, the master's rate without HA and with it (a leader
 * writing the oplog to etcd, a standby applying it, both in this process), side by side in one run, the oplog's cost
 * (the share of the rate it takes), the standby's replication lag, and what the leader wrote.
 *
 * @param etcd      the etcd the oplog went to
 * @param ownEtcd   whether the bench started that etcd itself (one member, loopback, a temporary data directory)
 * @param maxCostPercent the target the put rows are held to (the oplog may cost at most this share of put throughput)
 */
@JsonPropertyOrder(alphabetic = false)
public record MasterHaBenchResult(
        @JsonProperty("etcd") String etcd,
        @JsonProperty("own_etcd") boolean ownEtcd,
        @JsonProperty("max_cost_percent") double maxCostPercent,
        @JsonProperty("rows") List<Row> rows) {

    /**
     * One operation.
     *
     * @param withoutKeysPerSecond each round's keys/s without HA (in run order, alternating with the HA rounds)
     * @param withKeysPerSecond    each round's keys/s with HA
     * @param costPercent          1 - median(with) / median(without), in percent (negative: HA was faster, noise)
     * @param withoutCpuMicrosPerKey each round's CPU of this process per key without HA (clients and master)
     * @param withCpuMicrosPerKey  each round's CPU of this process per key with HA (clients, leader and standby)
     * @param withEtcdCpuMicrosPerKey each HA round's CPU of etcd per key (NaN: an etcd not started by the bench)
     * @param lagP50Us             the standby's replication lag: from a batch's first entry appended on the leader to the batch applied
     * @param lagBatches           batches the standby applied (lag samples)
     * @param oplogEntries         entries the leader appended over the HA rounds (prefill and warm-up included)
     * @param oplogBatches         etcd transactions they took (group commit: entries / batches per round trip)
     * @param oplogBytes           bytes written to etcd
     */
    @JsonPropertyOrder(alphabetic = false)
    public record Row(
            @JsonProperty("op") String op,
            @JsonProperty("without_keys_per_s") List<Double> withoutKeysPerSecond,
            @JsonProperty("with_keys_per_s") List<Double> withKeysPerSecond,
            @JsonProperty("cost_percent") double costPercent,
            @JsonProperty("without_cpu_us_per_key") List<Double> withoutCpuMicrosPerKey,
            @JsonProperty("with_cpu_us_per_key") List<Double> withCpuMicrosPerKey,
            @JsonProperty("with_etcd_cpu_us_per_key") List<Double> withEtcdCpuMicrosPerKey,
            @JsonProperty("lag_p50_us") double lagP50Us,
            @JsonProperty("lag_p99_us") double lagP99Us,
            @JsonProperty("lag_max_us") double lagMaxUs,
            @JsonProperty("lag_batches") long lagBatches,
            @JsonProperty("oplog_entries") long oplogEntries,
            @JsonProperty("oplog_batches") long oplogBatches,
            @JsonProperty("oplog_bytes") long oplogBytes,
            @JsonProperty("without") MasterBenchResult without,
            @JsonProperty("with") MasterBenchResult with) {}

    /** The result as {@code kvlab bench master --ha} prints it. */
    public String text() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "master with HA (oplog in %s%s) against without, side by side%n",
                etcd,
                ownEtcd ? ", started for this run" : ""));
        b.append(String.format(
                Locale.ROOT,
                "where: the clients and the master (no HA) or the leader and its standby (HA) in this JVM, on this"
                        + " machine's %d cores; etcd %s%n",
                Runtime.getRuntime().availableProcessors(),
                ownEtcd ? "a process of its own on the same cores" : "where given"));
        b.append(String.format(
                Locale.ROOT,
                "  %-10s %14s %14s %8s %12s %12s %10s %12s%n",
                "op",
                "keys/s no HA",
                "keys/s HA",
                "cost",
                "lag p50 us",
                "lag p99 us",
                "B/entry",
                "entries/txn"));
        for (Row r : rows) {
            b.append(String.format(
                    Locale.ROOT,
                    "  %-10s %14.0f %14.0f %7.1f%% %12.0f %12.0f %10.1f %12.1f%n",
                    r.op(),
                    median(r.withoutKeysPerSecond()),
                    median(r.withKeysPerSecond()),
                    r.costPercent(),
                    r.lagP50Us(),
                    r.lagP99Us(),
                    r.oplogEntries() == 0 ? Double.NaN : (double) r.oplogBytes() / r.oplogEntries(),
                    r.oplogBatches() == 0 ? Double.NaN : (double) r.oplogEntries() / r.oplogBatches()));
            if (r.withoutKeysPerSecond().size() > 1)
                b.append(String.format(
                        Locale.ROOT,
                        "  %-10s rounds: no HA %s, HA %s%n",
                        "",
                        r.withoutKeysPerSecond(),
                        r.withKeysPerSecond()));
            b.append(String.format(
                    Locale.ROOT,
                    "  %-10s cpu us/key (medians): no HA %.1f (this JVM); HA %.1f (this JVM) + %.1f (etcd)%n",
                    "",
                    median(r.withoutCpuMicrosPerKey()),
                    median(r.withCpuMicrosPerKey()),
                    median(r.withEtcdCpuMicrosPerKey())));
        }
        for (Row r : rows)
            if (!r.op().contains("get"))
                b.append(String.format(
                        Locale.ROOT,
                        "%s: the oplog costs %.1f%% of %s throughput (target: at most %.0f%%)%n",
                        r.costPercent() <= maxCostPercent ? "ok" : "OVER",
                        r.costPercent(),
                        r.op(),
                        maxCostPercent));
        return b.toString();
    }

    public static double median(List<Double> xs) {
        if (xs.isEmpty()) return Double.NaN;
        List<Double> s = xs.stream().sorted().toList();
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }
}
