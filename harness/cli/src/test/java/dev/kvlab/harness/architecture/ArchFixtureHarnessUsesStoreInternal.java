package dev.kvlab.harness.architecture;

import dev.kvlab.store.internal.cluster.EmbeddedCluster;

/** A deliberate violation for ArchitectureRulesTest: harness code using the store's internal. Never used. */
final class ArchFixtureHarnessUsesStoreInternal {
    EmbeddedCluster cluster;
}
