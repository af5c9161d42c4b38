package dev.kvlab.harness.benchmark.internal.master;

import dev.kvlab.harness.benchmark.api.BenchFailedException;
import dev.kvlab.harness.benchmark.api.MasterBenchResult;
import dev.kvlab.harness.benchmark.api.MasterBenchSettings;
import dev.kvlab.harness.benchmark.api.MasterHaBenchResult;
import dev.kvlab.harness.benchmark.api.MasterOp;
import dev.kvlab.store.EtcdServer;
import dev.kvlab.store.HaCluster;
import dev.kvlab.store.MasterLauncher;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.server.HaLaunch;
import dev.kvlab.store.api.server.MasterLaunch;
import dev.kvlab.store.api.server.OplogStats;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * {@code kvlab bench master --ha}: for each operation, rounds of the metadata benchmark against a master of its own
 * without HA and against a replicated one (a leader that writes every change to the oplog in etcd, and a standby applying
 * it, both in this process with the clients), alternating (ABBA: neither always runs first, on a JVM less warm), so both see
 * the same machine. The standby records how long
 * after its first entry's append each batch was applied (replication lag). Each HA round is a fresh cluster of its own
 * name in the etcd, deleted afterwards.
 */
public final class MasterHaBench {

    /** The most the oplog may cost of put throughput (issue 34). */
    public static final double MAX_COST_PERCENT = 30;

    private MasterHaBench() {}

    /** Runs {@code ops} with and without HA, {@code rounds} times each; {@code etcd} null: an etcd of its own on loopback. */
    public static MasterHaBenchResult run(
            MasterBenchSettings s, List<MasterOp> ops, String etcd, int rounds, PrintStream log)
            throws InterruptedException, IOException {
        EtcdServer own = null;
        if (etcd == null) {
            try {
                own = EtcdServer.start();
            } catch (IOException e) {
                throw new BenchFailedException("--ha: could not start an etcd of its own: " + e.getMessage()
                        + " (or give --ha etcd://HOST:PORT)");
            }
        }
        try {
            String at = HaCluster.checkEtcd(own != null ? own.spec() : etcd);
            List<MasterHaBenchResult.Row> rows = new ArrayList<>();
            LongSupplier etcdCpu = own == null ? null : cpuNanos(own.process().toHandle());
            for (MasterOp op : ops) rows.add(row(s.withOp(op), at, etcdCpu, rounds, log));
            return new MasterHaBenchResult(at.substring(0, at.lastIndexOf('/')), own != null, MAX_COST_PERCENT, rows);
        } finally {
            if (own != null) own.close();
        }
    }

    /** Reads {@code p}'s CPU time so far (negative when the OS does not tell). */
    static LongSupplier cpuNanos(ProcessHandle p) {
        return () -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }

    private static MasterHaBenchResult.Row row(
            MasterBenchSettings s, String etcd, LongSupplier etcdCpu, int rounds, PrintStream log)
            throws InterruptedException, IOException {
        List<Double> without = new ArrayList<>(), with = new ArrayList<>();
        List<Double> withoutCpu = new ArrayList<>(), withCpu = new ArrayList<>(), withEtcdCpu = new ArrayList<>();
        Recorder lag = new Recorder(3);
        MasterBenchResult lastWithout = null, lastWith = null;
        long entries = 0, batches = 0, bytes = 0;
        for (int r = 0; r < rounds; r++) {
            for (boolean haNow : r % 2 == 0
                    ? new boolean[] {false, true}
                    : new boolean[] {true, false}) { // ABBA: neither always runs first
                log.printf(
                        Locale.ROOT,
                        "%s round %d/%d: %s%n",
                        s.op().label(),
                        r + 1,
                        rounds,
                        haNow ? "with HA" : "without HA");
                if (!haNow) {
                    lastWithout =
                            MasterBench.runInProcess(s.withMaster("own master in this process, no HA"), etcdCpu, log);
                    without.add(lastWithout.keysPerSecond());
                    withoutCpu.add(lastWithout.cpuMicrosPerKey());
                    log.print(roundLine(lastWithout));
                    continue;
                }
                Ha ha = runHa(s, etcd, etcdCpu, lag, log);
                lastWith = ha.result();
                with.add(lastWith.keysPerSecond());
                withCpu.add(lastWith.cpuMicrosPerKey());
                withEtcdCpu.add(lastWith.etcdCpuMicrosPerKey());
                log.print(roundLine(lastWith));
                entries += ha.oplog().entries();
                batches += ha.oplog().batches();
                bytes += ha.oplog().bytes();
            }
        }
        Histogram h = lag.getIntervalHistogram();
        double cost = 100 * (1 - MasterHaBenchResult.median(with) / MasterHaBenchResult.median(without));
        return new MasterHaBenchResult.Row(
                s.op().label(),
                without,
                with,
                Math.round(cost * 10) / 10.0,
                withoutCpu,
                withCpu,
                withEtcdCpu,
                h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(50),
                h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99),
                h.getTotalCount() == 0 ? Double.NaN : h.getMaxValue(),
                h.getTotalCount(),
                entries,
                batches,
                bytes,
                lastWithout,
                lastWith);
    }

    /** A round's rate and where its CPU went, for the progress log. */
    static String roundLine(MasterBenchResult r) {
        StringBuilder b = new StringBuilder(String.format(
                Locale.ROOT,
                "  %.0f keys/s; cpu per key: this process %.1f us",
                r.keysPerSecond(),
                r.cpuMicrosPerKey()));
        if (r.keys() > 0)
            r.cpuByThread().forEach((k, v) -> {
                if (v * 1e6 / r.keys() >= 0.5)
                    b.append(String.format(Locale.ROOT, " (%s %.1f)", k, v * 1e6 / r.keys()));
            });
        if (!Double.isNaN(r.etcdCpuMicrosPerKey()))
            b.append(String.format(Locale.ROOT, ", etcd %.1f us", r.etcdCpuMicrosPerKey()));
        return b.append(String.format(Locale.ROOT, "; %.2f cores used%n", cores(r)))
                .toString();
    }

    /** Cores this process and the etcd used on average over the measured window. */
    static double cores(MasterBenchResult r) {
        return (r.cpuSeconds() + (Double.isNaN(r.etcdCpuSeconds()) ? 0 : r.etcdCpuSeconds())) / r.durationSeconds();
    }

    private record Ha(MasterBenchResult result, OplogStats oplog) {}

    /** One round against a leader and a standby of a fresh cluster in {@code etcd}. */
    private static Ha runHa(MasterBenchSettings s, String etcd, LongSupplier etcdCpu, Recorder lag, PrintStream log)
            throws InterruptedException, IOException {
        String cluster = etcd.substring(0, etcd.lastIndexOf('/')) + "/bench-"
                + Long.toHexString(System.nanoTime() & 0xFFFFFFFFL);
        List<MasterLauncher.Running> ms = new ArrayList<>();
        try {
            for (String name : List.of("bench-a", "bench-b"))
                ms.add(MasterLauncher.start(new MasterLaunch(
                        "127.0.0.1",
                        0,
                        "127.0.0.1",
                        0,
                        false,
                        MasterConfig.defaults(),
                        null,
                        null,
                        HaLaunch.of(cluster, name).withLagListener(us -> lag.recordValue(Math.max(0, us))))));
            MasterLauncher.Running leader = awaitLeader(ms);
            for (MasterLauncher.Running m : ms)
                m.awaitWarm(Duration.ofSeconds(120)); // a one-time start-up cost, not the oplog's
            OplogStats before = leader.oplog();
            MasterBenchResult r = MasterBench.run(
                    s.withMaster("own leader + standby in this process, oplog in "
                            + etcd.substring(0, etcd.lastIndexOf('/'))),
                    "127.0.0.1",
                    leader.port(),
                    null,
                    etcdCpu,
                    log);
            OplogStats after = leader.oplog();
            return new Ha(
                    r,
                    new OplogStats(
                            after.entries() - before.entries(),
                            after.durableEntries() - before.durableEntries(),
                            after.batches() - before.batches(),
                            after.bytes() - before.bytes()));
        } finally {
            for (MasterLauncher.Running m : ms.reversed()) m.close();
            try {
                HaCluster.forget(cluster);
            } catch (IllegalStateException e) {
                log.println("could not delete the bench's cluster from etcd: " + e.getMessage());
            }
        }
    }

    private static MasterLauncher.Running awaitLeader(List<MasterLauncher.Running> ms) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < until) {
            for (MasterLauncher.Running m : ms) if ("leader".equals(m.status().role())) return m;
            Thread.sleep(20);
        }
        throw new BenchFailedException("no master of the bench's cluster led within 30 s (is etcd healthy?)");
    }
}
