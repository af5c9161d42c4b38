/**
 * The benchmark engines behind {@code kvlab bench transport} and {@code kvlab calibrate}: a transport benchmark session
 * ({@link dev.kvlab.harness.internal.benchmark.TransportBench}), the local transports' calibration into a profile
 * ({@link dev.kvlab.harness.internal.benchmark.Calibration}) and a running store's
 * ({@link dev.kvlab.harness.internal.benchmark.TargetCalibration}); the store and master benchmarks are in the
 * {@code store} and {@code master} subpackages. Their settings and results are in {@code dev.kvlab.harness.api.benchmark}.
 */
package dev.kvlab.harness.internal.benchmark;
