package dev.kvlab.harness.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.run.CellRunner;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed reference bundle ({@code results/reference/<run-id>/}) verifies, and re-running its manifest gives
 * bit-identical summaries: a change that moves any sim result fails here. Re-baselining (see
 * {@code results/reference/reference.yaml}) is a deliberate commit that says why.
 */
class ReferenceBundleTest {

    static Path referenceBundle() throws Exception {
        Path r = dev.kvlab.workloads.testing.SourceTree.file("results/reference/reference.yaml")
                .getParent();
        try (Stream<Path> s = Files.list(r)) {
            List<Path> bundles = s.filter(p -> Files.isRegularFile(p.resolve("manifest.json")))
                    .toList();
            assertThat(bundles).as("exactly one reference bundle under " + r).hasSize(1);
            return bundles.get(0);
        }
    }

    @Test
    void referenceBundleVerifiesAndRerunsBitIdentical() throws Exception {
        Path b = referenceBundle();
        assertThat(BundleVerifier.verify(b)).isEmpty();
        StringWriter log = new StringWriter();
        BundleVerifier.Rerun r = BundleVerifier.rerun(b, new CellRunner(), new PrintWriter(log));
        assertThat(r.simRuns()).isEqualTo(8);
        assertThat(r.liveRuns()).isZero();
        assertThat(r.mismatches())
                .as("the sim results moved; if that is intended, re-baseline results/reference (see reference.yaml)\n"
                        + log)
                .isEmpty();
    }
}
