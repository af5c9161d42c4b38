package dev.kvlab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.benchmark.Benchmarks;
import dev.kvlab.harness.benchmark.api.BenchFailedException;
import dev.kvlab.harness.benchmark.api.StoreBenchResult;
import dev.kvlab.harness.benchmark.api.StoreBenchSettings;
import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.spi.KvBackendProvider;
import dev.kvlab.transport.Transports;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvlab bench store}: ops/s, throughput and latency percentiles of one KV backend, through one measuring decorator. */
@Command(
        name = "store",
        mixinStandardHelpOptions = true,
        description =
                "Benchmarks a KV backend (bundled store, kvlab://HOST:PORT, redis://HOST:PORT): closed-loop clients, "
                        + "ops/s and HdrHistogram latency percentiles. A get run loads its keys into a store that holds none of them, and otherwise reads what is there (after a put run, a node kill or a failover: the misses are what was lost).")
public final class BenchStoreCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--backend", required = true, description = "bundled | kvlab://HOST:PORT | redis://HOST:PORT")
    String backend;

    @Option(
            names = "--transport",
            defaultValue = "tcp",
            description =
                    "data plane of bundled and kvlab:// backends: tcp | shm | rdma-emu | local [${DEFAULT-VALUE}]")
    String transport;

    @Option(
            names = "--value-size",
            required = true,
            converter = OptionValues.Bytes.class,
            description = "value size, e.g. 1MiB")
    long valueSize;

    @Option(names = "--op", required = true, description = "get | put")
    String op;

    @Option(names = "--clients", defaultValue = "1", description = "concurrent clients (threads) [${DEFAULT-VALUE}]")
    int clients;

    @Option(names = "--duration", defaultValue = "10s", description = "measured time [${DEFAULT-VALUE}]")
    Duration duration;

    @Option(names = "--warmup", defaultValue = "1s", description = "unmeasured time before it [${DEFAULT-VALUE}]")
    Duration warmup;

    @Option(names = "--keys", defaultValue = "256", description = "keys a get run loads and reads [${DEFAULT-VALUE}]")
    int keys;

    @Option(
            names = "--nodes",
            defaultValue = "2",
            description = "storage nodes of the bundled cluster [${DEFAULT-VALUE}]")
    int nodes;

    @Option(
            names = "--segment",
            converter = OptionValues.Bytes.class,
            description = "segment per bundled node [enough for the keys, at least 256MiB]")
    Long segment;

    @Option(
            names = "--control",
            defaultValue = "inproc",
            description =
                    "bundled: the client calls the master in process (inproc) or over loopback gRPC (grpc) [${DEFAULT-VALUE}]")
    String control;

    @Option(names = "--tenant", defaultValue = "bench", description = "namespace of the keys [${DEFAULT-VALUE}]")
    String tenant;

    @Option(
            names = "--verify",
            description =
                    "check every hit against its key's content (backend and bench both); wrong payloads are counted")
    boolean verify;

    @Option(
            names = "--no-load",
            description =
                    "get runs: never load, not even a store that holds none of the keys (misses show what the store lost)")
    boolean noLoad;

    @Option(names = "--hlog", description = "write the latency histogram (HdrHistogram log, microseconds) to this file")
    Path hlog;

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    private CommandLine.ParameterException bad(String msg) {
        return new CommandLine.ParameterException(spec.commandLine(), msg);
    }

    @Override
    public Integer call() throws Exception {
        KvBackendProvider provider;
        try {
            provider = KvBackends.discover().provider(backend);
        } catch (IllegalArgumentException e) {
            throw bad("--backend: " + e.getMessage());
        }
        boolean ownClient = !provider.usesTransport(); // a peer such as Redis moves its values with its own client
        Transports ts = Transports.discover();
        if (!ownClient && !ts.names().contains(transport))
            throw bad("--transport: unknown transport '" + transport + "' (available: " + String.join(", ", ts.names())
                    + ")");
        StoreBenchSettings s;
        BackendOptions opts;
        try {
            s = new StoreBenchSettings(
                    backend,
                    ownClient ? provider.name() : transport,
                    !ownClient && ts.provider(transport).emulated(),
                    valueSize,
                    op.toLowerCase(Locale.ROOT),
                    clients,
                    duration,
                    warmup,
                    keys,
                    verify,
                    !noLoad,
                    hlog);
            opts = s.backendOptions(transport, tenant, nodes, segment, control);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        StoreBenchResult r;
        try {
            r = Benchmarks.store(s, opts, json ? System.err : System.out);
        } catch (BenchFailedException e) {
            System.err.println("kvlab bench store: " + e.getMessage());
            return Kvlab.EXIT_FAILED;
        }
        if (r.errors() > 0)
            System.err.printf(Locale.ROOT, "kvlab bench store: %d of %d operations failed%n", r.errors(), r.ops());
        if (json) {
            System.out.println(new ObjectMapper().writeValueAsString(r));
        } else {
            System.out.print(r.text());
        }
        return r.wrongBytes() == 0 ? Kvlab.EXIT_OK : Kvlab.EXIT_FAILED;
    }
}
