package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.bundle.BundleJson;
import dev.kvlab.harness.bundle.BundleVerifier;
import dev.kvlab.harness.bundle.Durable;
import dev.kvlab.harness.bundle.OpenedBundle;
import dev.kvlab.harness.bundle.Sha256;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code kvlab report} on a finished bundle. A bundle's seal (manifest.json's checksums and {@code manifest_sha256})
 * is set only by the run that wrote it; re-rendering never re-seals. So a re-render first verifies every file the
 * report is drawn from (all but {@code report.html} and {@code plots/}) and refuses a bundle that fails, naming the
 * file. It then renders into a scratch directory and
 * <ul>
 *   <li>with an output directory: writes {@code report.html} and {@code plots/} there, the bundle untouched;</li>
 *   <li>in place: restores the page and plots only where the rendering is byte-identical to what the run sealed
 *       (a deleted or damaged page is repaired, stray plots removed), and refuses, writing nothing, where this
 *       kvlab renders a file differently from the sealed copy.</li>
 * </ul>
 */
public final class SealedReport {

    /** The bundle cannot be re-rendered as asked: each line names a file and what is wrong. Nothing was written. */
    public static final class Refused extends RuntimeException {
        private final List<String> problems;

        Refused(String message, List<String> problems) {
            super(message);
            this.problems = List.copyOf(problems);
        }

        public List<String> problems() {
            return problems;
        }
    }

    /**
     * What a re-render did.
     *
     * @param report   the page written or kept
     * @param restored bundle-relative files written back or removed in place (empty when the bundle was already whole)
     */
    public record Outcome(Path report, List<String> restored) {}

    private final ReportRenderer renderer;

    public SealedReport(ReportRenderer renderer) {
        this.renderer = renderer;
    }

    /** True for the files a re-render produces (they are derived from the others). */
    public static boolean derived(String rel) {
        return rel.equals(ReportRenderer.REPORT)
                || rel.startsWith(ReportRenderer.PLOTS + "/")
                || rel.equals(ReportRenderer.PLOTS + "/");
    }

    /**
     * Re-renders {@code bundle} into {@code outDir}, or in place when {@code outDir} is null. An archived bundle
     * ({@code .tar.gz}, {@code kvlab archive}) is read through a temporary extraction ({@link OpenedBundle}) and rendered
     * into {@code outDir}, by default {@code <archive name without .tar.gz>-report/} beside it (an archive is not
     * rewritten).
     */
    public Outcome rerender(Path bundle, Path outDir) {
        String name = bundle.getFileName() == null ? "" : bundle.getFileName().toString();
        if (Files.isRegularFile(bundle) && (name.endsWith(".tar.gz") || name.endsWith(".tgz"))) {
            Path to = outDir != null
                    ? outDir
                    : bundle.resolveSibling(
                            name.substring(0, name.length() - (name.endsWith(".tgz") ? 4 : 7)) + "-report");
            try (OpenedBundle ob = OpenedBundle.open(bundle)) {
                return rerender(ob.dir(), to);
            } catch (IOException e) {
                throw new BadInputException(bundle + ": not a readable bundle archive: " + e.getMessage());
            }
        }
        if (!Files.isDirectory(bundle)) throw new BadInputException(bundle + ": no such bundle directory");
        if (!Files.isRegularFile(bundle.resolve("summary.json")))
            throw new BadInputException(bundle + ": not a result bundle (no summary.json)");
        Path absBundle = bundle.toAbsolutePath().normalize();
        if (outDir != null && outDir.toAbsolutePath().normalize().startsWith(absBundle))
            throw new BadInputException(
                    outDir + ": inside the bundle; --out must be outside it (the bundle's files are sealed)");
        if (outDir != null && Files.exists(outDir) && !Files.isDirectory(outDir))
            throw new BadInputException(outDir + ": is not a directory");
        List<String> problems = new ArrayList<>();
        BundleVerifier.verify(bundle, SealedReport::derived).forEach(p -> problems.add(p.toString()));
        if (!problems.isEmpty())
            throw new Refused(
                    bundle + ": " + problems.get(0) + "; refusing to render a bundle that fails verification "
                            + "(a bundle's seal is set only by the run that wrote it)",
                    problems);
        Path scratch;
        try {
            scratch = Files.createTempDirectory("kvlab-report-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a scratch directory: " + e.getMessage(), e);
        }
        try {
            ReportRenderer.Rendered r = renderer.render(bundle, null, scratch);
            return outDir != null ? copyOut(scratch, r, outDir) : restoreInPlace(bundle, scratch, r);
        } finally {
            try {
                Durable.deleteTree(scratch);
            } catch (IOException ignored) {
                // a temporary directory; the OS cleans it up
            }
        }
    }

    private static Outcome copyOut(Path scratch, ReportRenderer.Rendered r, Path outDir) {
        for (String f : r.files()) AtomicFiles.write(outDir.resolve(f), read(scratch.resolve(f)));
        return new Outcome(outDir.resolve(ReportRenderer.REPORT), List.of());
    }

    private static Outcome restoreInPlace(Path bundle, Path scratch, ReportRenderer.Rendered r) {
        JsonNode manifest;
        try {
            manifest = BundleJson.read(bundle.resolve("manifest.json"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + bundle.resolve("manifest.json") + ": " + e.getMessage(), e);
        }
        Map<String, String> sealed = new LinkedHashMap<>();
        for (JsonNode e : manifest.path("files"))
            if (derived(e.path("path").asText()))
                sealed.put(e.path("path").asText(), e.path("sha256").asText());
        List<String> differ = new ArrayList<>();
        for (String f : r.files()) {
            String want = sealed.get(f);
            if (want == null) differ.add(f + ": this kvlab draws it, the sealed bundle has no such file");
            else if (!want.equals(Sha256.of(read(scratch.resolve(f)))))
                differ.add(f + ": this kvlab renders it differently from the copy the run sealed");
        }
        for (String f : sealed.keySet())
            if (!r.files().contains(f)) differ.add(f + ": sealed in the bundle, this kvlab no longer draws it");
        if (!differ.isEmpty())
            throw new Refused(
                    bundle + ": " + differ.get(0) + "; the bundle is unchanged (its seal is the run's); "
                            + "write the new rendering elsewhere with --out DIR",
                    differ);
        List<String> restored = new ArrayList<>();
        for (String f : r.files()) {
            Path target = bundle.resolve(f);
            byte[] bytes = read(scratch.resolve(f));
            try {
                if (Files.isRegularFile(target) && Sha256.of(target).equals(sealed.get(f))) continue;
            } catch (IOException e) {
                // unreadable: replace it
            }
            AtomicFiles.write(target, bytes);
            restored.add(f);
        }
        Path plots = bundle.resolve(ReportRenderer.PLOTS);
        if (Files.isDirectory(plots)) {
            try (Stream<Path> s = Files.list(plots)) {
                for (Path p : s.toList()) {
                    String rel = ReportRenderer.PLOTS + "/" + p.getFileName();
                    if (!sealed.containsKey(rel) && !Files.isDirectory(p)) {
                        Files.delete(p);
                        restored.add(rel);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot tidy " + plots + ": " + e.getMessage(), e);
            }
        }
        return new Outcome(bundle.resolve(ReportRenderer.REPORT), restored);
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + p + ": " + e.getMessage(), e);
        }
    }
}
