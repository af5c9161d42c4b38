/**
 * What a caller of the experiments holds while a run goes: the {@link dev.kvlab.harness.experiments.api.Heartbeat} that
 * keeps a long run talking on stderr. The runs themselves start at {@code dev.kvlab.harness.experiments.BundleRun}.
 */
package dev.kvlab.harness.experiments.api;
