/**
 * What the benchmarks and calibrations take and report: a transport benchmark's
 * {@link dev.kvlab.harness.api.benchmark.TransportBenchSpec} and {@link dev.kvlab.harness.api.benchmark.TransportBenchResult}, a
 * store benchmark's {@link dev.kvlab.harness.api.benchmark.StoreBenchSettings} and
 * {@link dev.kvlab.harness.api.benchmark.StoreBenchResult}, the master's metadata benchmark's
 * {@link dev.kvlab.harness.api.benchmark.MasterBenchSettings} and {@link dev.kvlab.harness.api.benchmark.MasterBenchResult}, the
 * transports' calibration's {@link dev.kvlab.harness.api.benchmark.CalibrationSettings}, and a running store's calibration,
 * {@link dev.kvlab.harness.api.benchmark.StoreTarget} and {@link dev.kvlab.harness.api.benchmark.TargetCalibrationResult}. Run them through
 * {@code dev.kvlab.harness.Benchmarks}.
 */
package dev.kvlab.harness.api.benchmark;
