package dev.kvlab.bench.engine;

import dev.kvlab.harness.llama.internal.KvStateCodec;
import dev.kvlab.harness.llama.internal.KvStateLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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
 * The KV state's layout conversion alone, one thread: splitting a 2,048-token sequence state into blocks, and
 * assembling the blocks back into a state, for the issue-23 model shape (12 layers, 4 KV heads × 64, f16: 12,288 B
 * of KV per token, 25 MB per state). Throughput = KV bytes / time: {@code 25.2 MB / (ms per op)}.
 * Run: {@code java -jar bench/target/kvlab-bench.jar KvStateCodecBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class KvStateCodecBench {

    @Param({"16", "256"})
    int blockTokens;

    /** V transposed: llama.cpp's layout with flash attention off (one run of {@code blockTokens} elements per channel). */
    @Param({"false", "true"})
    boolean vTrans;

    static final int TOKENS = 2048;

    Arena arena;
    KvStateCodec.Parsed parsed;
    MemorySegment state;
    MemorySegment assembled;
    List<MemorySegment> blocks;

    @Setup(Level.Trial)
    public void setup() {
        arena = Arena.ofShared();
        KvStateLayout layout = KvStateLayout.f16(12, 4, 64, vTrans);
        long blockBytes = KvStateCodec.blockBytes(layout, blockTokens);
        SplittableRandom r = new SplittableRandom(23);
        List<MemorySegment> random = new ArrayList<>();
        for (int b = 0; b < TOKENS / blockTokens; b++) {
            MemorySegment s = arena.allocate(blockBytes, 64);
            for (long o = 0; o + 8 <= blockBytes; o += 8)
                s.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, o, r.nextLong());
            random.add(s);
        }
        state = KvStateCodec.assemble(layout, blockTokens, random, arena);
        parsed = KvStateCodec.parse(state);
        blocks = new ArrayList<>();
        for (int b = 0; b < random.size(); b++) blocks.add(arena.allocate(blockBytes, 64));
        assembled = arena.allocate(state.byteSize(), 64);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** Parse the state's header and copy every block out into preallocated buffers. */
    @Benchmark
    public List<MemorySegment> split() {
        KvStateCodec.Parsed p = KvStateCodec.parse(state);
        for (int b = 0; b < blocks.size(); b++) KvStateCodec.copyBlock(p, state, blockTokens, b, blocks.get(b));
        return blocks;
    }

    /** Write a state of every block into a preallocated buffer. */
    @Benchmark
    public MemorySegment assemble() {
        KvStateCodec.assemble(parsed.layout(), blockTokens, blocks, assembled);
        return assembled;
    }
}
