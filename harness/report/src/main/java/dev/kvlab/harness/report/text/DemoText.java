package dev.kvlab.harness.report.text;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.bundle.CapacityFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The demo's answer as it prints it: the capacity table (does a cache raise the load that still meets the SLO?),
 * then the cells run at one fixed load, not as probes of a search.
 */
public final class DemoText {

    private DemoText() {}

    /** Prints the demo's {@code bundle}. */
    public static void print(PrintWriter w, Path bundle) throws IOException {
        java.util.Optional<JsonNode> capacity = CapacityFile.read(bundle);
        if (capacity.isPresent()) {
            JsonNode c = capacity.get();
            w.println("Does a cache raise the load that still meets the SLO? (sim; gain over "
                    + c.path("baseline").asText("-") + ", paired by seed)");
            CapacityText.print(w, c);
        }
        java.util.Set<String> probes = capacity.map(CapacityFile::probeCells).orElse(java.util.Set.of());
        headline(w, BundleText.summary(bundle), probes);
    }

    private static void headline(PrintWriter w, JsonNode summary, java.util.Set<String> probes) {
        boolean any = false;
        for (JsonNode c : summary.path("cells"))
            any |= !probes.contains(c.path("cell").asText());
        if (!any) return;
        w.println("At one fixed load" + (probes.isEmpty() ? "" : " (the cells not searched)")
                + ": what the tiers buy (means over replicates; "
                + "sim = modelled, live = real bytes over TCP, GPU time emulated):");
        w.printf(
                Locale.ROOT,
                "  %-30s %12s %12s %12s %12s %14s%n",
                "cell",
                "ttft p50 ms",
                "ttft p99 ms",
                "local hit",
                "remote hit",
                "goodput req/s");
        for (JsonNode c : summary.path("cells")) {
            if (probes.contains(c.path("cell").asText())) continue;
            JsonNode m = c.path("metrics");
            w.printf(
                    Locale.ROOT,
                    "  %-30s %12.3f %12.3f %12.3f %12.3f %14.3f%n",
                    c.path("cell").asText(),
                    m.path(Columns.TTFT_P50.name()).path("mean").asDouble(),
                    m.path(Columns.TTFT_P99.name()).path("mean").asDouble(),
                    m.path(Columns.LOCAL_HIT_RATIO.name()).path("mean").asDouble(),
                    m.path(Columns.REMOTE_HIT_RATIO.name()).path("mean").asDouble(),
                    m.path(Columns.GOODPUT_RPS.name()).path("mean").asDouble());
        }
        w.println();
        w.flush();
    }
}
