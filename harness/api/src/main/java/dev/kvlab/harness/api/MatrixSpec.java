package dev.kvlab.harness.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An ablation matrix, resolved and validated: a base run config plus {@code factors} (config key → levels),
 * {@code exclude} rules, {@code replicates} and a {@code baseline} cell, expanded into {@link MatrixCell}s whose
 * every replicate is already bound (so a bad key or value fails before anything runs, naming FILE:LINE). A plain
 * run config is a one-cell matrix. The YAML keys are in {@code docs/bundle-format.md} ("Matrix files").
 *
 * @param name        {@code name:}, else the file's base name
 * @param file        the matrix file (null when parsed from text)
 * @param description {@code description:} or null
 * @param factors     factor config key → level labels, in matrix order
 * @param replicates  runs per cell, seeds {@code seed + k}
 * @param baseline    the baseline cell's id, or null
 * @param cells       the cells in matrix order (first factor varies slowest), exclusions removed
 * @param inputs      every input file (matrix, traces, catalog files, profiles) with its SHA-256
 * @param sha256      hash of the resolved matrix (every cell's resolved config and every input's hash): the
 *                    run id's suffix, and what {@code --resume} matches
 * @param resolved    the matrix keys as resolved ({@code name, factors, exclude, replicates, baseline, capacity, set, mode})
 * @param experiment  the experiment block (a {@link CapacitySpec}: the cells are searched for their capacity under SLO), or null (a fixed matrix)
 */
public record MatrixSpec(
        String name,
        Path file,
        String description,
        Map<String, List<String>> factors,
        int replicates,
        String baseline,
        List<MatrixCell> cells,
        List<Input> inputs,
        String sha256,
        ObjectNode resolved,
        ExperimentSpec experiment) {

    /** An input file of the run: {@code path} as resolved (absolute), or {@code builtin:...} for a resource in the jar. */
    public record Input(String path, String sha256, long bytes) {}

    public MatrixSpec {
        Map<String, List<String>> f = new LinkedHashMap<>();
        factors.forEach((k, v) -> f.put(k, List.copyOf(v)));
        factors = Collections.unmodifiableMap(f);
        cells = List.copyOf(cells);
        inputs = List.copyOf(inputs);
    }

    /** Told as a matrix is expanded and validated cell by cell. */
    @FunctionalInterface
    public interface Expansion {
        /** {@code done} of {@code total} cells are expanded and validated. */
        void cells(int done, int total);

        Expansion NONE = (d, t) -> {};
    }

    /**
     * Every cell × replicate as configured, in matrix order (cell by cell, replicates in order). A fixed matrix runs
     * exactly these; a capacity search runs probes derived from them (see {@code MatrixExperiment}).
     */
    public List<CellRun> runs() {
        List<CellRun> out = new ArrayList<>();
        for (MatrixCell c : cells) out.addAll(c.runs());
        return out;
    }

    /** The {@code capacity:} block, or null when the matrix has none. */
    public CapacitySpec capacity() {
        return experiment instanceof CapacitySpec c ? c : null;
    }

    /** One cell run once: {@code kvlab run --json} prints the cell's own JSON then. */
    public boolean singleRun() {
        return experiment == null && cells.size() == 1 && replicates == 1;
    }

    /** The cell with {@code id}, or null. */
    public MatrixCell cell(String id) {
        for (MatrixCell c : cells) if (c.id().equals(id)) return c;
        return null;
    }
}
