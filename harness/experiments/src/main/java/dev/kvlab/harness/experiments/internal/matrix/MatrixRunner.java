package dev.kvlab.harness.experiments.internal.matrix;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Experiment;
import dev.kvlab.harness.api.ManifestSection;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.bundle.PartialBundle;
import dev.kvlab.harness.bundle.Provenance;
import dev.kvlab.harness.bundle.SummaryTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Runs a resolved {@link MatrixSpec}'s {@link Experiment} (a fixed matrix, or capacity searches) into one result
 * bundle under {@code out} (crash-safe, see {@link PartialBundle}), telling its {@link RunListener}s: it asks the
 * experiment which runs come next given the runs recorded, runs them, records them, and asks again. The runs of one
 * step are independent: with {@code jobs > 1} sim runs execute on that many threads (each sim run is deterministic,
 * so the bundle does not depend on it); live runs always run one at a time, alone. Listener calls are serialised.
 * With {@code resume}, an interrupted run of the same resolved matrix in {@code out} is continued from the runs it
 * recorded (a search retraces its probes from their recorded results; a finished run is returned as it is). A cell
 * that throws stops the run; its partial bundle stays for {@code --resume}.
 */
public final class MatrixRunner {

    private final CellExecutor cells;
    private final List<RunListener> listeners;
    private final Provenance provenance;
    private final Clock clock;
    private final PartialBundle.ReportStep report;
    private final PrintWriter log;
    private final Set<RunListener> broken = new HashSet<>();
    private final int jobs;

    /**
     * @param cells      runs one cell
     * @param listeners  told about the run, in order
     * @param provenance version, git, command line for the manifest
     * @param clock      wall clock for run ids and timestamps
     * @param report     renders report.html and plots/ before the manifest is written
     * @param log        notes for the user (stderr)
     */
    public MatrixRunner(
            CellExecutor cells,
            List<RunListener> listeners,
            Provenance provenance,
            Clock clock,
            PartialBundle.ReportStep report,
            PrintWriter log) {
        this(cells, listeners, provenance, clock, report, log, 1);
    }

    /** As above; {@code jobs} sim runs of one step may execute at once (live runs never overlap anything). */
    public MatrixRunner(
            CellExecutor cells,
            List<RunListener> listeners,
            Provenance provenance,
            Clock clock,
            PartialBundle.ReportStep report,
            PrintWriter log,
            int jobs) {
        if (jobs < 1) throw new IllegalArgumentException("jobs must be >= 1, got " + jobs);
        this.jobs = jobs;
        this.cells = cells;
        this.listeners = List.copyOf(listeners);
        this.provenance = provenance;
        this.clock = clock;
        this.report = report;
        this.log = log;
    }

    /**
     * @param runId    the run id
     * @param bundle   the bundle directory
     * @param table    its summary rows
     * @param existing true when {@code --resume} found the run already finished and ran nothing
     */
    public record Outcome(String runId, Path bundle, SummaryTable table, boolean existing) {}

    public Outcome run(MatrixSpec spec, Path out, boolean resume) throws IOException {
        TraceCheck.readAll(spec); // bad trace lines are bad input before anything is written
        Experiment experiment = MatrixExperiment.of(spec);
        PartialBundle pb = null;
        if (resume) {
            pb = PartialBundle.resume(out, spec, clock.instant());
            if (pb == null) {
                Path done = PartialBundle.finished(out, spec);
                if (done != null) {
                    log.println("kvlab: nothing to resume: this matrix already finished in " + done);
                    log.flush();
                    return new Outcome(done.getFileName().toString(), done, null, true);
                }
                log.println("kvlab: no interrupted run of this matrix in " + out + "; starting a new one");
            } else {
                log.println("kvlab: resuming " + pb.runId() + " ("
                        + experiment.step(pb.records()).done().size() + " of "
                        + (spec.experiment() != null && spec.experiment().adaptive() ? "at most " : "")
                        + experiment.maxRuns() + " cell runs already done)");
            }
            log.flush();
        } else {
            Path partial = PartialBundle.interrupted(out, spec);
            if (partial != null)
                log.println("kvlab: note: an interrupted run of this matrix is in " + partial
                        + " (the same command with --resume continues it)");
        }
        boolean fresh = pb == null;
        if (pb == null) pb = PartialBundle.create(out, spec, clock.instant(), provenance.commandLine());
        Path discard = null;
        try (PartialBundle b = pb) {
            String id = b.runId();
            experiment.prepare(b.dir(), log);
            Experiment.Step step = experiment.step(b.records());
            int already = step.done().size();
            tell(l -> l.runStarted(new RunListener.RunStart(id, spec, b.startedAt(), already)));
            boolean ok = false;
            RuntimeException refused = null;
            try {
                while (!step.finished()) {
                    runStep(id, b, step.next());
                    step = experiment.step(b.records());
                }
                Map<String, ManifestSection> sections = new LinkedHashMap<>();
                sections.put(
                        "bundle",
                        dev.kvlab.harness.bundle.RequestsKept.apply(
                                b.dir(), spec, step.done(), experiment.requestsKept(b.records())));
                sections.putAll(sections());
                PartialBundle.Finished fin = b.finish(
                        spec,
                        step.done(),
                        experiment.results(b.records(), id),
                        provenance,
                        clock.instant(),
                        report,
                        sections);
                ok = true;
                tell(l -> l.runFinished(new RunListener.RunEnd(id, spec, fin.bundle(), clock.instant(), true)));
                return new Outcome(id, fin.bundle(), fin.table(), false);
            } catch (dev.kvlab.harness.api.input.BadInputException e) {
                refused = e;
                throw e;
            } finally {
                if (!ok) {
                    tell(l -> l.runFinished(new RunListener.RunEnd(id, spec, null, clock.instant(), false)));
                    int done = experiment.step(b.records()).done().size();
                    if (done == 0 && fresh && refused != null) {
                        // refused as bad input before any cell finished: nothing half-written is left behind
                        discard = b.dir();
                        log.println("kvlab: the run stopped before any cell finished; nothing is kept");
                    } else {
                        log.println("kvlab: the run stopped; its " + done + " finished cell run(s) are kept in "
                                + b.dir() + " (same command with --resume continues it)");
                    }
                    log.flush();
                }
            }
        } finally {
            if (discard != null) deleteTree(discard);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!java.nio.file.Files.exists(dir)) return;
        try (java.util.stream.Stream<Path> s = java.nio.file.Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) java.nio.file.Files.deleteIfExists(p);
        }
    }

    /** Runs {@code runs} (one step: independent of each other): sim runs on up to {@code jobs} threads, then live runs one by one. */
    private void runStep(String id, PartialBundle b, List<CellRun> runs) throws IOException {
        List<CellRun> sims = new ArrayList<>(), lives = new ArrayList<>();
        for (CellRun r : runs) (r.mode() == Mode.SIM ? sims : lives).add(r);
        if (jobs == 1 || sims.size() <= 1) {
            for (CellRun r : runs) runOne(id, b, r); // one thread: in the experiment's order
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(
                Math.min(jobs, sims.size()),
                Thread.ofPlatform().name("kvlab-cell-", 0).daemon().factory());
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (CellRun r : sims)
                fs.add(pool.submit(() -> {
                    runOne(id, b, r);
                    return null;
                }));
            Throwable first = null;
            for (Future<?> f : fs) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    if (first == null) first = e.getCause();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    pool.shutdownNow();
                    throw new IOException("interrupted", e);
                }
            }
            if (first instanceof IOException io) throw io;
            if (first instanceof RuntimeException re) throw re;
            if (first instanceof Error er) throw er;
            if (first != null) throw new IllegalStateException(first);
        } finally {
            pool.shutdown();
        }
        for (CellRun r : lives) runOne(id, b, r);
    }

    private void runOne(String id, PartialBundle b, CellRun r) throws IOException {
        CellObserver observer;
        synchronized (this) {
            tell(l -> l.cellStarted(id, r));
            observer = observers(id, r);
        }
        CellResult result = cells.run(r.config(), System.nanoTime(), observer);
        // its own directory (cells/<cell>/r<k>, written aside and renamed): the runs of a step write at once, and a
        // listener hears of a run once it is recorded
        b.write(r, result);
        synchronized (this) {
            tell(l -> l.cellFinished(id, r, result));
        }
    }

    private CellObserver observers(String runId, CellRun r) {
        List<CellObserver> obs = new ArrayList<>();
        for (RunListener l : listeners) {
            try {
                CellObserver o = l.cellObserver(runId, r);
                if (o != null) obs.add(o);
            } catch (RuntimeException e) {
                broken(l, e);
            }
        }
        if (obs.isEmpty()) return CellObserver.NONE;
        if (obs.size() == 1) return obs.get(0);
        return p -> {
            for (CellObserver o : obs) o.intervalEnded(p);
        };
    }

    private Map<String, ManifestSection> sections() {
        Map<String, ManifestSection> m = new LinkedHashMap<>();
        for (RunListener l : listeners) {
            try {
                m.putAll(l.manifestSections());
            } catch (RuntimeException e) {
                broken(l, e);
            }
        }
        return m;
    }

    private void broken(RunListener l, RuntimeException e) {
        if (broken.add(l)) {
            log.println("kvlab: listener " + l.getClass().getSimpleName() + " failed: " + e
                    + " (further failures of it are not reported)");
            log.flush();
        }
    }

    private void tell(Consumer<RunListener> call) {
        for (RunListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException e) {
                broken(l, e);
            }
        }
    }
}
