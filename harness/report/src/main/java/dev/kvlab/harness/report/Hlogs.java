package dev.kvlab.harness.report;

import dev.kvlab.harness.bundle.HlogFile;
import dev.kvlab.harness.bundle.RunFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Reads a bundle's {@code .hlog} files ({@link HlogFile#parse}, HdrHistogram's own reader): the intervals of one
 * replicate (times in seconds of the run's own clock since the measured phase began) and their merge.
 */
final class Hlogs {

    /** One interval: {@code [start, end)} in seconds, and its histogram of µs values. */
    record Interval(double start, double end, Histogram histogram) {}

    private Hlogs() {}

    /**
     * The intervals of {@code metric} of the run in {@code dir} in file order (its {@code <metric>.hlog}, or the intervals
     * tagged {@code metric} in a probe's {@code run.hlog}: {@link RunFiles}); empty when it has none.
     */
    static List<Interval> read(Path dir, String metric) {
        List<HlogFile.TimedHistogram> ts;
        try {
            ts = RunFiles.timed(dir, metric);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the " + metric + " log of " + dir, e);
        }
        List<Interval> out = new ArrayList<>();
        for (HlogFile.TimedHistogram t : ts)
            out.add(new Interval(t.startMs() / 1000.0, t.endMs() / 1000.0, t.histogram()));
        return out;
    }

    /** Every interval of every replicate of {@code cell} for {@code metric} ({@code ttft}, …) merged into one histogram. */
    static Histogram merged(CellData cell, String metric) {
        Histogram all = new Histogram(3);
        for (Path d : cell.replicateDirs()) for (Interval i : read(d, metric)) all.add(i.histogram());
        return all;
    }

    /**
     * The cell's intervals for {@code metric} with the replicates pooled: intervals starting at the same time (to the
     * millisecond) are merged. Keys are start seconds.
     */
    static TreeMap<Double, Interval> pooledByStart(CellData cell, String metric) {
        TreeMap<Long, Interval> byMs = new TreeMap<>();
        for (Path d : cell.replicateDirs()) {
            for (Interval i : read(d, metric)) {
                long k = Math.round(i.start() * 1000);
                Interval prev = byMs.get(k);
                if (prev == null) {
                    Histogram h = new Histogram(3);
                    h.add(i.histogram());
                    byMs.put(k, new Interval(i.start(), i.end(), h));
                } else {
                    prev.histogram().add(i.histogram());
                }
            }
        }
        TreeMap<Double, Interval> out = new TreeMap<>();
        for (Map.Entry<Long, Interval> e : byMs.entrySet()) out.put(e.getKey() / 1000.0, e.getValue());
        return out;
    }
}
