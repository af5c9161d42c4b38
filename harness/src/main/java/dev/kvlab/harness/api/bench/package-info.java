/**
 * What the benchmarks and calibrations take and report: a transport benchmark's
 * {@link dev.kvlab.harness.api.bench.TransportBenchSpec} and {@link dev.kvlab.harness.api.bench.TransportBenchResult}, a
 * store benchmark's {@link dev.kvlab.harness.api.bench.StoreBenchSettings} and
 * {@link dev.kvlab.harness.api.bench.StoreBenchResult}, the master's metadata benchmark's
 * {@link dev.kvlab.harness.api.bench.MasterBenchSettings} and {@link dev.kvlab.harness.api.bench.MasterBenchResult}, and a
 * running store's calibration, {@link dev.kvlab.harness.api.bench.TargetCalibrationResult}. The engines that run them live
 * in {@code dev.kvlab.harness.internal.bench} ({@code TransportBench}, {@code Calibration}, {@code TargetCalibration}) and
 * its {@code store} ({@code StoreBench}, {@code RemoteStore}) and {@code master} ({@code MasterBench}) packages.
 */
package dev.kvlab.harness.api.bench;
