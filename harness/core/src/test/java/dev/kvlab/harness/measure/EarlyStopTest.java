package dev.kvlab.harness.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.kvlab.harness.api.config.EarlyStopConfig;
import dev.kvlab.harness.core.internal.measure.EarlyStop;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The live early stop's sequential binomial test: decides clear cases early, errs at most 5% at the target itself. */
class EarlyStopTest {

    /** Feeds Bernoulli(p) outcomes until decided or {@code max} requests; the verdict. */
    private static EarlyStop.Verdict run(double p, double target, long min, long max, SplittableRandom rnd) {
        EarlyStop es = new EarlyStop(new EarlyStopConfig(target, min));
        long good = 0;
        for (long n = 1; n <= max; n++) {
            if (rnd.nextDouble() < p) good++;
            if (es.decided(good, n)) return es.verdict();
        }
        return es.verdict();
    }

    @Test
    void noLookBeforeTheMinimumAndClearCasesDecideAtTheFirstLook() {
        EarlyStop es = new EarlyStop(new EarlyStopConfig(0.9, 50));
        for (long n = 1; n < 50; n++) assertThat(es.decided(n, n)).isFalse();
        assertThat(es.decided(50, 50)).isTrue();
        assertThat(es.verdict()).isEqualTo(EarlyStop.Verdict.PASS);
        assertThat(es.decidedAt()).isEqualTo(50);
        EarlyStop f = new EarlyStop(new EarlyStopConfig(0.9, 50));
        assertThat(f.decided(30, 50)).isTrue();
        assertThat(f.verdict()).isEqualTo(EarlyStop.Verdict.FAIL);
        // 46 of 50 (0.92) straddles 0.9: no verdict, and the next look is at 100
        EarlyStop u = new EarlyStop(new EarlyStopConfig(0.9, 50));
        assertThat(u.decided(46, 50)).isFalse();
        assertThat(u.decided(92, 99)).isFalse();
        assertThat(u.verdict()).isEqualTo(EarlyStop.Verdict.UNDECIDED);
    }

    @Test
    void atTheTargetItselfAWrongVerdictIsRare() {
        // true attainment exactly 0.9: either verdict is an error; Bonferroni over the looks bounds both at 5% together
        SplittableRandom rnd = new SplittableRandom(42);
        int runs = 2000, wrong = 0;
        for (int i = 0; i < runs; i++) if (run(0.9, 0.9, 50, 3200, rnd) != EarlyStop.Verdict.UNDECIDED) wrong++;
        assertThat((double) wrong / runs).isLessThanOrEqualTo(0.05);
    }

    @Test
    void farFromTheTargetItDecidesTheRightWay() {
        SplittableRandom rnd = new SplittableRandom(7);
        int pass = 0, fail = 0;
        for (int i = 0; i < 500; i++) {
            if (run(0.97, 0.9, 50, 3200, rnd) == EarlyStop.Verdict.PASS) pass++;
            if (run(0.8, 0.9, 50, 3200, rnd) == EarlyStop.Verdict.FAIL) fail++;
        }
        assertThat(pass).isGreaterThan(490);
        assertThat(fail).isGreaterThan(490);
    }

    @Test
    void theNormalQuantileIsRight() throws Exception {
        var m = EarlyStop.class.getDeclaredMethod("normalQuantile", double.class);
        m.setAccessible(true);
        assertThat((double) m.invoke(null, 0.975)).isCloseTo(1.959963985, within(1e-8));
        assertThat((double) m.invoke(null, 0.5)).isCloseTo(0, within(1e-12));
        assertThat((double) m.invoke(null, 1 - 0.05 / 64 / 2)).isCloseTo(3.359354, within(1e-5));
    }

    @Test
    void aQueueThatGrowsThroughTheProbeDoesNotPassOnItsEarlyRequests() {
        // a load above capacity: the first half of the look's requests all meet the SLO, the later half 178 of 200
        // (0.89)
        // as the queue builds; 378 of 400 (0.945) has its Wilson interval above 0.9, so the whole alone would pass
        EarlyStop growing = new EarlyStop(new EarlyStopConfig(0.9, 400));
        long good = 0;
        for (long n = 1; n <= 400; n++) {
            if (n <= 200 || (n - 200) % 9 != 0) good++;
            growing.decided(good, n);
        }
        assertThat(good).isEqualTo(378);
        assertThat(growing.verdict()).isEqualTo(EarlyStop.Verdict.UNDECIDED);
        // the same 378 of 400 spread evenly (a stationary load): a pass at the same look
        EarlyStop stationary = new EarlyStop(new EarlyStopConfig(0.9, 400));
        long sgood = 0;
        for (long n = 1; n <= 400; n++) {
            if (n % 18 != 0 || n > 396) sgood++;
            stationary.decided(sgood, n);
        }
        assertThat(sgood).isEqualTo(378);
        assertThat(stationary.verdict()).isEqualTo(EarlyStop.Verdict.PASS);
        assertThat(stationary.decidedAt()).isEqualTo(400);
    }
}
