package dev.kvlab.harness.internal.archfixture;

import dev.kvlab.harness.internal.archfixturetarget.ArchFixtureTargetPart;

/** A deliberate violation for ArchitectureRulesTest: a core package reaching into a target module. Never used. */
public final class ArchFixtureCoreUsesTarget {
    ArchFixtureTargetPart part;
}
