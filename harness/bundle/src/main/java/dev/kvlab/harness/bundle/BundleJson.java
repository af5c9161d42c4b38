package dev.kvlab.harness.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** JSON of the bundle files: pretty-printed, UTF-8, a final line break. */
public final class BundleJson {

    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private BundleJson() {}

    public static byte[] pretty(JsonNode n) {
        try {
            return (MAPPER.writeValueAsString(n) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final ObjectMapper COMPACT = new ObjectMapper();

    /** One line of JSON, no line break (a probe's record inside its interval log, summary.json's bulk). */
    public static String compact(JsonNode n) {
        try {
            return COMPACT.writeValueAsString(n);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A bundle file of JSON in one line and a final line break (summary.json: its rows and per-cell statistics are most of
     * a search's bundle; indenting them would double it). Any JSON reader reads it; {@code jq .} prints it indented.
     */
    public static byte[] compactFile(JsonNode n) {
        return (compact(n) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    public static JsonNode read(Path file) throws IOException {
        return MAPPER.readTree(Files.readAllBytes(file));
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
