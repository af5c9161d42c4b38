package dev.kvlab.harness.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Bundles built once per test JVM (sim cells take seconds) and copied into each test's directory. */
final class FixtureBundles {

    private static Path smoke;

    private FixtureBundles() {}

    /** cold/hot × local-only/remote-only/combined, 2 replicates, unfinished (no manifest.json; a draft beside). */
    static synchronized Path smoke(Path into) {
        try {
            if (smoke == null) {
                Path root = Files.createTempDirectory("kvlab-report-fixture");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(root)));
                smoke = new BundleFixture(BundleFixture.BASE).name("smoke")
                        .factor("cache_state", "cold", "hot").factor("tiers", "local-only", "remote-only", "combined").write(root);
            }
            return copy(smoke, into.resolve(smoke.getFileName()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(t);
                else Files.copy(p, t);
            }
        }
        return to;
    }

    static void delete(Path root) {
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort at exit
        }
    }
}
