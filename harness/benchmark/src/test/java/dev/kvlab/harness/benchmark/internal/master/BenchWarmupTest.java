package dev.kvlab.harness.benchmark.internal.master;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The bench's warm-up: its minimum, its cap and its stop are honoured; the compilers' CPU is read where Linux shows it. */
class BenchWarmupTest {

    @Test
    void theMinimumTheCapAndTheStopAreHonoured() throws Exception {
        long t0 = System.nanoTime();
        BenchWarmup.Spent none = BenchWarmup.await(Duration.ofMillis(200), Duration.ZERO, () -> false);
        assertThat(none.jitQuiet()).as("not waited for").isFalse();
        assertThat(none.time()).isBetween(Duration.ofMillis(200), Duration.ofMillis(1500));

        BenchWarmup.Spent capped = BenchWarmup.await(Duration.ZERO, Duration.ofMillis(1500), () -> false);
        assertThat(capped.time()).as("at most the cap, whatever the JIT does").isLessThan(Duration.ofMillis(2500));

        AtomicBoolean stop = new AtomicBoolean(true);
        assertThat(BenchWarmup.await(Duration.ZERO, Duration.ofSeconds(60), stop::get)
                        .time())
                .isLessThan(Duration.ofSeconds(1));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void compilerThreadsCpuIsReadFromProc() {
        if (!Files.isDirectory(Path.of("/proc/self/task")))
            return; // not Linux: the MXBean's compilation time is used instead
        long a = BenchWarmup.compilerCpuMillis();
        assertThat(a).as("this JVM has compiled something by now").isPositive();
        assertThat(BenchWarmup.compilerCpuMillis()).isGreaterThanOrEqualTo(a);
    }
}
