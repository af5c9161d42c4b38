package dev.kvlab.harness.sim;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.core.RunValidator;
import dev.kvlab.harness.core.internal.sim.SimCell;
import dev.kvlab.harness.core.internal.sim.SimStore;
import java.util.LinkedHashMap;
import java.util.Map;

/** Small sim cells for tests: a shared-prefix workload on two Llama-3-8B/H100 instances (core's test-jar: the CLI's tests use it too). */
public final class SimCells {

    public static final String BASE = """
            model: llama-3-8b
            hardware: h100
            cluster:
              instances: 2
            store:
              nodes: 2
              capacity: 64GiB
            workload:
              generator:
                kind: shared-prefix
                groups: 6
                prompts_per_group: 20
                prefix_tokens: 6144
                suffix_tokens: 300
                output_tokens: 24
              arrival:
                process: poisson
                rate: 3
            slo:
              ttft_ms: 1000
              tpot_ms: 50
            """;

    private SimCells() {}

    static RunConfig config(String yaml, String... sets) {
        ConfigTree t = ConfigTree.parse(yaml, "test.yaml", null);
        for (String s : sets) t.set(s);
        return t.bind();
    }

    static CellResult run(String... sets) {
        return new CellRunner().run(config(BASE, sets));
    }

    static CellResult runYaml(String yaml, String... sets) {
        return new CellRunner().run(config(yaml, sets));
    }

    static CellResult runWithFaults(SimStore.FaultHook hook, String... sets) {
        RunConfig c = config(BASE, sets);
        return new SimCell(RunValidator.plan(c, k -> null), hook).run(System.nanoTime());
    }

    /** The JSON fields of a result, without the wall-clock ones. */
    static Map<String, Object> withoutWall(CellResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        r.json().forEach(m::put);
        m.keySet().removeIf(k -> k.contains("wall"));
        return m;
    }
}
