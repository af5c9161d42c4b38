package dev.kvlab.harness.report.archfixture;

import dev.kvlab.harness.internal.gguf.SynthModelWriter;

/**
 * A deliberate violation for ArchitectureRulesTest: a report package (its floor may use harness/api) importing
 * harness/api's {@code internal} instead of its entry point {@code dev.kvlab.harness.Gguf}. Never used.
 */
public final class ArchFixtureReportUsesApiInternal {
    SynthModelWriter.Written written;
}
