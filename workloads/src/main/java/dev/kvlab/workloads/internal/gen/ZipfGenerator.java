package dev.kvlab.workloads.internal.gen;

import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * {@link WorkloadSpec.Zipf}: each request takes prefix {@code k} (1-based rank) with probability proportional to
 * {@code 1 / k^exponent} (inverse-CDF sampling over a precomputed table), plus a fresh suffix.
 */
public final class ZipfGenerator extends GeneratedSource {

    private static final long PREFIX = 31, SUFFIX = 32, OUTPUT = 33;
    private final WorkloadSpec.Zipf spec;
    private final double[] cdf;
    private final SplittableRandom rnd;

    public ZipfGenerator(WorkloadSpec.Zipf spec, Namespace namespace, long seed) {
        super(namespace, seed, spec.blockTokens(), spec.requests());
        this.spec = spec;
        cdf = new double[spec.prefixes()];
        double sum = 0;
        for (int k = 0; k < cdf.length; k++) {
            sum += Math.pow(k + 1, -spec.exponent());
            cdf[k] = sum;
        }
        for (int k = 0; k < cdf.length; k++) cdf[k] /= sum;
        cdf[cdf.length - 1] = 1.0;
        rnd = random(4);
    }

    /** 0-based rank of the prefix for a uniform draw {@code u} in [0, 1). */
    int rankOf(double u) {
        int i = Arrays.binarySearch(cdf, u);
        int k = i >= 0 ? i + 1 : -i - 1; // first index with cdf > u
        return Math.min(k, cdf.length - 1);
    }

    @Override
    protected Request make(int index) {
        int rank = rankOf(rnd.nextDouble());
        TokenSequence p = new TokenSequence()
                .add(TokenSequence.contentId(seed, PREFIX, rank), spec.prefixTokens())
                .add(
                        TokenSequence.contentId(seed, SUFFIX, index),
                        vary(spec.suffixTokens(), spec.lengthSpread(), TokenSequence.contentId(seed, SUFFIX, index)));
        return request(
                index,
                "prefix-" + (rank + 1),
                p,
                vary(spec.outputTokens(), spec.lengthSpread(), TokenSequence.contentId(seed, OUTPUT, index)));
    }

    @Override
    public String describe() {
        return "zipf prefixes=" + spec.prefixes() + " prefix_tokens=" + spec.prefixTokens() + " exponent="
                + spec.exponent() + " requests=" + spec.requests() + " suffix_tokens=" + spec.suffixTokens()
                + " output_tokens=" + spec.outputTokens() + " block_tokens=" + blockTokens
                + (spec.lengthSpread() > 0 ? " length_spread=" + spec.lengthSpread() : "") + " seed=" + seed;
    }
}
