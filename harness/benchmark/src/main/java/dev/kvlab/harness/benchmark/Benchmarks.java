package dev.kvlab.harness.benchmark;

import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.benchmark.api.MasterBenchResult;
import dev.kvlab.harness.benchmark.api.MasterBenchSettings;
import dev.kvlab.harness.benchmark.api.StoreBenchResult;
import dev.kvlab.harness.benchmark.api.StoreBenchSettings;
import dev.kvlab.harness.benchmark.api.StoreTarget;
import dev.kvlab.harness.benchmark.api.TargetCalibrationResult;
import dev.kvlab.harness.benchmark.api.TransportBenchResult;
import dev.kvlab.harness.benchmark.api.TransportBenchSpec;
import dev.kvlab.harness.benchmark.internal.Calibration;
import dev.kvlab.harness.benchmark.internal.TargetCalibration;
import dev.kvlab.harness.benchmark.internal.TransportBench;
import dev.kvlab.harness.benchmark.internal.master.MasterBench;
import dev.kvlab.harness.benchmark.internal.store.RemoteStore;
import dev.kvlab.harness.benchmark.internal.store.StoreBench;
import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportProfile;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The benchmarks and calibrations behind {@code kvlab bench} and {@code kvlab calibrate}, for a Java caller: what
 * they take and report is in {@code dev.kvlab.harness.benchmark.api}. A store that cannot be reached or refuses the token
 * fails with {@link dev.kvlab.harness.benchmark.api.BenchFailedException}, its message saying why.
 */
public final class Benchmarks {

    private Benchmarks() {}

    /** One transport benchmark: a target (its own JVM for every transport but {@code local}) and closed-loop initiators. */
    public static TransportBenchResult transport(Transports transports, TransportBenchSpec spec) throws Exception {
        return TransportBench.runOnce(transports, spec);
    }

    /** Measures the transports {@code names} (4 measurements of {@code duration} each) into a profile sim runs load. */
    public static TransportProfile calibrate(
            Transports transports,
            Duration duration,
            LinkSpec link,
            Consumer<String> progress,
            Clock clock,
            List<String> names)
            throws Exception {
        return new Calibration(transports, duration, link, progress, clock).run(names);
    }

    /** This machine as a profile labels it: host, CPU, cores, OS, JVM. */
    public static Map<String, String> machine() {
        return Calibration.machine();
    }

    /** Measures a running store ({@code target}, opened as {@code store}) from this host: round trip, small-get latency, bandwidth. */
    public static TargetCalibrationResult calibrateTarget(
            Duration duration,
            Consumer<String> progress,
            String target,
            String transport,
            boolean emulated,
            KvBackend store)
            throws InterruptedException {
        return new TargetCalibration(duration, progress).run(target, transport, emulated, store);
    }

    /**
     * Measures the running store {@code target} from this host over {@code transport} (one of {@code known}): opened with a
     * 10 s timeout under tenant {@code calibrate}, checked reachable and answering, then measured as {@link #calibrateTarget(
     * Duration, Consumer, String, String, boolean, KvBackend)}.
     */
    public static TargetCalibrationResult calibrateTarget(
            StoreTarget target, String transport, Duration duration, Consumer<String> progress, Transports known)
            throws Exception {
        BackendOptions opts = BackendOptions.defaults()
                .withTransport(transport)
                .withTimeout(Duration.ofSeconds(10))
                .withTenant("calibrate");
        try (KvBackend store = openRemoteStore(
                target.uri(),
                target.host(),
                target.port(),
                () -> KvBackends.discover().open(target.uri(), opts))) {
            return calibrateTarget(
                    duration,
                    progress,
                    target.uri(),
                    transport,
                    known.provider(transport).emulated(),
                    store);
        }
    }

    /**
     * A profile holding one measured store ({@code kvlab calibrate --target ... --out}): {@code r} as the entry of
     * {@code transport}, labelled with this machine, the time on {@code clock} and what was measured.
     */
    public static TransportProfile targetProfile(
            String target, String transport, TargetCalibrationResult r, Clock clock) {
        return new TransportProfile(
                TransportProfile.KIND,
                TransportProfile.VERSION,
                Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString(),
                machine(),
                "measured by kvlab calibrate --target " + target + " from this host (link " + r.link() + ")",
                Map.of(transport, r.toEntry()));
    }

    /** The closed-loop store benchmark of {@code s} against {@code backend}; loading progress goes to {@code log}. */
    public static StoreBenchResult store(StoreBenchSettings s, KvBackend backend, PrintStream log)
            throws InterruptedException, IOException {
        return StoreBench.run(s, backend, log);
    }

    /**
     * The store benchmark of {@code s} against the backend {@code s.backend()} names, opened with {@code options}: a
     * remote one ({@code SCHEME://HOST:PORT}: {@code kvlab://}, {@code redis://}, ...) checked reachable first; a spec its
     * backend refuses is {@link BadInputException}; loading progress goes to {@code log}.
     */
    public static StoreBenchResult store(StoreBenchSettings s, BackendOptions options, PrintStream log)
            throws Exception {
        Matcher remote = REMOTE.matcher(s.backend());
        if (remote.matches()) reachable(s.backend(), remote.group(1), Integer.parseInt(remote.group(2)));
        KvBackend opened;
        try {
            opened = KvBackends.discover().open(s.backend(), options);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("backend " + s.backend() + ": " + e.getMessage());
        }
        try (KvBackend b = opened) {
            return store(s, b, log);
        }
    }

    private static final Pattern REMOTE = Pattern.compile("[a-z][a-z0-9+.-]*://([^\\s/:]+):(\\d{1,5})");

    /**
     * The master's metadata benchmark of {@code s} against the master at {@code host:port} over gRPC (the mounter and
     * each client with a connection of its own; {@code token} null: none).
     */
    public static MasterBenchResult master(MasterBenchSettings s, String host, int port, String token, PrintStream log)
            throws InterruptedException {
        return MasterBench.run(s, host, port, token, log);
    }

    /**
     * The master's metadata benchmark of {@code s} against a master of its own, started in this process for the run on
     * loopback gRPC (no token) and stopped after it; the result names it {@code s.master()} and its address.
     */
    public static MasterBenchResult masterInProcess(MasterBenchSettings s, PrintStream log)
            throws InterruptedException, IOException {
        return MasterBench.runInProcess(s, log);
    }

    /**
     * The master's metadata benchmark with HA against without ({@code kvlab bench master --ha}): for each of {@code ops},
     * {@code rounds} alternating rounds against a master of its own and against a replicated leader + standby writing the
     * oplog to {@code etcd} (null: an etcd it starts on loopback).
     */
    public static dev.kvlab.harness.benchmark.api.MasterHaBenchResult masterHa(
            MasterBenchSettings s,
            List<dev.kvlab.harness.benchmark.api.MasterOp> ops,
            String etcd,
            int rounds,
            PrintStream log)
            throws InterruptedException, IOException {
        return dev.kvlab.harness.benchmark.internal.master.MasterHaBench.run(s, ops, etcd, rounds, log);
    }

    /** A remote store ({@code kvlab://}, {@code redis://}) checked reachable, opened by {@code opener} and answering one get. */
    public static KvBackend openRemoteStore(String target, String host, int port, Supplier<KvBackend> opener) {
        return RemoteStore.open(target, host, port, opener);
    }

    /** Fails unless a TCP connection to {@code host:port} opens within seconds (nothing listening: said at once). */
    public static void reachable(String target, String host, int port) {
        RemoteStore.reachable(target, host, port);
    }
}
