package dev.kvlab.harness.core.internal.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TopGapsTest {

    @Test
    void meanOfTheLongestTenPercentMatchesSorting() {
        SplittableRandom r = new SplittableRandom(42);
        for (int trial = 0; trial < 500; trial++) {
            int out = 2 + r.nextInt(3000);
            long[] gaps = new long[out - 1];
            TopGaps t = new TopGaps(out);
            for (int i = 0; i < gaps.length; i++) {
                gaps[i] = r.nextInt(5) == 0 ? 7 : r.nextLong(1, 1_000_000); // with many ties
                t.add(gaps[i]);
            }
            long[] sorted = gaps.clone();
            Arrays.sort(sorted);
            int k = Math.max(1, (gaps.length + 9) / 10);
            long sum = 0;
            for (int i = sorted.length - k; i < sorted.length; i++) sum += sorted[i];
            assertThat(t.mean()).as("out=%d", out).isEqualTo(Math.round((double) sum / k));
        }
        assertThat(new TopGaps(1).mean()).isEqualTo(-1);
    }

    @Test
    void fewerGapsThanTheBoundStillGiveTheMeanOfTheirLongestTenth() {
        SplittableRandom r = new SplittableRandom(7);
        for (int trial = 0; trial < 300; trial++) {
            int out = 2 + r.nextInt(2000);
            int n = 1 + r.nextInt(out - 1); // a request that stopped early
            long[] gaps = new long[n];
            TopGaps t = new TopGaps(out);
            for (int i = 0; i < n; i++) t.add(gaps[i] = r.nextLong(1, 50_000));
            Arrays.sort(gaps);
            int k = Math.max(1, (n + 9) / 10);
            long sum = 0;
            for (int i = n - k; i < n; i++) sum += gaps[i];
            assertThat(t.mean()).as("out=%d n=%d", out, n).isEqualTo(Math.round((double) sum / k));
        }
    }

    /** A decode's gaps grow with its context: nearly every gap is among the longest so far. */
    @Test
    void risingFallingAndConstantGapsGiveTheExactMean() {
        SplittableRandom r = new SplittableRandom(11);
        for (int trial = 0; trial < 300; trial++) {
            int out = 2 + r.nextInt(2500);
            long[] gaps = new long[out - 1];
            int shape = trial % 3;
            for (int i = 0; i < gaps.length; i++)
                gaps[i] = switch (shape) {
                    case 0 -> 1000 + 3L * i + r.nextInt(4);
                    case 1 -> 1_000_000 - 5L * i;
                    default -> 42;
                };
            TopGaps t = new TopGaps(out);
            for (long g : gaps) t.add(g);
            long[] sorted = gaps.clone();
            Arrays.sort(sorted);
            int k = Math.max(1, (gaps.length + 9) / 10);
            long sum = 0;
            for (int i = sorted.length - k; i < sorted.length; i++) sum += sorted[i];
            assertThat(t.mean()).as("shape=%d out=%d", shape, out).isEqualTo(Math.round((double) sum / k));
        }
    }

    @Test
    void selectionPutsTheLongestFirst() {
        SplittableRandom r = new SplittableRandom(3);
        for (int trial = 0; trial < 2000; trial++) {
            int n = 1 + r.nextInt(200), m = 1 + r.nextInt(n);
            long[] a = new long[n];
            for (int i = 0; i < n; i++) a[i] = r.nextInt(4) == 0 ? 5 : r.nextLong(0, 100);
            long[] want = a.clone();
            Arrays.sort(want);
            TopGaps.selectLongest(a, n, m);
            long[] front = Arrays.copyOf(a, m), back = Arrays.copyOfRange(a, m, n);
            Arrays.sort(front);
            assertThat(front).as("n=%d m=%d", n, m).containsExactly(Arrays.copyOfRange(want, n - m, n));
            for (long b : back) assertThat(b).isLessThanOrEqualTo(front[0]);
        }
    }
}
