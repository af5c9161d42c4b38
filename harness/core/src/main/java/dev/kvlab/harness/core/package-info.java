/** What a cell is planned as before it runs (its resolved model, hardware, link, workload and faults), and the JSON a command prints. */
package dev.kvlab.harness.core.internal.plan;
