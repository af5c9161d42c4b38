/**
 * The workloads module's entry points: {@link dev.kvlab.workloads.Workloads} (generators, traces and arrival
 * processes from a spec), {@link dev.kvlab.workloads.MooncakeTrace} (read and write the trace format) and
 * {@link dev.kvlab.workloads.TraceAnalyzer} (reuse figures of a request sequence). They see {@code api} and the
 * implementations in {@code internal}; {@code api} sees only itself.
 */
package dev.kvlab.workloads;
