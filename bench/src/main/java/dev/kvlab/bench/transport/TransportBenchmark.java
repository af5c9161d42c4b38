package dev.kvlab.bench.transport;

import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TargetProcess;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The figures of {@code kvlab bench transport} from JMH: one batch of {@code batchSize} READ (or WRITE) requests of
 * {@code blockSize} bytes per operation, against a target segment served by a separate JVM (for every transport
 * but {@code local}), cycling through a segment larger than the CPU caches.
 *
 * <ul>
 *   <li>{@link #latency}: per-batch latency percentiles in microseconds (p0.50, p0.99, p0.999 in the JMH report);</li>
 *   <li>{@link #throughput}: batches per second, and its {@code bytes} counter in bytes per second.</li>
 * </ul>
 *
 * Run: {@code mvn -B -pl bench -am package -DskipTests && java -jar bench/target/kvlab-bench.jar TransportBenchmark
 * -p transport=tcp,shm}. rdma-emu figures are EMULATED (its NIC model is {@code link}).
 */
@State(Scope.Benchmark)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
public class TransportBenchmark {

    @Param({"tcp", "shm", "local", "rdma-emu"})
    public String transport;

    @Param({"1MiB"})
    public String blockSize;

    @Param({"16"})
    public int batchSize;

    @Param({"read"})
    public String op;

    /** The NIC that rdma-emu emulates (ignored by the other transports). */
    @Param({"8gbps"})
    public String link;

    @Param({"1GiB"})
    public String segmentSize;

    TransferEngine initiator;
    TargetProcess targetProcess;
    TransferEngine targetEngine;
    RemoteSegment remote;
    long block;
    long blocks;
    Opcode opcode;
    final AtomicLong nextBlock = new AtomicLong();

    @Setup(Level.Trial)
    public void start() {
        TransportConfig config = TransportConfig.defaults()
                .withTimeout(Duration.ofSeconds(60))
                .withLink("rdma-emu".equals(transport) ? LinkSpec.parse(link) : null);
        block = ByteSize.parse(blockSize);
        long segment = ByteSize.parse(segmentSize);
        blocks = segment / block;
        opcode = "write".equalsIgnoreCase(op) ? Opcode.WRITE : Opcode.READ;
        Transports transports = Transports.discover();
        initiator = transports.create(transport, config);
        SegmentHandle handle;
        if ("local".equals(transport)) {
            targetEngine = transports.create(transport, config);
            Segment s = targetEngine.registerSegment("jmh-target", segment);
            s.memory().fill((byte) 0x5a);
            handle = s.handle();
        } else {
            targetProcess = TargetProcess.start(transport, config, segment, Duration.ofSeconds(120));
            handle = targetProcess.handle();
        }
        remote = initiator.openSegment(handle);
    }

    @TearDown(Level.Trial)
    public void stop() {
        initiator.close();
        if (targetProcess != null) targetProcess.close();
        if (targetEngine != null) targetEngine.close();
    }

    /** Per-thread local buffer (64 MiB or two batches) and a reusable batch. */
    @State(Scope.Thread)
    public static class Initiator {
        MemorySegment local;
        long localBlocks;
        long localNext;
        TransferBatch batch;

        @Setup(Level.Trial)
        public void allocate(TransportBenchmark b) {
            long bytes = Math.max(64L << 20, 2 * b.block * b.batchSize);
            local = b.initiator.allocateBuffer(bytes);
            local.fill((byte) 1);
            localBlocks = bytes / b.block;
            batch = new TransferBatch(b.batchSize);
        }
    }

    /** Bytes moved, reported by JMH as a rate in Throughput mode. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Moved {
        public long bytes;

        @Setup(Level.Iteration)
        public void reset() {
            bytes = 0;
        }
    }

    /** Batches per second; the {@code bytes} counter is the throughput in bytes per second. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public TransferBatch throughput(Initiator s, Moved moved) throws Exception {
        TransferBatch b = batch(s);
        moved.bytes += b.totalBytes();
        return b;
    }

    /** Per-batch latency distribution (submission to completion). */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public TransferBatch latency(Initiator s) throws Exception {
        return batch(s);
    }

    private TransferBatch batch(Initiator s) throws Exception {
        TransferBatch b = s.batch;
        b.clear();
        long first = nextBlock.getAndAdd(batchSize);
        for (int i = 0; i < batchSize; i++) {
            b.add(
                    opcode,
                    s.local,
                    (s.localNext++ % s.localBlocks) * block,
                    remote,
                    ((first + i) % blocks) * block,
                    block);
        }
        initiator.submit(b).get(60, TimeUnit.SECONDS);
        if (!b.allOk()) throw new IllegalStateException("a request failed: " + b.status(0));
        return b;
    }
}
