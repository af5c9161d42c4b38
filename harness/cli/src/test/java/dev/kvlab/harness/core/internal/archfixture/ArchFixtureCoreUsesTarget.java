package dev.kvlab.harness.core.internal.archfixture;

import dev.kvlab.harness.core.internal.archfixturetarget.ArchFixtureTargetPart;

/** A deliberate violation for ArchitectureRulesTest: a core package reaching into a target module. Never used. */
public final class ArchFixtureCoreUsesTarget {
    ArchFixtureTargetPart part;
}
