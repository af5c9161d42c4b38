package dev.kvlab.workloads.gen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Generated workloads stream: ten million requests (grouped and interleaved shared prefixes, tiled documents),
 * Poisson-timed, are iterated in a forked JVM whose heap (32 MiB) could not hold even one int per request. A
 * generator that materialised its requests, or its order, dies of OutOfMemoryError there.
 */
class StreamingWorkloadTest {

    static final int N = 10_000_000;

    @Test
    void tenMillionGeneratedRequestsIterateIn32MiBOfHeap() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Xmx32m",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                Iterate.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) out.add(line);
        }
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as("forked iteration: %s", out).isZero();
        assertThat(out).contains("shared-prefix grouped " + N, "shared-prefix interleaved " + N, "doc-qa tile " + N);
    }

    /** Iterates the workloads and prints {@code <what> <count>} for each (run in the forked JVM). */
    public static final class Iterate {
        public static void main(String[] args) {
            Namespace ns = Namespace.of("m");
            for (String order : List.of("grouped", "interleaved")) {
                WorkloadSpec.SharedPrefix sp = new WorkloadSpec.SharedPrefix(N / 20, 20, 512, 64, 8, order, 512);
                System.out.println(
                        "shared-prefix " + order + " " + count(Workloads.open(sp, ArrivalSpec.poisson(2000), ns, 1)));
            }
            WorkloadSpec.DocQa dq = new WorkloadSpec.DocQa(N / 10, 1024, 10, 32, 8, "tile", 512);
            System.out.println("doc-qa tile " + count(Workloads.open(dq, ArrivalSpec.poisson(2000), ns, 1)));
        }

        private static long count(RequestSource s) {
            long n = 0, last = -1;
            try (s) {
                while (s.hasNext()) {
                    Request r = s.next();
                    if (r.arrivalNanos() < last) throw new IllegalStateException("arrivals out of order at " + n);
                    last = r.arrivalNanos();
                    n++;
                }
            }
            return n;
        }
    }
}
