package dev.kvlab.transport.internal.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.LinkFault;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransferException;
import dev.kvlab.transport.api.TransferStatus;
import dev.kvlab.transport.api.TransportConfig;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The link faults themselves, over real transports: latency added, batches lost, seeded, switchable while running. */
class FaultInjectingTransferEngineTest {

    private TransferEngine target;
    private Segment segment;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void start() {
        target = Transports.discover().create("tcp", TransportConfig.defaults().withTimeout(Duration.ofSeconds(3)));
        segment = target.registerSegment("faulty", 1 << 20);
        for (long i = 0; i < (1 << 20); i += 8) segment.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 31);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open) c.close();
        target.close();
    }

    private FaultInjectingTransferEngine initiator(String transport, long seed) {
        TransferEngine e = Transports.discover()
                .create(transport, TransportConfig.defaults().withTimeout(Duration.ofSeconds(3)));
        FaultInjectingTransferEngine f = FaultInjectingTransferEngine.wrap(e, seed);
        open.add(f);
        return f;
    }

    private static TransferBatch read(FaultInjectingTransferEngine e, RemoteSegment r, MemorySegment buf) {
        TransferBatch b = new TransferBatch(1);
        b.add(Opcode.READ, buf, 0, r, 4096, 4096);
        return b;
    }

    /** True when the batch succeeded; false when it failed as a lost batch (anything else fails the test). */
    private static boolean outcome(CompletableFuture<TransferBatch> f, TransferBatch b) throws Exception {
        try {
            f.get(10, TimeUnit.SECONDS);
            assertThat(b.allOk()).isTrue();
            return true;
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(TransferException.class).hasMessageContaining("link-loss fault");
            for (int i = 0; i < b.size(); i++) assertThat(b.status(i)).isEqualTo(TransferStatus.FAILED);
            return false;
        }
    }

    @Test
    void addedDelayShowsInEveryBatchAndHealsWhenCleared() throws Exception {
        FaultInjectingTransferEngine e = initiator("tcp", 1);
        RemoteSegment r = e.openSegment(segment.handle());
        MemorySegment buf = e.allocateBuffer(4096);
        TransferBatch b = read(e, r, buf);
        e.submit(b).get(5, TimeUnit.SECONDS); // connect outside the timed part
        e.inject(LinkFault.delay(Duration.ofMillis(80)));
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            TransferBatch got = e.submit(b).get(5, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(80));
            assertThat(got.allOk()).isTrue();
            assertThat(buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 8)).isEqualTo((4096 + 8) * 31L);
        }
        assertThat(e.delayedBatches()).isEqualTo(3);
        assertThat(e.copySemantics()).contains("injected link fault");
        e.inject(LinkFault.NONE);
        long t0 = System.nanoTime();
        e.submit(b).get(5, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(80));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "local"})
    void lostBatchesFailEveryRequestAndNeverReportSuccess(String transport) throws Exception {
        if (transport.equals("local")) {
            target.close();
            target = Transports.discover().create("local", TransportConfig.defaults());
            segment = target.registerSegment("faulty", 1 << 20);
        }
        FaultInjectingTransferEngine e = initiator(transport, 7);
        RemoteSegment r = e.openSegment(segment.handle());
        MemorySegment buf = e.allocateBuffer(4096);
        e.inject(LinkFault.loss(1.0));
        for (int i = 0; i < 40; i++) {
            TransferBatch b = read(e, r, buf);
            assertThat(outcome(e.submit(b), b)).isFalse();
        }
        assertThat(e.lostBatches()).isEqualTo(40);
        e.inject(LinkFault.NONE);
        TransferBatch b = read(e, r, buf);
        assertThat(outcome(e.submit(b), b)).as("the link heals").isTrue();
    }

    @Test
    void lossIsSeededAndNearItsProbability() throws Exception {
        target.close();
        target = Transports.discover().create("local", TransportConfig.defaults());
        segment = target.registerSegment("faulty", 1 << 20);
        List<Boolean> first = fates(11, 0.3, 600), again = fates(11, 0.3, 600), other = fates(12, 0.3, 600);
        assertThat(again).as("same seed, same fates").isEqualTo(first);
        assertThat(other).as("another seed, other fates").isNotEqualTo(first);
        long lost = first.stream().filter(ok -> !ok).count();
        assertThat(lost).as("about 30% of 600 lost").isBetween(130L, 230L);
    }

    private List<Boolean> fates(long seed, double loss, int n) throws Exception {
        FaultInjectingTransferEngine e = initiator("local", seed);
        RemoteSegment r = e.openSegment(segment.handle());
        MemorySegment buf = e.allocateBuffer(4096);
        e.inject(LinkFault.loss(loss));
        List<Boolean> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            TransferBatch b = read(e, r, buf);
            out.add(outcome(e.submit(b), b));
        }
        return out;
    }

    @Test
    void faultsAreValidated() {
        assertThatThrownBy(() -> LinkFault.loss(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LinkFault.loss(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LinkFault.delay(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(LinkFault.NONE.toString()).isEqualTo("none");
        assertThat(new LinkFault(Duration.ofMillis(5), Duration.ofMillis(1), 0.1).toString())
                .isEqualTo("delay 5ms +[0, 1ms], loss 0.1");
    }
}
