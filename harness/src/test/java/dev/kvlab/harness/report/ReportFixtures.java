package dev.kvlab.harness.report;

import dev.kvlab.harness.internal.report.ReportRenderer;
import java.io.IOException;
import java.nio.file.Path;

/** Fixture bundles for tests outside this package (the CLI's). */
public final class ReportFixtures {

    private ReportFixtures() {}

    /** A finished smoke bundle under {@code into}: rendered, with a manifest listing every file. */
    public static Path finishedSmoke(Path into) throws IOException {
        Path b = FixtureBundles.smoke(into);
        new ReportRenderer().render(b, BundleFixture.draftManifest(b));
        BundleFixture.finish(b);
        return b;
    }
}
