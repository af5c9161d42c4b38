/** The measured-cell skeleton both clocks share: assembly of the serving model, the clock that drives it, the steps of a cell. */
package dev.kvlab.harness.core.internal.cell;
