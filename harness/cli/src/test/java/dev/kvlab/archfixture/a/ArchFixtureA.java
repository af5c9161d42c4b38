package dev.kvlab.archfixture.a;

import dev.kvlab.archfixture.b.ArchFixtureB;

/** Half of a deliberate package cycle for ArchitectureRulesTest. Never used. */
public final class ArchFixtureA {
    ArchFixtureB b;
}
