package dev.kvlab.harness.benchmark.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportProfile;
import java.time.Duration;

/**
 * What {@code kvlab calibrate --target} measured (by the target calibration); {@code link} is the measured link
 * in kvlab's link syntax (payload rate {@code @} half the control round trip), for labelling cells that ran over it.
 */
@JsonPropertyOrder(alphabetic = false)
public record TargetCalibrationResult(
        @JsonProperty("target") String target,
        @JsonProperty("transport") String transport,
        @JsonProperty("emulated") boolean emulated,
        @JsonProperty("rtt_us") double rttUs,
        @JsonProperty("latency_us") double latencyUs,
        @JsonProperty("per_request_us") double perRequestUs,
        @JsonProperty("stream_bandwidth_bytes_per_s") long streamBandwidth,
        @JsonProperty("bandwidth_bytes_per_s") long bandwidth,
        @JsonProperty("threads") int threads,
        @JsonProperty("bytes_moved") long bytesMoved,
        @JsonProperty("link") String link,
        @JsonProperty("source") String source) {

    /** {@code <rate>@<rtt/2>}: the payload rate rounded to 3 significant digits. */
    public static String link(double bytesPerSecond, double rttUs) {
        double bits = bytesPerSecond * 8;
        double scale = Math.pow(10, Math.floor(Math.log10(Math.max(1, bits))) - 2);
        double r = Math.max(1, Math.round(bits / scale) * scale);
        return new LinkSpec(1, r, Duration.ofNanos(Math.round(rttUs / 2) * 1000)).toString();
    }

    /** The measurement as a profile entry sim runs can load. */
    public TransportProfile.Entry toEntry() {
        return new TransportProfile.Entry(
                emulated, latencyUs, perRequestUs, streamBandwidth, Math.max(streamBandwidth, bandwidth), source);
    }
}
