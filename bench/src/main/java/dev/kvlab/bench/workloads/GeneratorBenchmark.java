package dev.kvlab.bench.workloads;

import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/** Requests per second each generator produces (block keys included), timed by a Poisson process. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class GeneratorBenchmark {

    @Param({"chat", "shared-prefix", "doc-qa", "zipf"})
    public String kind;

    static final int REQUESTS = 1000;

    WorkloadSpec spec() {
        return switch (kind) {
            case "chat" -> new WorkloadSpec.Chat(100, 10, 4, 1000, 500, 100, 200, 16); // prompts grow to ~5k tokens
            case "shared-prefix" -> new WorkloadSpec.SharedPrefix(50, 20, 2000, 500, 100, "random", 16);
            case "doc-qa" -> new WorkloadSpec.DocQa(100, 8000, 10, 100, 100, "random", 16);
            case "zipf" -> new WorkloadSpec.Zipf(10_000, 2000, 1.0, REQUESTS, 500, 100, 16);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    /** Operations are requests: one invocation generates 1000. */
    @Benchmark
    @org.openjdk.jmh.annotations.OperationsPerInvocation(REQUESTS)
    public void generate(Blackhole bh) {
        try (RequestSource s = Workloads.open(spec(), ArrivalSpec.poisson(10), Namespace.of("bench"), 1)) {
            for (int i = 0; i < REQUESTS && s.hasNext(); i++) bh.consume(s.next());
        }
    }
}
