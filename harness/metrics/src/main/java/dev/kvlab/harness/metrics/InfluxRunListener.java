package dev.kvlab.harness.metrics;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.ManifestSection;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.api.SummaryRow;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Feeds a matrix run to an {@link InfluxPublisher}: live meters while a cell runs (through the cell's observer), the
 * cell's summary row as one point when it ends, the push counts as the manifest's {@code observability} section.
 * Tags: run id, cell id, replicate, mode and every factor.
 */
public final class InfluxRunListener implements RunListener {

    private final InfluxPublisher publisher;
    private final Map<String, CellTags> open = new LinkedHashMap<>();

    public InfluxRunListener(InfluxPublisher publisher) {
        this.publisher = publisher;
    }

    private static String key(CellRun c) {
        return c.label();
    }

    @Override
    public void cellStarted(String runId, CellRun cell) {
        open.put(key(cell), CellTags.of(runId, cell.cell(), cell.replicate(), cell.config(), cell.factors()));
    }

    @Override
    public CellObserver cellObserver(String runId, CellRun cell) {
        CellTags t = open.get(key(cell));
        return t == null ? null : publisher.cellStarted(t);
    }

    @Override
    public void cellFinished(String runId, CellRun cell, CellResult result) {
        CellTags t = open.remove(key(cell));
        if (t == null) return;
        SummaryRow.Builder row = result.summary().columns().toBuilder();
        cell.factors().forEach(row::putIfAbsent);
        publisher.cellFinished(t, row.build());
    }

    @Override
    public void runFinished(RunEnd end) {
        for (CellTags t : open.values()) publisher.cellFinished(t, null);
        open.clear();
    }

    @Override
    public Map<String, ManifestSection> manifestSections() {
        return Map.of("observability", publisher.manifestSection());
    }
}
