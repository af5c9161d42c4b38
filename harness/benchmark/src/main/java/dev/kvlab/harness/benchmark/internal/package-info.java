/**
 * The benchmark engines behind {@code kvlab bench transport} and {@code kvlab calibrate}: a transport benchmark session
 * ({@link dev.kvlab.harness.benchmark.internal.TransportBench}), the local transports' calibration into a profile
 * ({@link dev.kvlab.harness.benchmark.internal.Calibration}) and a running store's
 * ({@link dev.kvlab.harness.benchmark.internal.TargetCalibration}); the store and master benchmarks are in the
 * {@code store} and {@code master} subpackages. Their settings and results are in {@code dev.kvlab.harness.benchmark.api}.
 */
package dev.kvlab.harness.benchmark.internal;
