package dev.kvlab.harness.api.archfixture;

import dev.kvlab.harness.internal.gguf.SynthModelWriter;

/**
 * A deliberate violation for ArchitectureRulesTest: an api package of harness/api importing its own module's
 * {@code internal}, which only the entry-point package {@code dev.kvlab.harness} may see. Never used.
 */
public final class ArchFixtureApiUsesItsInternal {
    SynthModelWriter.Written written;
}
