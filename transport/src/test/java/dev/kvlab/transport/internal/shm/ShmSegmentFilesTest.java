package dev.kvlab.transport.internal.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.Opcode;
import dev.kvlab.transport.api.RemoteSegment;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.SegmentHandle;
import dev.kvlab.transport.api.TargetProcess;
import dev.kvlab.transport.api.TransferBatch;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** shm specifics: file naming and permissions, refusing foreign files, cleaning up after dead owners. */
class ShmSegmentFilesTest {

    @TempDir
    Path dir;

    private TransportConfig config() {
        return TransportConfig.defaults().withShmDirectory(dir).withTimeout(Duration.ofSeconds(3));
    }

    @Test
    void segmentFilesArePrivateAndGoAwayOnClose() throws Exception {
        try (TransferEngine e = Transports.discover().create("shm", config())) {
            Segment s = e.registerSegment("odd name/with:chars", 1 << 16);
            Path f = Path.of(s.handle().segment());
            assertThat(f.getParent()).isEqualTo(dir.toAbsolutePath());
            assertThat(f.getFileName().toString()).startsWith("kvlab-").doesNotContain("/", ":", " ");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
                    .isEqualTo("rw-------");
            assertThatThrownBy(() -> e.registerSegment("odd name/with:chars", 16))
                    .isInstanceOf(IllegalArgumentException.class);
            s.close();
            assertThat(f).doesNotExist();
        }
    }

    @Test
    void aSymlinkedShmDirectoryNeverMakesTheOwnerLoseItsLock() throws Exception {
        Path real = Files.createDirectory(dir.resolve("real"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), real);
        TransportConfig viaLink = config().withShmDirectory(link);
        try (TransferEngine owner = Transports.discover().create("shm", viaLink);
                TransferEngine peer = Transports.discover().create("shm", config().withShmDirectory(real))) {
            Segment s = owner.registerSegment("linked", 1 << 16);
            for (int i = 0; i < 3; i++) { // in-process opens must reuse the owner's mapping, never a second descriptor
                RemoteSegment r = peer.openSegment(new SegmentHandle(
                        "shm",
                        "",
                        link.resolve(Path.of(s.handle().segment()).getFileName())
                                .toString(),
                        1 << 16));
                TransferBatch b = new TransferBatch(1);
                b.add(Opcode.WRITE, peer.allocateBuffer(4096), 0, r, 0, 4096);
                assertThat(peer.submit(b).get(5, TimeUnit.SECONDS).allOk()).isTrue();
                r.close();
            }
            assertThat(Path.of(s.handle().segment())).exists().startsWith(real.toRealPath());
            assertThat(ShmFiles.OWNED).containsKey(Path.of(s.handle().segment()));
        }
    }

    @Test
    void handlesNamingFilesOutsideTheShmDirectoryAreRefused() throws Exception {
        Path elsewhere = Files.createTempFile("kvlab-", ".bin");
        try (TransferEngine e = Transports.discover().create("shm", config())) {
            assertThatThrownBy(() -> e.openSegment(new SegmentHandle("shm", "", elsewhere.toString(), 1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a segment file");
            Path notOurs = Files.writeString(dir.resolve("passwd"), "x");
            assertThatThrownBy(() -> e.openSegment(new SegmentHandle("shm", "", notOurs.toString(), 1)))
                    .isInstanceOf(IllegalArgumentException.class);
        } finally {
            Files.deleteIfExists(elsewhere);
        }
    }

    @Test
    void filesOfKilledOwnersAreSweptAndTheirSegmentsReportTheOwnerGone() throws Exception {
        TargetProcess p = TargetProcess.start("shm", config(), 1 << 20, Duration.ofSeconds(60));
        Path f = Path.of(p.handle().segment());
        try (TransferEngine e = Transports.discover().create("shm", config())) {
            RemoteSegment r = e.openSegment(p.handle());
            assertThat(((ShmMapping) r).ownerAlive()).isTrue();
            assertThat(ShmFiles.sweepOrphans(dir)).isZero(); // a live owner's file stays
            p.kill();
            assertThat(f).exists();
            assertThat(((ShmMapping) r).ownerAlive()).isFalse();
            TransferBatch b = new TransferBatch(1);
            b.add(Opcode.READ, e.allocateBuffer(4096), 0, r, 0, 4096);
            assertThatThrownBy(() -> e.submit(b).get(5, TimeUnit.SECONDS)).hasMessageContaining("died");
        } finally {
            p.close();
        }
        // an engine created later removes what a killed owner left
        TargetProcess q = TargetProcess.start("shm", config(), 1 << 20, Duration.ofSeconds(60));
        Path g = Path.of(q.handle().segment());
        q.kill();
        assertThat(g).exists();
        try (TransferEngine e = Transports.discover().create("shm", config())) {
            assertThat(g).doesNotExist();
        } finally {
            q.close();
        }
    }
}
