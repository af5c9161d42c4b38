package dev.kvlab.transport.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TargetProcess;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import dev.kvlab.transport.api.TransportConfig;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The behaviour every transport must show, run against each of them by a one-line subclass (like Micrometer's
 * {@code MeterRegistryCompatibilityKit}). The target side is a second engine in this JVM, and, for transports
 * that cross processes, also a real separate process ({@link TargetProcess}) where a peer must be able to die.
 *
 * <p>Random choices use a seed printed with every failure message, so a failing case can be replayed.
 */
public abstract class TransportCompatibilityKit {

    protected static final long SEGMENT_BYTES = 8L << 20;
    protected static final Duration TIMEOUT = Duration.ofSeconds(3);

    /** The transport's name as registered with {@link Transports}. */
    protected abstract String transport();

    /** True when the target can live in another process (everything but {@code local}). */
    protected boolean crossProcess() {
        return true;
    }

    /** True when a suspended (SIGSTOP) target stops serving: transports where the target's CPU takes part. */
    protected boolean suspendedPeerStopsServing() {
        return false;
    }

    /**
     * Heap bytes a transport may allocate per slice (0: none, only per batch). tcp allows for the JDK's own
     * session bookkeeping in scattering/gathering socket calls.
     */
    protected long allowedAllocationPerSlice() {
        return 0;
    }

    /** The configuration both sides use; subclasses may adjust it. */
    protected TransportConfig config() {
        return TransportConfig.defaults().withTimeout(TIMEOUT).withShmDirectory(shmDirectory);
    }

    protected Path shmDirectory;
    protected TransferEngine target;
    protected TransferEngine initiator;
    protected Segment segment;
    protected RemoteSegment remote;
    private final List<AutoCloseable> closeLater = new ArrayList<>();
    protected long seed;
    private String testName;

    @BeforeEach
    void setUpKit(TestInfo info) throws IOException {
        Path shm = Path.of("/dev/shm");
        Path base =
                Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        shmDirectory = Files.createTempDirectory(base, "kvlab-kit-");
        seed = System.nanoTime();
        testName = info.getDisplayName();
        target = create(config());
        segment = target.registerSegment("kit-target", SEGMENT_BYTES);
        initiator = create(config());
        remote = initiator.openSegment(segment.handle());
    }

    @AfterEach
    void tearDownKit() throws Exception {
        for (AutoCloseable c : closeLater.reversed()) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
        if (initiator != null) initiator.close();
        if (target != null) target.close();
        try (Stream<Path> files = Files.walk(shmDirectory)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    protected TransferEngine create(TransportConfig config) {
        return Transports.discover().create(transport(), config);
    }

    protected String context() {
        return transport() + " / " + testName + " / seed " + seed;
    }

    // ------------------------------------------------------------------------------------------------ helpers

    protected static void fillRandom(MemorySegment m, long offset, long length, SplittableRandom rnd) {
        long i = 0;
        for (; i + 8 <= length; i += 8) m.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + i, rnd.nextLong());
        for (; i < length; i++) m.set(ValueLayout.JAVA_BYTE, offset + i, (byte) rnd.nextInt());
    }

    protected TransferBatch await(CompletableFuture<TransferBatch> f) {
        try {
            return f.get(TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(context() + ": batch failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError(context() + ": batch did not complete within its timeout + 5 s");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    protected void assertAllOk(TransferBatch b) {
        for (int i = 0; i < b.size(); i++)
            assertThat(b.status(i)).as(context() + ": request " + i).isEqualTo(TransferStatus.OK);
        assertThat(b.allOk()).isTrue();
    }

    /** Writes {@code len} random bytes to the target at {@code targetOffset}, reads them back, compares. */
    protected void roundTrip(RemoteSegment to, long targetOffset, long len, long localOffset, SplittableRandom rnd) {
        MemorySegment src = initiator.allocateBuffer(localOffset + len + 1);
        MemorySegment dst = initiator.allocateBuffer(localOffset + len + 1);
        fillRandom(src, localOffset, len, rnd);
        TransferBatch w = new TransferBatch(1);
        w.add(Opcode.WRITE, src, localOffset, to, targetOffset, len);
        assertAllOk(await(initiator.submit(w)));
        TransferBatch r = new TransferBatch(1);
        r.add(Opcode.READ, dst, localOffset, to, targetOffset, len);
        assertAllOk(await(initiator.submit(r)));
        long mismatch = src.asSlice(localOffset, len).mismatch(dst.asSlice(localOffset, len));
        assertThat(mismatch)
                .as(context() + ": first differing byte of a " + len + "-byte round trip at target offset "
                        + targetOffset + ", local offset " + localOffset)
                .isEqualTo(-1L);
    }

    // -------------------------------------------------------------------------------------------------- tests

    @Test
    void engineNameAndLabelsMatchTheProvider() {
        assertThat(initiator.name()).isEqualTo(transport());
        assertThat(initiator.emulated())
                .isEqualTo(Transports.discover().provider(transport()).emulated());
        assertThat(initiator.copySemantics()).isNotBlank();
        if (initiator.emulated()) assertThat(initiator.copySemantics()).containsIgnoringCase("emulated");
        assertThat(segment.handle().transport()).isEqualTo(transport());
        assertThat(SegmentHandle.parse(segment.handle().toUri())).isEqualTo(segment.handle());
        assertThat(remote.size()).isEqualTo(SEGMENT_BYTES);
    }

    @Test
    void roundTripsOfRandomSizesAndOffsets() {
        SplittableRandom rnd = new SplittableRandom(seed);
        long slice = config().sliceSize();
        for (int i = 0; i < 40; i++) {
            long len = switch (i % 4) {
                case 0 -> 1 + rnd.nextLong(64);
                case 1 -> 1 + rnd.nextLong(slice);
                case 2 -> slice + 1 + rnd.nextLong(3 * slice); // more than one slice, unaligned end
                default -> 1 + rnd.nextLong(SEGMENT_BYTES / 4);
            };
            long targetOffset = rnd.nextLong(SEGMENT_BYTES - len + 1);
            long localOffset = rnd.nextLong(4097);
            roundTrip(remote, targetOffset, len, localOffset, rnd);
        }
    }

    @Test
    void requestsMuchLargerThanASliceWithASmallSliceSize() {
        TransportConfig small = config().withSliceSize(4096 + 7);
        try (TransferEngine t = create(small);
                TransferEngine i = create(small)) {
            Segment s = t.registerSegment("small-slices", 1 << 20);
            RemoteSegment r = i.openSegment(s.handle());
            SplittableRandom rnd = new SplittableRandom(seed);
            MemorySegment src = i.allocateBuffer(1 << 20);
            MemorySegment dst = i.allocateBuffer(1 << 20);
            fillRandom(src, 0, 1 << 20, rnd);
            TransferBatch w = new TransferBatch(2);
            w.add(Opcode.WRITE, src, 3, r, 5, 300_001);
            w.add(Opcode.WRITE, src, 400_000, r, 400_001, 500_000);
            assertAllOk(await(i.submit(w)));
            TransferBatch rd = new TransferBatch(2);
            rd.add(Opcode.READ, dst, 3, r, 5, 300_001);
            rd.add(Opcode.READ, dst, 400_000, r, 400_001, 500_000);
            assertAllOk(await(i.submit(rd)));
            assertThat(src.asSlice(3, 300_001).mismatch(dst.asSlice(3, 300_001)))
                    .as(context())
                    .isEqualTo(-1);
            assertThat(src.asSlice(400_000, 500_000).mismatch(dst.asSlice(400_000, 500_000)))
                    .as(context())
                    .isEqualTo(-1);
        }
    }

    @Test
    void batchesOfManyRequestsWithMixedOperations() {
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 48;
        long region = SEGMENT_BYTES / n;
        MemorySegment src = initiator.allocateBuffer(SEGMENT_BYTES);
        MemorySegment dst = initiator.allocateBuffer(SEGMENT_BYTES);
        fillRandom(src, 0, SEGMENT_BYTES, rnd);
        long[] len = new long[n];
        TransferBatch w = new TransferBatch(n);
        for (int i = 0; i < n; i++) {
            len[i] = 1 + rnd.nextLong(region - 1);
            w.add(Opcode.WRITE, src, i * region, remote, i * region, len[i]);
        }
        assertAllOk(await(initiator.submit(w)));
        // one batch that reads the first half back while rewriting the second half
        TransferBatch mixed = new TransferBatch(n);
        for (int i = n - 1; i >= 0; i--) {
            if (i < n / 2) mixed.add(Opcode.READ, dst, i * region, remote, i * region, len[i]);
            else mixed.add(Opcode.WRITE, src, i * region, remote, i * region, len[i]);
        }
        assertThat(await(initiator.submit(mixed))).isSameAs(mixed);
        assertAllOk(mixed);
        TransferBatch r = new TransferBatch(n);
        for (int i = n / 2; i < n; i++) r.add(Opcode.READ, dst, i * region, remote, i * region, len[i]);
        assertAllOk(await(initiator.submit(r)));
        for (int i = 0; i < n; i++) {
            assertThat(src.asSlice(i * region, len[i]).mismatch(dst.asSlice(i * region, len[i])))
                    .as(context() + ": request " + i)
                    .isEqualTo(-1);
        }
    }

    @Test
    void aBatchIsReusableAfterClear() {
        MemorySegment buf = initiator.allocateBuffer(1 << 16);
        TransferBatch b = new TransferBatch(4);
        for (int round = 0; round < 5; round++) {
            b.clear();
            buf.fill((byte) round);
            b.add(Opcode.WRITE, buf, 0, remote, round * (1L << 16), 1 << 16);
            assertAllOk(await(initiator.submit(b)));
        }
        MemorySegment back = initiator.allocateBuffer(1 << 16);
        b.clear();
        b.add(Opcode.READ, back, 0, remote, 3L << 16, 1 << 16);
        assertAllOk(await(initiator.submit(b)));
        assertThat(back.get(ValueLayout.JAVA_BYTE, 12345)).isEqualTo((byte) 3);
    }

    @Test
    void emptyBatchesAndZeroLengthRequestsComplete() {
        assertThat(await(initiator.submit(new TransferBatch(1))).size()).isZero();
        MemorySegment buf = initiator.allocateBuffer(16);
        TransferBatch b = new TransferBatch(2);
        b.add(Opcode.READ, buf, 0, remote, 0, 0);
        b.add(Opcode.WRITE, buf, 16, remote, SEGMENT_BYTES, 0);
        assertAllOk(await(initiator.submit(b)));
    }

    @Test
    void concurrentSubmittersDoNotMixTheirBytes() throws Exception {
        int threads = 4;
        long region = SEGMENT_BYTES / threads;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                done.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed + me);
                    MemorySegment src = initiator.allocateBuffer(region);
                    MemorySegment dst = initiator.allocateBuffer(region);
                    TransferBatch b = new TransferBatch(4);
                    for (int round = 0; round < 25; round++) {
                        long len = 1 + rnd.nextLong(region / 4 - 1);
                        fillRandom(src, 0, 4 * len, rnd);
                        b.clear();
                        for (int k = 0; k < 4; k++)
                            b.add(Opcode.WRITE, src, k * len, remote, me * region + k * len, len);
                        assertAllOk(await(initiator.submit(b)));
                        b.clear();
                        for (int k = 3; k >= 0; k--)
                            b.add(Opcode.READ, dst, k * len, remote, me * region + k * len, len);
                        assertAllOk(await(initiator.submit(b)));
                        assertThat(src.asSlice(0, 4 * len).mismatch(dst.asSlice(0, 4 * len)))
                                .as(context() + ": thread " + me + " round " + round)
                                .isEqualTo(-1);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) f.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void outOfBoundsRequestsAreRejectedWithAClearError() {
        MemorySegment buf = initiator.allocateBuffer(4096);
        TransferBatch b = new TransferBatch(4);
        assertThatThrownBy(() -> b.add(Opcode.WRITE, buf, 0, remote, SEGMENT_BYTES - 10, 100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside segment")
                .hasMessageContaining(String.valueOf(SEGMENT_BYTES));
        assertThatThrownBy(() -> b.add(Opcode.READ, buf, 4000, remote, 0, 100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside the local buffer");
        assertThatThrownBy(() -> b.add(Opcode.READ, buf, 0, remote, -1, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
        assertThatThrownBy(() -> b.add(Opcode.READ, buf, 0, remote, Long.MAX_VALUE - 5, 10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(b.size()).isZero();
    }

    @Test
    void aTargetSegmentClosedUnderTheInitiatorNeverYieldsOk() {
        MemorySegment buf = initiator.allocateBuffer(1 << 20);
        segment.close();
        TransferBatch b = new TransferBatch(1);
        b.add(Opcode.READ, buf, 0, remote, 0, 1 << 20);
        CompletableFuture<TransferBatch> f;
        try {
            f = initiator.submit(b);
        } catch (TransferException e) {
            return; // refusing at once is fine
        }
        try {
            TransferBatch done = f.get(TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
            assertThat(done.status(0)).as(context()).isIn(TransferStatus.OUT_OF_BOUNDS, TransferStatus.FAILED);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).as(context()).isInstanceOf(TransferException.class);
            assertThat(b.status(0)).isIn(TransferStatus.FAILED, TransferStatus.TIMEOUT, TransferStatus.OUT_OF_BOUNDS);
        } catch (TimeoutException | InterruptedException e) {
            fail(context() + ": a request to a closed segment did not complete within its timeout");
        }
    }

    @Test
    void handlesOfOtherTransportsOrUnknownSegmentsAreRefused() {
        SegmentHandle h = segment.handle();
        assertThatThrownBy(() -> initiator.openSegment(new SegmentHandle("nosuch", h.address(), h.segment(), h.size())))
                .isInstanceOf(IllegalArgumentException.class);
        SegmentHandle unknown = new SegmentHandle(
                h.transport(),
                h.address(),
                h.segment().contains("/")
                        ? h.segment().substring(0, h.segment().lastIndexOf('/') + 1) + "kvlab-nosuch-segment"
                        : "nosuch-segment",
                h.size());
        assertThatThrownBy(() -> initiator.openSegment(unknown))
                .isInstanceOfAny(TransferException.class, IllegalArgumentException.class);
    }

    @Test
    void batchesAllocateNothingPerSlice() throws Exception {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        assumeTrue(
                threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
                "no allocation accounting in this JVM");
        MemorySegment buf = initiator.allocateBuffer(16L << 18);
        TransferBatch b = new TransferBatch(16);
        long slice = config().sliceSize();
        long[] perBatch = new long[2];
        long[] blockSizes = {slice / 16, 4 * slice}; // 16 slices per batch, then 64
        for (int pass = 0; pass < 2; pass++) { // the first pass warms up (class loading, JIT)
            for (int k = 0; k < 2; k++) {
                long block = blockSizes[k];
                int n = 150;
                long before = threads.getTotalThreadAllocatedBytes();
                for (int i = 0; i < n; i++) {
                    b.clear();
                    for (int j = 0; j < 16; j++)
                        b.add(j % 2 == 0 ? Opcode.READ : Opcode.WRITE, buf, j * block, remote, j * block, block);
                    initiator.submit(b).get(30, TimeUnit.SECONDS);
                }
                perBatch[k] = (threads.getTotalThreadAllocatedBytes() - before) / n;
            }
        }
        long extraSlices = 64 - 16;
        assertThat(perBatch[1] - perBatch[0])
                .as(context() + ": bytes per batch with 16 slices " + perBatch[0] + ", with 64 slices " + perBatch[1])
                .isLessThanOrEqualTo(1024 + extraSlices * allowedAllocationPerSlice());
    }

    @Test
    void buffersAreZeroedAndPageAligned() {
        MemorySegment b = initiator.allocateBuffer(3 * 4096 + 5);
        assertThat(b.address() % 4096).isZero();
        assertThat(b.byteSize()).isEqualTo(3 * 4096 + 5);
        for (long i = 0; i < b.byteSize(); i += 511)
            assertThat(b.get(ValueLayout.JAVA_BYTE, i)).isZero();
    }

    @Test
    void aTargetInAnotherProcessServesItsSegment() {
        assumeTrue(crossProcess(), transport() + " has no cross-process target");
        TargetProcess p = TargetProcess.start(transport(), config(), SEGMENT_BYTES, Duration.ofSeconds(60));
        closeLater.add(p);
        RemoteSegment r = initiator.openSegment(p.handle());
        // the target filled its segment with 0x5a before announcing it
        MemorySegment dst = initiator.allocateBuffer(3 * 65536 + 11);
        TransferBatch b = new TransferBatch(1);
        b.add(Opcode.READ, dst, 0, r, SEGMENT_BYTES - dst.byteSize(), dst.byteSize());
        assertAllOk(await(initiator.submit(b)));
        for (long i = 0; i < dst.byteSize(); i += 997)
            assertThat(dst.get(ValueLayout.JAVA_BYTE, i)).as(context()).isEqualTo((byte) 0x5a);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < 6; i++) {
            long len = 1 + rnd.nextLong(3 * config().sliceSize());
            roundTrip(r, rnd.nextLong(SEGMENT_BYTES - len), len, rnd.nextLong(100), rnd);
        }
    }

    @Test
    void aPeerThatDiesMidBatchFailsTheBatchWithinTheTimeout() throws Exception {
        RemoteSegment r;
        TargetProcess p = null;
        TransferEngine inProcessPeer = null;
        if (crossProcess()) {
            p = TargetProcess.start(transport(), config(), 64L << 20, Duration.ofSeconds(60));
            closeLater.add(p);
            r = initiator.openSegment(p.handle());
        } else {
            inProcessPeer = create(config());
            closeLater.add(inProcessPeer);
            r = initiator.openSegment(
                    inProcessPeer.registerSegment("dies", 64L << 20).handle());
        }
        MemorySegment buf = initiator.allocateBuffer(64L << 20);
        TransferBatch b = new TransferBatch(64);
        for (int i = 0; i < 64; i++) b.add(Opcode.READ, buf, i * (1L << 20), r, i * (1L << 20), 1L << 20);
        assertAllOk(await(initiator.submit(b))); // the peer works
        b.clear();
        for (int i = 0; i < 64; i++) b.add(Opcode.READ, buf, i * (1L << 20), r, i * (1L << 20), 1L << 20);
        boolean stalled = p != null && suspendedPeerStopsServing();
        if (stalled) p.suspend(); // it hangs first, so that it surely dies mid-batch
        long start = System.nanoTime();
        CompletableFuture<TransferBatch> f = initiator.submit(b);
        if (stalled) {
            Thread.sleep(200);
            assertThat(f).as(context() + ": a batch to a frozen peer completed").isNotDone();
        }
        if (p != null) p.kill();
        else inProcessPeer.close();
        try {
            TransferBatch done = f.get(TIMEOUT.toMillis() + 2_000, TimeUnit.MILLISECONDS);
            assertThat(stalled)
                    .as(context() + ": the batch to a frozen, then killed peer completed normally")
                    .isFalse();
            assertAllOk(done); // it finished before the peer died: then every byte must have moved
        } catch (ExecutionException e) {
            assertThat(e.getCause()).as(context()).isInstanceOf(TransferException.class);
            for (int i = 0; i < b.size(); i++) assertThat(b.status(i)).isNotEqualTo(TransferStatus.PENDING);
        } catch (TimeoutException e) {
            fail(context() + ": the batch did not complete within its timeout after the peer died");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plusSeconds(3));
        // whatever happened to that batch, the next one to the dead peer must fail, within the timeout
        TransferBatch again = new TransferBatch(1);
        again.add(Opcode.READ, buf, 0, r, 0, 1L << 20);
        long t0 = System.nanoTime();
        try {
            CompletableFuture<TransferBatch> g = initiator.submit(again);
            g.get(TIMEOUT.toMillis() + 2_000, TimeUnit.MILLISECONDS);
            fail(context() + ": a batch to a dead peer completed normally with " + again.status(0));
        } catch (TransferException | ExecutionException expected) {
            Throwable cause = expected instanceof ExecutionException ee ? ee.getCause() : expected;
            assertThat(cause).as(context()).isInstanceOf(TransferException.class);
            assertThat(cause.getMessage()).isNotBlank();
        } catch (TimeoutException e) {
            fail(context() + ": a batch to a dead peer did not complete within its timeout");
        } catch (IllegalStateException closedEngine) {
            assertThat(crossProcess()).isFalse();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(TIMEOUT.plusSeconds(3));
    }

    @Test
    void aFrozenPeerTimesOutTheBatch() throws Exception {
        assumeTrue(crossProcess() && suspendedPeerStopsServing(), transport() + " does not need the target's CPU");
        TargetProcess p = TargetProcess.start(transport(), config(), 16L << 20, Duration.ofSeconds(60));
        closeLater.add(p);
        RemoteSegment r = initiator.openSegment(p.handle());
        MemorySegment buf = initiator.allocateBuffer(16L << 20);
        TransferBatch b = new TransferBatch(16);
        b.add(Opcode.READ, buf, 0, r, 0, 1L << 20);
        assertAllOk(await(initiator.submit(b))); // connected and serving
        b.clear();
        p.suspend();
        for (int i = 0; i < 16; i++) b.add(Opcode.READ, buf, i * (1L << 20), r, i * (1L << 20), 1L << 20);
        long start = System.nanoTime();
        CompletableFuture<TransferBatch> f = initiator.submit(b);
        try {
            f.get(TIMEOUT.toMillis() + 3_000, TimeUnit.MILLISECONDS);
            fail(context() + ": a batch to a frozen peer completed normally");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(TransferException.class).hasMessageContaining("timeout");
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took)
                .as(context())
                .isGreaterThanOrEqualTo(TIMEOUT.minusMillis(50))
                .isLessThan(TIMEOUT.plusSeconds(2));
        boolean sawTimeout = false;
        for (int i = 0; i < b.size(); i++) {
            assertThat(b.status(i)).isIn(TransferStatus.TIMEOUT, TransferStatus.OK);
            sawTimeout |= b.status(i) == TransferStatus.TIMEOUT;
        }
        assertThat(sawTimeout).isTrue();
        p.resume();
        // the peer is back: the engine reconnects and serves again
        b.clear();
        b.add(Opcode.READ, buf, 0, r, 0, 1L << 20);
        assertAllOk(await(initiator.submit(b)));
    }
}
