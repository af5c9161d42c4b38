package dev.kvlab.harness.experiments.internal.matrix;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.kvlab.harness.api.ManifestSection;
import dev.kvlab.harness.api.config.ConfigKeys;
import java.util.List;

/** The manifest sections {@code kvlab merge} adds to a bundle merged from shards (docs/bundle-format.md, "Shards"). */
final class MergeSections {

    private MergeSections() {}

    /** {@code merged_from}: the shards merged, in the order given (a JSON array). */
    record MergedFrom(@JsonValue List<Shard> shards) implements ManifestSection {
        MergedFrom {
            shards = List.copyOf(shards);
        }
    }

    /** One shard merged: its run, which shard, how many runs it held, its seal, commit and times. */
    record Shard(
            @JsonProperty("run_id") String runId,
            String shard,
            int runs,
            @JsonProperty("manifest_seal") String manifestSeal,
            @JsonProperty("git_commit") String gitCommit,
            @JsonProperty("started_at") String startedAt,
            @JsonProperty("ended_at") String endedAt) {}

    /**
     * {@code request_split}: a bundle merged from request-split shards.
     *
     * @param hosts      how many hosts drove every cell
     * @param statement  what that means, in words
     * @param cacheState who reset and verified a cold cell's cache
     */
    record RequestSplit(
            int hosts,
            String statement,
            @JsonProperty(ConfigKeys.CACHE_STATE) String cacheState) implements ManifestSection {}
}
