package dev.kvlab.workloads.internal.gen;

import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.WorkloadSpec;

/** {@link WorkloadSpec.SharedPrefix}: groups x prompts; a prompt is its group's prefix plus its own suffix. */
public final class SharedPrefixGenerator extends GeneratedSource {

    private static final long PREFIX = 11, SUFFIX = 12, OUTPUT = 13;
    private final WorkloadSpec.SharedPrefix spec;
    /**
     * Prompt number {@code g * promptsPerGroup + i} of each request, for {@code order: random} only (a seeded
     * shuffle needs the permutation: 4 bytes per request); grouped and interleaved orders are computed per request,
     * so those workloads stream in constant memory however long they are.
     */
    private final int[] shuffled;

    public SharedPrefixGenerator(WorkloadSpec.SharedPrefix spec, Namespace namespace, long seed) {
        super(namespace, seed, spec.blockTokens(), Math.toIntExact((long) spec.groups() * spec.promptsPerGroup()));
        this.spec = spec;
        switch (spec.order()) {
            case "grouped", "interleaved" -> shuffled = null;
            case "random" -> {
                shuffled = new int[count()];
                for (int k = 0; k < shuffled.length; k++) shuffled[k] = k;
                shuffle(shuffled, random(2));
            }
            default -> throw new IllegalArgumentException("order " + spec.order());
        }
    }

    /** The prompt number sent as request {@code k}. */
    private int prompt(int k) {
        if (shuffled != null) return shuffled[k];
        if (spec.order().equals("grouped")) return k;
        int g = spec.groups();
        return (k % g) * spec.promptsPerGroup() + k / g; // interleaved
    }

    @Override
    protected Request make(int index) {
        int prompt = prompt(index);
        int group = prompt / spec.promptsPerGroup();
        TokenSequence p = new TokenSequence()
                .add(TokenSequence.contentId(seed, PREFIX, group), spec.prefixTokens())
                .add(
                        TokenSequence.contentId(seed, SUFFIX, prompt),
                        vary(spec.suffixTokens(), spec.lengthSpread(), TokenSequence.contentId(seed, SUFFIX, prompt)));
        return request(
                index,
                "group-" + group,
                p,
                vary(spec.outputTokens(), spec.lengthSpread(), TokenSequence.contentId(seed, OUTPUT, prompt)));
    }

    @Override
    public String describe() {
        return "shared-prefix groups=" + spec.groups() + " prompts_per_group=" + spec.promptsPerGroup()
                + " prefix_tokens=" + spec.prefixTokens() + " suffix_tokens=" + spec.suffixTokens()
                + " output_tokens=" + spec.outputTokens() + " order=" + spec.order() + " block_tokens=" + blockTokens
                + (spec.lengthSpread() > 0 ? " length_spread=" + spec.lengthSpread() : "")
                + " seed=" + seed;
    }
}
