package dev.kvlab.harness.matrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import java.util.List;
import org.junit.jupiter.api.Test;

class MatrixSpecTest {

    static final String BASE = """
            cluster:
              instances: 2
            store:
              nodes: 2
              capacity: 16GiB
            seed: 40
            workload:
              generator: {kind: chat, users: 4, rounds: 3, system_prompt_tokens: 1024, context_tokens: 512, question_tokens: 64, answer_tokens: 16}
              arrival: {process: poisson, rate: 2}
            """;

    static MatrixSpec parse(String extra, String... sets) {
        return MatrixParser.parse(BASE + extra, "m.yaml", null, List.of(sets), null);
    }

    @Test
    void expandsFactorsInOrderFirstFactorSlowest() {
        MatrixSpec m = parse("""
                factors:
                  cache_state: [cold, hot]
                  tiers: [local-only, remote-only, combined]
                replicates: 3
                """);
        assertThat(m.name()).isEqualTo("m");
        assertThat(m.cells())
                .extracting(MatrixCell::id)
                .containsExactly(
                        "c01-cold_local-only",
                        "c02-cold_remote-only",
                        "c03-cold_combined",
                        "c04-hot_local-only",
                        "c05-hot_remote-only",
                        "c06-hot_combined");
        assertThat(m.runs()).hasSize(18);
        MatrixCell c = m.cells().get(4);
        assertThat(c.factors())
                .containsExactly(
                        java.util.Map.entry("cache_state", "hot"), java.util.Map.entry("tiers", "remote-only"));
        assertThat(c.runs()).extracting(CellRun::seed).containsExactly(40L, 41L, 42L);
        assertThat(c.runs().get(2).config().seed()).isEqualTo(42);
        assertThat(c.runs().get(0).config().cacheState().toString()).isEqualTo("hot");
        // replicate k has the same seed in every cell (paired)
        for (MatrixCell x : m.cells()) assertThat(x.runs().get(1).seed()).isEqualTo(41L);
        assertThat(m.baseline()).isNull();
    }

    /** A matrix that names no baseline gets its one cell without a cache as the baseline; with two such cells, none. */
    @Test
    void withoutABaselineTheOneNoCacheCellIsIt() {
        assertThat(parse("factors: {tiers: [none, local-only, combined]}\n").baseline())
                .isEqualTo("c01-none");
        assertThat(parse("factors: {tiers: [none, combined], cache_state: [cold, hot]}\n")
                        .baseline())
                .isNull();
        assertThat(parse("factors: {tiers: [local-only, combined]}\n").baseline())
                .isNull();
    }

    @Test
    void plainConfigIsOneCell() {
        MatrixSpec m = parse("");
        assertThat(m.cells()).extracting(MatrixCell::id).containsExactly("c01-base");
        assertThat(m.singleRun()).isTrue();
    }

    @Test
    void excludesAndBaseline() {
        MatrixSpec m = parse("""
                name: abl
                factors:
                  cache_state: [cold, hot]
                  tiers: [none, local-only, combined]
                  workload.arrival.rate: [1, 2.5]
                exclude:
                  - {cache_state: cold, tiers: none}
                  - {tiers: [local-only, combined], workload.arrival.rate: 2.5, cache_state: hot}
                baseline: {cache_state: hot, tiers: none, workload.arrival.rate: 1}
                """);
        assertThat(m.cells())
                .extracting(MatrixCell::id)
                .containsExactly(
                        "c01-cold_local-only_1",
                        "c02-cold_local-only_2.5",
                        "c03-cold_combined_1",
                        "c04-cold_combined_2.5",
                        "c05-hot_none_1",
                        "c06-hot_none_2.5",
                        "c07-hot_local-only_1",
                        "c08-hot_combined_1");
        assertThat(m.baseline()).isEqualTo("c05-hot_none_1");
        assertThat(m.cells().get(1).runs().get(0).config().workload().arrival().rate())
                .isEqualTo(2.5);
        assertThat(parse("factors: {tiers: [none, combined]}\nbaseline: c02-combined\n")
                        .baseline())
                .isEqualTo("c02-combined");
    }

    @Test
    void setPinsAFactorAndModeOverridesEveryCell() {
        MatrixSpec m = MatrixParser.parse(
                BASE
                        + "factors: {tiers: [none, combined], cache_state: [cold, hot]}\nbaseline: {tiers: none, cache_state: cold}\n",
                "m.yaml",
                null,
                List.of("tiers=combined", "slo.ttft_ms=500", "replicates=2"),
                Mode.SIM);
        assertThat(m.cells()).extracting(MatrixCell::id).containsExactly("c01-combined_cold", "c02-combined_hot");
        assertThat(m.replicates()).isEqualTo(2);
        assertThat(m.baseline()).isNull();
        assertThat(m.runs().get(0).config().slo().ttftMs()).isEqualTo(500.0);
        assertThat(m.runs()).allMatch(r -> r.mode() == Mode.SIM);
    }

    @Test
    void hashDependsOnTheResolvedCellsOnly() {
        String f = "factors: {tiers: [none, combined]}\n";
        assertThat(parse(f).sha256()).isEqualTo(parse(f).sha256()).hasSize(64);
        assertThat(parse(f, "seed=3").sha256()).isNotEqualTo(parse(f).sha256());
        assertThat(parse("# a comment\n" + f).sha256()).isEqualTo(parse(f).sha256());
        assertThat(parse("factors: {tiers: [combined, none]}\n").sha256()).isNotEqualTo(parse(f).sha256());
    }

    @Test
    void badMatricesNameFileAndLine() {
        assertThatThrownBy(() -> parse("factors:\n  tiers: [none, sometimes]\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("m.yaml:11")
                .hasMessageContaining("tiers");
        assertThatThrownBy(() -> parse("factors:\n  scheduler.budget: [1, 2]\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("m.yaml:11")
                .hasMessageContaining("scheduler.budget");
        assertThatThrownBy(() -> parse("factors:\n  tiers: none\n"))
                .hasMessageContaining("m.yaml:11")
                .hasMessageContaining("list of levels");
        assertThatThrownBy(() -> parse("factors:\n  tiers: [none, none]\n")).hasMessageContaining("given twice");
        assertThatThrownBy(() -> parse("factors: {tiers: [none, combined]}\nexclude:\n  - {tier: none}\n"))
                .hasMessageContaining("m.yaml:12")
                .hasMessageContaining("'tier' is not a factor");
        assertThatThrownBy(() -> parse("factors: {tiers: [none, combined]}\nexclude:\n  - {tiers: local-only}\n"))
                .hasMessageContaining("not a level of factor tiers");
        assertThatThrownBy(() -> parse("factors: {tiers: [none, combined]}\nexclude:\n  - {tiers: [none, combined]}\n"))
                .hasMessageContaining("every cell");
        assertThatThrownBy(() ->
                        parse("factors: {tiers: [none, combined], policy: [fetch, auto]}\nbaseline: {tiers: none}\n"))
                .hasMessageContaining("matches 2 cells");
        assertThatThrownBy(() -> parse("factors: {tiers: [none, combined]}\nbaseline: c09-x\n"))
                .hasMessageContaining("no cell 'c09-x'");
        assertThatThrownBy(() -> parse("replicates: 0\n"))
                .hasMessageContaining("m.yaml:10")
                .hasMessageContaining("replicates");
        assertThatThrownBy(() -> parse("factrs: {tiers: [none]}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("factrs");
        assertThatThrownBy(() -> parse("", "name=x")).hasMessageContaining("cannot be set");
    }
}
