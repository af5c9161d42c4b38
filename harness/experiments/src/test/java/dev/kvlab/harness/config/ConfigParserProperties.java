package dev.kvlab.harness.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.config.Fault;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.experiments.internal.matrix.MatrixParser;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.DurationSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Properties of the config and matrix parsers: whatever the text, the only failure is a {@link BadInputException}
 * that names where (a file:line or the key), values round-trip through {@code --set}, out-of-range values are refused
 * by key, and a matrix expands to exactly the product of its factors, with unique cell ids and one seed per replicate.
 */
class ConfigParserProperties {

    static final String BASE = """
            mode: sim
            model: llama-3-8b
            hardware: h100
            workload:
              generator:
                kind: shared-prefix
                groups: 2
                prompts_per_group: 2
                prefix_tokens: 512
                suffix_tokens: 10
                output_tokens: 2
              arrival:
                process: poisson
                rate: 1
            """;

    private static RunConfig bind(String... sets) {
        ConfigTree t = ConfigTree.parse(BASE, "p.yaml", null);
        for (String s : sets) t.set(s);
        return t.bind();
    }

    // ------------------------------------------------------------------ junk in, bad input out

    @Property(tries = 300)
    void junkConfigTextIsBadInputNamingTheFile(@ForAll("yamlish") String text) {
        try {
            ConfigTree.parse(text, "junk.yaml", null).bind();
        } catch (BadInputException e) {
            assertThat(e.getMessage()).isNotBlank().containsAnyOf("junk.yaml", "defaults.yaml", "config");
        }
    }

    @Provide
    Arbitrary<String> yamlish() {
        Arbitrary<String> keys = Arbitraries.of(
                "mode",
                "seed",
                "model",
                "tiers",
                "policy",
                "store",
                "cluster",
                "fault",
                "fault_at",
                "workload",
                "bogus",
                "slo",
                "transport",
                "replicas",
                "  nodes",
                "- x",
                "{",
                "[",
                "\"");
        Arbitrary<String> values = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12),
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.of(
                        "sim",
                        "live",
                        "hot",
                        "[a, b]",
                        "{k: v}",
                        "null",
                        "~",
                        "1e9",
                        "-1",
                        "4x200gbps",
                        "10s",
                        "2TiB",
                        "&a",
                        "*a",
                        "!!binary x"));
        return Combinators.combine(keys, values)
                .as((k, v) -> k + ": " + v)
                .list()
                .ofMaxSize(6)
                .map(l -> String.join("\n", l));
    }

    @Property(tries = 200)
    void anUnknownKeyIsNamed(@ForAll("dottedKeys") String key, @ForAll("anyValue") String value) {
        try {
            bind(key + "=" + value);
        } catch (BadInputException e) {
            assertThat(e.getMessage()).as(key + "=" + value).isNotBlank().doesNotContain("\tat ");
        }
    }

    @Provide
    Arbitrary<String> dottedKeys() {
        return Arbitraries.strings()
                .withCharRange('a', 'z')
                .withChars('_', '.')
                .ofMinLength(1)
                .ofMaxLength(20)
                .filter(k -> !k.startsWith(".") && !k.endsWith(".") && !k.contains(".."));
    }

    @Provide
    Arbitrary<String> anyValue() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(10),
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.of("[1, 2]", "{a: 1}", "null"));
    }

    // ------------------------------------------------------------------ round trips and ranges, by key

    @Property(tries = 150)
    void instancesBindOrAreRefusedByKey(@ForAll @IntRange(min = -50, max = 5000) int n) {
        if (n >= 1 && n <= 4096)
            assertThat(bind("cluster.instances=" + n).cluster().instances()).isEqualTo(n);
        else
            assertThatThrownBy(() -> bind("cluster.instances=" + n))
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("cluster.instances");
    }

    @Property(tries = 150)
    void durationsRoundTripThroughSet(@ForAll @LongRange(min = 0, max = 3_600_000_000_000L) long nanos) {
        String text = DurationSpec.format(Duration.ofNanos(nanos));
        if (nanos == 0) {
            assertThatThrownBy(() -> bind("store.lease_ttl=" + text))
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("store.lease_ttl");
        } else {
            assertThat(DurationSpec.parse(
                            bind("store.lease_ttl=" + text).store().leaseTtl()))
                    .isEqualTo(Duration.ofNanos(nanos));
        }
    }

    @Property(tries = 100)
    void sizesRoundTripThroughSet(@ForAll @LongRange(min = 1, max = 1 << 20) long gib, @ForAll boolean asBytes) {
        long bytes = gib << 30; // at least 1 GiB: room for a KV block per node
        String text = asBytes ? Long.toString(bytes) : gib + "GiB";
        assertThat(ByteSize.parse(bind("store.capacity=" + text).store().capacity()))
                .isEqualTo(bytes);
    }

    @Property(tries = 150)
    void faultAtIsAShare(@ForAll @DoubleRange(min = -1, max = 2) double at) {
        if (at >= 0 && at <= 1) assertThat(bind("fault_at=" + at).faultAt()).isEqualTo(at);
        else
            assertThatThrownBy(() -> bind("fault_at=" + at))
                    .isInstanceOf(BadInputException.class)
                    .hasMessageContaining("fault_at");
    }

    @Property(tries = 100)
    void faultNamesBindInAnyCaseAndSpelling(@ForAll Fault f, @ForAll boolean upper, @ForAll boolean underscore) {
        String text = f.label();
        if (upper) text = text.toUpperCase(Locale.ROOT);
        if (underscore) text = text.replace('-', '_');
        assertThat(bind("fault=" + text, "store.nodes=3").fault()).isEqualTo(f);
    }

    // ------------------------------------------------------------------ matrices

    @Property(tries = 60)
    void aMatrixIsTheProductOfItsFactors(
            @ForAll("levels") List<List<String>> chosen, @ForAll @IntRange(min = 1, max = 3) int replicates) {
        String[] keys = {"tiers", "policy", "cache_state"};
        StringBuilder m = new StringBuilder(BASE)
                .append("replicates: ")
                .append(replicates)
                .append("\nfactors:\n");
        long product = 1;
        for (int i = 0; i < chosen.size(); i++) {
            m.append("  ")
                    .append(keys[i])
                    .append(": [")
                    .append(String.join(", ", chosen.get(i)))
                    .append("]\n");
            product *= chosen.get(i).size();
        }
        MatrixSpec spec = MatrixParser.parse(m.toString(), "m.yaml", null, List.of(), null);
        assertThat(spec.cells()).hasSize((int) product);
        Set<String> ids = new HashSet<>();
        for (MatrixCell c : spec.cells()) {
            assertThat(ids.add(c.id())).as("unique cell id " + c.id()).isTrue();
            assertThat(c.id()).matches("c\\d{2,}-[a-z0-9._-]+");
            assertThat(c.runs()).hasSize(replicates);
            List<Long> seeds = new ArrayList<>();
            for (CellRun r : c.runs()) seeds.add(r.seed());
            assertThat(new HashSet<>(seeds)).hasSize(replicates);
        }
        assertThat(spec.runs()).hasSize((int) product * replicates);
    }

    @Provide
    Arbitrary<List<List<String>>> levels() {
        Arbitrary<List<String>> tiers = Arbitraries.of("none", "local-only", "remote-only", "combined")
                .list()
                .uniqueElements()
                .ofMinSize(1)
                .ofMaxSize(4);
        Arbitrary<List<String>> policy = Arbitraries.of("recompute", "fetch", "auto")
                .list()
                .uniqueElements()
                .ofMinSize(1)
                .ofMaxSize(3);
        Arbitrary<List<String>> cache = Arbitraries.of("cold", "hot")
                .list()
                .uniqueElements()
                .ofMinSize(1)
                .ofMaxSize(2);
        return Combinators.combine(tiers, policy, cache)
                .as(List::of)
                .flatMap(all -> Arbitraries.integers().between(1, 3).map(n -> all.subList(0, n)));
    }

    @Property(tries = 150)
    void junkMatricesAreBadInput(@ForAll("yamlish") String body, @ForAll("matrixKeys") String matrixPart) {
        try {
            MatrixParser.parse(BASE + matrixPart + "\n" + body, "junk-matrix.yaml", null, List.of(), null);
        } catch (BadInputException e) {
            assertThat(e.getMessage()).isNotBlank().doesNotContain("\tat ");
        }
    }

    @Provide
    Arbitrary<String> matrixKeys() {
        return Arbitraries.of(
                "factors: {tiers: [none, combined]}",
                "factors: {tiers: combined}",
                "factors: []",
                "replicates: 0",
                "replicates: two",
                "baseline: c99-nothing",
                "exclude: [{tiers: none}]",
                "name: ''",
                "factors: {replicates: [1, 2]}",
                "factors: {policy: [fetch, fetch]}",
                "description: [x]",
                "");
    }
}
