package dev.kvlab.harness.report.archfixture;

import dev.kvlab.harness.core.internal.measure.Measurement;

/**
 * A deliberate violation for ArchitectureRulesTest: a report package (its floor may use core) importing core's
 * {@code internal}, which no other harness module may see. Never used.
 */
public final class ArchFixtureReportUsesCoreInternal {
    Measurement measurement;
}
