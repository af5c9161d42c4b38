package dev.kvlab.harness.internal.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A bundle's {@code capacity.json}: written by the capacity search ({@code CapacityResults.json}), found and
 * read back here by the report, {@code kvlab compare}, {@code kvlab run --json} and the demo (docs/bundle-format.md).
 */
public final class CapacityFile {

    public static final String NAME = "capacity.json";

    private CapacityFile() {}

    /** Where {@code bundle} keeps it (whether or not its matrix searched a capacity). */
    public static Path in(Path bundle) {
        return bundle.resolve(NAME);
    }

    /** Whether {@code bundle}'s matrix searched a capacity. */
    public static boolean exists(Path bundle) {
        return Files.isRegularFile(in(bundle));
    }

    /** {@code bundle}'s capacity.json, or empty when its matrix searched no capacity. */
    public static Optional<JsonNode> read(Path bundle) throws IOException {
        return exists(bundle) ? Optional.of(BundleJson.read(in(bundle))) : Optional.empty();
    }
}
