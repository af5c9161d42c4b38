package dev.kvlab.harness.metrics;

import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.run.CellRunner;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.sim.SimCells;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Small sim cells (a shared-prefix workload on two Llama-3-8B/H100 instances, about a second each) run through an
 * {@link InfluxPublisher} as a matrix runner would: a recompute cell, a fetching cell on a hot store, and an auto cell.
 */
public final class SimRuns {

    /** {@link SimCells#BASE} with interval logs every second (the publisher's points). */
    public static final String BASE = SimCells.BASE + """
            measurement:
              interval: 1s
            """;

    /** Factor sets of the cells: cache_state, tiers, policy. */
    public static final List<List<String>> CELLS = List.of(
            List.of("cold", "local-only", "recompute"),
            List.of("hot", "remote-only", "fetch"),
            List.of("cold", "combined", "auto"));

    /** One finished cell × replicate. */
    public record Ran(CellTags tags, CellResult result) {}

    private SimRuns() {}

    public static RunConfig config(String... sets) {
        ConfigTree t = ConfigTree.parse(BASE, "test.yaml", null);
        for (String s : sets) t.set(s);
        return t.bind();
    }

    /** Runs every cell of {@link #CELLS} once under run id {@code runId}, publishing through {@code pub}. */
    public static List<Ran> run(String runId, InfluxPublisher pub) {
        List<Ran> out = new ArrayList<>();
        int n = 1;
        for (List<String> f : CELLS) {
            RunConfig c = config("cache_state=" + f.get(0), "tiers=" + f.get(1), "policy=" + f.get(2));
            String cell = String.format("c%02d-%s_%s_%s", n++, f.get(0), f.get(1), f.get(2));
            CellTags tags = CellTags.of(
                    runId, cell, 0, c, Map.of("cache_state", f.get(0), "tiers", f.get(1), "policy", f.get(2)));
            CellResult r = new CellRunner().run(c, System.nanoTime(), pub.cellStarted(tags));
            pub.cellFinished(tags, r.summary().columns());
            out.add(new Ran(tags, r));
        }
        return out;
    }
}
