package dev.kvlab.harness.experiments.internal.matrix;

import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.ManifestSection;
import dev.kvlab.harness.api.MatrixSpec;
import dev.kvlab.harness.api.RunListener;
import dev.kvlab.harness.api.Shard;
import dev.kvlab.harness.api.ShardSplit;
import dev.kvlab.harness.bundle.ShardManifest;
import java.util.Map;

/**
 * Adds the {@code shard} section to a shard's manifest (see {@link ShardManifest}): which shard of which matrix,
 * every run of the whole matrix in order, and the runs this bundle holds.
 */
public final class ShardRecord implements RunListener {

    private final Shard shard;
    private final ShardSplit split;
    private final MatrixSpec whole;

    /** {@code whole} is the unsharded matrix, {@code split} what the shards split (runs, or every run's requests). */
    public ShardRecord(Shard shard, ShardSplit split, MatrixSpec whole) {
        this.shard = shard;
        this.split = split;
        this.whole = whole;
    }

    @Override
    public Map<String, ManifestSection> manifestSections() {
        return Map.of(
                ShardManifest.SECTION,
                ShardManifest.section(
                        shard,
                        split,
                        whole.sha256(),
                        whole.runs().stream().map(CellRun::label).toList()));
    }
}
