package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * The GPU's efficiencies a {@link BreakevenReport}'s roofline assumed: prefill MFU, HBM bandwidth utilisation, the
 * attention rates ({@code attention}, null when attention runs at the compute rate) and the cost of loading the
 * fetched KV into the engine ({@code kvLoad}, null when free). A null part is absent from the JSON.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record BreakevenEfficiency(
        double prefillMfu,
        double decodeBandwidthUtilization,
        @JsonUnwrapped Attention attention,
        @JsonUnwrapped KvLoad kvLoad) {

    /** Attention's own efficiency, and its efficiency for passes shorter than {@code attentionSmallPassTokens}. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Attention(
            double attentionEfficiency, double attentionSmallPassEfficiency, int attentionSmallPassTokens) {}

    /** Loading the prefix's fetched KV into the engine: its time, the load's latency and rate. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record KvLoad(double kvLoadMs, double kvLoadLatencyUs, double kvLoadBytesPerSecond) {}

    /** Those of {@code hw}, loading a prefix of {@code prefixTokens} as {@code roof} costs it. */
    public static BreakevenEfficiency of(HardwareSpec hw, Roofline roof, long prefixTokens) {
        AttentionCost a = hw.attention();
        KvLoadCost l = hw.kvLoad();
        return new BreakevenEfficiency(
                hw.prefillMfu(),
                hw.decodeBandwidthUtilization(),
                a == null ? null : new Attention(a.efficiency(), a.smallPassEfficiency(), a.smallPassTokens()),
                l == null
                        ? null
                        : new KvLoad(
                                roof.kvLoadSeconds(prefixTokens) * 1e3, l.latencySeconds() * 1e6, l.bytesPerSecond()));
    }
}
