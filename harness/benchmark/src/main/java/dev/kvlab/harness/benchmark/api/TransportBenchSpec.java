package dev.kvlab.harness.benchmark.api;

import dev.kvlab.harness.api.MachineMemory;
import dev.kvlab.harness.api.input.BadOptionException;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.TransportConfig;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * One transport benchmark run (like Mooncake's {@code transfer_engine_bench}): {@code threads} closed-loop
 * initiator threads each submit batches of {@code batchSize} requests of {@code blockSize} bytes against one
 * target segment of {@code segmentBytes}, for {@code duration} after a warm-up.
 *
 * @param segmentBytes target segment size; 0 chooses {@link #defaultSegmentBytes}
 */
public record TransportBenchSpec(
        String transport,
        long blockSize,
        int batchSize,
        int threads,
        Duration duration,
        Opcode op,
        LinkSpec link,
        long segmentBytes,
        long sliceSize,
        int connections) {

    /** At least this much target memory, so the working set is far beyond any CPU cache (an honest memcpy comparison). */
    public static final long MIN_SEGMENT_BYTES = 256L << 20;

    public static final long MIN_LOCAL_BYTES = 64L << 20;

    /** Checks every value; {@link IllegalArgumentException} with a one-line reason otherwise. */
    public TransportBenchSpec {
        if (blockSize < 1 || blockSize > (1L << 30))
            throw new IllegalArgumentException("--block-size must be 1B..1GiB, got " + ByteSize.format(blockSize));
        if (batchSize < 1 || batchSize > 65536)
            throw new IllegalArgumentException("--batch-size must be 1..65536, got " + batchSize);
        if (threads < 1 || threads > 64) throw new IllegalArgumentException("--threads must be 1..64, got " + threads);
        if (duration == null
                || duration.isNegative()
                || duration.isZero()
                || duration.compareTo(Duration.ofHours(1)) > 0)
            throw new IllegalArgumentException("--duration must be > 0 and <= 1h, got " + duration);
        if (op == null) throw new IllegalArgumentException("--op must be read or write");
        if (sliceSize < 1) throw new IllegalArgumentException("--slice-size must be > 0");
        if (connections < 1 || connections > 64)
            throw new IllegalArgumentException("--connections must be 1..64, got " + connections);
        if (link != null && !"rdma-emu".equals(transport))
            throw new IllegalArgumentException(
                    "--link applies to the emulated transport rdma-emu only, not " + transport);
        long need = blockSize * batchSize;
        if (need / batchSize != blockSize || need > (16L << 30))
            throw new IllegalArgumentException("--block-size x --batch-size must be <= 16GiB per thread");
        if (segmentBytes == 0) segmentBytes = defaultSegmentBytes(blockSize, batchSize, threads);
        if (segmentBytes < blockSize) throw new IllegalArgumentException("--segment-size must hold at least one block");
    }

    /**
     * The spec as {@code kvlab bench transport} is given it: {@code transport} one of {@code known}, {@code op} read or
     * write (any case), {@code link} as {@link LinkSpec} writes it; null {@code link}, {@code threads},
     * {@code segmentBytes}, {@code sliceSize} and {@code connections} take their defaults. A bad value is a
     * {@link BadOptionException} naming its option.
     */
    public static TransportBenchSpec of(
            List<String> known,
            String transport,
            long blockSize,
            int batchSize,
            Integer threads,
            Duration duration,
            String op,
            String link,
            Long segmentBytes,
            Long sliceSize,
            Integer connections) {
        if (!known.contains(transport))
            throw new BadOptionException(
                    "unknown transport '" + transport + "' (known: " + String.join(", ", known) + ")");
        Opcode opcode = switch (op.toLowerCase(Locale.ROOT)) {
            case "read" -> Opcode.READ;
            case "write" -> Opcode.WRITE;
            default -> throw new BadOptionException("--op must be read or write, got '" + op + "'");
        };
        try {
            return new TransportBenchSpec(
                    transport,
                    blockSize,
                    batchSize,
                    threads == null ? defaultThreads(transport) : threads,
                    duration,
                    opcode,
                    link == null ? null : LinkSpec.parse(link),
                    segmentBytes == null ? 0 : segmentBytes,
                    sliceSize == null ? TransportConfig.DEFAULT_SLICE_SIZE : sliceSize,
                    connections == null ? TransportConfig.defaults().connectionsPerPeer() : connections);
        } catch (IllegalArgumentException e) {
            throw new BadOptionException(e.getMessage(), e);
        }
    }

    /**
     * The default target segment: at least {@link #MIN_SEGMENT_BYTES}, twice the last-level cache (so the working
     * set never fits in it: this machine's L3 may be hundreds of MiB), and two batches per thread; whole blocks.
     */
    public static long defaultSegmentBytes(long blockSize, int batchSize, int threads) {
        long perThread = 2 * blockSize * batchSize;
        long want = Math.max(Math.max(MIN_SEGMENT_BYTES, 2 * LastLevelCache.bytes()), perThread * threads);
        want = (want + (64L << 20) - 1) / (64L << 20) * (64L << 20);
        return (want + blockSize - 1) / blockSize * blockSize;
    }

    /**
     * The fast, honest default: 2 initiator threads for transports whose batches wait on a link (tcp, rdma-emu),
     * so one batch's turnaround on the host does not idle the link; 1 for memory-copy transports (shm, local),
     * whose copy lanes already keep every core busy (a second thread only adds contention).
     */
    public static int defaultThreads(String transport) {
        return "tcp".equals(transport) || "rdma-emu".equals(transport) ? 2 : 1;
    }

    /** Per-thread local buffer: two batches, at least {@link #MIN_LOCAL_BYTES}, whole blocks. */
    public long localBytes() {
        long want = Math.max(MIN_LOCAL_BYTES, 2 * blockSize * batchSize);
        return (want + blockSize - 1) / blockSize * blockSize;
    }

    /** Whether the target runs in its own process (every transport but local). */
    public boolean separateTarget() {
        return !"local".equals(transport);
    }

    /** Memory a JVM of the bench takes besides its buffers (heap, code, threads): an allowance, not a measurement. */
    public static final long JVM_ALLOWANCE_BYTES = 256L << 20;

    /**
     * What the bench's processes will hold at once: the target segment (in the target process, or one shared-memory
     * file both map), every initiator thread's local buffer, and an allowance per JVM. Exact arithmetic: a figure too
     * large for a long is {@link Long#MAX_VALUE}.
     */
    public long footprintBytes() {
        try {
            long locals = Math.multiplyExact(localBytes(), (long) threads);
            long jvms = (separateTarget() ? 2 : 1) * JVM_ALLOWANCE_BYTES;
            return Math.addExact(Math.addExact(segmentBytes, locals), jvms);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** The transport configuration both sides use. */
    public TransportConfig config() {
        TransportConfig c = TransportConfig.defaults()
                .withSliceSize(sliceSize)
                .withConnectionsPerPeer(connections)
                .withLink(link);
        Duration needed = duration.multipliedBy(2).plusSeconds(30);
        return c.withTimeout(needed.compareTo(c.timeout()) > 0 ? needed : c.timeout());
    }

    public static List<String> ops() {
        return List.of("read", "write");
    }

    /**
     * Refuses ({@link BadOptionException}, saying why) a bench whose processes together would hold more than 90% of what
     * {@code m} has available ({@link #memoryProblem}): checked before either process starts.
     */
    public void checkFits(MachineMemory m) {
        String problem = memoryProblem(m);
        if (problem != null) throw new BadOptionException(problem);
    }

    /** Why this bench does not fit {@code m} (the target segment, every thread's buffer and the two JVMs), or null when it does (or the machine's memory is unknown). */
    public String memoryProblem(MachineMemory m) {
        TransportBenchSpec s = this;
        if (m.availableBytes() <= 0) return null;
        long need = s.footprintBytes();
        long room = m.availableBytes() / 10 * 9;
        if (need <= room) return null;
        return String.format(
                Locale.ROOT,
                "--block-size %s x --batch-size %d with %d thread(s) needs %s in the two processes (target segment %s, %d initiator buffer(s) of %s, "
                        + "%s for the JVMs), more than the %s this machine can give now (90%% of %s available of %s); "
                        + "use a smaller --block-size, --batch-size, --threads or --segment-size",
                ByteSize.format(s.blockSize()),
                s.batchSize(),
                s.threads(),
                ByteSize.format(need),
                ByteSize.format(s.segmentBytes()),
                s.threads(),
                ByteSize.format(s.localBytes()),
                ByteSize.format((s.separateTarget() ? 2 : 1) * TransportBenchSpec.JVM_ALLOWANCE_BYTES),
                ByteSize.format(room),
                ByteSize.format(m.availableBytes()),
                ByteSize.format(m.totalBytes()));
    }
}
