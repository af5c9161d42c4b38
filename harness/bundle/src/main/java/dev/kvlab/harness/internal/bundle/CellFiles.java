package dev.kvlab.harness.internal.bundle;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.config.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The files of one cell × replicate ({@code cells/<cell>/r<k>/}): one {@code .hlog} per {@link Metric},
 * {@code requests.csv} and {@code cell.json}. Written into {@code cells/<cell>/.r<k>.tmp/}, fsynced, and renamed
 * to {@code r<k>}: a replicate directory that exists is complete.
 */
public final class CellFiles {

    public static final String CELL_JSON = "cell.json";
    public static final String REQUESTS_CSV = "requests.csv";

    private CellFiles() {}

    public static Path dir(Path bundle, String cell, int replicate) {
        return bundle.resolve("cells").resolve(cell).resolve("r" + replicate);
    }

    public static void write(Path bundle, CellRun run, CellResult result) throws IOException {
        Path cellDir = bundle.resolve("cells").resolve(run.cell());
        Files.createDirectories(cellDir);
        Path tmp = cellDir.resolve(".r" + run.replicate() + ".tmp");
        Durable.deleteTree(tmp);
        Files.createDirectory(tmp);
        String clock = run.mode() == Mode.SIM ? "virtual (sim)" : "wall (live)";
        for (Metric m : Metric.values()) {
            List<IntervalHistogram> iv = result.intervals().getOrDefault(m, List.of());
            Durable.writeNew(tmp.resolve(m.id() + ".hlog"), HlogFile.write(m, iv, run.cell(), run.replicate(), clock));
        }
        result.requestLog().writeTo(tmp.resolve(REQUESTS_CSV));
        Durable.fsyncFile(tmp.resolve(REQUESTS_CSV));
        Durable.writeNew(tmp.resolve(CELL_JSON), cellJson(run, result));
        Durable.fsyncDir(tmp);
        Durable.moveDir(tmp, cellDir.resolve("r" + run.replicate()));
        Durable.fsyncDir(cellDir);
        Durable.fsyncDir(cellDir.getParent());
    }

    /** {@code {cell, replicate, seed, mode, factors, summary: CellResult.json(), extra_fields, describe, config}}. */
    static byte[] cellJson(CellRun run, CellResult result) throws IOException {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode o = f.objectNode();
        o.put("cell", run.cell());
        o.put("replicate", run.replicate());
        o.put("seed", run.seed());
        o.put("mode", run.mode().label());
        ObjectNode fac = o.putObject("factors");
        run.factors().forEach(fac::put);
        ObjectNode s = o.putObject("summary");
        for (Map.Entry<String, Object> e : result.json().entrySet()) s.set(e.getKey(), Rows.toJson(e.getValue()));
        ArrayNode extra = o.putArray("extra_fields");
        result.extras().keySet().forEach(extra::add);
        ObjectNode d = o.putObject("describe");
        result.describe().forEach(d::put);
        o.set("config", run.tree());
        return BundleJson.pretty(o);
    }
}
