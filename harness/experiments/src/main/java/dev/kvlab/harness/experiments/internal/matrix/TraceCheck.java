package dev.kvlab.harness.experiments.internal.matrix;

import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.RequestSource;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.util.HashSet;
import java.util.Set;

/**
 * Reads every trace a matrix uses, as far as its cells will read it, before the run starts: a bad trace line is
 * bad input ({@code FILE:LINE}, exit 2) found before anything is written, not a run that stops half way with a
 * partial bundle. Traces are streamed (nothing is kept); each distinct (file, block tokens, limit) is read once.
 */
public final class TraceCheck {

    private TraceCheck() {}

    /** Throws the trace reader's {@code WorkloadFormatException} for the first defect found; a trace without requests is bad input too. */
    public static void readAll(MatrixSpec spec) {
        Set<String> seen = new HashSet<>();
        for (CellRun r : spec.runs()) {
            var w = r.config().workload();
            if (w == null || w.trace() == null) continue;
            if (!seen.add(w.trace() + "|" + w.blockTokens() + "|" + w.limit())) continue;
            try (RequestSource s = Workloads.open(
                    new WorkloadSpec.Trace(w.trace(), w.blockTokens(), false, w.limit()),
                    Namespace.of("check"),
                    r.seed())) {
                long n = 0;
                while (s.hasNext()) {
                    s.next();
                    n++;
                }
                if (n == 0)
                    throw new dev.kvlab.harness.api.input.BadInputException(
                            w.trace() + ": no requests (an empty trace" + "): nothing to run");
            }
        }
    }
}
