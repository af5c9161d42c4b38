package dev.kvlab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kvlab.cli.bench.TransportBench;
import dev.kvlab.cli.bench.TransportBenchResult;
import dev.kvlab.cli.bench.TransportBenchSpec;
import dev.kvlab.harness.api.MachineMemory;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.DurationSpec;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.Transports;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kvlab bench transport}: throughput and per-batch latency percentiles of one transport, like Mooncake's
 * {@code transfer_engine_bench}. The target runs in its own JVM for tcp, shm and rdma-emu.
 */
@Command(name = "transport", mixinStandardHelpOptions = true,
        description = "Benchmarks a transport: a target serves one segment (in its own process for tcp, shm and rdma-emu), "
                + "closed-loop initiator threads submit batches of READ or WRITE requests; prints throughput and per-batch latency "
                + "percentiles (HdrHistogram) and CPU time. rdma-emu results are EMULATED (a NIC model).")
public final class BenchTransportCommand implements Callable<Integer> {

    @Spec CommandSpec cmd;

    @Option(names = "--transport", required = true, paramLabel = "NAME", description = "tcp, shm, local or rdma-emu")
    String transport;

    @Option(names = "--block-size", defaultValue = "1MiB", paramLabel = "SIZE", description = "bytes per request (default ${DEFAULT-VALUE})")
    String blockSize;

    @Option(names = "--batch-size", defaultValue = "16", paramLabel = "N", description = "requests per batch (default ${DEFAULT-VALUE})")
    int batchSize;

    @Option(names = "--threads", paramLabel = "N", description = "initiator threads, one batch in flight each (default: 2 for tcp and "
            + "rdma-emu, where a second batch keeps the link busy while a thread turns around; 1 for shm and local, whose copy lanes "
            + "already use every core)")
    Integer threads;

    @Option(names = "--duration", defaultValue = "10s", paramLabel = "DUR", description = "measured time after the warm-up (default ${DEFAULT-VALUE})")
    String duration;

    @Option(names = "--op", defaultValue = "read", paramLabel = "read|write", description = "READ pulls from the target, WRITE pushes to it (default ${DEFAULT-VALUE})")
    String op;

    @Option(names = "--link", paramLabel = "SPEC", description = "rdma-emu's emulated NIC, e.g. 8gbps, 4x200gbps@2us (default 200gbps@2us)")
    String link;

    @Option(names = "--segment-size", paramLabel = "SIZE", description = "target segment (default: the largest of 256MiB, twice the CPU's last-level cache, 2 batches per thread)")
    String segmentSize;

    @Option(names = "--slice-size", paramLabel = "SIZE", description = "slice size (default 64KiB)")
    String sliceSize;

    @Option(names = "--connections", paramLabel = "N", description = "connections (tcp) or copy lanes (shm, rdma-emu, local) per peer (default 4)")
    Integer connections;

    @Option(names = "--json", description = "print one JSON object on stdout")
    boolean json;

    @Override
    public Integer call() throws Exception {
        TransportBenchSpec spec = spec();
        checkMemory(spec, MachineMemory.now());
        TransportBenchResult r = TransportBench.runOnce(Transports.discover(), spec);
        PrintWriter out = cmd.commandLine().getOut();
        if (json) {
            out.println(new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(r.toJson()));
        } else {
            out.print(human(r));
        }
        out.flush();
        return Kvlab.EXIT_OK;
    }

    /** Parses and validates every option; a {@link ParameterException} (exit 2) names the bad one. */
    TransportBenchSpec spec() {
        Transports known = Transports.discover();
        if (!known.names().contains(transport))
            throw new ParameterException(cmd.commandLine(), "unknown transport '" + transport + "' (known: " + String.join(", ", known.names()) + ")");
        Opcode opcode = switch (op.toLowerCase(Locale.ROOT)) {
            case "read" -> Opcode.READ;
            case "write" -> Opcode.WRITE;
            default -> throw new ParameterException(cmd.commandLine(), "--op must be read or write, got '" + op + "'");
        };
        try {
            return new TransportBenchSpec(transport, ByteSize.parse(blockSize), batchSize,
                    threads == null ? TransportBenchSpec.defaultThreads(transport) : threads, DurationSpec.parse(duration), opcode,
                    link == null ? null : LinkSpec.parse(link),
                    segmentSize == null ? 0 : ByteSize.parse(segmentSize),
                    sliceSize == null ? TransportConfig.DEFAULT_SLICE_SIZE : ByteSize.parse(sliceSize),
                    connections == null ? TransportConfig.defaults().connectionsPerPeer() : connections);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd.commandLine(), e.getMessage(), e);
        }
    }

    /**
     * Refuses (exit 2) a bench whose processes together would hold more than 90% of the memory available now: the
     * target segment, every thread's buffer and the JVMs, checked before either process starts.
     */
    void checkMemory(TransportBenchSpec s, MachineMemory m) {
        String problem = memoryProblem(s, m);
        if (problem != null) throw new ParameterException(cmd.commandLine(), problem);
    }

    /** Why {@code s} does not fit {@code m}, or null when it does (or the machine's memory is unknown). */
    static String memoryProblem(TransportBenchSpec s, MachineMemory m) {
        if (m.availableBytes() <= 0) return null;
        long need = s.footprintBytes();
        long room = m.availableBytes() / 10 * 9;
        if (need <= room) return null;
        return String.format(Locale.ROOT,
                "--block-size %s x --batch-size %d with %d thread(s) needs %s in the two processes (target segment %s, %d initiator buffer(s) of %s, "
                        + "%s for the JVMs), more than the %s this machine can give now (90%% of %s available of %s); "
                        + "use a smaller --block-size, --batch-size, --threads or --segment-size",
                ByteSize.format(s.blockSize()), s.batchSize(), s.threads(), ByteSize.format(need), ByteSize.format(s.segmentBytes()), s.threads(),
                ByteSize.format(s.localBytes()), ByteSize.format((s.separateTarget() ? 2 : 1) * TransportBenchSpec.JVM_ALLOWANCE_BYTES),
                ByteSize.format(room), ByteSize.format(m.availableBytes()), ByteSize.format(m.totalBytes()));
    }

    static String human(TransportBenchResult r) {
        TransportBenchSpec s = r.spec();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "transport %s%s  op %s  block %s  batch %d  threads %d  target %s%n", s.transport(),
                r.emulated() ? " (EMULATED)" : "", s.op().name().toLowerCase(Locale.ROOT), ByteSize.format(s.blockSize()), s.batchSize(),
                s.threads(), s.separateTarget() ? "separate process" : "same process"));
        b.append(String.format(Locale.ROOT, "throughput %.3f GB/s (%.3f GiB/s)  %d batches, %s in %.2f s (after %.2f s warm-up)%n",
                r.throughputBytesPerSecond() / 1e9, r.throughputBytesPerSecond() / (1L << 30), r.batches(), ByteSize.format(r.bytes()),
                r.seconds(), r.warmupSeconds()));
        b.append(String.format(Locale.ROOT, "batch latency us: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f%n",
                r.p50Us(), r.p90Us(), r.p99Us(), r.p999Us(), r.maxUs(), r.meanUs()));
        b.append("copies: ").append(r.copySemantics()).append(System.lineSeparator());
        if (r.emulated()) {
            b.append("NOTE: these figures are EMULATED by a NIC model (" + r.effectiveLink() + "), not measured on RDMA hardware.").append(System.lineSeparator());
            if (r.copyBound())
                b.append(String.format(Locale.ROOT, "NOTE: below the emulated link's %.3f GB/s: the shared-memory copies (CPU), not the NIC model, limited this run.%n",
                        r.effectiveLink().bytesPerSecond() / 1e9));
        }
        return b.toString();
    }
}
