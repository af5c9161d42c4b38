package dev.kvlab.store.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.GetStatus;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The checks every {@link KvBackend} must pass (like Micrometer's {@code MeterRegistryCompatibilityKit}).
 * A subclass says how to open a client of one store; every client it opens during a test must reach the
 * same store (so that tenants can be compared). Each test uses its own tenant, so a shared store is fine.
 */
public abstract class KvBackendCompatibilityKit {

    private static final AtomicInteger TENANTS = new AtomicInteger();
    private final List<KvBackend> opened = new ArrayList<>();
    private final String tenant =
            "kit" + TENANTS.incrementAndGet() + "-" + ProcessHandle.current().pid();

    /** Opens a client of the store under test with {@code options}. */
    protected abstract KvBackend open(BackendOptions options);

    /** Options every client of this kit starts from (override to set e.g. the transport). */
    protected BackendOptions baseOptions() {
        return BackendOptions.defaults();
    }

    protected KvBackend client(String tenant, boolean verify) {
        KvBackend b = open(baseOptions().withTenant(tenant).withVerifyContent(verify));
        opened.add(b);
        return b;
    }

    protected KvBackend client() {
        return client(tenant, true);
    }

    @AfterEach
    void closeClients() {
        for (KvBackend b : opened) b.close();
        opened.clear();
    }

    protected static MemorySegment value(KvBackend b, String key, int len) {
        MemorySegment m = b.allocateBuffer(len);
        KeyedPayload.fill(key, m, 0, len);
        return m;
    }

    @Test
    void putThenGetReturnsTheSameBytes() {
        KvBackend b = client();
        for (int len : new int[] {1, 7, 4096, 100_000, 1 << 20}) {
            String key = "put-get/" + len;
            assertThat(b.put(key, value(b, key, len), ReplicateConfig.DEFAULT)).isEqualTo(PutStatus.OK);
            MemorySegment dst = b.allocateBuffer(len + 64);
            GetResult r = b.getInto(key, dst);
            assertThat(r.status()).as("get %s: %s", key, r.detail()).isEqualTo(GetStatus.HIT);
            assertThat(r.length()).isEqualTo(len);
            assertThat(KeyedPayload.matches(key, dst, 0, len)).isTrue();
        }
    }

    @Test
    void anUnknownKeyIsAMiss() {
        KvBackend b = client();
        GetResult r = b.getInto("never-written", b.allocateBuffer(1024));
        assertThat(r.status()).isEqualTo(GetStatus.MISS);
        assertThat(r.isHit()).isFalse();
        assertThat(b.exists("never-written")).isFalse();
    }

    @Test
    void aPutOfAnExistingKeyIsANoOpSuccess() {
        KvBackend b = client();
        String key = "twice";
        assertThat(b.put(key, value(b, key, 5000), ReplicateConfig.DEFAULT)).isEqualTo(PutStatus.OK);
        PutStatus again = b.put(key, value(b, "other-content", 5000), ReplicateConfig.DEFAULT);
        assertThat(again).isEqualTo(PutStatus.EXISTS);
        assertThat(again.isStored()).isTrue();
        MemorySegment dst = b.allocateBuffer(5000);
        assertThat(b.getInto(key, dst).isHit()).isTrue();
        assertThat(KeyedPayload.matches(key, dst, 0, 5000))
                .as("the first value stays")
                .isTrue();
    }

    @Test
    void batchesAnswerPerKeyInOrder() {
        KvBackend b = client();
        List<String> keys = List.of("b0", "b1", "b2", "b3");
        List<MemorySegment> vals = new ArrayList<>();
        for (String k : keys) vals.add(value(b, k, 3000 + k.hashCode() % 100));
        assertThat(b.batchPut(keys, vals, ReplicateConfig.DEFAULT))
                .containsOnly(PutStatus.OK)
                .hasSize(4);
        List<String> ask = List.of("b2", "missing", "b0", "b3");
        List<MemorySegment> dsts = new ArrayList<>();
        for (int i = 0; i < ask.size(); i++) dsts.add(b.allocateBuffer(4096));
        List<GetResult> rs = b.batchGetInto(ask, dsts);
        assertThat(rs)
                .extracting(GetResult::status)
                .containsExactly(GetStatus.HIT, GetStatus.MISS, GetStatus.HIT, GetStatus.HIT);
        for (int i : new int[] {0, 2, 3}) {
            assertThat(KeyedPayload.matches(
                            ask.get(i), dsts.get(i), 0, rs.get(i).length()))
                    .isTrue();
            assertThat(rs.get(i).length())
                    .isEqualTo(vals.get(keys.indexOf(ask.get(i))).byteSize());
        }
        assertThat(b.batchExists(List.of("b1", "nope", "b3"))).containsExactly(true, false, true);
        assertThat(b.batchExists(List.of())).isEmpty();
    }

    @Test
    void removeMakesAKeyAMiss() {
        KvBackend b = client(tenant, false); // never read: no lease protects it
        String key = "gone";
        b.put(key, value(b, key, 2048), ReplicateConfig.DEFAULT);
        assertThat(b.exists(key)).isTrue();
        assertThat(b.remove(key)).isEqualTo(RemoveStatus.REMOVED);
        assertThat(b.exists(key)).isFalse();
        assertThat(b.getInto(key, b.allocateBuffer(2048)).status()).isEqualTo(GetStatus.MISS);
        assertThat(b.remove(key)).isEqualTo(RemoveStatus.NOT_FOUND);
    }

    @Test
    void aWrongObjectNeverPassesAsAHitInVerifyMode() {
        KvBackend writer = client(tenant, false);
        String key = "impostor";
        writer.put(
                key,
                value(writer, "someone-else", 4096),
                ReplicateConfig.DEFAULT); // checksummed, but not the key's content
        KvBackend reader = client();
        MemorySegment dst = reader.allocateBuffer(4096);
        GetResult r = reader.getInto(key, dst);
        assertThat(r.isHit()).isFalse();
        assertThat(r.status()).isEqualTo(GetStatus.CONTENT_MISMATCH);
        assertThat(r.status().isFault()).isTrue();
        assertThat(writer.getInto(key, dst).isHit())
                .as("without verify mode only the checksum is checked")
                .isTrue();
    }

    @Test
    void aBufferTooSmallIsNotAHit() {
        KvBackend b = client();
        b.put("big", value(b, "big", 10_000), ReplicateConfig.DEFAULT);
        GetResult r = b.getInto("big", b.allocateBuffer(100));
        assertThat(r.isHit()).isFalse();
    }

    @Test
    void tenantsCannotSeeEachOthersKeys() {
        KvBackend a = client("tenant-a-" + tenant, true);
        KvBackend bb = client("tenant-b-" + tenant, true);
        a.put("shared-name", value(a, "shared-name", 1000), ReplicateConfig.DEFAULT);
        assertThat(a.exists("shared-name")).isTrue();
        assertThat(bb.exists("shared-name")).isFalse();
        assertThat(bb.getInto("shared-name", bb.allocateBuffer(1000)).status()).isEqualTo(GetStatus.MISS);
        assertThat(bb.remove("shared-name")).isEqualTo(RemoveStatus.NOT_FOUND);
        // a key cannot climb into another tenant's namespace
        assertThat(bb.exists("../tenant-a-" + tenant + "/shared-name")).isFalse();
        assertThat(bb.put("shared-name", value(bb, "shared-name", 1000), ReplicateConfig.DEFAULT))
                .isEqualTo(PutStatus.OK);
    }

    @Test
    void badKeysAreRefused() {
        KvBackend b = client();
        MemorySegment v = value(b, "x", 10);
        for (String bad : new String[] {"", "has space", "tab\tkey", "ünïcode", "x".repeat(513), "nul\0"}) {
            assertThatThrownBy(() -> b.put(bad, v, ReplicateConfig.DEFAULT))
                    .as("put '%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> b.getInto(bad, v)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> b.exists(bad)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> open(baseOptions().withTenant("a/b"))).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.put("x".repeat(512), v, ReplicateConfig.DEFAULT)).isEqualTo(PutStatus.OK);
    }

    @Test
    void concurrentClientsReadWhatWasWritten() throws Exception {
        KvBackend b = client();
        int threads = 4, perThread = 40, len = 32 * 1024;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int tt = t;
                fs.add(pool.submit(() -> {
                    MemorySegment dst = b.allocateBuffer(len);
                    int hits = 0;
                    for (int i = 0; i < perThread; i++) {
                        String key = "conc/" + tt + "/" + i;
                        PutStatus p = b.put(key, value(b, key, len), ReplicateConfig.DEFAULT);
                        if (!p.isStored()) throw new AssertionError("put " + key + " -> " + p);
                        String other = "conc/" + ((tt + 1) % threads) + "/" + (i / 2);
                        GetResult r = b.getInto(other, dst);
                        if (r.isHit()) {
                            if (!KeyedPayload.matches(other, dst, 0, r.length()))
                                throw new AssertionError("wrong bytes for " + other);
                            hits++;
                        }
                        GetResult own = b.getInto(key, dst);
                        if (!own.isHit()) throw new AssertionError("own key " + key + " -> " + own);
                    }
                    return hits;
                }));
            }
            for (Future<Integer> f : fs) f.get();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void storeStatsWhereVisibleCountWhatWasPut() throws InterruptedException {
        KvBackend b = client();
        if (b.storeStats().isEmpty()) {
            assertThat(b.storeCalls()).as("no stats visible: no calls either").isEmpty();
            return;
        }
        long objectsBefore = b.storeStats().orElseThrow().objects();
        long putsBefore = b.storeCalls().getOrDefault("put_start", 0L);
        for (int i = 0; i < 3; i++) {
            String key = "stats/" + i;
            assertThat(b.put(key, value(b, key, 1024), ReplicateConfig.DEFAULT)).isEqualTo(PutStatus.OK);
        }
        assertThat(b.storeCalls().get("put_start")).isGreaterThanOrEqualTo(putsBefore + 1);
        long deadline = System.nanoTime() + 3_000_000_000L; // stats may be up to ~0.5 s old
        while (b.storeStats().orElseThrow().objects() < objectsBefore + 3 && System.nanoTime() < deadline)
            Thread.sleep(50);
        assertThat(b.storeStats().orElseThrow().objects()).isGreaterThanOrEqualTo(objectsBefore + 3);
        assertThat(b.storeStats().orElseThrow().bytesUsed()).isGreaterThanOrEqualTo(3 * 1024);
    }

    @Test
    void nameAndCopySemanticsAreStated() {
        KvBackend b = client();
        assertThat(b.name()).isNotBlank();
        assertThat(b.copySemantics()).isNotBlank();
    }
}
