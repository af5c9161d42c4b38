package dev.kvlab.bench.openai;

import dev.kvlab.harness.openai.internal.ClientPathProbe;
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
 * What the openai target adds to TTFT at low load: one streamed completion at a time through the harness's own path
 * (prompt text, body, HTTP client, stream parsing) to a loopback stand-in that answers at once, timed from the start
 * of building the request to its first token parsed (sample mode: p50 and the tail). The budget is 1 ms over
 * the engine's own prompt time plus one network round trip; the stand-in's round trip is included here.
 * Run: {@code java -jar bench/target/kvlab-bench.jar ClientPathBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ClientPathBench {

    @Param({"1056", "8192"})
    int promptTokens;

    ClientPathProbe probe;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        probe = new ClientPathProbe(promptTokens, 8);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        probe.close();
    }

    @Benchmark
    public long request() {
        return probe.firstTokenNanos();
    }
}
