package dev.kvlab.transport.api;

import dev.kvlab.store.api.KvBackend;

/** A deliberate violation for ArchitectureRulesTest: transport reaching up into store. Never used. */
final class ArchFixtureTransportUsesStore {
    KvBackend backend;
}
