package dev.kvlab.workloads.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Files of kvlab's source tree for tests, found from the working directory up (a module's, however deep it sits). */
public final class SourceTree {

    private SourceTree() {}

    /** {@code relative} (e.g. {@code ablations/smoke.yaml}) in the nearest directory up from here that has it. */
    public static Path file(String relative) {
        return find(relative)
                .orElseThrow(() -> new AssertionError(
                        relative + " not found from " + Path.of("").toAbsolutePath() + " up"));
    }

    /** As {@link #file}, empty where no directory up from here has it. */
    public static Optional<Path> find(String relative) {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve(relative);
            if (Files.exists(p)) return Optional.of(p);
        }
        return Optional.empty();
    }
}
