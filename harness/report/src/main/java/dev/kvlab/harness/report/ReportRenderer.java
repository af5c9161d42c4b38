package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.bundle.CapacityFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Renders a result bundle's {@code report.html} and {@code plots/<name>.png} + {@code .svg} from the bundle's own
 * files ({@code summary.json}, {@code cells/}, {@code manifest.json}). The page is self-contained (inline CSS, plots
 * as data URIs, no scripts) and opens offline.
 *
 * <p>Every file is replaced atomically (temporary sibling, fsync, rename), never rewritten in place; plots of an
 * earlier rendering that this one no longer draws are removed. The same bundle renders to the same bytes on the
 * same machine (fixed fonts and sizes, no timestamps). A finished bundle is re-rendered through {@link SealedReport},
 * which never changes what the run sealed.
 *
 * <p>The matrix runner calls {@link #render(Path, JsonNode)} on its {@code .partial} directory before it writes the
 * manifest, handing over the manifest it is about to write (its {@code files} list may be absent) so the page can
 * show provenance. Holds no state between renders.
 */
public final class ReportRenderer {

    /** The page's file name in the bundle. */
    public static final String REPORT = "report.html";
    /** The plots' directory in the bundle. */
    public static final String PLOTS = "plots";

    /**
     * What a render wrote.
     *
     * @param report the page
     * @param files  every file written, relative to the bundle ({@code report.html}, {@code plots/…}), sorted
     */
    public record Rendered(Path report, List<String> files) {}

    public ReportRenderer() {}

    /** Renders {@code bundleDir} using its {@code manifest.json} (if any) for provenance. */
    public Rendered render(Path bundleDir) {
        return render(bundleDir, null);
    }

    /**
     * Renders {@code bundleDir}; {@code manifest} (when not null) stands for {@code manifest.json}, e.g. the one
     * the runner is about to write. {@link dev.kvlab.harness.api.input.BadInputException} when the directory is not a
     * bundle.
     */
    public Rendered render(Path bundleDir, JsonNode manifest) {
        return render(bundleDir, manifest, bundleDir);
    }

    /** Renders {@code bundleDir} (read-only) into {@code outDir}: {@code report.html} and {@code plots/} there. */
    public Rendered render(Path bundleDir, JsonNode manifest, Path outDir) {
        BundleData b = BundleData.read(bundleDir, manifest);
        JsonNode capacity = CapacityFile.exists(bundleDir) ? BundleData.readJson(CapacityFile.in(bundleDir)) : null;
        BundleData fixed = capacity == null ? b : b.withoutProbes(capacity);
        Figures fixedFigures = Figures.of(fixed);
        List<Plot> all = new ArrayList<>(CapacityPlots.of(capacity));
        all.addAll(fixedFigures.plots());
        Figures figures = new Figures(all, fixedFigures.notes(), fixedFigures.breakeven());

        Map<String, Plot> byName = new LinkedHashMap<>();
        Map<String, byte[]> pngs = new LinkedHashMap<>();
        Set<String> written = new TreeSet<>();
        Path plotDir = outDir.resolve(PLOTS);
        // encoding dominates (AWT rasterising, VectorGraphics2D); the plots are independent, so use the cores
        List<byte[][]> encoded = figures.plots().parallelStream()
                .map(p -> new byte[][] {PlotFiles.png(p), PlotFiles.svg(p)})
                .toList();
        for (int i = 0; i < encoded.size(); i++) {
            Plot p = figures.plots().get(i);
            AtomicFiles.write(plotDir.resolve(p.name() + ".png"), encoded.get(i)[0]);
            AtomicFiles.write(plotDir.resolve(p.name() + ".svg"), encoded.get(i)[1]);
            written.add(PLOTS + "/" + p.name() + ".png");
            written.add(PLOTS + "/" + p.name() + ".svg");
            byName.put(p.name(), p);
            pngs.put(p.name(), encoded.get(i)[0]);
        }
        removeStale(plotDir, written);
        String html = new ReportPage(b, fixed, capacity, byName, pngs, figures.notes(), figures.breakeven()).render();
        Path report = outDir.resolve(REPORT);
        AtomicFiles.write(report, html.getBytes(StandardCharsets.UTF_8));
        written.add(REPORT);
        return new Rendered(report, List.copyOf(written));
    }

    /** Removes earlier plots this render did not draw (and temporaries a crash may have left). */
    private static void removeStale(Path plotDir, Set<String> written) {
        if (!Files.isDirectory(plotDir)) return;
        List<Path> stale = new ArrayList<>();
        try (Stream<Path> s = Files.list(plotDir)) {
            s.filter(Files::isRegularFile).forEach(p -> {
                String rel = PLOTS + "/" + p.getFileName();
                String n = p.getFileName().toString();
                boolean ours = n.endsWith(".png") || n.endsWith(".svg") || n.endsWith(".tmp");
                if (ours && !written.contains(rel)) stale.add(p);
            });
            for (Path p : stale) Files.delete(p);
            if (!stale.isEmpty()) AtomicFiles.forceDirectory(plotDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot tidy " + plotDir + ": " + e.getMessage(), e);
        }
    }
}
