package dev.kvlab.cli.store;

import dev.kvlab.harness.api.input.BadInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The store's auth token: from a file (first line) or the {@code KVLAB_STORE_TOKEN} environment variable; never from arguments. */
public final class StoreToken {

    private StoreToken() {}

    public static String read(Path file) {
        if (file != null) {
            try {
                String t = Files.readString(file, StandardCharsets.UTF_8)
                        .lines()
                        .findFirst()
                        .orElse("")
                        .strip();
                if (t.isEmpty()) throw new BadInputException("token file " + file + " is empty");
                return t;
            } catch (IOException e) {
                throw new BadInputException("cannot read token file " + file + ": " + e.getMessage());
            }
        }
        String env = System.getenv("KVLAB_STORE_TOKEN");
        return env == null || env.isBlank() ? null : env.strip();
    }
}
