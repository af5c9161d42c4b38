/**
 * The measured-cell skeleton every target shares: the steps of a cell ({@code CellSteps}) run on a target's
 * {@code spi.TargetCell}, and the assembly of its row ({@code CellAssembly}, with the emulated serving model's own figures).
 */
package dev.kvlab.harness.core.internal.cell;
