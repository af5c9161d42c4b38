package dev.kvlab.bench.store;

import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.ReplicateConfig;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
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
 * What a live cell's fetch of one KV block costs, piece by piece, at the block size of the demo's model (6 MiB:
 * Qwen2.5-0.5B, 512 tokens): the store's get over the transport ({@code get}: replica list, READ, the client's
 * CRC32C, what {@code kvlab bench store} measures), the same get followed by the live tier's content check against
 * the key ({@code getVerified}: a live fetch's measured path), and the checks alone ({@code contentCheck},
 * {@code auditDigest}: the independent audit's CRC32C, which runs after the fetch is delivered).
 * Run: {@code java -jar bench/target/kvlab-bench.jar FetchPathBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class FetchPathBench {

    @Param({"tcp"})
    String transport;

    @Param({"6291456"})
    int valueSize;

    KvBackend backend;
    MemorySegment dst;
    int i;

    @Setup(Level.Trial)
    public void setup() {
        backend = KvBackends.discover()
                .open(
                        "bundled",
                        BackendOptions.defaults().withTransport(transport).withSegmentBytes(512L << 20));
        MemorySegment v = backend.allocateBuffer(valueSize);
        for (int k = 0; k < 32; k++) {
            KeyedPayload.fill("k" + k, v);
            backend.put("k" + k, v, ReplicateConfig.DEFAULT);
        }
        dst = backend.allocateBuffer(valueSize);
        backend.getInto("k0", dst);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        backend.close();
    }

    @Benchmark
    public GetResult get() {
        i = (i + 1) & 31;
        return backend.getInto("k" + i, dst);
    }

    @Benchmark
    public boolean getVerified() {
        i = (i + 1) & 31;
        String k = "k" + i;
        GetResult g = backend.getInto(k, dst);
        return g.isHit() && KeyedPayload.matches(k, dst, 0, valueSize);
    }

    @Benchmark
    public boolean contentCheck() {
        return KeyedPayload.matches("k0", dst, 0, valueSize);
    }

    @Benchmark
    public long auditDigest() {
        CRC32C c = new CRC32C();
        c.update(dst.asSlice(0, valueSize).asByteBuffer());
        return c.getValue();
    }
}
