package dev.kvlab.harness.experiments.internal.capacity;

import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.run.ResolvedConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code capacity.replicates}: the searched cells run that many replicates (seeds {@code seed + k}, as the matrix's own
 * replicates), the other cells keep the matrix's {@code replicates}. A capacity interval needs more replicates than a
 * live cell can afford, and sim probes cost milliseconds. The replicates a search adds to a cell whose interval is too
 * wide ({@code capacity.max_replicates}, {@link IntervalTarget}) are made here too.
 */
public final class CapacityReplicates {

    private CapacityReplicates() {}

    public static List<MatrixCell> apply(CapacitySpec c, List<MatrixCell> cells, int matrixReplicates) {
        if (c.replicates() == matrixReplicates) return cells;
        List<MatrixCell> out = new ArrayList<>();
        for (MatrixCell cell : cells) {
            if (!c.searches(cell.factors())) {
                out.add(cell);
                continue;
            }
            List<CellRun> runs = new ArrayList<>();
            CellRun first = cell.runs().get(0);
            for (int k = 0; k < c.replicates(); k++)
                runs.add(k < cell.runs().size() ? cell.runs().get(k) : replicate(first, k));
            out.add(new MatrixCell(cell.index(), cell.id(), cell.factors(), runs));
        }
        return out;
    }

    /** Replicate {@code k} of the cell whose replicate 0 is {@code first}: its tree with {@code seed + k}. */
    public static CellRun replicate(CellRun first, int k) {
        long seed = first.seed() + k;
        ResolvedConfig r = new ResolvedConfig(
                        first.config(), first.tree(), first.cell() + " replicate " + k + " (seed + " + k + ")")
                .withSeed(seed);
        RunConfig rc = r.config(); // only the seed differs from a config already checked
        return new CellRun(first.cell(), first.index(), first.factors(), k, seed, rc.mode(), rc, r.tree());
    }
}
