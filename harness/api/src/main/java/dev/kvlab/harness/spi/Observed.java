package dev.kvlab.harness.spi;

/**
 * What the serving model observed of one request when it ended (completed or failed), as the measurement reads it:
 * an immutable copy, so that measurement never reads the model's mutable {@code Seq}.
 *
 * @param id                   request id
 * @param session              session / group
 * @param intendedNanos        intended arrival (loop clock)
 * @param instance             prefill-side instance index, -1 if never routed
 * @param inputTokens          prompt tokens
 * @param outputTokens         tokens to generate (at least 1)
 * @param localHitTokens       prompt tokens served by the local tier
 * @param remoteHitTokens      prompt tokens fetched and verified
 * @param remoteAvailableTokens prompt tokens the store held in continuation of the local hits
 * @param fetchedBytes         bytes fetched
 * @param fallbackBlocks       planned blocks recomputed because their fetch failed
 * @param fetchNanos           time spent fetching (0 when nothing was fetched; negative: unknown, NaN in requests.csv)
 * @param failure              why it failed, or null
 *                             (a count the target does not know is {@code RequestRecord.UNKNOWN}: NaN in requests.csv, added as nothing)
 */
public record Observed(
        long id,
        String session,
        long intendedNanos,
        int instance,
        int inputTokens,
        int outputTokens,
        int localHitTokens,
        int remoteHitTokens,
        long remoteAvailableTokens,
        long fetchedBytes,
        int fallbackBlocks,
        long fetchNanos,
        String failure) {}
