package dev.kvlab.harness.internal.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Experiment;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunRecords;
import dev.kvlab.harness.api.config.ConfigTree;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.internal.JsonOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The adaptive experiment: every searched cell × replicate is a capacity search ({@link Bracket}) whose probes are
 * ordinary cell runs of that cell with the knob set to the probe's load — cell id {@code <cell>@<load>}, the
 * replicate's own seed (common random numbers: probe k of every cell and the plain run with
 * {@code --set <knob>=<load>} see the same requests) and the load as one more factor. The searches are independent:
 * each step offers the next probe of every unfinished search (so probes of different cells run in parallel), and a
 * search's decisions read only its own recorded probes. Cells the {@code capacity.cells} selection leaves out run
 * once at their own load, as in a fixed matrix.
 */
public final class CapacitySearch implements Experiment {

    private final MatrixSpec spec;
    private final CapacitySpec c;
    private final Map<String, CellRun> probeRuns = new ConcurrentHashMap<>();
    private final Map<String, ProbeResult> judged = new ConcurrentHashMap<>();

    public CapacitySearch(MatrixSpec spec) {
        this.spec = spec;
        this.c = spec.capacity();
    }

    /**
     * One search as far as its recorded probes go.
     *
     * @param base     the cell × replicate searched (its configured load unused)
     * @param probes   the recorded probes, in probe order
     * @param decision what the rule decides from them
     * @param next     the probe to run next (not recorded yet), or null when the search is over
     */
    public record Trace(CellRun base, List<ProbeResult> probes, Bracket.Decision decision, CellRun next) {
        public boolean finished() {
            return next == null;
        }
    }

    @Override
    public Step step(RunRecords recorded) {
        List<CellRun> done = new ArrayList<>(), next = new ArrayList<>();
        for (MatrixCell cell : spec.cells()) {
            if (!c.searches(cell.factors())) {
                for (CellRun r : cell.runs()) (recorded.recorded(r) ? done : next).add(r);
                continue;
            }
            Map<String, List<CellRun>> byProbeCell = new LinkedHashMap<>();
            Map<String, Double> loadOf = new LinkedHashMap<>();
            for (CellRun r : cell.runs()) {
                Trace t = trace(r, recorded);
                if (t.next() != null) next.add(t.next());
                for (ProbeResult p : t.probes()) {
                    CellRun pr = probe(r, p.load());
                    byProbeCell.computeIfAbsent(pr.cell(), k -> new ArrayList<>()).add(pr);
                    loadOf.put(pr.cell(), p.load());
                }
            }
            List<String> ids = new ArrayList<>(byProbeCell.keySet());
            ids.sort(Comparator.comparingDouble(loadOf::get));
            for (String id : ids) {
                List<CellRun> rs = byProbeCell.get(id);
                rs.sort(Comparator.comparingInt(CellRun::replicate));
                done.addAll(rs);
            }
        }
        return new Step(done, next);
    }

    /** Every search of the matrix, retraced from the recorded probes. */
    public List<Trace> traces(RunRecords recorded) {
        List<Trace> out = new ArrayList<>();
        for (MatrixCell cell : spec.cells())
            if (c.searches(cell.factors())) for (CellRun r : cell.runs()) out.add(trace(r, recorded));
        return out;
    }

    /** Retraces the search of {@code base}: from the first probe, each decision from the recorded probes before it. */
    Trace trace(CellRun base, RunRecords recorded) {
        List<ProbeResult> probes = new ArrayList<>();
        List<Bracket.Probe> verdicts = new ArrayList<>();
        double wall = 0;
        while (true) {
            Bracket.Decision d = Bracket.next(c, verdicts);
            if (d.status() == Bracket.Status.PROBE && c.budgetSeconds() > 0 && wall >= c.budgetSeconds())
                d = new Bracket.Decision(Bracket.Status.BUDGET, Double.NaN, d.lo(), d.hi());
            if (d.status() != Bracket.Status.PROBE) return new Trace(base, probes, d, null);
            CellRun pr = probe(base, d.load());
            JsonNode s = recorded.summary(pr);
            if (s == null) return new Trace(base, probes, d, pr);
            double load = d.load();
            ProbeResult p = judged.computeIfAbsent(pr.label(), k -> ProbeResult.judge(c, pr, load, s, recorded.dir(pr)));
            probes.add(p);
            verdicts.add(new Bracket.Probe(p.load(), p.passed()));
            wall += p.wallSeconds();
        }
    }

    /** The probe of {@code base} at {@code load}: the same cell and seed with the knob set, cell id {@code <cell>@<load>}. */
    public CellRun probe(CellRun base, double load) {
        String label = Bracket.label(load);
        return probeRuns.computeIfAbsent(base.cell() + "@" + label + "/r" + base.replicate(), k -> {
            ObjectNode tree = base.tree().deepCopy();
            String[] path = c.knob().split("\\.");
            ObjectNode at = tree;
            for (int i = 0; i < path.length - 1; i++) at = at.get(path[i]) instanceof ObjectNode o ? o : at.putObject(path[i]);
            if (c.integral()) at.put(path[path.length - 1], (long) load);
            else at.put(path[path.length - 1], load);
            if (base.mode() == Mode.LIVE && c.earlyStop() && c.rule().equals("attainment")) {
                ObjectNode m = tree.get("measurement") instanceof ObjectNode o ? o : tree.putObject("measurement");
                ObjectNode es = m.putObject("early_stop");
                es.put("target", c.targetAttainment());
                es.put("min_requests", Math.max(c.minRequests(), CapacitySpec.EARLY_STOP_FIRST_LOOK));
            }
            RunConfig rc;
            try {
                rc = ConfigTree.parse(JsonOutput.mapper().writeValueAsString(tree), base.label() + " at " + c.knob() + "=" + label, null).bind();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            Map<String, String> factors = new LinkedHashMap<>(base.factors());
            factors.put(c.knob(), label);
            return new CellRun(base.cell() + "@" + label, base.index(), factors, base.replicate(), base.seed(), base.mode(), rc, tree);
        });
    }

    @Override
    public int maxRuns() {
        int n = 0;
        for (MatrixCell cell : spec.cells()) n += cell.runs().size() * (c.searches(cell.factors()) ? c.maxProbes() : 1);
        return n;
    }

    @Override
    public Map<String, byte[]> results(RunRecords recorded, String runId) throws IOException {
        CapacityResults r = CapacityResults.of(spec, traces(recorded));
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put(CapacityResults.JSON, r.json(runId));
        files.put(CapacityResults.CSV, r.csv());
        return files;
    }

    static ObjectNode node() {
        return JsonNodeFactory.instance.objectNode();
    }
}
