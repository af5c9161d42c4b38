package dev.kvlab.harness.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.config.ClockKeys;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.ConfigTree;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every run-config key is honoured or refused: each key of the built-in defaults is classified by the clocks that
 * use it, and giving a key to a clock that does not use it is an error naming the key and the clock.
 */
class ClockKeysTest {

    private static final String BASE = """
            model: qwen2.5-0.5b
            hardware: h100
            transport: tcp
            cluster: {instances: 1}
            store: {nodes: 2, capacity: 64MiB}
            workload:
              generator: {kind: shared-prefix, groups: 2, prompts_per_group: 2, prefix_tokens: 512, suffix_tokens: 32, output_tokens: 4}
              arrival: {process: poisson, rate: 10}
            """;

    /** Leaf keys of the defaults (workload.generator is one value). */
    static List<String> keys() {
        List<String> out = new ArrayList<>();
        walk("", ConfigTree.defaults().tree(), out);
        return out;
    }

    private static void walk(String prefix, JsonNode n, List<String> out) {
        if (n instanceof ObjectNode o && !prefix.equals("workload.generator") && !prefix.isEmpty()
                || prefix.isEmpty()) {
            Iterator<String> it = n.fieldNames();
            while (it.hasNext()) {
                String k = it.next();
                walk(prefix.isEmpty() ? k : prefix + "." + k, n.get(k), out);
            }
        } else {
            out.add(prefix);
        }
    }

    private static ConfigTree base(Mode m) {
        ConfigTree t = ConfigTree.parse(BASE, "keys.yaml", null);
        t.set("mode=" + m.label());
        return t;
    }

    @Test
    void everyKeyIsClassified() {
        List<String> keys = keys();
        assertThat(keys)
                .contains(
                        "store.high_watermark",
                        "store.lookup_latency",
                        "live.spin",
                        "fault_params.link_delay",
                        "workload.arrival.rate");
        for (String k : keys)
            assertThat(ClockKeys.users(k))
                    .as("clocks that use '" + k + "'")
                    .isNotNull()
                    .isNotEmpty();
    }

    /**
     * A key given to a clock that does not use it is refused whatever its value (its default too: a key set where
     * nothing reads it is a mistake), the message naming where it was given; a resolved config that repeats every
     * default (a bundle's manifest) is refused only for values other than the defaults.
     */
    @Test
    void aKeyIsAcceptedByTheClocksThatUseItAndRefusedByTheOthersWhateverItsValue() {
        int refused = 0;
        for (String k : keys()) {
            Set<Mode> users = ClockKeys.users(k);
            for (Mode m : Mode.values()) {
                ConfigTree t = base(m);
                JsonNode v = t.tree().at("/" + k.replace('.', '/'));
                t.set(k, v.deepCopy(), "--set " + k);
                if (users.contains(m)) {
                    t.bind();
                    continue;
                }
                refused++;
                assertThatThrownBy(t::bind)
                        .as(k + " given to a " + m.label() + " cell, at its default")
                        .isInstanceOf(BadInputException.class)
                        .hasMessageStartingWith("--set " + k + ": key '"
                                + k.substring(0, k.indexOf('.') < 0 ? k.length() : k.indexOf('.')))
                        .hasMessageContaining(m.label() + " clock");
            }
        }
        assertThat(refused).as("keys one clock does not use").isGreaterThanOrEqualTo(3);
        for (Mode m : Mode.values()) {
            ConfigTree t = base(m);
            t.bind();
            ConfigTree.parse(t.tree().toString(), "manifest.json", null).bind(); // every default repeated: accepted
        }
    }

    @Test
    void theKeysNamedOnceAreRunConfigsComponentsAndTheDefaultsTopLevelKeys() {
        List<String> components = new ArrayList<>();
        for (var c : dev.kvlab.harness.api.config.RunConfig.class.getRecordComponents())
            components.add(c.getName().replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT));
        assertThat(dev.kvlab.harness.api.config.ConfigKeys.ALL).containsExactlyElementsOf(components);
        List<String> defaults = new ArrayList<>();
        ConfigTree.defaults().tree().fieldNames().forEachRemaining(defaults::add);
        assertThat(dev.kvlab.harness.api.config.ConfigKeys.ALL).containsExactlyInAnyOrderElementsOf(defaults);
    }
}
