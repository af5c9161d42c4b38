/**
 * What the benchmarks and calibrations take and report: a transport benchmark's
 * {@link dev.kvlab.harness.benchmark.api.TransportBenchSpec} and {@link dev.kvlab.harness.benchmark.api.TransportBenchResult}, a
 * store benchmark's {@link dev.kvlab.harness.benchmark.api.StoreBenchSettings} and
 * {@link dev.kvlab.harness.benchmark.api.StoreBenchResult}, the master's metadata benchmark's
 * {@link dev.kvlab.harness.benchmark.api.MasterBenchSettings} and {@link dev.kvlab.harness.benchmark.api.MasterBenchResult}, the
 * transports' calibration's {@link dev.kvlab.harness.benchmark.api.CalibrationSettings}, and a running store's calibration,
 * {@link dev.kvlab.harness.benchmark.api.StoreTarget} and {@link dev.kvlab.harness.benchmark.api.TargetCalibrationResult}. Run them through
 * {@code dev.kvlab.harness.benchmark.Benchmarks}.
 */
package dev.kvlab.harness.benchmark.api;
