package dev.kvlab.harness.benchmark.internal.master;

import dev.kvlab.harness.benchmark.api.ClientMode;
import dev.kvlab.harness.benchmark.api.MasterBenchResult;
import dev.kvlab.harness.benchmark.api.MasterBenchSettings;
import dev.kvlab.harness.benchmark.api.MasterOp;
import dev.kvlab.store.MasterLauncher;
import dev.kvlab.store.Masters;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.MasterConnection;
import dev.kvlab.store.api.master.MountStatus;
import dev.kvlab.store.api.server.MasterLaunch;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * The master's metadata benchmark, comparable to Mooncake's {@code master_bench}: fake segments are mounted (no
 * bytes exist anywhere; a mounter pings to keep them), then {@code clients} closed-loop clients, each with its own
 * gRPC connection and one call in flight, issue one operation after the other ({@link ClientMode}: from a thread of
 * their own, or each from the previous one's completion):
 *
 * <ul>
 *   <li>{@code put}: PutStart + PutEnd of one fresh key;</li>
 *   <li>{@code get}: one replica lookup (GetReplicaList) of a random key the client put first;</li>
 *   <li>{@code batch-put}, {@code batch-get}: the same with {@code batchSize} keys per call.</li>
 * </ul>
 *
 * Throughput is keys served per second (a put counts at its PutEnd); latencies are per RPC, measured by
 * {@link MeasuredMasterChannel} only.
 */
public final class MasterBench {

    private MasterBench() {}

    /**
     * {@link #run} against a master started in this process for the run by the store's own launcher (as
     * {@code kvlab store master} starts one), on loopback.
     */
    public static MasterBenchResult runInProcess(MasterBenchSettings s, PrintStream log)
            throws InterruptedException, IOException {
        return runInProcess(s, null, log);
    }

    /** {@link #runInProcess(MasterBenchSettings, PrintStream)}, also reading an etcd's CPU time (see {@link #run}). */
    static MasterBenchResult runInProcess(MasterBenchSettings s, LongSupplier etcdCpuNanos, PrintStream log)
            throws InterruptedException, IOException {
        try (MasterLauncher.Running m = MasterLauncher.start(
                new MasterLaunch("127.0.0.1", 0, "127.0.0.1", 0, false, MasterConfig.defaults(), null, null))) {
            return run(
                    s.withMaster(s.master() + ", gRPC on 127.0.0.1:" + m.port()),
                    "127.0.0.1",
                    m.port(),
                    null,
                    etcdCpuNanos,
                    log);
        }
    }

    /** Runs {@code s} against the master at {@code host:port} over gRPC, each connection with a 10 s deadline. */
    public static MasterBenchResult run(MasterBenchSettings s, String host, int port, String token, PrintStream log)
            throws InterruptedException {
        return run(s, host, port, token, null, log);
    }

    /**
     * {@link #run(MasterBenchSettings, String, int, String, PrintStream)}, also reporting the CPU time another process
     * (the etcd of an HA run) spent in the measured window: {@code etcdCpuNanos} reads its CPU time so far (negative:
     * unknown), null for none.
     */
    public static MasterBenchResult run(
            MasterBenchSettings s, String host, int port, String token, LongSupplier etcdCpuNanos, PrintStream log)
            throws InterruptedException {
        return run(s, () -> Masters.connect(host, port, Duration.ofSeconds(10), token), etcdCpuNanos, log);
    }

    /**
     * Runs {@code s} against the master the {@code connect} supplier reaches (one new channel per call: the mounter and
     * each client get their own connection).
     */
    public static MasterBenchResult run(MasterBenchSettings s, Supplier<MasterConnection> connect, PrintStream log)
            throws InterruptedException {
        return run(s, connect, null, log);
    }

    private static MasterBenchResult run(
            MasterBenchSettings s, Supplier<MasterConnection> connect, LongSupplier etcdCpuNanos, PrintStream log)
            throws InterruptedException {
        MeasuredMasterChannel measured = new MeasuredMasterChannel();
        String mounter = "bench-mounter-" + Long.toHexString(s.seed() ^ System.nanoTime());
        List<String> segs = new ArrayList<>();
        try (MasterConnection m = connect.get()) {
            for (int i = 0; i < s.segments(); i++) {
                String name = mounter + "-seg" + i;
                MountStatus st = m.mount(mounter, name, s.segmentBytes(), "bench://" + name);
                if (st != MountStatus.MOUNTED)
                    throw new IllegalStateException("mounting fake segment " + name + ": " + st);
                segs.add(name);
            }
            AtomicBoolean stop = new AtomicBoolean();
            Thread pinger = Thread.ofPlatform()
                    .daemon()
                    .name("kvlab-bench-master-ping")
                    .start(() -> {
                        while (!stop.get()) {
                            try {
                                m.ping(mounter);
                                Thread.sleep(1000);
                            } catch (InterruptedException e) {
                                return;
                            } catch (RuntimeException e) {
                                // the clients will see the master's failure
                            }
                        }
                    });
            try {
                return drive(s, connect, measured, etcdCpuNanos, log);
            } finally {
                stop.set(true);
                pinger.interrupt();
                pinger.join(5000);
                for (String seg : segs) {
                    try {
                        m.unmount(mounter, seg);
                    } catch (RuntimeException ignored) {
                        // a master that went away forgets the segments with their client
                    }
                }
            }
        }
    }

    private static MasterBenchResult drive(
            MasterBenchSettings s,
            Supplier<MasterConnection> connect,
            MeasuredMasterChannel measured,
            LongSupplier etcdCpuNanos,
            PrintStream log)
            throws InterruptedException {
        List<MasterConnection> chans = new ArrayList<>();
        List<MasterConnection> async = new ArrayList<>();
        try {
            for (int c = 0; c < s.clients(); c++) {
                MasterConnection ch = measured.wrap(connect.get());
                chans.add(ch);
                if (s.mode() == ClientMode.ASYNC) async.add(ch);
            }
            if (s.op().reads()) {
                long t0 = System.nanoTime();
                List<Thread> fill = new ArrayList<>();
                List<RuntimeException> errs = new ArrayList<>();
                for (int c = 0; c < s.clients(); c++) {
                    int client = c;
                    fill.add(Thread.ofPlatform().start(() -> {
                        try {
                            prefill(s, chans.get(client), client);
                        } catch (RuntimeException e) {
                            synchronized (errs) {
                                errs.add(e);
                            }
                        }
                    }));
                }
                for (Thread t : fill) t.join();
                if (!errs.isEmpty())
                    throw new IllegalStateException(
                            "prefill failed: " + errs.getFirst().getMessage(), errs.getFirst());
                log.printf(
                        Locale.ROOT,
                        "prefilled %d keys per client in %.1f s%n",
                        s.keysPerClient(),
                        (System.nanoTime() - t0) / 1e9);
            }
            AtomicBoolean stop = new AtomicBoolean();
            List<Throwable> failures = new ArrayList<>();
            CountDownLatch asyncStopped = new CountDownLatch(async.size());
            List<Thread> threads = startClients(s, chans, async, stop, failures, asyncStopped);
            BenchWarmup.Spent warm = BenchWarmup.await(s.warmup(), s.jitWait(), stop::get);
            measured.recording(true);
            long cpu0 = processCpuNanos();
            long etcd0 = etcdCpuNanos == null ? -1 : etcdCpuNanos.getAsLong();
            Map<Long, ThreadCpu.Task> threads0 = ThreadCpu.snapshot();
            long t0 = System.nanoTime();
            long until = t0 + s.duration().toNanos();
            while (!stop.get() && System.nanoTime() < until)
                Thread.sleep(Math.max(1, Math.min(50, (until - System.nanoTime()) / 1_000_000)));
            measured.recording(false);
            long t1 = System.nanoTime();
            long cpu = processCpuNanos() - cpu0;
            Map<String, Double> byThread = ThreadCpu.secondsByKind(threads0, ThreadCpu.snapshot());
            long etcd1 = etcdCpuNanos == null ? -1 : etcdCpuNanos.getAsLong();
            double etcdCpu = etcd0 < 0 || etcd1 < 0 ? Double.NaN : round((etcd1 - etcd0) / 1e9);
            stop.set(true);
            for (Thread t : threads) t.join(30_000);
            if (!asyncStopped.await(30, TimeUnit.SECONDS))
                throw new IllegalStateException("a bench client's call did not complete within 30 s of the end");
            if (!failures.isEmpty())
                throw new IllegalStateException("a bench client failed: " + failures.getFirst(), failures.getFirst());
            double secs = (t1 - t0) / 1e9;
            Map<MeasuredMasterChannel.Rpc, MasterBenchResult.RpcLatency> lat =
                    new EnumMap<>(MeasuredMasterChannel.Rpc.class);
            for (MeasuredMasterChannel.Rpc r : rpcs(s.op())) {
                Histogram h = measured.latency(r).getIntervalHistogram();
                lat.put(
                        r,
                        new MasterBenchResult.RpcLatency(
                                measured.calls(r),
                                round(measured.calls(r) / secs),
                                round(h.getMean() / 1e3),
                                round(h.getValueAtPercentile(50) / 1e3),
                                round(h.getValueAtPercentile(99) / 1e3),
                                round(h.getValueAtPercentile(99.9) / 1e3),
                                round(h.getMaxValue() / 1e3)));
            }
            long ok = measured.okKeys.sum();
            return result(
                    s,
                    warm,
                    round(secs),
                    ok,
                    measured.failedKeys.sum(),
                    round(ok / secs),
                    lat,
                    cpu < 0 ? Double.NaN : round(cpu / 1e9),
                    cpu < 0 || ok == 0 ? Double.NaN : round(cpu / 1e3 / ok),
                    byThread,
                    etcdCpu);
        } finally {
            for (MasterConnection c : chans) c.close();
        }
    }

    /** Starts the clients: async ones count {@code asyncStopped} down when they stop; blocking ones are the threads returned. */
    private static List<Thread> startClients(
            MasterBenchSettings s,
            List<MasterConnection> chans,
            List<MasterConnection> async,
            AtomicBoolean stop,
            List<Throwable> failures,
            CountDownLatch asyncStopped) {
        for (int c = 0; c < async.size(); c++)
            new AsyncBenchClient(s, async.get(c), new ClientKeys(s, c), stop, failures, asyncStopped).start();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; s.mode() == ClientMode.BLOCKING && c < s.clients(); c++) {
            int client = c;
            threads.add(Thread.ofPlatform().name("kvlab-bench-master-" + c).start(() -> {
                try {
                    loop(s, chans.get(client), new ClientKeys(s, client), stop);
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                    stop.set(true);
                }
            }));
        }
        return threads;
    }

    /** CPU time of this process (master and clients when the master runs here), or -1 where the JVM cannot tell. */
    private static long processCpuNanos() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : -1;
    }

    private static void prefill(MasterBenchSettings s, MasterConnection ch, int client) {
        for (int from = 0; from < s.keysPerClient(); from += s.batchSize()) {
            int n = Math.min(s.batchSize(), s.keysPerClient() - from);
            List<String> keys = new ArrayList<>(n);
            for (int i = 0; i < n; i++) keys.add(ClientKeys.key(client, from + i));
            if (putBatch(s, ch, keys) != n) throw new IllegalStateException("the master did not take all prefill keys");
        }
    }

    /** PutStart then PutEnd of {@code keys}; the number completed. */
    private static int putBatch(MasterBenchSettings s, MasterConnection ch, List<String> keys) {
        PendingEnds p = PendingEnds.of(
                keys,
                ch.putStart(
                        s.tenant(), keys, lengths(s, keys.size()), new int[keys.size()], ReplicateConfig.replicas(1)));
        return p.isEmpty() ? 0 : PendingEnds.completed(ch.putEnd(s.tenant(), p.keys(), p.putIds()));
    }

    /** The length of each of {@code n} objects put. */
    static long[] lengths(MasterBenchSettings s, int n) {
        long[] l = new long[n];
        Arrays.fill(l, s.valueSize());
        return l;
    }

    private static void loop(MasterBenchSettings s, MasterConnection ch, ClientKeys keys, AtomicBoolean stop) {
        boolean single = !s.op().batched();
        while (!stop.get()) {
            List<String> k = keys.next();
            if (!s.op().reads()) putBatch(s, ch, k);
            else if (single) ch.getReplicaList(s.tenant(), k.getFirst());
            else ch.getReplicaLists(s.tenant(), k);
        }
    }

    /** The RPCs each operation makes. */
    static List<MeasuredMasterChannel.Rpc> rpcs(MasterOp op) {
        return op.reads()
                ? List.of(MeasuredMasterChannel.Rpc.GET_REPLICA_LIST)
                : List.of(MeasuredMasterChannel.Rpc.PUT_START, MeasuredMasterChannel.Rpc.PUT_END);
    }

    private static MasterBenchResult result(
            MasterBenchSettings s,
            BenchWarmup.Spent warm,
            double secs,
            long keys,
            long failed,
            double keysPerSecond,
            Map<MeasuredMasterChannel.Rpc, MasterBenchResult.RpcLatency> lat,
            double cpuSeconds,
            double cpuMicrosPerKey,
            Map<String, Double> cpuByThread,
            double etcdCpuSeconds) {
        Map<String, MasterBenchResult.RpcLatency> byName = new LinkedHashMap<>();
        lat.forEach((r, l) -> byName.put(r.name().toLowerCase(Locale.ROOT), l));
        // one op is one key (a batch call of 128 keys is 128 ops), as master_bench counts
        return new MasterBenchResult(
                s.master(),
                s.op().label(),
                s.clients(),
                s.mode().label(),
                s.op().batched() ? s.batchSize() : 1,
                s.valueSize(),
                s.segments(),
                s.segmentBytes(),
                Math.round(warm.time().toMillis()) / 1000.0,
                warm.jitQuiet(),
                secs,
                keys,
                failed,
                keysPerSecond,
                keysPerSecond,
                byName,
                cpuSeconds,
                cpuMicrosPerKey,
                cpuByThread,
                etcdCpuSeconds,
                keys == 0 || Double.isNaN(etcdCpuSeconds) ? Double.NaN : round(etcdCpuSeconds * 1e6 / keys),
                "none (metadata only: fake segments, no transfers)");
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
