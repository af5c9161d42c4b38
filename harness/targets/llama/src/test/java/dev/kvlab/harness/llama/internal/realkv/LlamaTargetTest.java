package dev.kvlab.harness.llama.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The llama.cpp target on a tiny synthesized model, on the live clock: a hot remote-only cell restores real KV
 * fetched from the store (the bytes per fetched token are the model's KV bytes per token plus the block header), a
 * sampled restore check finds the restored logits equal to a recompute's, a corrupted store is recomputed and never
 * used, and keys the target does not read are refused. Skipped with the
 * reason where the pinned llama.cpp library is unavailable; with {@code KVLAB_CI=1} that fails instead.
 */
class LlamaTargetTest {

    @TempDir
    static Path dir;

    static Path model;
    static long kvBytesPerToken;

    @BeforeAll
    static void model() throws Exception {
        RealKvTestSupport.library(); // skip (or fail on CI) before synthesizing anything
        SynthSpec spec = new SynthSpec(2, 256, 4, 2, 688, 32000, WeightType.F16, 5, 2048);
        model = Gguf.synth(spec, dir.resolve("tiny.gguf")).path();
        kvBytesPerToken = spec.kvBytesPerToken();
    }

    static RunConfig config(String... sets) {
        ConfigTree t = ConfigTree.parse("""
                mode: live
                seed: 2
                target: {kind: llama.cpp, model: %s, threads: 1}
                cluster: {instances: 2, router: round-robin}
                store: {backend: bundled, nodes: 2, capacity: 64MiB}
                transport: tcp
                policy: fetch
                cache_state: hot
                tiers: remote-only
                workload:
                  generator: {kind: shared-prefix, groups: 2, prompts_per_group: 3, prefix_tokens: 256, suffix_tokens: 32, output_tokens: 4, block_tokens: 32}
                  arrival: {process: constant, rate: 20}
                slo: {ttft_ms: 10000}
                """.formatted(model), "real-kv.yaml", null);
        for (String set : sets) t.set(set);
        return t.bind();
    }

    @Test
    void withFlashAttentionOffTheTransposedVGoesThroughTheStoreAndRestoresExactly() {
        // the cell's own tolerance out of the way (1e9): the bound below is this test's, so it can fail
        CellResult r = new CellRunner()
                .run(config(
                        "target.flash_attn=off",
                        "target.calibrate_tokens=0",
                        "target.verify_restore=1 in 1",
                        "target.verify_tolerance=1e9"));
        var s = r.summary();
        assertThat(s.get(Columns.FAILED)).isZero();
        assertThat(s.get(Columns.REMOTE_HIT_RATIO)).isGreaterThan(0.5);
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(s.get(Columns.FALLBACKS)).isZero();
        assertThat(r.extras().names())
                .as("every figure of a llama.cpp cell is a registered column")
                .allMatch(k -> Columns.named(k).isPresent());
        assertThat(((Number) r.json().get("verify_restore_checks")).longValue())
                .isEqualTo(r.json().get("restores"));
        // the restored KV gives the recompute's next-token logits up to floating-point noise (a wrong block moves them
        // by O(1))
        assertThat(((Number) r.json().get("verify_restore_max_logit_diff")).doubleValue())
                .isLessThanOrEqualTo(0.02);
        assertThatThrownBy(() -> config("target.flash_attn=sideways"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.flash_attn'");
    }

    @Test
    void aRestoreThatPassesTheChecksumButIsWrongTripsTheLogitCheck() {
        // blocks written under the key of the block before them, with valid checksums: every fetch verifies, the audit
        // (what was read is what was written) is satisfied, and the restored KV is another position's
        KvBlockStore.misplaceForTest = true;
        try {
            assertThatThrownBy(() ->
                            new CellRunner().run(config("target.calibrate_tokens=0", "target.verify_restore=1 in 1")))
                    .hasMessageContaining("verify_restore failed")
                    .hasMessageContaining("logits differ from a recompute");
        } finally {
            KvBlockStore.misplaceForTest = false;
        }
        // the same cell with the blocks where they belong passes the same check
        CellResult ok = new CellRunner().run(config("target.calibrate_tokens=0", "target.verify_restore=1 in 1"));
        assertThat(((Number) ok.json().get("verify_restore_checks")).longValue())
                .isPositive();
        assertThat(ok.summary().get(Columns.WRONG_HITS_USED)).isZero();
    }

    @Test
    void theRestoreCheckIsSampledByDefaultAndRunsAfterThePhase() {
        // 24 prompts of 2 prefixes: each instance restores at least 8 times in the measured phase, so 1 in 8 samples
        // some
        CellResult r =
                new CellRunner().run(config("target.calibrate_tokens=0", "workload.generator.prompts_per_group=12"));
        assertThat(r.json().get("verify_restore"))
                .asString()
                .startsWith("1 in 8 ")
                .contains("after the phase");
        long restores = ((Number) r.json().get("restores")).longValue();
        long checks = ((Number) r.json().get("verify_restore_checks")).longValue();
        assertThat(restores).isPositive();
        // per instance the 1st, 9th, ... restore: with 2 instances at most ceil(restores / 8) + 1 of them, at least one
        assertThat(checks).isBetween(1L, (restores + 7) / 8 + 1);
        CellResult off = new CellRunner().run(config("target.calibrate_tokens=0", "target.verify_restore=off"));
        assertThat(off.json().get("verify_restore")).isEqualTo("off");
        assertThat(((Number) off.json().get("verify_restore_checks")).longValue())
                .isZero();
    }

    @Test
    void aLaterProbeOfTheSameCellTakesTheEngineAndItsPrimedStateOverWhereThatIsSound() {
        String[] probe = {
            "tiers=combined",
            "target.calibrate_tokens=0",
            "measurement.early_stop.target=0.9",
            "measurement.early_stop.min_requests=4"
        };
        CellResult first = new CellRunner().run(config(append(probe, "workload.arrival.rate=20")));
        CellResult second = new CellRunner().run(config(append(probe, "workload.arrival.rate=5")));
        assertThat(first.json().get("engine_reuse")).asString().startsWith("fresh: first probe");
        assertThat(second.json().get("engine_reuse"))
                .asString()
                .startsWith("reused from probe 1")
                .contains("warm-up skipped");
        // the same primed state: every measured request found its prefix in a tier, as after the first probe's own
        // warm-up
        for (CellResult r : List.of(first, second)) {
            var s = r.summary();
            assertThat(s.get(Columns.FAILED)).isZero();
            assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
            assertThat(s.get(Columns.LOCAL_HIT_RATIO) + s.get(Columns.REMOTE_HIT_RATIO))
                    .isGreaterThan(0.5);
        }
        assertThat(second.summary().get(Columns.LOCAL_HIT_RATIO))
                .isEqualTo(first.summary().get(Columns.LOCAL_HIT_RATIO));
        assertThat(((Number) second.json().get("warmup_requests")).longValue())
                .isEqualTo(((Number) first.json().get("warmup_requests")).longValue());
        assertThat(((Number) second.json().get("engine_setup_ms")).doubleValue())
                .isLessThan(((Number) first.json().get("engine_setup_ms")).doubleValue());
        // a local tier too small for the workload evicts during the warm-up: its state is put back as that warm-up left
        // it, and said
        String[] small = append(probe, "target.local_capacity=2 blocks");
        // (at 2 requests/s each request is done before the next arrives: the same order of lends and keeps on both
        // runs)
        CellResult evicting = new CellRunner().run(config(append(small, "workload.arrival.rate=2")));
        CellResult again = new CellRunner().run(config(append(small, "workload.arrival.rate=2")));
        assertThat(again.json().get("engine_reuse"))
                .asString()
                .startsWith("reused from probe 1")
                .contains("evicted");
        // put back exactly: the same requests at the same rate find the same blocks in the local tier
        assertThat(again.summary().get(Columns.LOCAL_HIT_RATIO))
                .isEqualTo(evicting.summary().get(Columns.LOCAL_HIT_RATIO));
        assertThat(again.summary().get(Columns.FAILED)).isZero();
        // every figure of a calibrated cell with its twin and early stop is registered
        CellResult withTwin = new CellRunner()
                .run(config(
                        "tiers=combined",
                        "measurement.early_stop.target=0.9",
                        "measurement.early_stop.min_requests=4",
                        "workload.arrival.rate=20"));
        assertThat(withTwin.extras().names())
                .as("every figure of a calibrated llama.cpp cell with its twin and early stop is a registered column")
                .allMatch(k -> Columns.named(k).isPresent());
        // a plain cell (not a capacity probe) is never kept
        assertThat(new CellRunner()
                        .run(config("target.calibrate_tokens=0"))
                        .json()
                        .get("engine_reuse"))
                .asString()
                .isEqualTo("fresh: not kept (not a capacity probe)");
    }

    /**
     * With a twin, whose link probes write objects of their own around every probe, a third probe still takes over.
     * (It was disabled for a while: its third probe started fresh now and then, "a measured phase changed the store's
     * object count by 24": the count at the phase's start was the master's half-second-old figure, taken before the link
     * probe's own objects were counted; the check now reads it fresh.)
     */
    @Test
    void withATwinAThirdProbeStillTakesTheEngineOver() {
        String[] twin = {"tiers=combined", "measurement.early_stop.target=0.9", "measurement.early_stop.min_requests=4"
        };
        CellResult calibrated = new CellRunner().run(config(append(twin, "workload.arrival.rate=20")));
        assertThat(calibrated.extras().names())
                .as("every figure of a calibrated llama.cpp cell with its twin and early stop is a registered column")
                .allMatch(k -> Columns.named(k).isPresent());
        new CellRunner().run(config(append(twin, "workload.arrival.rate=10")));
        assertThat(new CellRunner()
                        .run(config(append(twin, "workload.arrival.rate=5")))
                        .json()
                        .get("engine_reuse"))
                .asString()
                .startsWith("reused from probe 2");
    }

    /**
     * A capacity search calibrates each cell's twin before its live search (the prediction); the cell's fresh engines
     * then plan their twins on that calibration rather than timing the engine again, and say so; a fixed-load cell
     * times its own.
     */
    @Test
    void aCapacityProbeTakesItsSearchsCalibrationRatherThanTimingTheEngineAgain() {
        String[] probe = {
            "tiers=local-only", "measurement.early_stop.target=0.9", "measurement.early_stop.min_requests=4"
        };
        new LlamaTarget().calibrate(config(append(probe, "workload.arrival.rate=20")));
        // two fresh engines (another seed is another cell to keep) on the one calibration
        List<CellResult> fresh = List.of(
                new CellRunner().run(config(append(probe, "workload.arrival.rate=20", "seed=11"))),
                new CellRunner().run(config(append(probe, "workload.arrival.rate=20", "seed=12"))));
        for (CellResult r : fresh) {
            assertThat(r.summary().get(Columns.FAILED)).isZero();
            assertThat(r.json().get("engine_reuse"))
                    .asString()
                    .startsWith("fresh: first probe")
                    .contains("twin calibration: the capacity search's");
        }
        assertThat(fresh.get(1).json().get("engine_calibrated_flops"))
                .isEqualTo(fresh.get(0).json().get("engine_calibrated_flops"));
        CellResult fixedLoad = new CellRunner().run(config("tiers=local-only", "seed=13"));
        assertThat(fixedLoad.json().get("engine_reuse")).asString().doesNotContain("capacity search");
        assertThat(fixedLoad.json().get("engine_calibrated_flops"))
                .isNotNull()
                .isNotEqualTo(fresh.get(0).json().get("engine_calibrated_flops"));
    }

    private static String[] append(String[] a, String... more) {
        String[] out = java.util.Arrays.copyOf(a, a.length + more.length);
        System.arraycopy(more, 0, out, a.length, more.length);
        return out;
    }

    @Test
    void storeKeysNameTheVLayoutSoBlocksOfTheTwoLayoutsNeverMeet() {
        KvNamespace byToken = new KvNamespace("ab", "f16", false, 32),
                transposed = new KvNamespace("ab", "f16", true, 32);
        assertThat(byToken.key(7)).isNotEqualTo(transposed.key(7));
        assertThat(transposed.key(7)).contains("/vt/");
    }

    @Test
    void aHotRemoteCellRestoresTheModelsRealKvFromTheStore() {
        // the cell's own tolerance out of the way (1e9): the logit bound below is this test's, so it can fail
        CellResult r = new CellRunner().run(config("target.verify_restore=1 in 1", "target.verify_tolerance=1e9"));
        var s = r.summary();
        assertThat(s.get(Columns.FAILED)).isZero();
        assertThat(s.get(Columns.COMPLETED)).isEqualTo(6);
        assertThat(s.get(Columns.REMOTE_HIT_RATIO)).isGreaterThan(0.5);
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(s.get(Columns.FALLBACKS)).isZero();
        long tokens = ((Number) r.json().get(Columns.FETCHED_TOKENS.name())).longValue();
        assertThat(tokens).isPositive();
        double perToken = (double) s.get(Columns.FETCHED_BYTES) / tokens;
        // the model's K and V rows of every layer, plus one header per 32-token block
        assertThat(perToken).isEqualTo(kvBytesPerToken + (double) KvBlockObject.HEADER_BYTES / 32);
        assertThat(((Number) r.json().get(Columns.ENGINE_KV_BYTES_PER_TOKEN.name())).longValue())
                .isEqualTo(kvBytesPerToken);
        assertThat(s.get(Columns.EMULATED_PARTS)).contains("real engine on CPU").contains("synthesized random weights");
        // every restore was checked against a recompute of the same tokens: the next token's logits agree up to
        // floating-point
        // noise (a restore of the wrong block moves them by O(1) on these random weights)
        assertThat(((Number) r.json().get("verify_restore_checks")).longValue())
                .isEqualTo(r.json().get("restores"));
        assertThat(((Number) r.json().get("verify_restore_max_logit_diff")).doubleValue())
                .isLessThanOrEqualTo(0.02);
    }

    @Test
    void corruptedBlocksAreRecomputedNeverUsed() {
        CellResult r = new CellRunner().run(config("fault=corrupt", "fault_at=0", "fault_params.corrupt_fraction=1"));
        var s = r.summary();
        assertThat(s.get(Columns.FAILED)).isZero();
        assertThat(s.get(Columns.FALLBACKS)).isPositive();
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(s.get(Columns.REJECTED_BLOCKS)).isPositive();
    }

    /** One instance, prompts of three groups interleaved: the previous prompt is never of the same group. */
    static RunConfig interleaved(String... sets) {
        ConfigTree t = ConfigTree.parse("""
                mode: live
                seed: 2
                target: {kind: llama.cpp, model: %s, threads: 1, sequences: 1}
                cluster: {instances: 1}
                store: {backend: bundled, nodes: 1, capacity: 64MiB}
                transport: tcp
                policy: fetch
                cache_state: hot
                tiers: local-only
                workload:
                  generator: {kind: shared-prefix, groups: 3, prompts_per_group: 3, prefix_tokens: 128, suffix_tokens: 32, output_tokens: 2, block_tokens: 32, order: interleaved}
                  arrival: {process: constant, rate: 20}
                slo: {ttft_ms: 10000}
                """.formatted(model), "local.yaml", null);
        for (String set : sets) t.set(set);
        return t.bind();
    }

    @Test
    void theLocalTierKeepsBlocksOfPromptsBeforeTheLastOneLeastRecentlyUsedFirst() {
        // room for every group's prefix: each prompt finds its group's 4 prefix blocks though another group came last
        CellResult big = new CellRunner().run(interleaved());
        var s = big.summary();
        assertThat(s.get(Columns.FAILED)).isZero();
        assertThat(s.get(Columns.LOCAL_HIT_RATIO)).isEqualTo(128.0 / 160);
        assertThat(s.get(Columns.REMOTE_HIT_RATIO)).isZero();
        assertThat(s.get(Columns.WRONG_HITS_USED)).isZero();
        assertThat(((Number) big.json().get("local_evicted_blocks")).longValue())
                .isZero();
        // room for one prefix and a bit: each group's blocks are evicted by the two others before it comes back
        CellResult small = new CellRunner().run(interleaved("target.local_capacity=6 blocks"));
        assertThat(small.summary().get(Columns.LOCAL_HIT_RATIO)).isZero();
        assertThat(((Number) small.json().get("local_evicted_blocks")).longValue())
                .isPositive();
        assertThat(small.json().get("local_capacity_blocks")).isEqualTo(6);
        // capacity 0: no local tier
        assertThat(new CellRunner()
                        .run(interleaved("target.local_capacity=0"))
                        .summary()
                        .get(Columns.LOCAL_HIT_RATIO))
                .isZero();
    }

    @Test
    void severalRequestsOfAnInstanceShareEachDecodeStep() {
        String[] burst = {
            "tiers=none", "cache_state=cold", "workload.arrival.rate=1000", "workload.generator.output_tokens=12"
        };
        CellResult one = new CellRunner().run(interleaved(concat(burst, "target.sequences=1")));
        CellResult four = new CellRunner().run(interleaved(concat(burst, "target.sequences=4")));
        for (CellResult r : List.of(one, four)) {
            assertThat(r.summary().get(Columns.FAILED)).isZero();
            assertThat(r.summary().get(Columns.COMPLETED)).isEqualTo(9);
        }
        assertThat(((Number) one.json().get("engine_step_sequences_mean")).doubleValue())
                .isEqualTo(1.0);
        // nine requests at once on four sequences: most steps carry several sequences, so fewer steps for the same
        // tokens
        assertThat(((Number) four.json().get("engine_step_sequences_mean")).doubleValue())
                .isGreaterThan(2.0);
        assertThat(((Number) four.json().get("engine_steps")).longValue())
                .isLessThan(((Number) one.json().get("engine_steps")).longValue() / 2);
        assertThat(one.json().get("engine_prefill_tokens"))
                .isEqualTo(four.json().get("engine_prefill_tokens"));
    }

    /**
     * A cold cell without a cache tier is warmed first (nothing of a request is kept, so nothing is primed): its first
     * measured requests do not measure a fresh engine; a cold cell with a tier is not (its tiers must start empty).
     */
    @Test
    void aColdCellWithoutATierWarmsTheEngineAndOneWithATierDoesNot() {
        CellResult none = new CellRunner()
                .run(config("tiers=none", "cache_state=cold", "target.calibrate_tokens=0", "target.sequences=2"));
        CellResult remote =
                new CellRunner().run(config("tiers=remote-only", "cache_state=cold", "target.calibrate_tokens=0"));
        // one request per sequence of each of the two instances, sent at once
        assertThat(((Number) none.json().get("warmup_requests")).longValue()).isEqualTo(4);
        assertThat((String) none.json().get("cache_state_protocol"))
                .contains("warmed by 4 unmeasured request(s) that no tier keeps anything of");
        // the measured phase's engine figures are its own: six requests' prompts, not ten
        assertThat(((Number) none.json().get("engine_prefill_tokens")).longValue())
                .isEqualTo(6 * (256 + 32));
        assertThat(none.summary().get(Columns.COMPLETED)).isEqualTo(6);
        assertThat(((Number) remote.json().get("warmup_requests")).longValue()).isZero();
        assertThat((String) remote.json().get("cache_state_protocol")).doesNotContain("warmed");
        // cold and empty: each group's first prompt finds nothing (a warmed store would serve 256 of every 288 tokens)
        assertThat(((Number) remote.json().get("remote_hit_ratio")).doubleValue())
                .isLessThan(0.7);
    }

    private static String[] concat(String[] a, String b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + 1);
        out[a.length] = b;
        return out;
    }

    @Test
    void theBatchingAndLocalTierKeysAreRangeChecked() {
        assertThatThrownBy(() -> new CellRunner().run(config("target.sequences=0")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.sequences'");
        assertThatThrownBy(() -> new CellRunner().run(config("target.sequences=65")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.sequences'");
        assertThatThrownBy(() -> new CellRunner().run(config("target.sequences=8", "target.batch_tokens=4")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.batch_tokens'");
        assertThatThrownBy(() -> new CellRunner().run(config("target.local_capacity=lots")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.local_capacity'");
        assertThatThrownBy(() -> new CellRunner().run(config("target.local_capacity=2000000")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.local_capacity'");
    }

    @Test
    void keysTheTargetDoesNotReadAreRefusedByName() {
        assertThatThrownBy(() -> config("hardware=a100"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'hardware'")
                .hasMessageContaining("llama.cpp target");
        assertThatThrownBy(() -> config("cluster.tp=2"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'cluster.tp'");
        assertThatThrownBy(() -> config("target.threads=0"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.threads'");
        assertThatThrownBy(() -> config("target.verify_restore=every other"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.verify_restore'");
        assertThatThrownBy(() -> config("target.verify_restore=1 in 0"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.verify_restore'")
                .hasMessageContaining("checks no restore");
        assertThatThrownBy(() -> config("target.sequences=1e9"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("key 'target.sequences': cannot read '1e9' as an integer")
                .hasMessageNotContaining("java.lang");
        assertThatThrownBy(() -> config("model=llama-3-8b"))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith(
                        "--set model=llama-3-8b: key 'model'"); // its default, given: refused all the same
    }

    /** A request longer than the model's context (2,048 here) is refused before anything runs, as vLLM refuses one past max_model_len. */
    @Test
    void aRequestPastTheModelsContextIsRefusedNamingBoth() {
        assertThatThrownBy(() -> new CellRunner()
                        .run(config("workload.generator.prefix_tokens=2048", "target.calibrate_tokens=0")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("key 'workload'")
                .hasMessageContaining("2080 prompt + 4 output tokens")
                .hasMessageContaining("context of 2048 tokens");
        assertThat(new CellRunner()
                        .run(config(
                                "workload.generator.prefix_tokens=1984",
                                "target.calibrate_tokens=0",
                                "workload.generator.prompts_per_group=1"))
                        .summary()
                        .get(Columns.FAILED))
                .isZero(); // 2,016 + 4 fits
    }

    /**
     * The least a user writes: a model, tiers none, no transport and no store. The defaults work for the live clock
     * (its transport, tcp, not the sim's link) and an unused store is not sized against this machine.
     */
    @Test
    void aMinimalConfigWithoutTiersRunsOnTheDefaults() {
        ConfigTree t = ConfigTree.parse("""
                mode: live
                target: {kind: llama.cpp, model: %s, calibrate_tokens: 0}
                tiers: none
                workload:
                  generator: {kind: shared-prefix, groups: 1, prompts_per_group: 2, prefix_tokens: 64, suffix_tokens: 16, output_tokens: 2, block_tokens: 32}
                  arrival: {process: constant, rate: 5}
                """.formatted(model), "min.yaml", null);
        CellResult r = new CellRunner().run(t.bind());
        assertThat(r.summary().get(Columns.COMPLETED)).isEqualTo(2);
        assertThat(r.summary().get(Columns.TRANSPORT)).isEqualTo("tcp");
    }

    /** The NIC of rdma-emu is emulated, and the row says so (the report counts a row "nothing: ..." as all real). */
    @Test
    void aCellOnRdmaEmuNamesTheEmulatedNic() {
        CellResult r = new CellRunner()
                .run(config("transport=rdma-emu", "target.calibrate_tokens=0", "target.verify_restore=0"));
        assertThat(r.summary().get(Columns.EMULATED_PARTS))
                .startsWith("NIC (rdma-emu)")
                .contains("real engine on CPU");
        assertThat(new CellRunner()
                        .run(config("target.calibrate_tokens=0", "target.verify_restore=0"))
                        .summary()
                        .get(Columns.EMULATED_PARTS))
                .startsWith("nothing: real engine");
    }

    @Test
    void aCellCarriesTheSimTwinOfItsCalibratedEngineAndTheBreakevenPredictedOnIt() {
        CellResult r = new CellRunner().run(config("target.calibrate_tokens=256"));
        var x = r.json();
        double rate = ((Number) x.get(Columns.ENGINE_CALIBRATED_PREFILL_TOKENS_PER_S.name())).doubleValue();
        assertThat(rate).isPositive();
        assertThat(((Number) x.get(LlamaColumns.ENGINE_CALIBRATED_DECODE_MS.name())).doubleValue())
                .isPositive();
        assertThat(((Number) x.get("link_measured_bytes_per_s")).doubleValue()).isPositive();
        // the twin ran: its TTFT and (hot remote-only) its fetches
        assertThat(((Number) x.get(Columns.TWIN_TTFT_P50.name())).doubleValue()).isPositive();
        assertThat(((Number) x.get(Columns.TWIN_FETCH_P50.name())).doubleValue())
                .isPositive();
        // the engine's steps priced by the twin's roofline, step by step: a ratio of the same steps' times (a tiny
        // model's steps are mostly overhead the calibration's passes carry too, so within a factor of 3 either way)
        assertThat(((Number) x.get(Columns.ENGINE_STEP_TIME_OVER_TWIN.name())).doubleValue())
                .isBetween(1 / 3.0, 3.0);
        // calibrated on a 256-token prefill into an empty context, the roofline gives that prefill back; at the
        // workload's
        // 256-token shared prefix the predicted recompute is that prefill with the 32-token suffix in the same pass
        assertThat(((Number) x.get(Columns.SHARED_PREFIX_TOKENS.name())).intValue())
                .isEqualTo(256);
        double predicted = ((Number) x.get(Columns.PREDICTED_RECOMPUTE_MS.name())).doubleValue();
        assertThat(predicted).isGreaterThan(256 / rate * 1e3).isLessThan(288 / rate * 1e3 * 1.5);
        // the predicted fetch includes the suffix's prefill behind the fetched prefix: at least a 32-token pass's
        // linear part
        assertThat(((Number) x.get(Columns.PREDICTED_FETCH_MS.name())).doubleValue())
                .isGreaterThan(32 / rate * 1e3 * 0.5);
        assertThat(((Number) x.get("engine_calibrated_attention_efficiency")).doubleValue())
                .isPositive();
        assertThat(((Number) x.get("engine_calibrated_kv_load_bytes_per_s")).doubleValue())
                .isPositive();
        assertThat(((Number) x.get(Columns.BREAKEVEN_PREDICTED_TOKENS.name())).longValue())
                .isPositive();
    }

    @Test
    void calibrateTokensZeroRunsNoTwinAndBadValuesAreRefused() {
        CellResult r = new CellRunner().run(config("target.calibrate_tokens=0", "cache_state=cold", "tiers=none"));
        assertThat(r.json().names())
                .doesNotContain(
                        Columns.TWIN_TTFT_P50.name(),
                        Columns.ENGINE_STEP_TIME_OVER_TWIN.name(),
                        Columns.ENGINE_CALIBRATED_PREFILL_TOKENS_PER_S.name(),
                        Columns.BREAKEVEN_PREDICTED_TOKENS.name());
        assertThat(r.summary().get(Columns.COMPLETED)).isEqualTo(6);
        assertThatThrownBy(() -> config("target.calibrate_tokens=8"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'target.calibrate_tokens'");
    }
}
