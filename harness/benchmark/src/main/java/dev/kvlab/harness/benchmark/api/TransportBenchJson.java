package dev.kvlab.harness.benchmark.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * The object {@code kvlab bench transport --json} prints ({@link TransportBenchResult#toJson}): stable snake_case keys
 * in this order, figures rounded as the result rounds them. {@code label} and {@code copyBound} are null, and absent,
 * unless the transport is emulated; {@code link} and {@code linkBytesPerSecond} are null without an emulated link,
 * {@code targetCpuSeconds} when unmeasured, {@code cpuSecondsPerGb} when nothing moved (those four print as null).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record TransportBenchJson(
        String transport,
        boolean emulated,
        @JsonInclude(JsonInclude.Include.NON_NULL) String label,
        String op,
        long blockSize,
        int batchSize,
        int threads,
        @JsonProperty("duration_s") double durationSeconds,
        @JsonProperty("warmup_s") double warmupSeconds,
        long bytes,
        long batches,
        @JsonProperty("throughput_bytes_per_s") long throughputBytesPerSecond,
        @JsonProperty("throughput_gb_per_s") double throughputGbPerSecond,
        double p50Us,
        double p90Us,
        double p99Us,
        double p999Us,
        double maxUs,
        double meanUs,
        String link,
        @JsonProperty("link_bytes_per_s") Long linkBytesPerSecond,
        @JsonInclude(JsonInclude.Include.NON_NULL) Boolean copyBound,
        @JsonProperty("segment_size") long segmentBytes,
        long sliceSize,
        int connections,
        String target,
        String copySemantics,
        int cpus,
        @JsonProperty("initiator_cpu_s") double initiatorCpuSeconds,
        @JsonProperty("target_cpu_s") Double targetCpuSeconds,
        @JsonProperty("cpu_s_per_gb") Double cpuSecondsPerGb) {}
