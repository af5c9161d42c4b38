package dev.kvlab.harness.experiments.internal.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Experiment;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunRecords;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.run.ResolvedConfig;
import dev.kvlab.harness.bundle.CapacityFile;
import dev.kvlab.harness.core.JsonOutput;
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
 * search's decisions read only its own recorded probes. A cell's replicates are searched at once; when all have
 * finished and its capacity's interval is wider than {@code capacity.half_width} allows, the next step adds replicates
 * (seeds {@code seed + k} on, {@link IntervalTarget}) up to {@code capacity.max_replicates}. Cells the
 * {@code capacity.cells} selection leaves out run once at their own load, as in a fixed matrix.
 */
public final class CapacitySearch implements Experiment {

    private final MatrixSpec spec;
    private final CapacitySpec c;
    private final Map<String, CellRun> probeRuns = new ConcurrentHashMap<>();
    private final Map<String, ProbeResult> judged = new ConcurrentHashMap<>();
    private final Map<String, OperatingPoint> operatingPoints;
    private final Map<String, CellRun> atOperatingPoint = new ConcurrentHashMap<>();
    private final Map<String, CellRun> addedReplicates = new ConcurrentHashMap<>();
    private final Map<String, TwinPrediction> predictions = new ConcurrentHashMap<>();

    public CapacitySearch(MatrixSpec spec) {
        this.spec = spec;
        this.c = spec.capacity();
        this.operatingPoints = OperatingPoint.of(spec.resolved());
    }

    /**
     * The runs of a cell the search leaves out: as configured, or with an operating point at {@code fraction} x its
     * reference cell's mean capacity, once every search of the reference has finished (null until then).
     */
    List<CellRun> fixedRuns(MatrixCell cell, RunRecords recorded) {
        OperatingPoint operatingPoint = operatingPoints.get(cell.id());
        if (operatingPoint == null) return cell.runs();
        double load = operatingLoad(cell, recorded);
        if (Double.isNaN(load)) return null;
        List<CellRun> out = new ArrayList<>();
        for (CellRun r : cell.runs())
            out.add(atOperatingPoint.computeIfAbsent(r.label(), k -> operatingPoint.at(r, load)));
        return out;
    }

    /** The load the operating point gives {@code cell}: NaN while its reference is still searched. */
    double operatingLoad(MatrixCell cell, RunRecords recorded) {
        OperatingPoint operatingPoint = operatingPoints.get(cell.id());
        MatrixCell ref = operatingPoint.reference(cell, spec.cells(), c);
        Searches s = searches(ref, recorded);
        if (!s.settled()) return Double.NaN;
        List<Double> caps = capacities(s.traces());
        double mean = dev.kvlab.harness.bundle.ReplicateStats.mean(caps).mean();
        if (!(mean > 0))
            throw new IllegalStateException(operatingPoint.where() + ": " + operatingPoint.key() + ": " + ref.id()
                    + " has no capacity (every replicate " + "must find one) to run " + cell.id() + " at "
                    + operatingPoint.fraction() + " of it");
        return operatingPoint.load(mean);
    }

    /** capacity.json's {@code operating_point}: the spec and, per cell run there, its reference and resolved load. */
    private ObjectNode operatingPointJson(RunRecords recorded) {
        ObjectNode o = node();
        for (MatrixCell cell : spec.cells()) {
            OperatingPoint p = operatingPoints.get(cell.id());
            if (p == null) continue;
            ObjectNode e = p.json();
            e.put("reference", p.reference(cell, spec.cells(), c).id());
            e.set("load", CapacityResults.num(operatingLoad(cell, recorded)));
            o.set(cell.id(), e);
        }
        return o;
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

    /**
     * The searches of a searched cell as far as they go: one per replicate, its configured replicates first, then those
     * {@link IntervalTarget} adds while the cell's interval is too wide.
     *
     * @param traces  every replicate's search, in replicate order
     * @param target  the cell's interval judged, once every search has finished (null before)
     */
    public record Searches(List<Trace> traces, IntervalTarget target) {
        /** Every search finished and no replicate to add. */
        public boolean settled() {
            return target != null && target.settled();
        }
    }

    /** Retraces the searches of {@code cell}, adding replicates as its recorded capacities ask. */
    public Searches searches(MatrixCell cell, RunRecords recorded) {
        List<Trace> traces = new ArrayList<>(traces(cell.runs(), recorded));
        CellRun first = cell.runs().get(0);
        while (true) {
            if (!traces.stream().allMatch(Trace::finished)) return new Searches(traces, null);
            IntervalTarget target = IntervalTarget.judge(c, cell.runs().size(), capacities(traces));
            if (target.settled()) return new Searches(traces, target);
            List<CellRun> added = new ArrayList<>();
            for (int k = traces.size(); k < target.next(); k++) {
                int kk = k;
                added.add(addedReplicates.computeIfAbsent(
                        first.cell() + "/r" + k, x -> CapacityReplicates.replicate(first, kk)));
            }
            traces.addAll(traces(added, recorded)); // the searches already traced stand: only the added ones are traced
        }
    }

    /** The capacity of each search, as capacity.json reports it: its last passing load (a budget stop too), NaN without one. */
    static List<Double> capacities(List<Trace> traces) {
        List<Double> caps = new ArrayList<>();
        for (Trace t : traces)
            caps.add(Double.isFinite(t.decision().lo()) ? t.decision().lo() : Double.NaN);
        return caps;
    }

    @Override
    public Step step(RunRecords recorded) {
        List<CellRun> done = new ArrayList<>(), next = new ArrayList<>();
        for (MatrixCell cell : spec.cells()) {
            if (!c.searches(cell.factors())) {
                List<CellRun> runs = fixedRuns(cell, recorded);
                if (runs != null) for (CellRun r : runs) (recorded.recorded(r) ? done : next).add(r);
                continue;
            }
            Map<String, List<CellRun>> byProbeCell = new LinkedHashMap<>();
            Map<String, Double> loadOf = new LinkedHashMap<>();
            Map<String, Integer> passesOf = new LinkedHashMap<>();
            for (Trace t : searches(cell, recorded).traces()) {
                CellRun r = t.base();
                if (t.next() != null) next.add(t.next());
                for (ProbeResult p : t.probes())
                    for (int passes : p.passesRun()) {
                        CellRun pr = probe(r, p.load(), passes);
                        byProbeCell
                                .computeIfAbsent(pr.cell(), k -> new ArrayList<>())
                                .add(pr);
                        loadOf.put(pr.cell(), p.load());
                        passesOf.put(pr.cell(), passes);
                    }
            }
            List<String> ids = new ArrayList<>(byProbeCell.keySet());
            ids.sort(Comparator.comparingDouble((String id) -> loadOf.get(id)).thenComparingInt(passesOf::get));
            for (String id : ids) {
                List<CellRun> rs = byProbeCell.get(id);
                rs.sort(Comparator.comparingInt(CellRun::replicate));
                done.addAll(rs);
            }
        }
        return new Step(done, next);
    }

    /** Every search of the matrix, retraced from the recorded probes, per searched cell id. */
    public Map<String, Searches> searches(RunRecords recorded) {
        Map<String, Searches> out = new LinkedHashMap<>();
        for (MatrixCell cell : spec.cells())
            if (c.searches(cell.factors())) out.put(cell.id(), searches(cell, recorded));
        return out;
    }

    /** Every search of the matrix, retraced from the recorded probes. */
    public List<Trace> traces(RunRecords recorded) {
        List<Trace> out = new ArrayList<>();
        for (Searches s : searches(recorded).values()) out.addAll(s.traces());
        return out;
    }

    /**
     * The searches of {@code runs} (a cell's replicates), in replicate order: retraced at once (each reads only its own
     * probes; a new probe's config is parsed and bound there, which is most of a step's time between runs).
     */
    private List<Trace> traces(List<CellRun> runs, RunRecords recorded) {
        return runs.parallelStream().map(r -> trace(r, recorded)).toList();
    }

    /** Retraces the search of {@code base}: from the first probe, each decision from the recorded probes before it. */
    Trace trace(CellRun base, RunRecords recorded) {
        List<ProbeResult> probes = new ArrayList<>();
        List<Bracket.Probe> verdicts = new ArrayList<>();
        double wall = 0;
        double start = start(base.cell());
        while (true) {
            Bracket.Decision d = next(base.cell(), start, verdicts);
            if (d.status() == Bracket.Status.PROBE && c.budgetSeconds() > 0 && wall >= c.budgetSeconds())
                d = new Bracket.Decision(Bracket.Status.BUDGET, Double.NaN, d.lo(), d.hi());
            if (d.status() != Bracket.Status.PROBE) return new Trace(base, probes, d, null);
            double load = d.load();
            boolean steers = steers(d);
            int cap = steers ? maxPasses(base) : Math.max(1, maxPasses(base) / 4);
            List<Integer> passesRun = new ArrayList<>();
            ProbeResult p = null;
            for (int passes = 1; ; passes = c.nextPasses(passes)) {
                CellRun pr = probe(base, load, passes);
                JsonNode s = recorded.summary(pr);
                if (s == null) return new Trace(base, probes, d, pr);
                if (p != null) wall += p.wallSeconds();
                passesRun.add(passes);
                int n = passes;
                p = judged.computeIfAbsent(
                        pr.label(),
                        k -> ProbeResult.judge(
                                c, pr, load, s, recorded.dir(pr), n, cap, List.copyOf(passesRun), steers));
                if (!p.undecided() || passes >= cap) break; // decided, or at its cap: undecided
            }
            probes.add(p);
            verdicts.add(new Bracket.Probe(p.load(), p.passed()));
            wall += p.wallSeconds();
            if (p.undecided() && p.maxPasses() > 1) {
                // still undecided on its longest workload: its attainment equals the target within its 95% interval, so
                // this load is the knee itself. The search stops here with it as the capacity (first failing: the
                // lowest
                // decided failure above it).
                Bracket.Decision at = next(base.cell(), start, verdicts);
                double hi = Double.NaN;
                for (ProbeResult q : probes)
                    if (!q.passed() && !q.undecided() && q.load() > load && !(q.load() >= hi)) hi = q.load();
                return new Trace(
                        base,
                        probes,
                        new Bracket.Decision(
                                Bracket.Status.CONVERGED, Double.NaN, load, Double.isNaN(hi) ? at.hi() : hi),
                        null);
            }
        }
    }

    /**
     * The next decision of a search of {@code cell} that started at {@code start}: from its twin's prediction when it has
     * one ({@link Bracket#nextFromPrediction}), else by doubling and halving.
     */
    private Bracket.Decision next(String cell, double start, List<Bracket.Probe> verdicts) {
        return predicted(cell) ? Bracket.nextFromPrediction(c, start, verdicts) : Bracket.next(c, start, verdicts);
    }

    /** Whether a search of {@code cell} starts at its twin's predicted capacity ({@link #start}). */
    private boolean predicted(String cell) {
        TwinPrediction tp = predictions.get(cell);
        return tp != null && tp.off() == null && tp.capacity() > 0 && Double.isFinite(tp.capacity());
    }

    /**
     * Where a search of {@code cell} starts: at its twin's predicted capacity (written before the live search, the same
     * for every replicate of the cell; rounded as a bisection's midpoint is, within [min, max]) when there is one, so a
     * search whose twin is right to the precision brackets the capacity in its first two probes ({@link
     * Bracket#nextFromPrediction}) and runs none far below it; else at
     * {@code capacity.start}.
     */
    double start(String cell) {
        if (!predicted(cell)) return c.start();
        double p = predictions.get(cell).capacity();
        double s = c.integral() ? Math.floor(p) : Bracket.round(p, Bracket.digits(c.precision()));
        return Math.max(c.min(), Math.min(c.max(), s));
    }

    /**
     * Whether a probe's verdict can still move the capacity by more than the precision asked: always while bracketing,
     * and in a bisection while the bracket is wider than twice the precision. A probe inside a narrower bracket sits at
     * the knee: either verdict leaves the capacity known to the precision, so it gets a quarter of the cap and, still
     * undecided there, does not leave the answer open.
     */
    boolean steers(Bracket.Decision d) {
        return !(Double.isFinite(d.lo()) && Double.isFinite(d.hi()) && (d.hi() - d.lo()) / d.lo() <= 2 * c.precision());
    }

    /**
     * The most passes a probe of {@code base} may run: {@code max_passes} for a sim cell on a generated workload; 1 for
     * live cells (their early stop decides) and traces (replayed once).
     */
    int maxPasses(CellRun base) {
        boolean generated = base.config().workload().generator() != null
                && !base.config().workload().generator().isNull();
        return base.mode() == Mode.SIM && generated ? c.maxPasses() : 1;
    }

    /** The probe of {@code base} at {@code load}: the same cell and seed with the knob set, cell id {@code <cell>@<load>}. */
    public CellRun probe(CellRun base, double load) {
        return probe(base, load, 1);
    }

    /**
     * The probe of {@code base} at {@code load} on its workload {@code passes} times over ({@code workload.passes}):
     * cell id {@code <cell>@<load>}, or {@code <cell>@<load>x<passes>} for an extended probe.
     */
    public CellRun probe(CellRun base, double load, int passes) {
        String label = Bracket.label(load);
        String id = base.cell() + "@" + label + (passes > 1 ? "x" + passes : "");
        return probeRuns.computeIfAbsent(id + "/r" + base.replicate(), k -> {
            ResolvedConfig r = new ResolvedConfig(
                            base.config(),
                            base.tree(),
                            base.label() + " at " + c.knob() + "=" + label
                                    + (passes > 1 ? ", " + ResolvedConfig.PASSES + "=" + passes : ""))
                    .withLoad(c.knob(), load, c.integral());
            if (passes > 1) r = r.withPasses(passes);
            if (base.mode() == Mode.LIVE && c.earlyStop() && c.rule().equals("attainment"))
                r = r.withEarlyStop(
                        c.targetAttainment(),
                        Math.max(c.minRequests(), CapacitySpec.EARLY_STOP_FIRST_LOOK),
                        java.math.BigDecimal.valueOf(c.minDurationSeconds())
                                        .stripTrailingZeros()
                                        .toPlainString() + "s");
            RunConfig rc = r.checked();
            Map<String, String> factors = new LinkedHashMap<>(base.factors());
            factors.put(c.knob(), label);
            if (passes > 1) factors.put(ResolvedConfig.PASSES, Integer.toString(passes));
            return new CellRun(id, base.index(), factors, base.replicate(), base.seed(), base.mode(), rc, r.tree());
        });
    }

    /**
     * What {@code bundle.requests: capacity} keeps every request of: per searched cell, the search of its first replicate
     * (replicate 0, the same seed in every cell: the kept requests of two cells pair request by request), its run at its
     * capacity (the last passing load) and its run at its first failing load (the lowest failing load above it), each the
     * run that decided it (an extended probe's longest). Every other probe keeps its histograms and summary, which is all
     * the search, the summaries and {@code verify --rerun} read (the replicates' requests would be most of the bundle: a
     * probe near the knee runs its workload up to {@code max_passes} times over). A {@code percentile} rule judges a probe
     * from its requests, so such a search keeps them all (null).
     */
    @Override
    public java.util.Set<String> requestsKept(RunRecords recorded) {
        if ("percentile".equals(c.rule())) return null;
        java.util.Set<String> keep = new java.util.LinkedHashSet<>();
        for (Trace t : traces(recorded)) {
            if (t.base().replicate() != 0) continue;
            double lo = t.decision().lo(), hi = t.decision().hi();
            for (ProbeResult p : t.probes())
                if (Double.isFinite(lo) && p.load() == lo || Double.isFinite(hi) && p.load() == hi) keep.add(p.run());
        }
        return keep;
    }

    @Override
    public int maxRuns() {
        int n = 0;
        int steps = 1; // runs per probe at most: 1, 2, 4, ... passes up to the cap
        for (int p = 1; p < c.maxPasses(); p = c.nextPasses(p)) steps++;
        for (MatrixCell cell : spec.cells())
            n += c.searches(cell.factors())
                    ? c.replicateCap(cell.runs().size()) * c.maxProbes() * steps
                    : cell.runs().size();
        return n;
    }

    /**
     * Before the first probe: the twin's capacity of every searched live cell whose target has a twin, searched on the sim
     * clock from the cell's calibration (cells with the same engine and store path share one) and written to
     * {@code twins/<cell>.json}; a prediction already there ({@code --resume}) is read back, not made again.
     */
    @Override
    public void prepare(java.nio.file.Path dir, java.io.PrintWriter log) throws IOException {
        if (!c.predict()) return;
        dev.kvlab.harness.api.run.Targets targets = null;
        Map<String, dev.kvlab.harness.api.twin.TwinCalibration> byKey = new LinkedHashMap<>();
        for (MatrixCell cell : spec.cells()) {
            if (!c.searches(cell.factors())) continue;
            CellRun first = cell.runs().get(0);
            if (first.mode() != Mode.LIVE) continue;
            java.nio.file.Path f = dir.resolve(TwinPrediction.DIR).resolve(cell.id() + ".json");
            if (java.nio.file.Files.exists(f)) {
                predictions.put(
                        cell.id(), TwinPrediction.read(JsonOutput.mapper().readTree(f.toFile())));
                continue;
            }
            if (targets == null) targets = dev.kvlab.harness.api.run.Targets.discover();
            dev.kvlab.harness.spi.TargetProvider p = targets.of(first.config(), k -> null);
            String no = p.noTwin(first.config());
            if (no != null) {
                predictions.put(cell.id(), TwinPrediction.off(cell.id(), no));
                continue;
            }
            long t0 = System.nanoTime();
            String key = p.calibrationKey(first.config());
            dev.kvlab.harness.api.twin.TwinCalibration cal = byKey.get(key);
            if (cal == null) {
                log.println("kvlab: calibrating the twin of " + cell.id() + " (" + p.kind()
                        + ") before its capacity search");
                log.flush();
                try {
                    cal = p.calibrate(first.config());
                } catch (RuntimeException e) {
                    String why = "calibration failed: " + e.getClass().getSimpleName() + ": " + e.getMessage();
                    log.println("kvlab: " + cell.id() + ": no prediction: " + why);
                    predictions.put(cell.id(), TwinPrediction.off(cell.id(), why));
                    continue;
                }
                byKey.put(key, cal);
            }
            TwinPrediction tp = TwinPrediction.search(c, cell.id(), cell.runs(), cal, (System.nanoTime() - t0) / 1e9);
            java.nio.file.Files.createDirectories(f.getParent());
            dev.kvlab.harness.bundle.Durable.replace(f, tp.bytes());
            predictions.put(cell.id(), tp);
            log.println("kvlab: the twin of " + cell.id() + " predicts a capacity of "
                    + (Double.isFinite(tp.capacity())
                            ? Bracket.format(Bracket.round(tp.capacity(), 3))
                            : "none ("
                                    + tp.replicates().stream()
                                            .map(TwinPrediction.Replicate::status)
                                            .distinct()
                                            .collect(java.util.stream.Collectors.joining(", "))
                                    + ")")
                    + " ("
                    + c.knob() + "), written to " + TwinPrediction.DIR + "/" + f.getFileName()
                    + " before the live search, which starts there ("
                    + c.knob() + "=" + Bracket.label(start(cell.id())) + ")");
            log.flush();
        }
    }

    /** The predictions made before the searches (cell id → prediction). */
    Map<String, TwinPrediction> predictions() {
        return predictions;
    }

    @Override
    public Map<String, byte[]> results(RunRecords recorded, String runId) throws IOException {
        Map<String, Searches> all = searches(recorded);
        CapacityResults r = CapacityResults.of(spec, all);
        r.prices(prices());
        // the summary is built more than once (the link sweep's, then the file's): each cell's check, which runs its
        // twin at
        // every replicate's measured capacity, is made once and copied into each
        Map<String, ObjectNode> checked = new LinkedHashMap<>();
        if (!predictions.isEmpty())
            r.perCell((cell, o, es) -> {
                TwinPrediction tp = predictions.get(cell);
                if (tp != null)
                    o.set(
                            "predicted",
                            checked.computeIfAbsent(cell, k -> PredictionCheck.json(c, tp, o, es, all.get(cell)))
                                    .deepCopy());
            });
        if (!operatingPoints.isEmpty()) r.extra(OperatingPoint.RESOLVED, operatingPointJson(recorded));
        LinkSweep.add(spec, r.summary(), r);
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put(CapacityFile.NAME, r.json(runId));
        files.put(CapacityResults.CSV, r.csv());
        return files;
    }

    /** Each searched cell's price per hour, as its target gives it (cells without one are left out). */
    private Map<String, Double> prices() {
        Map<String, Double> out = new LinkedHashMap<>();
        dev.kvlab.harness.api.run.Targets targets = null;
        for (MatrixCell cell : spec.cells()) {
            if (!c.searches(cell.factors())) continue;
            RunConfig rc = cell.runs().get(0).config();
            if (targets == null) targets = dev.kvlab.harness.api.run.Targets.discover();
            double p;
            try {
                p = targets.of(rc, k -> null).pricePerHour(rc);
            } catch (RuntimeException e) {
                continue;
            }
            if (Double.isFinite(p)) out.put(cell.id(), p);
        }
        return out;
    }

    static ObjectNode node() {
        return JsonNodeFactory.instance.objectNode();
    }
}
