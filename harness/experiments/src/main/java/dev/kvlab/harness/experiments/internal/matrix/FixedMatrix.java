package dev.kvlab.harness.experiments.internal.matrix;

import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.Experiment;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunRecords;
import java.util.ArrayList;
import java.util.List;

/** The fixed experiment: every cell × replicate of the matrix, known up front ({@link MatrixSpec#runs()}). */
public final class FixedMatrix implements Experiment {

    private final List<CellRun> runs;

    public FixedMatrix(MatrixSpec spec) {
        this.runs = spec.runs();
    }

    @Override
    public Step step(RunRecords recorded) {
        List<CellRun> done = new ArrayList<>(), next = new ArrayList<>();
        for (CellRun r : runs) (recorded.recorded(r) ? done : next).add(r);
        return new Step(done, next);
    }

    @Override
    public int maxRuns() {
        return runs.size();
    }
}
