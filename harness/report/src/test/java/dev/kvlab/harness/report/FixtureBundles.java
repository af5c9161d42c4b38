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
    private static Path rvf;
    private static Path faults;
    private static Path root;

    private FixtureBundles() {}

    /** cold/hot × local-only/remote-only/combined, 2 replicates, unfinished (no manifest.json; a draft beside). */
    static synchronized Path smoke(Path into) {
        try {
            if (smoke == null)
                smoke = new BundleFixture(BundleFixture.BASE)
                        .name("smoke")
                        .factor("cache_state", "cold", "hot")
                        .factor("tiers", "local-only", "remote-only", "combined")
                        .write(root());
            return copy(smoke, into.resolve(smoke.getFileName()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Recompute vs fetch: policy × link on a hot remote-only store, one replicate (no confidence intervals). */
    static synchronized Path recomputeVsFetch(Path into) {
        try {
            if (rvf == null)
                rvf = new BundleFixture(BundleFixture.BASE + "cache_state: hot\ntiers: remote-only\n")
                        .name("rvf")
                        .replicates(1)
                        .factor("transport", "10gbps", "4x200gbps")
                        .factor("policy", "recompute", "fetch", "auto")
                        .write(root());
            return copy(rvf, into.resolve(rvf.getFileName()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A {@code fault} factor (labels only until the config knows faults): the report draws tails over time. */
    static synchronized Path faults(Path into) {
        try {
            if (faults == null)
                faults = new BundleFixture(BundleFixture.BASE)
                        .name("faults")
                        .pseudoFactor("fault", "none", "node-crash")
                        .write(root());
            return copy(faults, into.resolve(faults.getFileName()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path root() throws IOException {
        if (root == null) {
            root = Files.createTempDirectory("kvlab-report-fixture");
            Path r = root;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(r)));
        }
        return root;
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
