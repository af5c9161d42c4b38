package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report renders in headless Chromium (Debian's {@code chromium}) with no console errors, every plot image
 * decodes, nothing is fetched from anywhere but the file itself, and a screenshot is taken
 * ({@code harness/report/target/report-screenshot.png}; also copied to {@code KVLAB_REPORT_SCREENSHOT} when set).
 * Skipped with a reason when chromium is missing, failed instead when {@code KVLAB_CI=1}.
 */
class ReportInChromiumTest {

    @TempDir
    Path tmp;

    @Test
    void rendersOfflineWithoutConsoleErrorsAndEveryImageDecodes() throws Exception {
        Path chromium = HeadlessChromium.binary();
        if (chromium == null) {
            String why = "chromium is not installed (" + HeadlessChromium.DEBIAN + "; apt-get install chromium)";
            if ("1".equals(System.getenv("KVLAB_CI"))) throw new AssertionError(why + " and KVLAB_CI=1");
            Assumptions.abort(why);
        }
        Path bundle = FixtureBundles.smoke(tmp);
        Path report = new ReportRenderer()
                .render(bundle, BundleFixture.draftManifest(bundle))
                .report();
        Path profile = Files.createDirectories(tmp.resolve("chromium-profile"));
        try (HeadlessChromium b = new HeadlessChromium(chromium, profile, 1400, 3000)) {
            b.call("Runtime.enable", Map.of());
            b.call("Log.enable", Map.of());
            b.call("Network.enable", Map.of());
            b.call("Page.enable", Map.of());
            b.call(
                    "Emulation.setDeviceMetricsOverride",
                    Map.of("width", 1400, "height", 3000, "deviceScaleFactor", 1, "mobile", false));
            b.call("Page.navigate", Map.of("url", report.toUri().toString()));
            assertThat(b.awaitEvent("Page.loadEventFired", Duration.ofSeconds(60)))
                    .as("page load event")
                    .isTrue();

            int images = b.eval("document.images.length").asInt();
            assertThat(images).as("plots in the page").isGreaterThanOrEqualTo(6);
            assertThat(b.eval(
                                    "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.alt)")
                            .toString())
                    .as("images that failed to decode")
                    .isEqualTo("[]");
            assertThat(b.eval("document.title").asText()).startsWith("kvlab report");
            JsonNode ids = b.eval("Array.from(document.querySelectorAll('h2[id]')).map(h => h.id)");
            assertThat(ids.toString())
                    .contains(
                            "emulated",
                            "latency",
                            "goodput",
                            "cdf",
                            "breakeven",
                            "tails",
                            "summary",
                            "paired",
                            "crosswalk",
                            "provenance");
            // the summary table has one row per cell
            assertThat(b.eval("document.querySelectorAll('table.summary tbody tr').length")
                            .asInt())
                    .isEqualTo(6);
            // nothing but the file itself (and inline data) was requested: the page opens offline
            assertThat(b.requests())
                    .allMatch(u -> u.startsWith("file:") || u.startsWith("data:"), "only file: and data: URLs");
            assertThat(b.problems())
                    .as("console errors, warnings, exceptions, failed loads")
                    .isEmpty();

            JsonNode shot = b.call("Page.captureScreenshot", Map.of("format", "png"));
            byte[] png = Base64.getDecoder().decode(shot.path("data").asText());
            assertThat(png).startsWith(0x89, 'P', 'N', 'G');
            Path out = Path.of("target", "report-screenshot.png");
            Files.createDirectories(out.getParent());
            Files.write(out, png);
            String copy = System.getenv("KVLAB_REPORT_SCREENSHOT");
            if (copy != null) Files.copy(out, Path.of(copy), StandardCopyOption.REPLACE_EXISTING);
            // and the whole page, for reading it end to end
            int height =
                    b.eval("Math.ceil(document.documentElement.scrollHeight)").asInt();
            JsonNode full = b.call(
                    "Page.captureScreenshot",
                    Map.of(
                            "format",
                            "png",
                            "captureBeyondViewport",
                            true,
                            "clip",
                            Map.of("x", 0, "y", 0, "width", 1400, "height", height, "scale", 1)));
            Files.write(
                    Path.of("target", "report-screenshot-full.png"),
                    Base64.getDecoder().decode(full.path("data").asText()));

            // the SVG versions of the plots decode in a browser too
            StringBuilder page = new StringBuilder(
                    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>svg</title></head><body>");
            int svgs = 0;
            try (var files = Files.list(bundle.resolve("plots"))) {
                for (Path p : files.filter(f -> f.toString().endsWith(".svg"))
                        .sorted()
                        .toList()) {
                    page.append("<img alt=\"")
                            .append(p.getFileName())
                            .append("\" src=\"")
                            .append(p.toUri())
                            .append("\">");
                    svgs++;
                }
            }
            Path svgPage = tmp.resolve("svg-check.html");
            Files.writeString(svgPage, page.append("</body></html>").toString());
            b.events.clear();
            b.call("Page.navigate", Map.of("url", svgPage.toUri().toString()));
            assertThat(b.awaitEvent("Page.loadEventFired", Duration.ofSeconds(60)))
                    .isTrue();
            assertThat(svgs).isEqualTo(images);
            assertThat(b.eval(
                                    "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.alt)")
                            .toString())
                    .as("SVG plots that failed to decode")
                    .isEqualTo("[]");
            assertThat(b.problems()).as("errors while loading the SVG plots").isEmpty();
        }
    }
}
