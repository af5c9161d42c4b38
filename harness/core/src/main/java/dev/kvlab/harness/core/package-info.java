/**
 * harness/core's entry-point package: what a cell is planned as before it runs ({@code CellPlan}: its resolved model,
 * hardware, link, workload and faults), the run config's validation ({@code RunValidator}) and the JSON a command
 * prints. The experiments and the report use these; the measured cell itself is {@code core.internal.*}.
 */
package dev.kvlab.harness.core;
