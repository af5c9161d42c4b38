package dev.kvlab.harness.metrics;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.kvlab.harness.api.ManifestSection;

/**
 * The manifest's {@code observability} section ({@link InfluxPublisher#manifestSection}): the InfluxDB pushed to (no
 * secret), the push counts (their fields inline), and how many tasks were still queued when the run ended
 * ({@code pending}, null and absent when none were).
 */
public record ObservabilitySection(
        InfluxTarget.Description influx,
        @JsonUnwrapped PushCounts counts,
        @JsonInclude(JsonInclude.Include.NON_NULL) Long pending)
        implements ManifestSection {}
