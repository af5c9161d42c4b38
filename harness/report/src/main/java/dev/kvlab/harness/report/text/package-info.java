/** Bundles as a terminal reads them: a run's summary, a matrix's table, capacity under the SLO, a comparison of two bundles. */
package dev.kvlab.harness.report.text;
