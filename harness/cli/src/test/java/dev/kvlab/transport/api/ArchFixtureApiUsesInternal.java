package dev.kvlab.transport.api;

import dev.kvlab.transport.internal.common.Deadlines;

/** A deliberate violation for ArchitectureRulesTest: an api type that uses an internal one. Never used. */
final class ArchFixtureApiUsesInternal {
    Object use() {
        return Deadlines.class;
    }
}
