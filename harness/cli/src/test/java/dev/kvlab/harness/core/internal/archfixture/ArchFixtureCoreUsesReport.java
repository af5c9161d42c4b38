package dev.kvlab.harness.core.internal.archfixture;

import dev.kvlab.harness.report.ReportRenderer;

/** A deliberate violation for ArchitectureRulesTest: a core package (the measured cell's floor) reaching up into the report. Never used. */
public final class ArchFixtureCoreUsesReport {
    ReportRenderer renderer;
}
