package dev.kvlab.bench.engine;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.gguf.SynthResult;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.benchmark.internal.store.MeasuredBackend;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.harness.llama.internal.LlamaLibrary;
import dev.kvlab.harness.llama.internal.LlamaModel;
import dev.kvlab.harness.llama.internal.realkv.RemotePrefix;
import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.KvBackend;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Issue 23's second benchmark: a prefix's real KV fetched from kvlab's store and restored into a llama.cpp context,
 * against the store bench's GET of the same bytes. Setup synthesizes the acceptance check's model (8 layers, hidden
 * 512, 8 heads, 2 KV heads, ff 1376, f16: 4,096 B of KV per token), prefills a {@code tokens}-token prompt on a real
 * context, and writes its 64-token blocks to a bundled store of 2 nodes over real TCP (as a hot remote-only cell finds
 * them). Then, one thread, per operation:
 * <ul>
 * <li>{@code fetchRestore}: the target's remote-tier path ({@link RemotePrefix}): one batch get of every block,
 * header and CRC32C checks, assembly of the state, {@code llama_state_seq_set_data} into the scratch sequence, its
 * cells shared with the request's sequence; then the sequence is dropped for the next operation;</li>
 * <li>{@code storeGet}: the same objects (same keys, sizes and count) read one after the other into one buffer
 * through {@link MeasuredBackend#getInto}, as {@code kvlab bench store --op get} (its default one client) reads.</li>
 * </ul>
 * The {@code bytes} counter is the block objects' bytes per second; {@link #main} runs both and prints the ratio
 * (the acceptance wants fetch + restore ≥ 0.5× GET).
 * Run: {@code java --enable-native-access=ALL-UNNAMED -cp bench/target/kvlab-bench.jar dev.kvlab.bench.engine.PrefixRestoreBench}
 * (or {@code java -jar bench/target/kvlab-bench.jar PrefixRestoreBench} for JMH's own table).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class PrefixRestoreBench {

    static final int BLOCK_TOKENS = 64;

    @Param({"1024", "2048"})
    int tokens;

    Path dir;
    LlamaModel model;
    LlamaContext ctx;
    KvBackend backend;
    MeasuredBackend measured;
    RemotePrefix prefix;
    long[] keys;
    String[] storeKeys;
    MemorySegment[] bufs;
    MemorySegment dst;
    int blocks;
    long prefixBytes;

    /** Bytes moved, per second of the benchmark. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Bytes {
        public long bytes;
    }

    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("kvlab-prefix-bench");
        SynthResult m = Gguf.synth(
                new SynthSpec(
                        8, 512, 8, 2, 1376, SynthSpec.DEFAULT_VOCAB, WeightType.F16, 11, SynthSpec.DEFAULT_CONTEXT),
                dir.resolve("m.gguf"));
        model = LlamaModel.load(LlamaLibrary.load(), m.path());
        blocks = tokens / BLOCK_TOKENS;
        ctx = model.newContext(new LlamaContext.Options(
                (tokens + 255) / 256 * 256 + 256, 512, 2, 1, LlamaContext.FlashAttention.AUTO, true));
        backend = KvBackends.discover()
                .open(
                        "bundled",
                        BackendOptions.defaults()
                                .withTransport("tcp")
                                .withNodes(2)
                                .withSegmentBytes(128L << 20)
                                .withTimeout(Duration.ofSeconds(10)));
        measured = new MeasuredBackend(backend, false);
        prefix = RemotePrefix.open(backend, ctx, m.sha256(), BLOCK_TOKENS, 1);
        SplittableRandom r = new SplittableRandom(23);
        int[] prompt = new int[tokens];
        for (int i = 0; i < tokens; i++) prompt[i] = 1 + r.nextInt(model.vocabSize() - 1);
        keys = new long[blocks];
        storeKeys = new String[blocks];
        for (int b = 0; b < blocks; b++) {
            keys[b] = r.nextLong();
            storeKeys[b] = prefix.storeKey(keys[b]);
        }
        ctx.prefill(0, prompt, 0, tokens, 0);
        bufs = prefix.allocate(blocks);
        int stored = prefix.writeBack(0, keys, blocks, bufs);
        if (stored != blocks) throw new IllegalStateException("the store took " + stored + " of " + blocks + " blocks");
        ctx.removeSeq(0, -1, -1);
        prefixBytes = blocks * prefix.objectBytes();
        dst = backend.allocateBuffer(prefix.objectBytes());
        if (fetchRestoreOnce() != blocks) throw new IllegalStateException("the prefix did not restore whole");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        backend.close();
        ctx.close();
        model.close();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) Files.delete(p);
        }
        Files.delete(dir);
    }

    private int fetchRestoreOnce() {
        int n = prefix.fetchAndRestore(keys, blocks, 0, bufs);
        ctx.removeSeq(0, -1, -1);
        return n;
    }

    /** The target's path: fetch, verify, assemble, restore. */
    @Benchmark
    public int fetchRestore(Bytes b) {
        int n = fetchRestoreOnce();
        if (n != blocks) throw new IllegalStateException("restored " + n + " of " + blocks + " blocks");
        b.bytes += prefixBytes;
        return n;
    }

    /** The store bench's GET of the same objects. */
    @Benchmark
    public long storeGet(Bytes b) {
        long got = 0;
        for (String k : storeKeys) {
            GetResult g = measured.getInto(k, dst);
            if (!g.isHit()) throw new IllegalStateException("miss of " + k + ": " + g.status());
            got += g.length();
        }
        b.bytes += got;
        return got;
    }

    /** Runs both benchmarks (JMH options from the command line apply) and prints bytes/s and the ratio per prefix length. */
    public static void main(String[] args)
            throws RunnerException, org.openjdk.jmh.runner.options.CommandLineOptionException {
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                        .parent(new CommandLineOptions(args))
                        .include(PrefixRestoreBench.class.getSimpleName())
                        .build())
                .run();
        java.util.Map<String, double[]> byTokens = new java.util.TreeMap<>();
        for (RunResult r : results) {
            String t = r.getParams().getParam("tokens");
            double bytesPerS = r.getSecondaryResults().get("bytes").getScore();
            double[] v = byTokens.computeIfAbsent(t, k -> new double[2]);
            v[r.getParams().getBenchmark().endsWith("fetchRestore") ? 0 : 1] = bytesPerS;
        }
        byTokens.forEach((t, v) -> System.out.printf(
                Locale.ROOT,
                "prefix of %s tokens: fetch + restore %.3f GB/s, store GET %.3f GB/s, ratio %.2f%n",
                t,
                v[0] / 1e9,
                v[1] / 1e9,
                v[0] / v[1]));
    }
}
