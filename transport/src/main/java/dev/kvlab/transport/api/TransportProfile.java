package dev.kvlab.transport.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A file of measured {@link TransportModel}s, as {@code kvlab calibrate} writes it and sim runs load it (YAML;
 * unknown fields are errors):
 *
 * <pre>
 * kind: kvlab-transport-profile
 * version: 1
 * created: 2026-01-02T03:04:05Z
 * machine: {host: lab1, os: Linux 6.1 amd64, cpus: 2, cpu: Intel Xeon, java: 25.0.3}
 * note: measured on loopback, one machine
 * models:
 *   tcp:
 *     emulated: false
 *     latency_us: 48.0
 *     per_request_us: 1.5
 *     stream_bandwidth_bytes_per_s: 2.1e9
 *     aggregate_bandwidth_bytes_per_s: 2.2e9
 *     source: "kvlab calibrate: ..."
 * </pre>
 */
@JsonPropertyOrder({"kind", "version", "created", "machine", "note", "models"})
public record TransportProfile(
        @JsonProperty(value = "kind", required = true) String kind,
        @JsonProperty(value = "version", required = true) int version,
        @JsonProperty(value = "created", required = true) String created,
        @JsonProperty("machine") Map<String, String> machine,
        @JsonProperty("note") String note,
        @JsonProperty(value = "models", required = true) Map<String, Entry> models) {

    public static final String KIND = "kvlab-transport-profile";
    public static final int VERSION = 1;

    public TransportProfile {
        if (!KIND.equals(kind)) throw new IllegalArgumentException("kind must be " + KIND + ", got " + kind);
        if (version != VERSION)
            throw new IllegalArgumentException(
                    "unsupported profile version " + version + " (this kvlab reads " + VERSION + ")");
        Objects.requireNonNull(created, "created");
        machine = machine == null ? Map.of() : Map.copyOf(machine);
        if (models == null || models.isEmpty())
            throw new IllegalArgumentException("a profile needs at least one model under 'models'");
        models = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(models));
    }

    /** One measured transport. */
    @JsonPropertyOrder({
        "emulated",
        "latency_us",
        "per_request_us",
        "stream_bandwidth_bytes_per_s",
        "aggregate_bandwidth_bytes_per_s",
        "source"
    })
    public record Entry(
            @JsonProperty(value = "emulated", required = true)
            boolean emulated,

            @JsonProperty(value = "latency_us", required = true)
            double latencyUs,

            @JsonProperty(value = "per_request_us", required = true)
            double perRequestUs,

            @JsonProperty(value = "stream_bandwidth_bytes_per_s", required = true)
            double streamBandwidth,

            @JsonProperty(value = "aggregate_bandwidth_bytes_per_s", required = true)
            double aggregateBandwidth,

            @JsonProperty("source") String source) {

        public Entry {
            // validates the same way the model does
            new LinearTransportModel(
                    "entry", emulated, latencyUs / 1e6, perRequestUs / 1e6, streamBandwidth, aggregateBandwidth);
        }

        public LinearTransportModel toModel(String name) {
            return new LinearTransportModel(
                    name, emulated, latencyUs / 1e6, perRequestUs / 1e6, streamBandwidth, aggregateBandwidth);
        }
    }

    /** The model called {@code name}; {@link IllegalArgumentException} naming the ones there are otherwise. */
    public LinearTransportModel model(String name) {
        Entry e = models.get(name);
        if (e == null)
            throw new IllegalArgumentException(
                    "no model '" + name + "' in the profile (it has: " + String.join(", ", models.keySet()) + ")");
        return e.toModel(name);
    }

    private static ObjectMapper mapper() {
        return new ObjectMapper(new YAMLFactory()
                        .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                        .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES))
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    }

    /** Reads a profile; {@link ProfileFormatException} with file and line on any problem. */
    public static TransportProfile read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ProfileFormatException(file, 0, "cannot read the profile: " + e.getMessage(), e);
        }
        try {
            checkFieldNames(bytes, file);
            TransportProfile p = mapper().readValue(bytes, TransportProfile.class);
            if (p == null) throw new ProfileFormatException(file, 0, "the profile is empty", null);
            return p;
        } catch (ValueInstantiationException e) {
            Throwable root = e.getCause() != null ? e.getCause() : e;
            throw new ProfileFormatException(file, line(e), root.getMessage(), e);
        } catch (JsonProcessingException e) {
            throw new ProfileFormatException(file, line(e), e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ProfileFormatException(file, 0, e.getMessage(), e);
        }
    }

    private static final java.util.Set<String> TOP =
            java.util.Set.of("kind", "version", "created", "machine", "note", "models");
    private static final java.util.Set<String> ENTRY = java.util.Set.of(
            "emulated",
            "latency_us",
            "per_request_us",
            "stream_bandwidth_bytes_per_s",
            "aggregate_bandwidth_bytes_per_s",
            "source");

    /** Unknown fields are errors, reported at their own line (before binding, which would report them late). */
    private static void checkFieldNames(byte[] bytes, Path file) throws IOException {
        try (com.fasterxml.jackson.core.JsonParser p = new YAMLFactory().createParser(bytes)) {
            java.util.ArrayDeque<String> path = new java.util.ArrayDeque<>();
            com.fasterxml.jackson.core.JsonToken t;
            String pendingField = null;
            while ((t = p.nextToken()) != null) {
                switch (t) {
                    case FIELD_NAME -> {
                        String name = p.currentName();
                        int depth = path.size();
                        java.util.Set<String> allowed = depth == 1
                                ? TOP
                                : depth == 3 && "models".equals(path.toArray()[depth - 2]) ? ENTRY : null;
                        if (allowed != null && !allowed.contains(name))
                            throw new ProfileFormatException(
                                    file,
                                    p.currentLocation().getLineNr(),
                                    "unknown field '" + name + "' (known here: "
                                            + String.join(", ", new java.util.TreeSet<>(allowed)) + ")",
                                    null);
                        pendingField = name;
                    }
                    case START_OBJECT, START_ARRAY -> {
                        path.addLast(pendingField == null ? "" : pendingField);
                        pendingField = null;
                    }
                    case END_OBJECT, END_ARRAY -> path.removeLast();
                    default -> pendingField = null;
                }
            }
        }
    }

    private static int line(JsonProcessingException e) {
        return e.getLocation() == null ? 0 : Math.max(0, e.getLocation().getLineNr());
    }

    /** Writes the profile atomically (a temporary file renamed into place). */
    public void write(Path file) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
            try {
                Files.writeString(
                        tmp,
                        "# kvlab transport profile: load it in sim runs (transport: " + file.getFileName()
                                + "#<model>)\n" + mapper().writeValueAsString(this));
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the profile " + file + ": " + e.getMessage(), e);
        }
    }
}
