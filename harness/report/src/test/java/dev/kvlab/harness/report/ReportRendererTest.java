package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.input.BadInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportRendererTest {

    @TempDir
    Path tmp;

    @Test
    void writesAPageAndEveryPlotAsPngAndSvgDeterministically() throws Exception {
        Path bundle = FixtureBundles.smoke(tmp);
        ReportRenderer.Rendered r = new ReportRenderer().render(bundle, BundleFixture.draftManifest(bundle));
        assertThat(r.report()).isEqualTo(bundle.resolve("report.html"));
        assertThat(r.files())
                .contains(
                        "report.html",
                        "plots/ttft-p50-p99.png",
                        "plots/ttft-p50-p99.svg",
                        "plots/itl-p50-p99.png",
                        "plots/goodput.png",
                        "plots/hit-ratios.png");
        for (String f : r.files()) {
            assertThat(bundle.resolve(f)).isRegularFile();
            assertThat(Files.size(bundle.resolve(f))).isGreaterThan(1000);
        }
        for (String f : r.files()) {
            if (f.endsWith(".png"))
                assertThat(Files.readAllBytes(bundle.resolve(f))).startsWith(0x89, 'P', 'N', 'G');
            if (f.endsWith(".svg"))
                assertThat(Files.readString(bundle.resolve(f))).contains("<svg");
        }
        String html = Files.readString(r.report(), StandardCharsets.UTF_8);
        // self-contained: nothing fetched from anywhere
        assertHasNot(html, "<script", "http://", "https://", "<link");
        assertHas(html, "data:image/png;base64,");
        // every cell, the emulated statement, the cross-walk, provenance from the manifest handed over
        assertHas(
                html,
                "c01-cold_local-only",
                "c06-hot_combined",
                "GPU time",
                "AIPerf",
                "0123456789abcdef0123456789abcdef01234567",
                "--influx-token &lt;redacted&gt;");
        // no temporaries left behind
        try (Stream<Path> s = Files.walk(bundle)) {
            assertThat(s.map(p -> p.getFileName().toString())
                            .filter(n -> n.endsWith(".tmp"))
                            .toList())
                    .isEmpty();
        }

        byte[] svg = Files.readAllBytes(bundle.resolve("plots/ttft-p50-p99.svg"));
        byte[] png = Files.readAllBytes(bundle.resolve("plots/goodput.png"));
        new ReportRenderer().render(bundle, BundleFixture.draftManifest(bundle));
        assertThat(Files.readAllBytes(bundle.resolve("plots/ttft-p50-p99.svg"))).isEqualTo(svg);
        assertThat(Files.readAllBytes(bundle.resolve("plots/goodput.png"))).isEqualTo(png);
        assertThat(Files.readString(r.report(), StandardCharsets.UTF_8).equals(html))
                .as("same page twice")
                .isTrue();
        copyForDevelopers(bundle, r, "smoke");
    }

    @Test
    void removesPlotsItNoLongerDrawsAndLeavesOtherFilesAlone() throws Exception {
        Path bundle = FixtureBundles.smoke(tmp);
        Files.createDirectories(bundle.resolve("plots"));
        Files.writeString(bundle.resolve("plots/old-figure.png"), "stale");
        Files.writeString(bundle.resolve("plots/.ttft-p50-p99.png.tmp"), "crashed");
        byte[] summary = Files.readAllBytes(bundle.resolve("summary.json"));
        new ReportRenderer().render(bundle);
        assertThat(bundle.resolve("plots/old-figure.png")).doesNotExist();
        assertThat(bundle.resolve("plots/.ttft-p50-p99.png.tmp")).doesNotExist();
        assertThat(Files.readAllBytes(bundle.resolve("summary.json"))).isEqualTo(summary);
        // without a manifest the page says so instead of inventing provenance
        assertHas(Files.readString(bundle.resolve("report.html")), "No manifest.json");
    }

    @Test
    void aDirectoryThatIsNotABundleIsBadInput() {
        assertThatThrownBy(() -> new ReportRenderer().render(tmp))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("summary.json");
        assertThatThrownBy(() -> new ReportRenderer().render(tmp.resolve("missing")))
                .isInstanceOf(BadInputException.class);
    }

    @Test
    void recomputeVsFetchRunsGetTheBreakevenWithItsCrossingAndMeasuredPoints() throws Exception {
        Path bundle = FixtureBundles.recomputeVsFetch(tmp);
        ReportRenderer.Rendered r = new ReportRenderer().render(bundle);
        assertThat(r.files())
                .contains("plots/breakeven.png", "plots/breakeven.svg")
                .doesNotContain("plots/ttft-p99-over-time.png");
        String html = Files.readString(r.report());
        // llama-3-8b on one H100: over 10 Gbps per GPU recompute wins for long prefixes; over 4x200 Gbps fetch always
        // wins
        assertHas(
                html,
                "<code>10gbps</code>",
                "<code>4x200gbps</code>",
                "recompute wins from here",
                "fetch wins at every length drawn");
        // the fetch cells fetched, so their requests are drawn on top; recompute cells fetched nothing
        assertThat(java.util.regex.Pattern.compile("<code>4x200gbps</code>[^\\n]*<td class=\"num\">[\\d,]+ \\(× ")
                        .matcher(html)
                        .find())
                .as("measured fetches drawn for 4x200gbps")
                .isTrue();
        assertHas(html, "Drawn for runs with a fault factor or live cells");
        // one replicate: no interval is invented
        assertHasNot(html, "[NaN");
        copyForDevelopers(bundle, r, "rvf");
    }

    @Test
    void aFaultFactorGetsTheTailOverTime() throws Exception {
        Path bundle = FixtureBundles.faults(tmp);
        ReportRenderer.Rendered r = new ReportRenderer().render(bundle);
        assertThat(r.files()).contains("plots/ttft-p99-over-time.png", "plots/itl-p99-over-time.svg");
        assertHas(Files.readString(r.report()), "TTFT tail over time", "c02-node-crash");
        copyForDevelopers(bundle, r, "faults");
    }

    /** Fails naming only the missing snippets (the page is too long to print). */
    static void assertHas(String html, String... snippets) {
        java.util.List<String> missing =
                java.util.Arrays.stream(snippets).filter(x -> !html.contains(x)).toList();
        assertThat(missing).as("snippets missing from report.html").isEmpty();
    }

    static void assertHasNot(String html, String... snippets) {
        java.util.List<String> present =
                java.util.Arrays.stream(snippets).filter(html::contains).toList();
        assertThat(present).as("snippets that must not be in report.html").isEmpty();
    }

    /** {@code KVLAB_REPORT_DEV_OUT=/dir}: keep a copy of the rendered report to look at. */
    static void copyForDevelopers(Path bundle, ReportRenderer.Rendered r, String name) throws Exception {
        String dev = System.getenv("KVLAB_REPORT_DEV_OUT");
        if (dev == null) return;
        Path out = Path.of(dev).resolve(name);
        Files.createDirectories(out.resolve("plots"));
        for (String f : r.files())
            Files.copy(bundle.resolve(f), out.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
