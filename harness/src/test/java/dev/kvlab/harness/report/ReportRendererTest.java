package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.internal.report.ReportRenderer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportRendererTest {

    @TempDir
    static Path tmp;
    static Path bundle;

    @BeforeAll
    static void bundle() throws Exception {
        long t0 = System.nanoTime();
        bundle = new BundleFixture(BundleFixture.BASE).name("smoke")
                .factor("cache_state", "cold", "hot").factor("tiers", "local-only", "remote-only", "combined").write(tmp);
        System.out.printf("fixture: %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    @Test
    void rendersPageAndPlots() throws Exception {
        long t0 = System.nanoTime();
        ReportRenderer.Rendered r = new ReportRenderer().render(bundle, BundleFixture.draftManifest(bundle));
        System.out.printf("render: %.1f s%n", (System.nanoTime() - t0) / 1e9);
        byte[] first = Files.readAllBytes(bundle.resolve("plots/ttft-p50-p99.svg"));
        byte[] firstHtml = Files.readAllBytes(bundle.resolve("report.html"));
        t0 = System.nanoTime();
        new ReportRenderer().render(bundle, BundleFixture.draftManifest(bundle));
        System.out.printf("render again: %.1f s%n", (System.nanoTime() - t0) / 1e9);
        assertThat(Files.readAllBytes(bundle.resolve("plots/ttft-p50-p99.svg"))).isEqualTo(first);
        assertThat(Files.readAllBytes(bundle.resolve("report.html"))).isEqualTo(firstHtml);
        assertThat(r.report()).exists();
        assertThat(r.files()).contains("report.html", "plots/ttft-p50-p99.png", "plots/ttft-p50-p99.svg");
        String dev = System.getenv("KVLAB_REPORT_DEV_OUT");
        if (dev != null) {
            Path out = Path.of(dev);
            Files.createDirectories(out.resolve("plots"));
            Files.copy(r.report(), out.resolve("report.html"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            for (String f : r.files()) Files.copy(bundle.resolve(f), out.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
