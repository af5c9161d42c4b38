package dev.kvlab.archfixture.b;

import dev.kvlab.archfixture.a.ArchFixtureA;

/** The other half of a deliberate package cycle for ArchitectureRulesTest. Never used. */
public final class ArchFixtureB {
    ArchFixtureA a;
}
