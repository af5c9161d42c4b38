package dev.kvlab.harness.api;

import java.util.List;
import java.util.Map;

/**
 * One cell of a matrix: an assignment of every factor to one of its levels, run {@code replicates} times.
 *
 * @param index     position in matrix order, from 0
 * @param id        {@code c<NN>-<levels joined by '_'>} (docs/bundle-format.md)
 * @param factors   factor config key → level label, in matrix order
 * @param runs      one {@link CellRun} per replicate
 */
public record MatrixCell(int index, String id, Map<String, String> factors, List<CellRun> runs) {

    public MatrixCell {
        factors = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(factors));
        runs = List.copyOf(runs);
    }
}
