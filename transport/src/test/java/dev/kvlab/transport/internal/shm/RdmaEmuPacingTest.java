package dev.kvlab.transport.internal.shm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The emulated NIC never delivers faster than its model: a lower bound that holds on any machine, however
 * loaded (accuracy of the rate itself is measured by {@code kvlab bench transport}, not by a unit test).
 */
class RdmaEmuPacingTest {

    @TempDir
    Path dir;

    private static long elapsedNanos(TransferEngine e, TransferBatch b) throws Exception {
        long t0 = System.nanoTime();
        e.submit(b).get(30, TimeUnit.SECONDS);
        return System.nanoTime() - t0;
    }

    @Test
    void aBatchTakesAtLeastItsBytesAtTheLineRatePlusTheLatency() throws Exception {
        TransportConfig c = TransportConfig.defaults().withShmDirectory(dir).withLink(LinkSpec.parse("1gbps@3ms"));
        try (TransferEngine t = Transports.discover().create("rdma-emu", c);
                TransferEngine i = Transports.discover().create("rdma-emu", c)) {
            Segment s = t.registerSegment("paced", 4 << 20);
            RemoteSegment r = i.openSegment(s.handle());
            MemorySegment buf = i.allocateBuffer(4 << 20);
            TransferBatch b = new TransferBatch(4);
            for (int k = 0; k < 4; k++) b.add(Opcode.WRITE, buf, k * (1L << 20), r, k * (1L << 20), 1 << 20);
            long modelled = (long) ((4L << 20) * 8 / 1e9 * 1e9) + 3_000_000;
            assertThat(elapsedNanos(i, b)).isGreaterThanOrEqualTo(modelled);
            assertThat(b.allOk()).isTrue();
            // a tiny request still pays the per-operation latency
            TransferBatch one = new TransferBatch(1);
            one.add(Opcode.READ, buf, 0, r, 0, 8);
            assertThat(elapsedNanos(i, one)).isGreaterThanOrEqualTo(3_000_000);
        }
    }

    @Test
    void concurrentBatchesShareTheLinkAndLanesAddUp() throws Exception {
        for (String link : new String[] {"1gbps@0ns", "2x1gbps@0ns"}) {
            LinkSpec l = LinkSpec.parse(link);
            TransportConfig c = TransportConfig.defaults().withShmDirectory(dir).withLink(l);
            try (TransferEngine t = Transports.discover().create("rdma-emu", c);
                    TransferEngine i = Transports.discover().create("rdma-emu", c)) {
                Segment s = t.registerSegment("shared", 8 << 20);
                RemoteSegment r = i.openSegment(s.handle());
                MemorySegment buf = i.allocateBuffer(8 << 20);
                TransferBatch a = new TransferBatch(1);
                TransferBatch b = new TransferBatch(1);
                a.add(Opcode.READ, buf, 0, r, 0, 4 << 20);
                b.add(Opcode.READ, buf, 4 << 20, r, 4 << 20, 4 << 20);
                long t0 = System.nanoTime();
                CompletableFuture<TransferBatch> fa = i.submit(a);
                CompletableFuture<TransferBatch> fb = i.submit(b);
                fa.get(30, TimeUnit.SECONDS);
                fb.get(30, TimeUnit.SECONDS);
                long took = System.nanoTime() - t0;
                assertThat(took).as(link).isGreaterThanOrEqualTo((long) ((8L << 20) / l.bytesPerSecond() * 1e9));
            }
        }
    }

    @Test
    void theEngineSaysItIsEmulatedAndNamesItsLink() {
        TransportConfig c = TransportConfig.defaults().withShmDirectory(dir).withLink(LinkSpec.parse("8gbps"));
        try (TransferEngine e = Transports.discover().create("rdma-emu", c)) {
            assertThat(e.emulated()).isTrue();
            assertThat(e.copySemantics()).contains("8gbps").contains("emulated");
            assertThat(Transports.discover().provider("rdma-emu").description()).contains("EMULATED");
        }
        try (TransferEngine e = Transports.discover()
                .create("rdma-emu", TransportConfig.defaults().withShmDirectory(dir))) {
            assertThat(e.copySemantics()).contains("200gbps@2us");
        }
    }
}
