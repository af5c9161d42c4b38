package dev.kvlab.harness.llama.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine thread never waits for the store: on a real bundled store whose client link adds 400 ms to every batch
 * ({@code fault=link-delay} from the first measured request), one instance serving four sequences keeps decoding the
 * sequences it has while later requests' fetches are out. A decode token never waits as long as one fetch takes,
 * though fetches and decodes overlapped; nothing is lost to it (every fetched block restored, none wrong). Skipped
 * with the reason where the pinned llama.cpp library is unavailable; with {@code KVLAB_CI=1} that fails instead.
 */
class EngineStoreIoTest {

    static final long LINK_DELAY_MS = 400;

    @TempDir
    static Path dir;

    static Path model;

    @BeforeAll
    static void model() throws Exception {
        RealKvTestSupport.library();
        model = Gguf.synth(new SynthSpec(2, 256, 4, 2, 688, 32000, WeightType.F16, 5, 4096), dir.resolve("tiny.gguf"))
                .path();
    }

    @Test
    void decodingSequencesStepWhileOtherRequestsFetchFromASlowStore() {
        CellResult r = new CellRunner()
                .run(ConfigTree.parse("""
                mode: live
                seed: 3
                target: {kind: llama.cpp, model: %s, threads: 1, sequences: 4, calibrate_tokens: 0}
                cluster: {instances: 1}
                store: {backend: bundled, nodes: 1, capacity: 64MiB}
                transport: tcp
                policy: fetch
                cache_state: hot
                tiers: remote-only
                fault: link-delay
                fault_at: 0
                fault_params: {link_delay: %dms}
                workload:
                  generator: {kind: shared-prefix, groups: 2, prompts_per_group: 3, prefix_tokens: 256, suffix_tokens: 32, output_tokens: 512, block_tokens: 32}
                  arrival: {process: constant, rate: 5}
                slo: {ttft_ms: 20000}
                """.formatted(model, LINK_DELAY_MS), "slow-store.yaml", null)
                        .bind());
        var s = r.summary();
        assertThat(s.get(Columns.FAILED)).isZero();
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(s.get(Columns.FALLBACKS)).isZero();
        assertThat(s.get(Columns.REMOTE_HIT_RATIO)).isGreaterThan(0.5);
        // the fetches waited for the slow link (the fault is switched on by a fault thread as the first request
        // arrives)
        assertThat(r.totals().get(Metric.FETCH).getValueAtPercentile(50)).isGreaterThanOrEqualTo(LINK_DELAY_MS * 1000);
        // some request decoded for most of a fetch of another
        List<RequestRecord> rs = r.requestLog().readAll();
        double overlapMs = 0;
        for (RequestRecord d : rs)
            for (RequestRecord f : rs) {
                if (d == f) continue;
                double fetchFrom = f.arrivalMs() + f.queueMs(), fetchTo = fetchFrom + f.fetchMs();
                overlapMs = Math.max(
                        overlapMs,
                        Math.min(fetchTo, d.arrivalMs() + d.e2elMs())
                                - Math.max(fetchFrom, d.arrivalMs() + d.ttftMs()));
            }
        assertThat(overlapMs).isGreaterThan(LINK_DELAY_MS / 2.0);
        // and meanwhile its tokens kept coming: no gap between two tokens as long as half a fetch
        assertThat(r.totals().get(Metric.ITL).getMaxValue()).isLessThan(LINK_DELAY_MS * 1000 / 2);
    }
}
