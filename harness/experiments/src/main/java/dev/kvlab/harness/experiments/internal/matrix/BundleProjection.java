package dev.kvlab.harness.experiments.internal.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Experiment;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.bundle.BundleFootprint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What a matrix's bundle will take on disk at most, projected before anything runs from the runs it plans
 * ({@link Experiment#maxRuns()}: a capacity search's bound, all its probes run) and the bundle layout
 * (docs/bundle-format.md): a fixed-load run's directory, seven interval logs, {@code requests.csv} (about
 * {@value #CSV_BYTES_PER_REQUEST} bytes a request) and {@code cell.json}; a probe's directory and one {@code run.hlog};
 * per run its rows in the summaries and the manifest; the report. A matrix whose projection exceeds the free space
 * where the bundle goes is refused (exit 2) before anything is written.
 */
public final class BundleProjection {

    /** Bytes of {@code requests.csv} per request (measured on the demo: 116 MB for 1.25 M requests). */
    static final long CSV_BYTES_PER_REQUEST = 95;
    /** Bytes of {@code requests.csv.gz} per request (the same rows gzipped, about a third). */
    static final long GZ_BYTES_PER_REQUEST = 33;
    /** A fixed run's {@code .hlog} files (one per {@link Metric}, seven) and {@code cell.json}, in blocks (each at least one). */
    static final long FIXED_FILES = Metric.values().length * 2 * BundleFootprint.BLOCK + 3 * BundleFootprint.BLOCK;
    /** A probe's {@code run.hlog} (seven whole-phase histograms and its record: under 8 KiB). */
    static final long PROBE_FILE = 2 * BundleFootprint.BLOCK;
    /** A run's rows in summary.csv, summary.json (row and cell statistics) and the manifest. */
    static final long SUMMARY_PER_RUN = 4600;
    /** report.html and plots/ of a large run (the demo's: 6 MB). */
    static final long REPORT = 8L << 20;

    private BundleProjection() {}

    /** @param bytes the projection, {@code runs} the runs it counts, {@code bound} true when a search's bound is in it */
    public record Projection(long bytes, long runs, boolean bound) {
        public String text() {
            return String.format(
                    Locale.ROOT, "%s%s for %,d cell runs", bound ? "at most " : "", BundleFootprint.mb(bytes), runs);
        }
    }

    public static Projection project(MatrixSpec spec, Experiment experiment) {
        CapacitySpec c = spec.capacity();
        long bytes = REPORT, runs = 0;
        if (c == null) {
            for (CellRun r : spec.runs()) {
                bytes += fixedRun(r);
                runs++;
            }
            return new Projection(bytes, runs, false);
        }
        long max = experiment.maxRuns();
        long kept = 0;
        for (CellRun r : spec.runs()) {
            if (!c.searches(r.factors())) {
                bytes += fixedRun(r);
                runs++;
            } else if (r.replicate() == 0) {
                // bundle.requests: capacity keeps two runs' requests per searched cell; all keeps them all (bounded
                // below)
                kept += 2 * BundleFootprint.blocks(requests(r, c.maxPasses()) * GZ_BYTES_PER_REQUEST);
            }
        }
        long probes = Math.max(0, max - runs);
        bytes += probes * (BundleFootprint.BLOCK + PROBE_FILE + SUMMARY_PER_RUN) + kept;
        if ("all".equals(dev.kvlab.harness.bundle.RequestsKept.level(spec))) {
            CellRun any = spec.runs().stream()
                    .filter(r -> c.searches(r.factors()))
                    .findFirst()
                    .orElse(null);
            if (any != null)
                bytes += probes * BundleFootprint.blocks(requests(any, c.maxPasses()) * GZ_BYTES_PER_REQUEST);
        }
        return new Projection(bytes, probes + runs, true);
    }

    /** A fixed-load run of {@code r}: its directory, interval logs, {@code cell.json}, {@code requests.csv} and summary rows. */
    private static long fixedRun(CellRun r) {
        return BundleFootprint.BLOCK
                + FIXED_FILES
                + BundleFootprint.blocks(requests(r, 1) * CSV_BYTES_PER_REQUEST)
                + SUMMARY_PER_RUN;
    }

    /** The measured requests of {@code r} on {@code passes} passes of its workload: a generated workload's count, a trace's lines (bytes / 200). */
    static long requests(CellRun r, int passes) {
        JsonNode w = r.tree().path("workload");
        JsonNode g = w.path("generator");
        long n;
        if (g.isObject() && g.path("groups").canConvertToLong())
            n = g.path("groups").asLong()
                    * Math.max(1, g.path("prompts_per_group").asLong(1));
        else if (w.path("trace").isTextual()) {
            try {
                n = Files.size(Path.of(w.path("trace").asText())) / 200;
            } catch (IOException | RuntimeException e) {
                n = 10_000;
            }
        } else n = 10_000;
        return n * Math.max(passes, w.path("passes").asInt(1));
    }

    /**
     * Exit 2 (naming the projection and the free space) when the bundle {@code spec} would write under {@code out} is
     * projected to exceed the usable space of {@code out}'s file system ({@code free} when not null, for tests).
     */
    public static Projection check(MatrixSpec spec, Experiment experiment, Path out, Long free) {
        Projection p = project(spec, experiment);
        long usable;
        if (free != null) usable = free;
        else {
            Path at = out.toAbsolutePath().normalize();
            while (at != null && !Files.exists(at)) at = at.getParent();
            try {
                usable = at == null ? Long.MAX_VALUE : Files.getFileStore(at).getUsableSpace();
            } catch (IOException e) {
                return p;
            }
        }
        if (p.bytes() > usable)
            throw new BadInputException("the bundle of " + spec.name() + " is projected to take " + p.text()
                    + ", more than the " + BundleFootprint.mb(usable) + " free under " + out
                    + "; free space, or run fewer cells (--set, --shard)");
        return p;
    }
}
