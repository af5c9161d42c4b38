package dev.kvlab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.cli.store.HostPortOption;
import dev.kvlab.cli.store.StoreToken;
import dev.kvlab.harness.benchmark.Benchmarks;
import dev.kvlab.harness.benchmark.api.ClientMode;
import dev.kvlab.harness.benchmark.api.MasterBenchResult;
import dev.kvlab.harness.benchmark.api.MasterBenchSettings;
import dev.kvlab.harness.benchmark.api.MasterOp;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvlab bench master}: metadata throughput of the store's master over its gRPC control plane (Mooncake's master_bench). */
@Command(
        name = "master",
        mixinStandardHelpOptions = true,
        description =
                "Benchmarks the store master's metadata path over the gRPC control plane clients use, no data moved "
                        + "(like Mooncake's master_bench): put = PutStart+PutEnd, get = replica lookup, batch-put / batch-get their "
                        + "batch forms. Fake segments are mounted first. Without --master it starts its own master in this process on loopback.")
public final class BenchMasterCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--master",
            description =
                    "HOST:PORT of a running master (it gets fake segments, unmounted after; use a master of its own) [own master on loopback]")
    String master;

    @Option(
            names = "--op",
            required = true,
            description = "put | get | batch-put | batch-get (with --ha, a comma-separated list of them)")
    String op;

    @Option(
            names = "--ha",
            arity = "0..1",
            fallbackValue = "",
            paramLabel = "etcd://HOST:PORT",
            description =
                    "run each --op against a replicated master (a leader writing the oplog to etcd and a standby applying it, in this process) "
                            + "and against one without HA, side by side; the etcd given, or one started for the run on loopback (Debian's etcd-server)")
    String ha;

    @Option(
            names = "--rounds",
            defaultValue = "2",
            description =
                    "with --ha: rounds per op, each one run without and one with HA, in alternating order [${DEFAULT-VALUE}]")
    int rounds;

    @Option(
            names = "--clients",
            defaultValue = "4",
            description = "clients, each with its own connection and one call in flight [${DEFAULT-VALUE}]")
    int clients;

    @Option(
            names = "--client-mode",
            defaultValue = "async",
            description =
                    "async: each client issues its next call from the previous one's "
                            + "completion on gRPC's transport thread; blocking: a thread per client making the store client's blocking calls [${DEFAULT-VALUE}]")
    String clientMode;

    @Option(names = "--batch-size", defaultValue = "128", description = "keys per batch call [${DEFAULT-VALUE}]")
    int batchSize;

    @Option(names = "--duration", defaultValue = "10s", description = "measured time [${DEFAULT-VALUE}]")
    Duration duration;

    @Option(names = "--warmup", defaultValue = "2s", description = "unmeasured time before it [${DEFAULT-VALUE}]")
    Duration warmup;

    @Option(
            names = "--jit-wait",
            defaultValue = "60s",
            description = "after --warmup, keep warming up while this process's JIT compilers "
                    + "are busy, at most this long (0s: do not wait) [${DEFAULT-VALUE}]")
    Duration jitWait;

    @Option(
            names = "--value-size",
            converter = OptionValues.Bytes.class,
            defaultValue = "1MiB",
            description = "object size the master allocates for (nothing is written) [${DEFAULT-VALUE}]")
    long valueSize;

    @Option(
            names = "--keys",
            defaultValue = "10000",
            description = "get runs: keys each client puts first and then looks up [${DEFAULT-VALUE}]")
    int keys;

    @Option(names = "--segments", defaultValue = "128", description = "fake segments to mount [${DEFAULT-VALUE}]")
    int segments;

    @Option(
            names = "--segment-size",
            converter = OptionValues.Bytes.class,
            defaultValue = "64GiB",
            description = "size of each fake segment [${DEFAULT-VALUE}]")
    long segmentSize;

    @Option(names = "--seed", defaultValue = "0", description = "seed of the key choice [${DEFAULT-VALUE}]")
    long seed;

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    private CommandLine.ParameterException bad(String msg) {
        return new CommandLine.ParameterException(spec.commandLine(), msg);
    }

    /** {@code --ha}: every op with and without HA, side by side. */
    private Integer runHa() throws Exception {
        if (master != null) throw bad("--ha runs masters of its own: leave out --master");
        if (rounds < 1 || rounds > 20) throw bad("--rounds must be 1..20, got " + rounds);
        java.util.List<MasterOp> ops = new java.util.ArrayList<>();
        MasterBenchSettings s;
        try {
            for (String o : op.split(",")) ops.add(MasterOp.parse(o.strip()));
            if (!ha.isEmpty()) dev.kvlab.store.HaCluster.checkEtcd(ha);
            s = new MasterBenchSettings(
                    "own master in this process",
                    ops.getFirst(),
                    clients,
                    ClientMode.parse(clientMode),
                    batchSize,
                    duration,
                    warmup,
                    jitWait,
                    valueSize,
                    keys,
                    segments,
                    segmentSize,
                    "bench",
                    seed);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage().startsWith("--") ? e.getMessage() : "--ha: " + e.getMessage());
        }
        PrintStream log = json ? System.err : System.out;
        dev.kvlab.harness.benchmark.api.MasterHaBenchResult r;
        try {
            r = Benchmarks.masterHa(s, ops, ha.isEmpty() ? null : ha, rounds, log);
        } catch (dev.kvlab.harness.benchmark.api.BenchFailedException e) {
            System.err.println("kvlab bench master: " + e.getMessage());
            return Kvlab.EXIT_FAILED;
        }
        if (json) System.out.println(new ObjectMapper().writeValueAsString(r));
        else System.out.print(r.text());
        boolean failed = r.rows().stream()
                .anyMatch(x -> x.without().failedKeys() > 0 || x.with().failedKeys() > 0);
        return failed ? Kvlab.EXIT_FAILED : Kvlab.EXIT_OK;
    }

    @Override
    public Integer call() throws Exception {
        if (ha != null) return runHa();
        MasterBenchSettings s;
        try {
            s = new MasterBenchSettings(
                    master == null ? "own master in this process" : master,
                    MasterOp.parse(op),
                    clients,
                    ClientMode.parse(clientMode),
                    batchSize,
                    duration,
                    warmup,
                    jitWait,
                    valueSize,
                    keys,
                    segments,
                    segmentSize,
                    "bench",
                    seed);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        PrintStream log = json ? System.err : System.out;
        MasterBenchResult r;
        if (master == null) {
            r = Benchmarks.masterInProcess(s, log);
        } else {
            HostPortOption at = HostPortOption.parse("--master", master, false);
            r = Benchmarks.master(
                    s.withMaster(at.host() + ":" + at.port()), at.host(), at.port(), StoreToken.read(null), log);
        }
        if (json) {
            System.out.println(new ObjectMapper().writeValueAsString(r));
        } else {
            System.out.print(r.text(master == null));
        }
        return r.failedKeys() == 0 ? Kvlab.EXIT_OK : Kvlab.EXIT_FAILED;
    }
}
