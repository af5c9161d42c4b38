package dev.kvlab.harness.api.catalog;

import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportModels;
import java.time.Duration;

/**
 * Recompute a cached prefix or fetch its KV? Recompute is the {@link Roofline} prefill of the prefix alone;
 * fetch is {@code latency + bytes / bandwidth}, where each TP rank fetches its own share of the KV over its
 * own link (the link spec describes one GPU's NICs, as in Mooncake deployments with a NIC per GPU).
 *
 * <p>Fetch loses exactly where both {@code compute(n) <= fetch(n)} and {@code memory(n) <= fetch(n)}: compute
 * grows quadratically (attention) so the first holds up to a root {@code r_c}; memory is a floor (the weights are
 * read once however short the prefix) growing slower than fetch, so the second holds from {@code r_m}. The
 * break-even prefix length is the length from which fetch always wins ({@code floor(r_c) + 1}, or 1 when fetch
 * wins at every length); below {@code r_m} fetch also wins, because a lone short prefill is weight-read-bound.
 *
 * <p>What a request with a prompt suffix after the cached prefix sees, on an engine measured as a roofline
 * ({@link AttentionCost}, {@link KvLoadCost}): with {@code suffixTokens} and {@code passTokens} (the engine's most
 * tokens per forward pass), recompute is the prefill of prefix and suffix in passes of {@code passTokens}, and fetch is
 * the fetch, loading the fetched KV into the engine, then the prefill of the suffix behind the prefix. There the
 * closed form does not hold; the break-even is the length after the last one (up to the model's context) at which
 * recompute is not slower.
 */
public final class Breakeven {

    /** Per-operation latency assumed when the link spec gives none (the transport module's default link latency). */
    public static final Duration DEFAULT_LATENCY = TransportModels.DEFAULT_LINK_LATENCY;

    private final Roofline roofline;
    private final LinkSpec link;
    private final double latency;
    private final int suffixTokens;
    private final int passTokens;

    public Breakeven(Roofline roofline, LinkSpec link) {
        this(roofline, link, 0, Integer.MAX_VALUE);
    }

    /**
     * Recompute vs fetch of a prefix followed by {@code suffixTokens} prompt tokens, on an engine that runs at most
     * {@code passTokens} tokens per forward pass.
     */
    public Breakeven(Roofline roofline, LinkSpec link, int suffixTokens, int passTokens) {
        if (suffixTokens < 0) throw new IllegalArgumentException("suffix tokens must be >= 0, got " + suffixTokens);
        if (passTokens < 1) throw new IllegalArgumentException("tokens per pass must be >= 1, got " + passTokens);
        this.roofline = roofline;
        this.link = link;
        this.latency = (link.latency() == null ? DEFAULT_LATENCY : link.latency()).toNanos() / 1e9;
        this.suffixTokens = suffixTokens;
        this.passTokens = passTokens;
    }

    /** Whether the closed form holds: a prefix alone, in one pass, attention at the compute rate, loading free. */
    private boolean closedForm() {
        return suffixTokens == 0
                && passTokens == Integer.MAX_VALUE
                && roofline.attentionAtComputeRate()
                && roofline.hardware().kvLoad() == null;
    }

    /** Prefill of {@code tokens} tokens after {@code context} in passes of at most {@code passTokens}. */
    private double prefill(long tokens, long context) {
        double s = 0;
        for (long done = 0; done < tokens; ) {
            long c = Math.min(passTokens, tokens - done);
            s += roofline.prefillSeconds(c, context + done);
            done += c;
        }
        return s;
    }

    public double latencySeconds() {
        return latency;
    }

    /** Bytes one rank fetches for {@code tokens} tokens. */
    public double bytesPerRank(long tokens) {
        return (double) roofline.kv().bytesPerTokenPerRank() * tokens;
    }

    /** The prefix's fetch (and, on a measured engine, loading it and prefilling the suffix behind it). */
    public double fetchSeconds(long tokens) {
        double f = latency + bytesPerRank(tokens) / link.bytesPerSecond();
        if (closedForm()) return f;
        return f + roofline.kvLoadSeconds(tokens) + prefill(suffixTokens, tokens);
    }

    /** The prefix's recompute (with the suffix after it, in the engine's passes, where given). */
    public double recomputeSeconds(long tokens) {
        if (closedForm()) return roofline.prefillSeconds(tokens, 0);
        return prefill(tokens + suffixTokens, 0);
    }

    /** The answer for a prefix of {@code tokens} tokens. */
    public Result at(long tokens) {
        if (tokens < 1) throw new IllegalArgumentException("prefix tokens must be >= 1, got " + tokens);
        double rec = recomputeSeconds(tokens);
        double fetch = fetchSeconds(tokens);
        return new Result(
                tokens,
                roofline.kv().bytesPerRequest(tokens),
                (long) bytesPerRank(tokens),
                rec,
                roofline.computeSeconds(tokens, Roofline.causalPairs(tokens, 0)),
                roofline.memorySeconds(0, tokens),
                fetch,
                fetch < rec,
                breakevenTokens(),
                memoryFloorTokens(),
                breakevenBitsPerSecond(tokens));
    }

    /** The prefix length from which fetching always wins (1 when it wins at every length). */
    public long breakevenTokens() {
        if (!closedForm()) {
            long last = 0;
            for (long n = 1; n <= Math.max(1, roofline.model().maxContext()); n++)
                if (recomputeSeconds(n) <= fetchSeconds(n)) last = n;
            return last + 1;
        }
        double k = roofline.kv().bytesPerTokenPerRank() / link.bytesPerSecond();
        // compute(n) - fetch(n) = b n^2 + (a - k) n - latency, with compute = (2P n + fpp (n^2 + n)/2) / F
        double f = roofline.effectiveFlops();
        double b = roofline.flopsPerPair() / 2.0 / f;
        double a = (roofline.linearFlops(1) + roofline.flopsPerPair() / 2.0) / f;
        double rc = (-(a - k) + Math.sqrt((a - k) * (a - k) + 4 * b * latency)) / (2 * b);
        double rm = memoryFloorTokens();
        if (rm > rc) return 1;
        long n = Math.max(1, (long) Math.floor(rc) + 1);
        // guard the closed form against rounding at the boundary
        while (n > 1 && recomputeSeconds(n - 1) > fetchSeconds(n - 1)) n--;
        while (recomputeSeconds(n) <= fetchSeconds(n)) n++;
        return n;
    }

    /**
     * Below this many tokens a lone prefill is weight-read-bound and fetch wins too (0 when it never is); NaN where the
     * closed form does not hold (a suffix, passes, a measured engine: the break-even is found by scanning).
     */
    public double memoryFloorTokens() {
        if (!closedForm()) return Double.NaN;
        double k = roofline.kv().bytesPerTokenPerRank() / link.bytesPerSecond();
        double bw = roofline.effectiveBandwidth();
        double w = roofline.weightBytes() / bw;
        double kw = roofline.kv().bytesPerTokenAllRanks() / bw;
        if (k <= kw) return Double.POSITIVE_INFINITY;
        return Math.max(0, (w - latency) / (k - kw));
    }

    /** The link rate (bits/s per GPU) at which fetching {@code tokens} tokens takes as long as recomputing them; +inf if never. */
    public double breakevenBitsPerSecond(long tokens) {
        double slack = recomputeSeconds(tokens) - latency;
        if (!closedForm()) slack -= roofline.kvLoadSeconds(tokens) + prefill(suffixTokens, tokens);
        if (slack <= 0) return Double.POSITIVE_INFINITY;
        return bytesPerRank(tokens) * 8 / slack;
    }

    /**
     * @param prefixTokens        the prefix asked about
     * @param kvBytes             its KV, counted once
     * @param kvBytesPerRank      what one rank fetches
     * @param recomputeSeconds    roofline prefill time, {@code max(compute, memory)}
     * @param computeSeconds      the compute-bound part
     * @param memorySeconds       the memory-bound part
     * @param fetchSeconds        latency + bytes per rank / link bandwidth
     * @param fetchWins           fetch is strictly faster
     * @param breakevenTokens     prefix length from which fetch always wins
     * @param memoryFloorTokens   below this, fetch wins because a lone prefill is weight-read-bound
     * @param breakevenBitsPerSecond link rate per GPU at which both take equally long for this prefix
     */
    public record Result(
            long prefixTokens,
            long kvBytes,
            long kvBytesPerRank,
            double recomputeSeconds,
            double computeSeconds,
            double memorySeconds,
            double fetchSeconds,
            boolean fetchWins,
            long breakevenTokens,
            double memoryFloorTokens,
            double breakevenBitsPerSecond) {}
}
