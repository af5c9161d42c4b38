package dev.kvlab.harness.internal.metrics;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.internal.bundle.BundleJson;
import dev.kvlab.harness.internal.bundle.Durable;
import dev.kvlab.harness.internal.bundle.Manifest;
import dev.kvlab.harness.internal.bundle.PartialBundle;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A matrix run published to InfluxDB: every cell × replicate gets live meters fed by its {@link CellObserver}
 * (tagged run, cell, replicate, mode and every factor), a final push when it ends, and its summary row as one
 * point. When the run ends the publisher is drained and closed, the push counts go to stderr and, for a finished
 * bundle, into its {@code manifest.json} as {@code "observability"} (replaced atomically and re-sealed, like
 * {@code kvlab report} does; no secret: the target is described by URL, database/org/bucket and the token's variable name).
 */
public final class InfluxRunListener implements RunListener {

    private final InfluxPublisher pub;
    private final PrintStream err;
    private final Map<String, CellTags> tags = new LinkedHashMap<>();
    private final Map<String, CellObserver> observers = new LinkedHashMap<>();

    public InfluxRunListener(InfluxPublisher pub, PrintStream err) {
        this.pub = pub;
        this.err = err;
    }

    @Override
    public void cellStarted(String runId, CellRun cell) {
        CellTags t = CellTags.of(runId, cell.cell(), cell.replicate(), cell.config(), cell.factors());
        tags.put(cell.label(), t);
        observers.put(cell.label(), pub.cellStarted(t));
    }

    @Override
    public CellObserver cellObserver(String runId, CellRun cell) {
        return observers.get(cell.label());
    }

    @Override
    public void cellFinished(String runId, CellRun cell, CellResult result) {
        observers.remove(cell.label());
        CellTags t = tags.remove(cell.label());
        if (t == null) return;
        pub.cellFinished(t, row(cell, result));
    }

    /** The summary row as the bundle writes it: the summary's columns, then factor columns not already there. */
    static Map<String, Object> row(CellRun cell, CellResult result) {
        Map<String, Object> row = new LinkedHashMap<>(result.summary().columns());
        cell.factors().forEach(row::putIfAbsent);
        return row;
    }

    @Override
    public void runFinished(RunEnd end) {
        for (CellTags t : tags.values()) pub.cellFinished(t, null); // a cell that failed: its final push only
        tags.clear();
        observers.clear();
        pub.close();
        if (end.bundle() != null) {
            try {
                recordInManifest(end.bundle(), pub.manifestSection());
            } catch (IOException e) {
                err.println("kvlab: could not add the observability section to " + end.bundle().resolve(PartialBundle.MANIFEST) + ": " + e.getMessage());
            }
        }
    }

    /** Adds {@code "observability": section} to the bundle's manifest, sealed again (temporary sibling, then rename). */
    public static void recordInManifest(Path bundle, Map<String, Object> section) throws IOException {
        Path m = bundle.resolve(PartialBundle.MANIFEST);
        if (!Files.isRegularFile(m)) return;
        ObjectNode manifest = (ObjectNode) BundleJson.read(m);
        manifest.set("observability", BundleJson.mapper().valueToTree(section));
        Durable.replace(m, Manifest.sealed(manifest)); // re-sealed: kvlab verify checks the manifest's own bytes
    }
}
