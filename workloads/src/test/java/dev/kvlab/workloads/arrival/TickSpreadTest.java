package dev.kvlab.workloads.arrival;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.WorkloadFormatException;
import dev.kvlab.workloads.api.WorkloadSpec;
import dev.kvlab.workloads.testing.SharedTrace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Quantized trace stamps: detected, each tick's requests spread over it in file order; unquantized stamps untouched. */
class TickSpreadTest {

    static final Namespace NS = Namespace.of("m");

    @TempDir
    Path dir;

    private Path trace(long[] stampsMs) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < stampsMs.length; i++) {
            sb.append("{\"timestamp\": ")
                    .append(stampsMs[i])
                    .append(", \"input_length\": 600, \"output_length\": 4, \"hash_ids\": [")
                    .append(2 * i)
                    .append(", ")
                    .append(2 * i + 1)
                    .append("]}\n");
        }
        Path p = dir.resolve("t.jsonl");
        Files.writeString(p, sb);
        return p;
    }

    private static List<Request> read(Path trace, ArrivalSpec arrival, long seed) {
        List<Request> out = new ArrayList<>();
        try (RequestSource s =
                Workloads.open(new WorkloadSpec.Trace(trace.toString(), 0, false, 0), arrival, NS, seed)) {
            s.forEachRemaining(out::add);
        }
        return out;
    }

    private static ArrivalSpec trace(double speedup, String spread) {
        return new ArrivalSpec("trace", 0, 0, speedup, 0, 0, 0, spread);
    }

    /** Ten requests on each of 3,000 ms ticks (with the ±1 ms jitter the Mooncake stamps show). */
    private static long[] quantized() {
        long[] s = new long[200];
        for (int i = 0; i < s.length; i++) s[i] = (i / 10) * 3000L + ((i / 10) % 3 == 1 ? 1 : 0);
        return s;
    }

    @Test
    void quantizedStampsAreSpreadWithinTheirTickInFileOrder() throws IOException {
        long[] stamps = quantized();
        List<Request> r = read(trace(stamps), trace(1, "auto"), 7);
        assertThat(r).hasSize(stamps.length);
        long prev = -1;
        Map<Long, Integer> perTick = new HashMap<>();
        for (int i = 0; i < r.size(); i++) {
            long t = r.get(i).arrivalNanos();
            long tick = stamps[i] * 1_000_000L;
            assertThat(t).isGreaterThanOrEqualTo(tick).isLessThan(tick + 3_000_000_000L);
            assertThat(t).isGreaterThanOrEqualTo(prev); // order kept
            prev = t;
            perTick.merge(t, 1, Integer::sum);
            assertThat(r.get(i).id()).isEqualTo(i);
        }
        assertThat(perTick.values()).allMatch(n -> n == 1); // no two requests at one instant any more
        assertThat(read(trace(stamps), trace(1, "auto"), 7)).isEqualTo(r); // seeded
        assertThat(read(trace(stamps), trace(1, "auto"), 8)).isNotEqualTo(r);
    }

    @Test
    void speedupScalesTheSameOffsets() throws IOException {
        Path p = trace(quantized());
        List<Request> a = read(p, trace(1, "auto"), 3), b = read(p, trace(4, "auto"), 3);
        for (int i = 0; i < a.size(); i++)
            assertThat((double) b.get(i).arrivalNanos())
                    .isCloseTo(a.get(i).arrivalNanos() / 4.0, org.assertj.core.api.Assertions.within(1.0));
    }

    @Test
    void noneAndUnquantizedStampsPassUnchanged() throws IOException {
        long[] stamps = quantized();
        List<Request> literal = read(trace(stamps), trace(1, "none"), 7);
        for (int i = 0; i < stamps.length; i++)
            assertThat(literal.get(i).arrivalNanos()).isEqualTo(stamps[i] * 1_000_000L);
        long[] irregular = new long[200];
        long t = 0;
        for (int i = 0; i < irregular.length; i++) irregular[i] = t += (i * 7919L) % 97 + (i % 5 == 0 ? 0 : 1);
        List<Request> r = read(trace(irregular), trace(1, "auto"), 7);
        for (int i = 0; i < irregular.length; i++)
            assertThat(r.get(i).arrivalNanos()).isEqualTo(irregular[i] * 1_000_000L);
    }

    @Test
    void aGivenTickSpreadsEvenUnquantizedGroupsButNeverPastTheNextStamp() throws IOException {
        long[] stamps = {0, 0, 0, 0, 100, 100, 5000};
        List<Request> r = read(trace(stamps), trace(1, "2s"), 1);
        for (int i = 0; i < 4; i++) assertThat(r.get(i).arrivalNanos()).isBetween(0L, 99_999_999L);
        assertThat(r.get(4).arrivalNanos()).isBetween(100_000_000L, 2_100_000_000L);
        assertThat(r.get(6).arrivalNanos()).isBetween(5_000_000_000L, 7_000_000_000L);
    }

    @Test
    void theConversationTraceIsDetectedAsThreeSecondTicks() {
        List<Request> r = new ArrayList<>();
        ArrivalSpec auto = trace(1, "auto");
        try (RequestSource s = Workloads.open(
                new WorkloadSpec.Trace(SharedTrace.conversation().toString(), 0, false, 0), auto, NS, 1)) {
            assertThat(s.describe()).contains("quantized to 3000 ms");
            s.forEachRemaining(r::add);
        }
        assertThat(r).hasSize((int) SharedTrace.CONVERSATION_REQUESTS);
        assertThat(r.stream().mapToLong(Request::arrivalNanos).distinct().count())
                .isGreaterThan(12_000);
    }

    @Test
    void badSpreadIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> trace(1, "fast").validate("workload.arrival"))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessageContaining("workload.arrival.spread");
        assertThatThrownBy(() -> new ArrivalSpec("poisson", 5, 1, 0, 0, 0, 0, "3s").validate("workload.arrival"))
                .isInstanceOf(WorkloadFormatException.class)
                .hasMessageContaining("workload.arrival.spread")
                .hasMessageContaining("trace");
    }
}
