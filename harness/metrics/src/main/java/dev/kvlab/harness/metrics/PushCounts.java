package dev.kvlab.harness.metrics;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * What {@link PushHealth} counted, as the manifest's {@code observability} section records it: live pushes and
 * summary points, each with how many were dropped, and the first error ({@code firstError}, null and absent when
 * nothing failed).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record PushCounts(
        long pushes,
        long droppedPushes,
        @JsonProperty("summary_points") long points,
        @JsonProperty("dropped_summary_points") long droppedPoints,
        @JsonInclude(JsonInclude.Include.NON_NULL) String firstError) {}
