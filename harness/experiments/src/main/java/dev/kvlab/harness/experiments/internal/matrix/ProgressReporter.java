package dev.kvlab.harness.experiments.internal.matrix;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.experiments.api.Heartbeat;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * Shows a run's progress on stderr: on a terminal a one-line bar (cells done of all, requests completed so far,
 * the cell running), otherwise one plain log line per cell × replicate. Between lines it keeps its
 * {@link Heartbeat}'s status current (the cell running, its requests so far), so a long cell is not silent.
 */
public final class ProgressReporter implements RunListener {

    private final PrintWriter err;
    private final boolean terminal;
    private final Heartbeat heartbeat;
    private int total, done;
    private boolean upTo;
    private long requests, failed;
    private long cellStart;
    private long runStart;

    public ProgressReporter(PrintWriter err, boolean terminal) {
        this(err, terminal, Heartbeat.none());
    }

    public ProgressReporter(PrintWriter err, boolean terminal, Heartbeat heartbeat) {
        this.err = err;
        this.terminal = terminal;
        this.heartbeat = heartbeat;
    }

    /** Whether stderr is a terminal (a progress bar makes sense). */
    public static boolean stderrIsTerminal() {
        var c = System.console();
        return c != null && c.isTerminal() && System.getenv("CI") == null;
    }

    @Override
    public void runStarted(RunStart start) {
        total = MatrixExperiment.of(start.matrix()).maxRuns();
        upTo = start.matrix().experiment() != null
                && start.matrix().experiment().adaptive();
        done = start.alreadyDone();
        runStart = System.nanoTime();
        String what =
                start.matrix().cells().size() + " cells x " + start.matrix().replicates() + " replicates"
                        + (start.matrix().capacity() != null
                                ? ", capacity searches over "
                                        + start.matrix().capacity().knob() + " (at most " + total + " probes)"
                                : "");
        err.println("kvlab: run " + start.runId() + ": " + what + (done > 0 ? ", " + done + " already done" : ""));
        err.flush();
        heartbeat.printed();
        heartbeat.status("run " + start.runId() + ": starting");
    }

    @Override
    public void cellStarted(String runId, CellRun cell) {
        cellStart = System.nanoTime();
        heartbeat.status(String.format(
                Locale.ROOT,
                "[%d/%d] %s (%s): running (warm-up or setup)",
                done + 1,
                total,
                cell.label(),
                cell.mode()));
        if (terminal) bar(cell.label() + " (" + cell.mode() + ") ...");
    }

    /**
     * Keeps the heartbeat's status at the running cell's counts: the observer (on the cell's thread, every interval)
     * only stores them; the line is made when the heartbeat prints one.
     */
    @Override
    public CellObserver cellObserver(String runId, CellRun cell) {
        int n = done + 1;
        long[] seen = new long[3];
        double[] clock = new double[1];
        heartbeat.status(() -> seen[0] == 0 && clock[0] == 0
                ? String.format(
                        Locale.ROOT, "[%d/%d] %s (%s): starting (setup, warm-up)", n, total, cell.label(), cell.mode())
                : String.format(
                        Locale.ROOT,
                        "[%d/%d] %s (%s): %d requests arrived, %d completed, %d failed, %.0f s of run clock",
                        n,
                        total,
                        cell.label(),
                        cell.mode(),
                        seen[0],
                        seen[1],
                        seen[2],
                        clock[0]));
        return p -> {
            seen[0] = p.requests();
            seen[1] = p.completed();
            seen[2] = p.failed();
            clock[0] = p.runSeconds();
        };
    }

    @Override
    public void cellFinished(String runId, CellRun cell, CellResult result) {
        done++;
        CellSummary s = result.summary();
        requests += s.get(Columns.COMPLETED);
        failed += s.get(Columns.FAILED);
        double secs = (System.nanoTime() - cellStart) / 1e9;
        String line = String.format(
                        Locale.ROOT,
                        "[%d/%s%d] %s (%s): %d requests, %d failed, ttft p50 %.1f ms p99 %.1f ms, "
                                + "hits local %.2f remote %.2f, %.1f s",
                        done,
                        upTo ? "<=" : "",
                        total,
                        cell.label(),
                        cell.mode(),
                        s.get(Columns.COMPLETED),
                        s.get(Columns.FAILED),
                        s.p50Ms(Metric.TTFT),
                        s.p99Ms(Metric.TTFT),
                        s.get(Columns.LOCAL_HIT_RATIO),
                        s.get(Columns.REMOTE_HIT_RATIO),
                        secs)
                + (upTo ? String.format(Locale.ROOT, ", slo attainment %.3f", s.get(Columns.SLO_ATTAINMENT)) : "");
        if (terminal) {
            err.print("\r\033[K");
            err.println("kvlab: " + line);
            bar("");
        } else {
            err.println("kvlab: " + line);
            err.flush();
        }
        heartbeat.printed();
        heartbeat.status(
                done < total
                        ? String.format(Locale.ROOT, "%d of %d cell runs done", done, total)
                        : "all " + total + " cell runs done: writing the summary, report and manifest");
    }

    @Override
    public void runFinished(RunEnd end) {
        if (terminal) err.print("\r\033[K");
        double secs = (System.nanoTime() - runStart) / 1e9;
        err.println(String.format(
                Locale.ROOT,
                "kvlab: run %s %s: %d of %d cell runs, %d requests completed, %d failed, %.1f s",
                end.runId(),
                end.ok() ? "finished" : "stopped",
                done,
                total,
                requests,
                failed,
                secs));
        err.flush();
        heartbeat.printed();
        heartbeat.status("run " + end.runId() + " " + (end.ok() ? "finished" : "stopped"));
    }

    private void bar(String now) {
        int width = 30;
        int filled = total == 0 ? width : (int) ((long) width * done / total);
        err.print("\r\033[K[" + "#".repeat(filled) + ".".repeat(width - filled) + "] " + done + "/" + total + " cells, "
                + requests + " requests " + now);
        err.flush();
    }
}
