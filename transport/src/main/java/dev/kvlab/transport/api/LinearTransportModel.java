package dev.kvlab.transport.api;

/**
 * A {@link TransportModel} with fixed coefficients: a batch costs one latency, a per-request overhead for each
 * request, and its bytes at the bandwidth it gets, which is the fair share of the link among the transfers
 * that use it concurrently, capped at what one transfer can reach alone:
 *
 * <pre>{@code seconds = latency + requests * perRequest + bytes / min(stream, aggregate / sharers)}</pre>
 *
 * Pure and deterministic. Built from a {@link LinkSpec} ({@link TransportModels#fromLink}) or measured by
 * {@code kvlab calibrate} and loaded from a profile ({@link TransportModels#load}).
 *
 * @param name                  e.g. {@code tcp} (a calibrated transport) or {@code 4x200gbps@2us} (a link)
 * @param emulated              false only for figures measured on a real transport by {@code kvlab calibrate}
 * @param latencySeconds        fixed cost of one batch, >= 0
 * @param perRequestSeconds     added cost of each request of a batch, >= 0
 * @param streamBytesPerSecond  bandwidth one transfer reaches alone, > 0
 * @param aggregateBytesPerSecond bandwidth all concurrent transfers share, > 0
 */
public record LinearTransportModel(
        String name,
        boolean emulated,
        double latencySeconds,
        double perRequestSeconds,
        double streamBytesPerSecond,
        double aggregateBytesPerSecond)
        implements TransportModel {

    public LinearTransportModel {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a transport model needs a name");
        requireFinite("latency", latencySeconds, false);
        requireFinite("per-request overhead", perRequestSeconds, false);
        requireFinite("stream bandwidth", streamBytesPerSecond, true);
        requireFinite("aggregate bandwidth", aggregateBytesPerSecond, true);
    }

    private static void requireFinite(String what, double v, boolean positive) {
        if (!Double.isFinite(v) || v < 0 || (positive && v == 0))
            throw new IllegalArgumentException(
                    what + " must be " + (positive ? "> 0" : ">= 0") + " and finite, got " + v);
    }

    @Override
    public double batchSeconds(long bytes, int requests, int sharers) {
        if (bytes < 0) throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        if (requests < 0) throw new IllegalArgumentException("requests must be >= 0, got " + requests);
        if (sharers < 1) throw new IllegalArgumentException("sharers must be >= 1, got " + sharers);
        if (requests == 0 && bytes == 0) return 0;
        double bandwidth = Math.min(streamBytesPerSecond, aggregateBytesPerSecond / sharers);
        return latencySeconds + requests * perRequestSeconds + bytes / bandwidth;
    }
}
