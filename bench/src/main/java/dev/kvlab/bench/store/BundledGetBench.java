package dev.kvlab.bench.store;

import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.ReplicateConfig;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
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
 * One get through the bundled store's whole client path (replica list + lease, READ over the transport into
 * a registered buffer, CRC32C), single-threaded, per transport and value size.
 * Run: {@code java -jar bench/target/kvlab-bench.jar BundledGetBench -p transport=tcp}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class BundledGetBench {

    @Param({"local"})
    String transport;

    @Param({"65536", "1048576"})
    int valueSize;

    KvBackend backend;
    MemorySegment dst;
    int i;

    @Setup(Level.Trial)
    public void setup() {
        backend = KvBackends.discover()
                .open(
                        "bundled",
                        BackendOptions.defaults().withTransport(transport).withSegmentBytes(256L << 20));
        MemorySegment v = backend.allocateBuffer(valueSize);
        for (int k = 0; k < 64; k++) {
            KeyedPayload.fill("k" + k, v);
            backend.put("k" + k, v, ReplicateConfig.DEFAULT);
        }
        dst = backend.allocateBuffer(valueSize);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        backend.close();
    }

    @Benchmark
    public GetResult get() {
        i = (i + 1) & 63;
        return backend.getInto("k" + i, dst);
    }
}
