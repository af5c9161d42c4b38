package dev.kvlab.bench.workloads;

import dev.kvlab.workloads.MooncakeTrace;
import dev.kvlab.workloads.TraceAnalyzer;
import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.TraceAnalysis;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Mooncake trace parsing and analysis. By default on a generated Mooncake-format trace (Zipf-popular prefixes,
 * 12,000 requests of 8 to 40 blocks); {@code -p trace=/path/to/trace.jsonl} runs it on a real trace, e.g. the shared
 * conversation trace. Reports time per whole trace.
 *
 * <pre>java -jar bench/target/kvlab-bench.jar TraceBenchmark -p trace=../shared/data/traces/mooncake-conversation.jsonl</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TraceBenchmark {

    static final Namespace NS = Namespace.of("bench");
    static final List<Double> FIVE = List.of(0.01, 0.05, 0.10, 0.25, 0.50);

    @Param("")
    public String trace;

    byte[] bytes;
    List<Request> requests;

    @Setup
    public void setup() throws IOException {
        if (trace.isEmpty()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            var spec = new WorkloadSpec.Zipf(3000, 8 * 512, 0.9, 12_000, 16 * 512, 300, 512);
            try (RequestSource s = Workloads.open(spec, ArrivalSpec.poisson(3.4), NS, 1)) {
                MooncakeTrace.write(s, out);
            }
            bytes = out.toByteArray();
        } else {
            bytes = Files.readAllBytes(Path.of(trace));
        }
        requests = new ArrayList<>();
        try (RequestSource s = read()) {
            s.forEachRemaining(requests::add);
        }
    }

    RequestSource read() {
        return MooncakeTrace.read(new ByteArrayInputStream(bytes), "bench.jsonl", TraceFormat.defaults(), NS);
    }

    /** Parse and validate every line into requests. */
    @Benchmark
    public void parse(Blackhole bh) {
        try (RequestSource s = read()) {
            while (s.hasNext()) bh.consume(s.next());
        }
    }

    /** Ideal cache, five LRU capacities and reuse distances over already-parsed requests. */
    @Benchmark
    public TraceAnalysis analyze() {
        return TraceAnalyzer.analyze(requests.iterator(), FIVE);
    }

    /** What {@code kvlab analyze} does after JVM start: parse and analyse. */
    @Benchmark
    public TraceAnalysis parseAndAnalyze() {
        try (RequestSource s = read()) {
            return TraceAnalyzer.analyze(s, FIVE);
        }
    }
}
