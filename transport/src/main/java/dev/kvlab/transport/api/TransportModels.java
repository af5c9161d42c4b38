package dev.kvlab.transport.api;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Builds {@link TransportModel}s for simulation: from a link ({@code 8gbps}, {@code 4x200gbps@2us}) or from a
 * profile written by {@code kvlab calibrate}.
 */
public final class TransportModels {

    /** Per-operation latency of a link that names none (an RDMA-class NIC). */
    public static final Duration DEFAULT_LINK_LATENCY = Duration.ofNanos(2_000);

    /** The NIC {@code rdma-emu} emulates when the configuration names no link. */
    public static final LinkSpec DEFAULT_EMULATED_LINK = LinkSpec.parse("200gbps@2us");

    private TransportModels() {}

    /**
     * The model of an ideal link: its latency ({@link #DEFAULT_LINK_LATENCY} if it gives none) once per batch, no
     * per-request overhead, and its aggregate rate ({@code links x rate}) shared fairly by concurrent transfers;
     * one transfer alone may use every lane (slices are striped). Always emulated.
     */
    public static LinearTransportModel fromLink(LinkSpec link) {
        Duration latency = link.latency() != null ? link.latency() : DEFAULT_LINK_LATENCY;
        return new LinearTransportModel(
                link.toString(), true, latency.toNanos() / 1e9, 0, link.bytesPerSecond(), link.bytesPerSecond());
    }

    /** Reads a profile written by {@code kvlab calibrate}; {@link ProfileFormatException} with file and line otherwise. */
    public static TransportProfile load(Path profile) {
        return TransportProfile.read(profile);
    }

    /**
     * A model from what users type: a link ({@code 8gbps}, {@code 4x200gbps@2us}), a profile with one model
     * ({@code lab.yaml}) or one model of a profile ({@code lab.yaml#tcp}). Relative paths resolve against
     * {@code baseDir}. {@link IllegalArgumentException} with the reason otherwise.
     */
    public static TransportModel resolve(String spec, Path baseDir) {
        if (spec == null || spec.isBlank()) throw new IllegalArgumentException("transport model is missing");
        String s = spec.strip();
        int hash = s.lastIndexOf('#');
        String file = hash >= 0 ? s.substring(0, hash) : s;
        if (file.endsWith(".yaml") || file.endsWith(".yml")) {
            Path p = baseDir == null ? Path.of(file) : baseDir.resolve(file);
            if (!Files.isRegularFile(p)) throw new IllegalArgumentException("no transport profile " + p);
            TransportProfile profile = load(p);
            if (hash >= 0) return profile.model(s.substring(hash + 1));
            if (profile.models().size() != 1)
                throw new IllegalArgumentException(
                        p + " has " + profile.models().size() + " models ("
                                + String.join(", ", profile.models().keySet()) + "): name one as " + file + "#<model>");
            return profile.model(profile.models().keySet().iterator().next());
        }
        try {
            return fromLink(LinkSpec.parse(s));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a transport model: '" + spec
                    + "' (expected a link such as 8gbps or 4x200gbps@2us," + " or a profile PROFILE.yaml[#model])");
        }
    }
}
