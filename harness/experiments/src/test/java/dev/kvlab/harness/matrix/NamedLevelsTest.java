package dev.kvlab.harness.matrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.config.Pd;
import dev.kvlab.harness.api.config.RouterKind;
import dev.kvlab.harness.api.config.Tiers;
import dev.kvlab.harness.api.input.BadInputException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A factor of named levels, each several config keys at once; and the paper block. */
class NamedLevelsTest {

    static final String SYSTEMS = """
            factors:
              system:
                vllm: {tiers: local-only, pd: colocated, cluster.router: least-loaded}
                mooncake: {tiers: combined, pd: disaggregated, cluster.router: kv-centric}
              slo.tbt_ms: [100, 200, 300]
            """;

    @Test
    void aGroupSetsAllItsKeysAndIsNamedByItsName() {
        MatrixSpec m = MatrixSpecTest.parse(SYSTEMS);
        assertThat(m.cells())
                .extracting(MatrixCell::id)
                .containsExactly(
                        "c01-vllm_100",
                        "c02-vllm_200",
                        "c03-vllm_300",
                        "c04-mooncake_100",
                        "c05-mooncake_200",
                        "c06-mooncake_300");
        assertThat(m.factors()).containsEntry("system", java.util.List.of("vllm", "mooncake"));
        MatrixCell moon = m.cells().get(4);
        assertThat(moon.factors()).containsExactly(Map.entry("system", "mooncake"), Map.entry("slo.tbt_ms", "200"));
        var c = moon.runs().getFirst().config();
        assertThat(c.tiers()).isEqualTo(Tiers.COMBINED);
        assertThat(c.pd()).isEqualTo(Pd.DISAGGREGATED);
        assertThat(c.cluster().router()).isEqualTo(RouterKind.KV_CENTRIC);
        assertThat(c.slo().tbtMs()).isEqualTo(200.0);
        var v = m.cells().getFirst().runs().getFirst().config();
        assertThat(v.tiers()).isEqualTo(Tiers.LOCAL_ONLY);
        assertThat(v.cluster().router()).isEqualTo(RouterKind.LEAST_LOADED);
        // the manifest keeps what each name stands for
        assertThat(m.resolved().at("/named_levels/system/vllm/tiers").asText()).isEqualTo("local-only");
    }

    @Test
    void baselineExcludeAndSetUseTheNames() {
        MatrixSpec m = MatrixSpecTest.parse(SYSTEMS
                + "baseline: {system: vllm, slo.tbt_ms: 200}\nexclude: [{system: mooncake, slo.tbt_ms: 300}]\n");
        assertThat(m.baseline()).isEqualTo("c02-vllm_200");
        assertThat(m.cells()).hasSize(5);
        MatrixSpec pinned = MatrixSpecTest.parse(SYSTEMS, "system=mooncake");
        assertThat(pinned.cells())
                .extracting(MatrixCell::id)
                .containsExactly("c01-mooncake_100", "c02-mooncake_200", "c03-mooncake_300");
        assertThat(pinned.cells().getFirst().runs().getFirst().config().pd()).isEqualTo(Pd.DISAGGREGATED);
        assertThatThrownBy(() -> MatrixSpecTest.parse(SYSTEMS, "system=sglang"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("not a level of factor system")
                .hasMessageContaining("vllm, mooncake");
        // a key a group sets cannot be patched from the command line behind its back
        assertThatThrownBy(() -> MatrixSpecTest.parse(SYSTEMS, "tiers=none"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("factor 'system'");
        // other keys can
        assertThat(MatrixSpecTest.parse(SYSTEMS, "cluster.instances=4")
                        .cells()
                        .getFirst()
                        .runs()
                        .getFirst()
                        .config()
                        .cluster()
                        .instances())
                .isEqualTo(4);
    }

    @Test
    void aKeyVariedByTwoFactorsIsAnErrorNamingBoth() {
        assertThatThrownBy(() -> MatrixSpecTest.parse("""
                factors:
                  system:
                    vllm: {tiers: local-only}
                    mooncake: {tiers: combined}
                  tiers: [none, combined]
                """))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("m.yaml:")
                .hasMessageContaining("factor 'system'")
                .hasMessageContaining("factor 'tiers'");
        assertThatThrownBy(() -> MatrixSpecTest.parse("""
                factors:
                  system:
                    vllm: {slo.tbt_ms: 100}
                  slo: [{ttft_ms: 1}]
                """))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'slo.tbt_ms'")
                .hasMessageContaining("factor 'slo'");
        assertThatThrownBy(() -> MatrixSpecTest.parse("""
                factors:
                  a:
                    x: {policy: fetch}
                  b:
                    y: {policy: auto}
                """))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("factor 'a'")
                .hasMessageContaining("factor 'b'");
        assertThatThrownBy(() -> MatrixSpecTest.parse("""
                factors:
                  system:
                    slow: {workload.arrival.rate: 1}
                    fast: {workload.arrival.rate: 4}
                slo: {ttft_ms: 1000}
                capacity: {knob: workload.arrival.rate, start: 1}
                """))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("capacity.knob")
                .hasMessageContaining("factor 'system'");
        assertThatThrownBy(() -> MatrixSpecTest.parse("factors:\n  system:\n    vllm: local-only\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("named level 'vllm'");
        // a bad value inside a group is reported where the group is
        assertThatThrownBy(() -> MatrixSpecTest.parse("factors:\n  system:\n    vllm: {tiers: some}\n"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("m.yaml:")
                .hasMessageContaining("tiers");
    }

    @Test
    void thePaperBlockIsChecked() {
        String ok = SYSTEMS + """
                paper:
                  source: "FAST'25"
                  figures:
                    - {label: gain, figure: "Fig. 1", metric: capacity, cell: {system: mooncake, slo.tbt_ms: 200}, over: {system: vllm, slo.tbt_ms: 200}, as: gain, value: 1.57}
                """;
        assertThat(MatrixSpecTest.parse(ok)
                        .resolved()
                        .at("/paper/figures/0/value")
                        .asDouble())
                .isEqualTo(1.57);
        assertThatThrownBy(() -> MatrixSpecTest.parse(ok.replace("system: mooncake", "system: sglang")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("m.yaml:")
                .hasMessageContaining("'sglang' is not a level of factor system");
        assertThatThrownBy(() -> MatrixSpecTest.parse(ok.replace("value: 1.57", "value: big")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("'value' must be a number");
        assertThatThrownBy(() -> MatrixSpecTest.parse(ok.replace(", over: {system: vllm, slo.tbt_ms: 200}", "")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("needs 'over'");
        assertThatThrownBy(() -> MatrixSpecTest.parse(ok.replace("source:", "sauce:")))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("unknown key 'sauce'");
    }
}
