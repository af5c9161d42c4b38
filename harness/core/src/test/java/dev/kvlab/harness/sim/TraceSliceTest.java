package dev.kvlab.harness.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.workloads.testing.SharedTrace;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shipped trace-replay config on a slice of the shared conversation trace. */
class TraceSliceTest {

    private static CellResult slice(String... sets) {
        Path trace = SharedTrace.conversation();
        Path config = dev.kvlab.workloads.testing.SourceTree.file("ablations/trace-replay.yaml");
        var t = dev.kvlab.harness.api.run.ConfigTree.load(config);
        t.set("workload.trace", trace.toString(), "test");
        t.set("workload.limit=600");
        for (String s : sets) t.set(s);
        return new dev.kvlab.harness.api.run.CellRunner().run(t.bind());
    }

    @Test
    void everyRequestCompletesWithReuseFromBothTiers() {
        CellResult r = slice();
        assertThat(r.summary().get(Columns.REQUESTS)).isEqualTo(600);
        assertThat(r.summary().get(Columns.COMPLETED)).isEqualTo(600);
        assertThat(r.summary().get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(r.summary().get(Columns.LOCAL_HIT_RATIO) + r.summary().get(Columns.REMOTE_HIT_RATIO))
                .isGreaterThan(0.1);
        assertThat(r.intervals().get(dev.kvlab.harness.api.Metric.TTFT)).isNotEmpty();
    }

    @Test
    void withoutTiersTtftGrowsWithInputLength() {
        // light load (half speed, 8 instances) so that queueing does not hide prefill time
        List<RequestRecord> rs = slice("tiers=none", "cluster.instances=8", "workload.arrival.speedup=0.5")
                .requests();
        List<RequestRecord> sorted = rs.stream()
                .sorted(Comparator.comparingInt(RequestRecord::inputTokens))
                .toList();
        int q = sorted.size() / 4;
        double shortest = sorted.subList(0, q).stream()
                .mapToDouble(RequestRecord::ttftMs)
                .sorted()
                .toArray()[q / 2];
        double longest = sorted.subList(sorted.size() - q, sorted.size()).stream()
                .mapToDouble(RequestRecord::ttftMs)
                .sorted()
                .toArray()[q / 2];
        assertThat(longest).isGreaterThan(2 * shortest);
        assertThat(spearman(rs)).isGreaterThan(0.6);
    }

    private static double spearman(List<RequestRecord> rs) {
        int n = rs.size();
        double[] a = ranks(rs.stream().mapToDouble(RequestRecord::inputTokens).toArray());
        double[] b = ranks(rs.stream().mapToDouble(RequestRecord::ttftMs).toArray());
        double ma = 0, mb = 0;
        for (int i = 0; i < n; i++) {
            ma += a[i];
            mb += b[i];
        }
        ma /= n;
        mb /= n;
        double sab = 0, saa = 0, sbb = 0;
        for (int i = 0; i < n; i++) {
            sab += (a[i] - ma) * (b[i] - mb);
            saa += (a[i] - ma) * (a[i] - ma);
            sbb += (b[i] - mb) * (b[i] - mb);
        }
        return sab / Math.sqrt(saa * sbb);
    }

    private static double[] ranks(double[] v) {
        Integer[] idx = new Integer[v.length];
        for (int i = 0; i < v.length; i++) idx[i] = i;
        java.util.Arrays.sort(idx, Comparator.comparingDouble(i -> v[i]));
        double[] r = new double[v.length];
        for (int i = 0; i < v.length; i++) r[idx[i]] = i;
        return r;
    }
}
