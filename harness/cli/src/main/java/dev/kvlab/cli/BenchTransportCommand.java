package dev.kvlab.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kvlab.harness.api.MachineMemory;
import dev.kvlab.harness.benchmark.Benchmarks;
import dev.kvlab.harness.benchmark.api.TransportBenchResult;
import dev.kvlab.harness.benchmark.api.TransportBenchSpec;
import dev.kvlab.transport.Transports;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvlab bench transport}: throughput and per-batch latency percentiles of one transport, like Mooncake's
 * {@code transfer_engine_bench}. The target runs in its own JVM for tcp, shm and rdma-emu.
 */
@Command(
        name = "transport",
        mixinStandardHelpOptions = true,
        description =
                "Benchmarks a transport: a target serves one segment (in its own process for tcp, shm and rdma-emu), "
                        + "closed-loop initiator threads submit batches of READ or WRITE requests; prints throughput and per-batch latency "
                        + "percentiles (HdrHistogram) and CPU time. rdma-emu results are EMULATED (a NIC model).")
public final class BenchTransportCommand implements Callable<Integer> {

    @Spec
    CommandSpec cmd;

    @Option(names = "--transport", required = true, paramLabel = "NAME", description = "tcp, shm, local or rdma-emu")
    String transport;

    @Option(
            names = "--block-size",
            converter = OptionValues.Bytes.class,
            defaultValue = "1MiB",
            paramLabel = "SIZE",
            description = "bytes per request (default ${DEFAULT-VALUE})")
    long blockSize;

    @Option(
            names = "--batch-size",
            defaultValue = "16",
            paramLabel = "N",
            description = "requests per batch (default ${DEFAULT-VALUE})")
    int batchSize;

    @Option(
            names = "--threads",
            paramLabel = "N",
            description = "initiator threads, one batch in flight each (default: 2 for tcp and "
                    + "rdma-emu, where a second batch keeps the link busy while a thread turns around; 1 for shm and local, whose copy lanes "
                    + "already use every core)")
    Integer threads;

    @Option(
            names = "--duration",
            defaultValue = "10s",
            paramLabel = "DUR",
            description = "measured time after the warm-up (default ${DEFAULT-VALUE})")
    Duration duration;

    @Option(
            names = "--op",
            defaultValue = "read",
            paramLabel = "read|write",
            description = "READ pulls from the target, WRITE pushes to it (default ${DEFAULT-VALUE})")
    String op;

    @Option(
            names = "--link",
            paramLabel = "SPEC",
            description = "rdma-emu's emulated NIC, e.g. 8gbps, 4x200gbps@2us (default 200gbps@2us)")
    String link;

    @Option(
            names = "--segment-size",
            converter = OptionValues.Bytes.class,
            paramLabel = "SIZE",
            description =
                    "target segment (default: the largest of 256MiB, twice the CPU's last-level cache, 2 batches per thread)")
    Long segmentSize;

    @Option(
            names = "--slice-size",
            converter = OptionValues.Bytes.class,
            paramLabel = "SIZE",
            description = "slice size (default 64KiB)")
    Long sliceSize;

    @Option(
            names = "--connections",
            paramLabel = "N",
            description = "connections (tcp) or copy lanes (shm, rdma-emu, local) per peer (default 4)")
    Integer connections;

    @Option(names = "--json", description = "print one JSON object on stdout")
    boolean json;

    @Override
    public Integer call() throws Exception {
        Transports known = Transports.discover();
        TransportBenchSpec spec = TransportBenchSpec.of(
                known.names(),
                transport,
                blockSize,
                batchSize,
                threads,
                duration,
                op,
                link,
                segmentSize,
                sliceSize,
                connections);
        spec.checkFits(MachineMemory.now());
        TransportBenchResult r = Benchmarks.transport(known, spec);
        PrintWriter out = cmd.commandLine().getOut();
        if (json) {
            out.println(new ObjectMapper()
                    .disable(SerializationFeature.INDENT_OUTPUT)
                    .writeValueAsString(r.toJson()));
        } else {
            out.print(r.text());
        }
        out.flush();
        return Kvlab.EXIT_OK;
    }
}
