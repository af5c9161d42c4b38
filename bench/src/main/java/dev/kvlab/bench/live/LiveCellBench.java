package dev.kvlab.bench.live;

import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.core.internal.live.HarnessCpu;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Harness CPU per live request, the figure issue 13 bounds at 100 us: one live cell run end to end per invocation
 * (embedded store over real TCP, real KV bytes, GPU time emulated), by default the demo's hot remote-only live cell
 * ({@code ablations/default.yaml}, {@code c08-live_hot_remote-only}, replicate 0). The score is seconds per cell; the
 * secondary results are the cell's own CPU figures per measured request in microseconds ({@link HarnessCpu}), as means over the measurement iterations: {@code cpu} the figure (the loop thread's work plus
 * the I/O threads' tasks, not counting the store's calls and the byte work in them), {@code loop} and {@code io} its
 * two parts, {@code waitCpu} the CPU of waiting (the loop thread parking and spinning out emulated GPU time, idle
 * pool threads), {@code storeCpu} the store calls and byte work on the harness's I/O threads. Each cell's figures are
 * also printed at the end; the first iteration of a fork is what one {@code kvlab run} sees (a cold JIT), later ones
 * are steady state.
 *
 * <p>{@code -p kv=tiny} runs the same cell, the same requests, blocks and events, with a variant of its model whose KV
 * is 96 bytes per token (one KV head of dimension 2; the same weights, so the same GPU times give or take the
 * attention): next to no bytes to move, copy or verify. If the figure excludes the bytes as it says, it does not
 * change. {@code -p cell=...} picks another run of the matrix (its label, e.g. {@code c06-live_cold_combined/r1}, or a
 * part only one label contains), {@code -p set=...} overrides keys ({@code key=value}, separated by {@code ;}). Run
 * from the repository root:
 *
 * <pre>java -jar bench/target/kvlab-bench.jar LiveCellBench [-p kv=tiny]</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
public class LiveCellBench {

    @Param("ablations/default.yaml")
    public String matrix;

    /** The cell run: its label ({@code cell/rN}) or a part of it that only one run's label contains. */
    @Param("live_hot_remote-only/r0")
    public String cell;

    /** Overrides of the cell run's keys, {@code key=value} separated by {@code ;}. */
    @Param("")
    public String set;

    /** {@code model}: the cell's own model; {@code tiny}: a variant with 96 bytes of KV per token. */
    @Param({"model"})
    public String kv;

    private RunConfig config;
    private Path catalog;
    private final CellRunner runner = new CellRunner();
    private final List<String> lines = new ArrayList<>();

    /** The cell's figures of the last invocation, per measured request (µs), each divided by the measurement iterations (JMH sums these). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Figures {
        public double cpu, loop, io, waitCpu, storeCpu;
        private int iterations = 1;

        @Setup(Level.Iteration)
        public void iteration(BenchmarkParams p) {
            iterations = Math.max(1, p.getMeasurement().getCount());
        }
    }

    @Setup
    public void setUp() throws IOException {
        Path m = Path.of(matrix);
        if (!Files.isRegularFile(m))
            throw new IllegalStateException(m.toAbsolutePath() + ": no such matrix (run from the repository root)");
        List<CellRun> runs = MatrixParser.load(m, List.of(), null).runs().stream()
                .filter(r -> r.label().contains(cell))
                .toList();
        if (runs.size() != 1)
            throw new IllegalStateException(m + ": want one cell run labelled like '" + cell + "', found "
                    + runs.stream().map(CellRun::label).toList());
        ConfigTree t = ConfigTree.parse(
                runs.get(0).tree().toString(),
                runs.get(0).label(),
                m.toAbsolutePath().getParent());
        for (String s : set.split(";")) if (!s.isBlank()) t.set(s);
        if (kv.equals("tiny")) {
            RunConfig c = t.bind();
            ModelSpec ms =
                    Catalogs.load(c.catalog().stream().map(Path::of).toList()).model(c.model());
            catalog = Files.createTempFile("kvlab-bench-tinykv", ".yaml");
            Files.writeString(catalog, tinyKv(ms));
            List<String> cats = new ArrayList<>(c.catalog());
            cats.add(catalog.toString());
            t.set("catalog=[" + String.join(",", cats) + "]");
            t.set("model=" + ms.id() + "-tinykv");
        } else if (!kv.equals("model")) {
            throw new IllegalArgumentException("kv: model or tiny, not " + kv);
        }
        config = t.bind();
    }

    /** A catalog holding {@code m} with one KV head of dimension 2 (96 bytes per token for 24 layers in bf16). */
    static String tinyKv(ModelSpec m) {
        if (m.mlaRank() != null)
            throw new IllegalArgumentException(m.id() + ": an MLA model has no KV heads to shrink");
        return String.format(
                Locale.ROOT,
                """
                models:
                  - id: %s-tinykv
                    name: %s with a tiny KV cache (LiveCellBench)
                    source: "%s's figures, one KV head of dimension 2"
                    layers: %d
                    hidden_size: %d
                    attention_heads: %d
                    kv_heads: 1
                    head_dim: 2
                    parameters: %.0f
                    weight_dtype: %s
                    max_context: %d
                """,
                m.id(),
                m.name(),
                m.name(),
                m.layers(),
                m.hiddenSize(),
                m.attentionHeads(),
                m.parameters(),
                m.weightDtype().name().toLowerCase(Locale.ROOT),
                m.maxContext());
    }

    @Benchmark
    public long cell(Figures f) {
        CellResult r = runner.run(config, System.nanoTime());
        r.requestLog().file().toFile().delete();
        f.cpu = figure(r, Columns.HARNESS_CPU_US_PER_REQUEST.name()) / f.iterations;
        f.loop = figure(r, "harness_loop_cpu_us_per_request") / f.iterations;
        f.io = figure(r, "harness_io_cpu_us_per_request") / f.iterations;
        f.waitCpu = figure(r, "harness_wait_cpu_us_per_request") / f.iterations;
        f.storeCpu = figure(r, "store_call_cpu_us_per_request") / f.iterations;
        lines.add(String.format(
                Locale.ROOT,
                "%d requests, %s blocks: harness %.1f us/request (loop %.1f, io %.1f); wait %.1f (spin %.1f),"
                        + " store calls %.1f; jit %.0f ms, gc %.0f ms in the measured phase",
                r.summary().get(Columns.REQUESTS),
                dev.kvlab.transport.api.ByteSize.format(((Number) r.extras().get("block_bytes")).longValue()),
                figure(r, Columns.HARNESS_CPU_US_PER_REQUEST.name()),
                figure(r, "harness_loop_cpu_us_per_request"),
                figure(r, "harness_io_cpu_us_per_request"),
                figure(r, "harness_wait_cpu_us_per_request"),
                figure(r, "harness_spin_us_per_request"),
                figure(r, "store_call_cpu_us_per_request"),
                figure(r, "jit_compile_ms"),
                figure(r, Columns.GC_PAUSE_MS.name())));
        return r.summary().get(Columns.REQUESTS);
    }

    private static double figure(CellResult r, String name) {
        return r.extras().get(name) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    @TearDown
    public void report() {
        System.out.println();
        for (int i = 0; i < lines.size(); i++) System.out.println("cell " + (i + 1) + ": " + lines.get(i));
        try {
            if (catalog != null) Files.deleteIfExists(catalog);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
