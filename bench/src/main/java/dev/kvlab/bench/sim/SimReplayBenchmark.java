package dev.kvlab.bench.sim;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * One sim cell run end to end (plan, warm-up, the discrete-event replay, measurement, request log): by default
 * {@code ablations/trace-replay.yaml} on the Mooncake conversation trace (12,031 requests, about 1M events, 3,550 s
 * simulated), the replay issue 12 wants at >= 4,000x real time. Seconds per replay; the sim speed is
 * {@code simulated_seconds / score} (printed at tear-down). {@code -p matrix=... -p set=key=value;key=value} runs
 * another config. Run from the repository root:
 *
 * <pre>java -jar bench/target/kvlab-bench.jar SimReplayBenchmark</pre>
 *
 * {@code SingleShotTime} with warm-up iterations shows steady state; the first iteration of a fork is what one
 * {@code kvlab run} sees (a cold JIT).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(
        value = 1,
        jvmArgsAppend = {"-XX:+UseParallelGC", "-Xmx1g"})
public class SimReplayBenchmark {

    @Param("ablations/trace-replay.yaml")
    public String matrix;

    /** {@code --set}s separated by {@code ;} (the default points the trace at the shared copy). */
    @Param("workload.trace=../shared/data/traces/mooncake-conversation.jsonl")
    public String set;

    private RunConfig config;
    private final CellRunner runner = new CellRunner();
    private double simulated;
    private final List<Double> speeds = new ArrayList<>();

    @Setup
    public void setUp() {
        Path m = Path.of(matrix);
        if (!Files.isRegularFile(m))
            throw new IllegalStateException(m.toAbsolutePath() + ": no such matrix (run from the repository root)");
        List<String> sets = set.isBlank() ? List.of() : List.of(set.split(";"));
        MatrixSpec spec = MatrixParser.load(m, sets, null);
        if (spec.runs().size() != 1)
            throw new IllegalStateException(
                    m + ": want one cell run, the matrix has " + spec.runs().size());
        config = spec.runs().get(0).config();
    }

    @Benchmark
    public double replay() {
        CellResult r = runner.run(config, System.nanoTime());
        r.requestLog().file().toFile().delete();
        simulated = r.summary().get(Columns.SIMULATED_SECONDS);
        speeds.add(simulated / r.summary().get(Columns.WALL_SECONDS));
        return simulated;
    }

    @TearDown
    public void report() {
        System.out.printf(
                "%nsimulated %.1f s per replay; sim speed per iteration (x real time): %s%n",
                simulated, speeds.stream().map(x -> String.format("%.0f", x)).toList());
    }
}
