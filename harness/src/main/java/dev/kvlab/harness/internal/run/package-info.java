/**
 * A matrix run wired end to end ({@link dev.kvlab.harness.internal.run.BundleRun}): cells, progress, report and
 * archive into one result bundle, as {@code kvlab run} and {@code kvlab demo} do it.
 */
package dev.kvlab.harness.internal.run;
