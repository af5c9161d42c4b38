package dev.kvlab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.cli.store.HostPortOption;
import dev.kvlab.cli.store.StoreToken;
import dev.kvlab.harness.Benchmarks;
import dev.kvlab.harness.api.benchmark.ClientMode;
import dev.kvlab.harness.api.benchmark.MasterBenchResult;
import dev.kvlab.harness.api.benchmark.MasterBenchSettings;
import dev.kvlab.harness.api.benchmark.MasterOp;
import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.master.StoreMaster;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.server.MasterService;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.DurationSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code kvlab bench master}: metadata throughput of the store's master over its gRPC control plane (Mooncake's master_bench). */
@Command(name = "master", mixinStandardHelpOptions = true,
        description = "Benchmarks the store master's metadata path over the gRPC control plane clients use, no data moved "
                + "(like Mooncake's master_bench): put = PutStart+PutEnd, get = replica lookup, batch-put / batch-get their "
                + "batch forms. Fake segments are mounted first. Without --master it starts its own master in this process on loopback.")
public final class BenchMasterCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--master", description = "HOST:PORT of a running master (it gets fake segments, unmounted after; use a master of its own) [own master on loopback]")
    String master;

    @Option(names = "--op", required = true, description = "put | get | batch-put | batch-get")
    String op;

    @Option(names = "--clients", defaultValue = "4", description = "clients, each with its own connection and one call in flight [${DEFAULT-VALUE}]")
    int clients;

    @Option(names = "--client-mode", defaultValue = "async", description = "async: each client issues its next call from the previous one's "
            + "completion on gRPC's transport thread; blocking: a thread per client making the store client's blocking calls [${DEFAULT-VALUE}]")
    String clientMode;

    @Option(names = "--batch-size", defaultValue = "128", description = "keys per batch call [${DEFAULT-VALUE}]")
    int batchSize;

    @Option(names = "--duration", defaultValue = "10s", description = "measured time [${DEFAULT-VALUE}]")
    String duration;

    @Option(names = "--warmup", defaultValue = "2s", description = "unmeasured time before it [${DEFAULT-VALUE}]")
    String warmup;

    @Option(names = "--jit-wait", defaultValue = "60s", description = "after --warmup, keep warming up while this process's JIT compilers "
            + "are busy, at most this long (0s: do not wait) [${DEFAULT-VALUE}]")
    String jitWait;

    @Option(names = "--value-size", defaultValue = "1MiB", description = "object size the master allocates for (nothing is written) [${DEFAULT-VALUE}]")
    String valueSize;

    @Option(names = "--keys", defaultValue = "10000", description = "get runs: keys each client puts first and then looks up [${DEFAULT-VALUE}]")
    int keys;

    @Option(names = "--segments", defaultValue = "128", description = "fake segments to mount [${DEFAULT-VALUE}]")
    int segments;

    @Option(names = "--segment-size", defaultValue = "64GiB", description = "size of each fake segment [${DEFAULT-VALUE}]")
    String segmentSize;

    @Option(names = "--seed", defaultValue = "0", description = "seed of the key choice [${DEFAULT-VALUE}]")
    long seed;

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    /** The shortest measured window whose figures mean something. */
    static final Duration MIN_DURATION = Duration.ofMillis(100);

    private CommandLine.ParameterException bad(String msg) {
        return new CommandLine.ParameterException(spec.commandLine(), msg);
    }

    private static Duration duration(String option, String value) {
        try {
            return DurationSpec.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Integer call() throws Exception {
        MasterOp o;
        ClientMode cm;
        Duration d, w, jw;
        long vs, seg;
        try {
            o = MasterOp.parse(op);
            cm = ClientMode.parse(clientMode);
            d = duration("--duration", duration);
            w = duration("--warmup", warmup);
            jw = duration("--jit-wait", jitWait);
            vs = ByteSize.parse(valueSize);
            seg = ByteSize.parse(segmentSize);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        // shorter, the window holds a handful of calls whose latency outlasts it: keys/s, mean latency and CPU per key
        // come out mutually impossible (1ms: 40,881 keys/s next to a 6,952 us mean from four one-in-flight clients)
        if (d.compareTo(MIN_DURATION) < 0) throw bad("--duration must be at least " + MIN_DURATION.toMillis() + "ms (a shorter window measures "
                + "a few calls and the clock, not the master), got " + duration);
        if (clients < 1 || clients > 1024) throw bad("--clients must be 1..1024, got " + clients);
        if (batchSize < 1 || batchSize > MasterService.MAX_BATCH) throw bad("--batch-size must be 1.." + MasterService.MAX_BATCH + ", got " + batchSize);
        if (keys < 1) throw bad("--keys must be >= 1, got " + keys);
        if (segments < 1 || segments > 4096) throw bad("--segments must be 1..4096, got " + segments);
        if (vs <= 0 || vs > seg) throw bad("--value-size must be > 0 and fit a segment, got " + valueSize);
        if (seg > StoreMaster.MAX_SEGMENT_BYTES) throw bad("--segment-size must be at most 1PiB");
        HostPortOption at = master == null ? null : HostPortOption.parse("--master", master, false);
        String token = at == null ? null : StoreToken.read(null);
        PrintStream log = json ? System.err : System.out;
        MasterService service = null;
        MasterServer server = null;
        MasterBenchResult r;
        try {
            String host;
            int port;
            if (at == null) {
                service = new MasterService(new StoreMaster(MasterConfig.defaults(), Clock.systemUTC()), new SimpleMeterRegistry())
                        .startHousekeeping(Duration.ofMillis(250));
                server = MasterServer.start(service, "127.0.0.1", 0, null);
                host = "127.0.0.1";
                port = server.port();
            } else {
                host = at.host();
                port = at.port();
            }
            String label = at == null ? "own master in this process, gRPC on 127.0.0.1:" + port : host + ":" + port;
            MasterBenchSettings s = new MasterBenchSettings(label, o, clients, cm, batchSize, d, w, jw, vs, keys, segments, seg, "bench", seed);
            r = Benchmarks.master(s, host, port, token, log);
        } finally {
            if (server != null) server.close();
            if (service != null) service.close();
        }
        if (json) {
            System.out.println(new ObjectMapper().writeValueAsString(r));
        } else {
            System.out.print(r.text(master == null));
        }
        return r.failedKeys() == 0 ? Kvlab.EXIT_OK : Kvlab.EXIT_FAILED;
    }
}
