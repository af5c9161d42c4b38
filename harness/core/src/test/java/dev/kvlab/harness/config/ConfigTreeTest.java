package dev.kvlab.harness.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.kvlab.harness.api.config.CacheState;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.Policy;
import dev.kvlab.harness.api.config.RouterKind;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.config.Tiers;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.ConfigTree;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigTreeTest {

    @TempDir
    Path dir;

    private Path write(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    private Path trace() throws Exception {
        return write(
                "t.jsonl", "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 4, \"hash_ids\": [1, 2]}\n");
    }

    @Test
    void defaultsPlusFileBindToRecords() throws Exception {
        trace();
        Path f = write("run.yaml", """
                seed: 7
                tiers: local-only
                policy: FETCH
                cluster:
                  instances: 2
                  router: least_loaded
                workload:
                  trace: t.jsonl
                slo:
                  ttft_ms: 2000
                """);
        RunConfig c = ConfigTree.load(f).bind();
        assertThat(c.seed()).isEqualTo(7);
        assertThat(c.mode()).isEqualTo(Mode.SIM);
        assertThat(c.tiers()).isEqualTo(Tiers.LOCAL_ONLY);
        assertThat(c.policy()).isEqualTo(Policy.FETCH);
        assertThat(c.cluster().instances()).isEqualTo(2);
        assertThat(c.cluster().tp()).isEqualTo(1);
        assertThat(c.cluster().router()).isEqualTo(RouterKind.LEAST_LOADED);
        assertThat(c.slo().ttftMs()).isEqualTo(2000.0);
        assertThat(c.slo().tpotMs()).isNull();
        assertThat(c.cacheState()).isEqualTo(CacheState.COLD);
        // the trace resolves against the config file's directory and comes back absolute
        assertThat(Path.of(c.workload().trace())).isAbsolute().isEqualTo(dir.resolve("t.jsonl"));
    }

    @Test
    void unknownKeyNamesFileLineAndKey() throws Exception {
        trace();
        Path f = write("run.yaml", """
                workload:
                  trace: t.jsonl
                cluster:
                  instances: 2
                  gpus: 8
                """);
        assertThatThrownBy(() -> ConfigTree.load(f).bind())
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith(f + ":5: ")
                .hasMessageContaining("unknown key 'cluster.gpus'");
        Path g = write("top.yaml", "workload:\n  trace: t.jsonl\nfoo: 1\n");
        assertThatThrownBy(() -> ConfigTree.load(g).bind())
                .hasMessageStartingWith(g + ":3: ")
                .hasMessageContaining("unknown key 'foo'");
    }

    @Test
    void invalidValuesAreRejectedBeforeAnythingRuns() throws Exception {
        trace();
        Path f = write("run.yaml", "workload:\n  trace: t.jsonl\ncluster:\n  instances: 0\n");
        assertThatThrownBy(() -> ConfigTree.load(f).bind())
                .hasMessageStartingWith(f + ":4: ")
                .hasMessageContaining("cluster.instances")
                .hasMessageContaining(">= 1");
        Path g = write("g.yaml", "workload:\n  trace: t.jsonl\ntiers: some\n");
        assertThatThrownBy(() -> ConfigTree.load(g).bind())
                .hasMessageStartingWith(g + ":3: ")
                .hasMessageContaining("tiers");
        Path h = write("h.yaml", "workload:\n  trace: t.jsonl\nstore:\n  capacity: lots\n");
        assertThatThrownBy(() -> ConfigTree.load(h).bind())
                .hasMessageStartingWith(h + ":4: ")
                .hasMessageContaining("store.capacity");
        Path i = write("i.yaml", "workload:\n  trace: missing.jsonl\n");
        assertThatThrownBy(() -> ConfigTree.load(i).bind())
                .hasMessageStartingWith(i + ":2: ")
                .hasMessageContaining("no such trace file");
        Path j = write("j.yaml", "workload:\n  trace: t.jsonl\nmodel: gpt-9\n");
        assertThatThrownBy(() -> ConfigTree.load(j).bind())
                .hasMessageStartingWith(j + ":3: ")
                .hasMessageContaining("unknown model");
        Path k = write("k.yaml", "workload:\n  trace: t.jsonl\nmodel: llama-3-70b\n");
        assertThatThrownBy(() -> ConfigTree.load(k).bind())
                .hasMessageContaining("cluster.tp")
                .hasMessageContaining("raise cluster.tp");
        Path l = write("l.yaml", "workload:\n  trace: t.jsonl\nmode: live\ntransport: 10gbps\n");
        assertThatThrownBy(() -> ConfigTree.load(l).bind())
                .hasMessageStartingWith(l + ":4: ")
                .hasMessageContaining("real transport");
        Path m = write("m.yaml", "workload:\n  trace: t.jsonl\nslo:\n  ttft_ms: -5\n");
        assertThatThrownBy(() -> ConfigTree.load(m).bind())
                .hasMessageStartingWith(m + ":4: ")
                .hasMessageContaining("slo.ttft_ms");
    }

    @Test
    void setOverridesAreTypedByTheRecord() throws Exception {
        trace();
        Path f = write("run.yaml", "workload:\n  trace: t.jsonl\n");
        ConfigTree t = ConfigTree.load(f);
        t.set("cluster.instances=3")
                .set("slo.tpot_ms=50.5")
                .set("scheduler.chunked_prefill=false")
                .set("tiers=remote-only")
                .set("catalog=[]")
                .set("slo.ttft_ms=null");
        RunConfig c = t.bind();
        assertThat(c.cluster().instances()).isEqualTo(3);
        assertThat(c.slo().tpotMs()).isEqualTo(50.5);
        assertThat(c.scheduler().chunkedPrefill()).isFalse();
        assertThat(c.tiers()).isEqualTo(Tiers.REMOTE_ONLY);
        assertThatThrownBy(
                        () -> ConfigTree.load(f).set("cluster.instances=three").bind())
                .hasMessageStartingWith("--set cluster.instances=three: ")
                .hasMessageContaining("cluster.instances");
        assertThatThrownBy(() -> ConfigTree.load(f).set("cluster.gpus=2").bind())
                .hasMessageStartingWith("--set cluster.gpus=2: ")
                .hasMessageContaining("unknown key 'cluster.gpus'");
        assertThatThrownBy(() -> ConfigTree.load(f).set("seed.x=1")).hasMessageContaining("holds a value");
        assertThatThrownBy(() -> ConfigTree.load(f).set("novalue")).hasMessageContaining("KEY=VALUE");
    }

    @Test
    void copiesAreIndependentForMatrixCells() throws Exception {
        trace();
        ConfigTree base = ConfigTree.load(write("run.yaml", "workload:\n  trace: t.jsonl\n"));
        ConfigTree a = base.copy().set("tiers", JsonNodeFactory.instance.textNode("none"), "factor tiers=none");
        ConfigTree b = base.copy().set("tiers", JsonNodeFactory.instance.textNode("combined"), "factor tiers=combined");
        assertThat(a.bind().tiers()).isEqualTo(Tiers.NONE);
        assertThat(b.bind().tiers()).isEqualTo(Tiers.COMBINED);
        assertThat(base.bind().tiers()).isEqualTo(Tiers.COMBINED);
        assertThat(a.origin("tiers")).isEqualTo("factor tiers=none");
        assertThatThrownBy(() -> base.copy()
                        .set("tiers", JsonNodeFactory.instance.textNode("all"), "factor tiers=all")
                        .bind())
                .hasMessageStartingWith("factor tiers=all: ");
    }

    @Test
    void traceResolvesAgainstTheWorkingDirectoryToo() throws Exception {
        Path p =
                write("t2.jsonl", "{\"timestamp\": 0, \"input_length\": 6, \"output_length\": 4, \"hash_ids\": [1]}\n");
        ConfigTree t = ConfigTree.parse("workload:\n  trace: " + p.toAbsolutePath() + "\n", "inline", null);
        assertThat(t.bind().workload().trace()).isEqualTo(p.toAbsolutePath().toString());
    }

    @Test
    void generatorsBindToTheWorkloadsModuleSpecs() throws Exception {
        ConfigTree t = ConfigTree.parse("""
                workload:
                  generator:
                    kind: shared-prefix
                    groups: 2
                    prompts_per_group: 3
                    prefix_tokens: 1024
                    suffix_tokens: 100
                    output_tokens: 8
                  arrival:
                    process: poisson
                    rate: 2
                """, "gen.yaml", dir);
        assertThat(t.bind().workload().generator().get("kind").asText()).isEqualTo("shared-prefix");
        ConfigTree bad = ConfigTree.parse("""
                workload:
                  generator:
                    kind: shared-prefix
                    groups: 2
                    prompts: 3
                """, "bad.yaml", dir);
        assertThatThrownBy(bad::bind)
                .hasMessageStartingWith("bad.yaml:5: ")
                .hasMessageContaining("unknown key 'workload.generator.prompts'");
        ConfigTree both = ConfigTree.parse("workload:\n  generator: {kind: zipf}\n  trace: x\n", "both.yaml", dir);
        assertThatThrownBy(both::bind).isInstanceOf(BadInputException.class);
        ConfigTree rate = ConfigTree.parse("""
                workload:
                  generator: {kind: zipf, prefixes: 3, prefix_tokens: 512, exponent: 1, requests: 10, suffix_tokens: 8, output_tokens: 2}
                  arrival: {process: poisson}
                """, "rate.yaml", dir);
        assertThatThrownBy(rate::bind).hasMessageStartingWith("rate.yaml:3: ").hasMessageContaining("rate");
    }

    @Test
    void everyAblationFactorIsAKey() throws Exception {
        trace();
        ConfigTree t = ConfigTree.load(write("run.yaml", "workload:\n  trace: t.jsonl\n"));
        for (String k : new String[] {
            "cache_state",
            "tiers",
            "policy",
            "transport",
            "pd",
            "slo.ttft_ms",
            "slo.tpot_ms",
            "slo.tbt_ms",
            "slo.e2el_ms",
            "mode",
            "seed",
            "workload.trace"
        }) {
            assertThat(t.tree().at("/" + k.replace('.', '/')).isMissingNode())
                    .as(k)
                    .isFalse();
        }
    }

    @Test
    void aResolvedTreeBindsAsItsTextDid() throws Exception {
        ConfigTree t = ConfigTree.parse("""
                seed: 11
                cluster: {instances: 2}
                workload:
                  generator: {kind: zipf, prefixes: 3, prefix_tokens: 512, exponent: 1.5, requests: 10, suffix_tokens: 8, output_tokens: 2}
                  arrival: {process: poisson, rate: 2}
                slo: {ttft_ms: 200, tpot_ms: 50}
                """, "gen.yaml", dir);
        t.bind();
        com.fasterxml.jackson.databind.node.ObjectNode tree = t.tree();
        // a probe's patch: numbers as a program puts them (double, long, int), not as a parser reads them
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("workload").get("arrival")).put("rate", 3.7);
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("workload")).put("passes", 2);
        tree.put("seed", 12L);
        String text = new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(tree);
        RunConfig viaText = ConfigTree.parse(text, "probe", null).bind();
        RunConfig viaTree = ConfigTree.of(tree, "probe", null).bind();
        assertThat(viaTree).isEqualTo(viaText);
        assertThat(viaTree.workload().arrival().rate()).isEqualTo(3.7);
        assertThat(viaTree.workload().passes()).isEqualTo(2);
        assertThat(viaTree.seed()).isEqualTo(12);
        // still refused as a text would be, naming the tree
        tree.put("cache_stat", "hot");
        assertThatThrownBy(() -> ConfigTree.of(tree, "probe at x=1", null).bind())
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("probe at x=1")
                .hasMessageContaining("cache_stat");
    }

    @Test
    void withersDeriveWhatTheirPatchedTreeBinds() throws Exception {
        ConfigTree t = ConfigTree.parse("""
                seed: 11
                workload:
                  generator: {kind: zipf, prefixes: 3, prefix_tokens: 512, exponent: 1.5, requests: 10, suffix_tokens: 8, output_tokens: 2}
                  arrival: {process: poisson, rate: 2, max_concurrency: 4}
                """, "gen.yaml", dir);
        var base = new dev.kvlab.harness.api.run.ResolvedConfig(t.bind(), t.tree(), "base");
        java.util.List<dev.kvlab.harness.api.run.ResolvedConfig> derived = java.util.List.of(
                base.withLoad(dev.kvlab.harness.api.run.ResolvedConfig.RATE, 3.7, false),
                base.withLoad(dev.kvlab.harness.api.run.ResolvedConfig.RATE, 0.004, false)
                        .withPasses(4),
                base.withLoad(dev.kvlab.harness.api.run.ResolvedConfig.MAX_CONCURRENCY, 17, true),
                base.withLoad(dev.kvlab.harness.api.run.ResolvedConfig.MAX_CONCURRENCY, 9.0, false),
                base.withSeed(12));
        for (var d : derived) {
            assertThat(d.config())
                    .isEqualTo(ConfigTree.of(d.tree(), "patched", null).bind());
            assertThat(d.checked()).isSameAs(d.config());
        }
        assertThat(base.tree().at("/workload/arrival/rate").asDouble())
                .as("the base is left alone")
                .isEqualTo(2.0);
        assertThatThrownBy(() -> base.named("probe at 2.5")
                        .withLoad(dev.kvlab.harness.api.run.ResolvedConfig.MAX_CONCURRENCY, 2.5, false))
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("probe at 2.5")
                .hasMessageContaining("max_concurrency");
        ConfigTree closed = ConfigTree.parse("""
                workload:
                  generator: {kind: zipf, prefixes: 3, prefix_tokens: 512, exponent: 1.5, requests: 10, suffix_tokens: 8, output_tokens: 2}
                  arrival: {process: closed, users: 2, think_ms: 5}
                """, "closed.yaml", dir);
        var users = new dev.kvlab.harness.api.run.ResolvedConfig(closed.bind(), closed.tree(), "closed")
                .withLoad(dev.kvlab.harness.api.run.ResolvedConfig.USERS, 8, true);
        assertThat(users.config())
                .isEqualTo(ConfigTree.of(users.tree(), "patched", null).bind());
        assertThat(users.config().workload().arrival().users()).isEqualTo(8);
        ConfigTree live = ConfigTree.parse("""
                mode: live
                store: {capacity: 1GiB}
                workload:
                  generator: {kind: zipf, prefixes: 3, prefix_tokens: 512, exponent: 1.5, requests: 10, suffix_tokens: 8, output_tokens: 2}
                  arrival: {process: poisson, rate: 2}
                """, "live.yaml", dir);
        var stop = new dev.kvlab.harness.api.run.ResolvedConfig(live.bind(), live.tree(), "live")
                .withLoad(dev.kvlab.harness.api.run.ResolvedConfig.RATE, 5, false)
                .withEarlyStop(0.9, 100, "0s");
        assertThat(stop.config())
                .isEqualTo(ConfigTree.of(stop.tree(), "patched", null).bind());
        assertThat(stop.config().measurement().earlyStop().enabled()).isTrue();
        // the target's validation still refuses what it would refuse in a file
        var bad = base.named("probe at rate 0").withLoad(dev.kvlab.harness.api.run.ResolvedConfig.RATE, 0, false);
        assertThatThrownBy(bad::checked)
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("probe at rate 0");
    }

    /** A --set of a whole mapping replaces the defaults' keys: a key it leaves out is named as missing, not as Jackson's "cannot map null". */
    @Test
    void aWholeMappingSetNamesTheKeyItLeftOut() {
        ConfigTree t = ConfigTree.parse(
                        "workload:\n  generator: {kind: shared-prefix, groups: 2, prompts_per_group: 2, prefix_tokens: 64, suffix_tokens: 64, output_tokens: 2}\n",
                        "x.yaml",
                        null)
                .set("workload.arrival={process: poisson, rate: 100}");
        assertThatThrownBy(t::bind)
                .isInstanceOf(BadInputException.class)
                .hasMessageStartingWith("--set workload.arrival={process: poisson, rate: 100}: ")
                .hasMessageContaining("key 'workload.arrival.burstiness': missing, expected a number")
                .hasMessageNotContaining("Cannot map");
        // set key by key, the defaults stay
        ConfigTree ok = ConfigTree.parse(
                        "workload:\n  generator: {kind: shared-prefix, groups: 2, prompts_per_group: 2, prefix_tokens: 64, suffix_tokens: 64, output_tokens: 2}\n",
                        "x.yaml",
                        null)
                .set("workload.arrival.process=poisson")
                .set("workload.arrival.rate=100");
        assertThat(ok.bind().workload().arrival().rate()).isEqualTo(100.0);
    }
}
