package dev.kvlab.harness.internal.report;

import dev.kvlab.harness.internal.bundle.Csv;
import dev.kvlab.harness.internal.bundle.Durable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Renders a bundle's {@code report.html} (and {@code plots/}) from its files. PLACEHOLDER from the bundle
 * engineer so that every bundle is complete: a plain table of {@code summary.csv}. The report engineer replaces
 * this class (same name and method); the matrix runner calls {@link #render} after the summaries and before
 * {@code manifest.json} is written.
 */
public final class ReportRenderer {

    /** Writes {@code report.html} into {@code bundleDir} (which holds summary.csv, summary.json, cells/). */
    public void render(Path bundleDir) throws IOException {
        List<List<String>> rows = Csv.parse(Files.readString(bundleDir.resolve("summary.csv"), StandardCharsets.UTF_8));
        StringBuilder sb = new StringBuilder("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>kvlab ")
                .append(esc(bundleDir.getFileName().toString().replaceFirst("^\\.", "").replaceFirst("\\.partial$", "")))
                .append("</title></head><body>\n<h1>kvlab run</h1>\n<p>Summary per cell and replicate (plots: kvlab report).</p>\n<table border=\"1\">\n");
        for (int i = 0; i < rows.size(); i++) {
            sb.append("<tr>");
            for (String c : rows.get(i)) sb.append(i == 0 ? "<th>" : "<td>").append(esc(c)).append(i == 0 ? "</th>" : "</td>");
            sb.append("</tr>\n");
        }
        sb.append("</table>\n</body></html>\n");
        Durable.replace(bundleDir.resolve("report.html"), sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
