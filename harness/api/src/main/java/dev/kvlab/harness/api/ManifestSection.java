package dev.kvlab.harness.api;

/**
 * A top-level section a run adds to its bundle's {@code manifest.json} beyond the bundle format's own (the {@code shard}
 * a shard holds, the {@code observability} pushes, ...): a record Jackson writes as the section's JSON value, its
 * components in order under their JSON names. It holds no secret.
 */
public interface ManifestSection {}
