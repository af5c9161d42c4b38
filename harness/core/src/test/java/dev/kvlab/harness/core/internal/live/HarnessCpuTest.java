package dev.kvlab.harness.core.internal.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.SummaryRow;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The harness CPU accounting: work counted, store calls and bytes and waiting not. */
class HarnessCpuTest {

    /** Burns {@code millis} of the calling thread's CPU. */
    static void burn(long millis) {
        var mx = ManagementFactory.getThreadMXBean();
        long end = mx.getCurrentThreadCpuTime() + millis * 1_000_000L;
        long x = 0;
        while (mx.getCurrentThreadCpuTime() < end) x += System.nanoTime() & 1;
        if (x == 42) System.out.print("");
    }

    @Test
    void aPoolTaskCountsItsOwnWorkButNotItsStoreCallsAndBytes() throws Exception {
        HarnessCpu cpu = new HarnessCpu();
        LiveLoop loop = new LiveLoop(50_000);
        ExecutorService pool = Executors.newFixedThreadPool(1, cpu.threads("test-io"));
        try {
            pool.submit(() -> {}).get(); // the thread exists before the snapshot
            HarnessCpu.Snapshot before = cpu.snapshot(loop);
            pool.submit(cpu.task(() -> {
                        burn(20);
                        long c = cpu.now();
                        burn(60);
                        cpu.storeAndBytes(c);
                    }))
                    .get();
            dev.kvlab.harness.api.Figures f = new dev.kvlab.harness.api.Figures();
            HarnessCpu.extras(before, cpu.snapshot(loop), 2, f);
            SummaryRow x = f.asRow();
            assertThat((Double) x.get("harness_io_cpu_us_per_request"))
                    .as("20 ms of work over 2 requests")
                    .isCloseTo(10_000, within(2_500.0));
            assertThat((Double) x.get("store_call_cpu_us_per_request")).isCloseTo(30_000, within(2_500.0));
            assertThat((Double) x.get(Columns.HARNESS_CPU_US_PER_REQUEST.name()))
                    .isEqualTo((Double) x.get("harness_io_cpu_us_per_request"));
            assertThat((Double) x.get("harness_loop_cpu_us_per_request")).isZero();
        } finally {
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void handOffsArePartOfTheFigureAndShownApart() throws Exception {
        HarnessCpu cpu = new HarnessCpu();
        LiveLoop loop = new LiveLoop(50_000);
        ExecutorService pool = Executors.newFixedThreadPool(1, cpu.threads("test-io"));
        try {
            pool.submit(() -> {}).get();
            HarnessCpu.Snapshot before = cpu.snapshot(loop);
            pool.submit(cpu.task(() -> {
                        burn(10);
                        long c = cpu.now();
                        burn(30); // a hand-off that took 30 ms of this thread's CPU
                        cpu.handoff(c);
                    }))
                    .get();
            dev.kvlab.harness.api.Figures f = new dev.kvlab.harness.api.Figures();
            HarnessCpu.extras(before, cpu.snapshot(loop), 1, f);
            SummaryRow x = f.asRow();
            assertThat((Double) x.get("harness_handoff_cpu_us_per_request")).isCloseTo(30_000, within(2_500.0));
            assertThat((Double) x.get(Columns.HARNESS_CPU_US_PER_REQUEST.name()))
                    .as("the figure holds the task, hand-off included")
                    .isCloseTo(40_000, within(4_000.0));
        } finally {
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void theLoopCountsItsEventsButNotItsWaits() {
        HarnessCpu cpu = new HarnessCpu();
        LiveLoop loop = new LiveLoop(50_000);
        // one event first, unmeasured: the loop's own first run loads and compiles what the figure must not hold
        loop.at(loop.now() + 1_000_000L, () -> burn(1));
        loop.run(() -> true);
        loop.resetFigures();
        HarnessCpu.Snapshot before = cpu.snapshot(loop);
        // 4 events of 10 ms of CPU, 30 ms apart: the loop parks (and spins the last 50 us) in between
        for (int i = 0; i < 4; i++) loop.at(loop.now() + 5_000_000L + i * 40_000_000L, () -> burn(10));
        loop.run(() -> true);
        dev.kvlab.harness.api.Figures f = new dev.kvlab.harness.api.Figures();
        HarnessCpu.extras(before, cpu.snapshot(loop), 4, f);
        SummaryRow x = f.asRow();
        assertThat((Double) x.get("harness_loop_cpu_us_per_request"))
                .as("10 ms per event")
                .isCloseTo(10_000, within(1_500.0));
        assertThat((Double) x.get("harness_wait_cpu_us_per_request"))
                .as("parking costs far less than working")
                .isBetween(0.0, 3_000.0);
        assertThat((Double) x.get("harness_spin_us_per_request"))
                .as("at most the spun tail of each wait")
                .isBetween(0.0, 50.0);
        assertThat(loop.events()).isEqualTo(4);
    }
}
