package dev.kvlab.workloads.internal.gen;

import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.WorkloadSpec;

/** {@link WorkloadSpec.SharedPrefix}: groups x prompts; a prompt is its group's prefix plus its own suffix. */
public final class SharedPrefixGenerator extends GeneratedSource {

    private static final long PREFIX = 11, SUFFIX = 12, OUTPUT = 13;
    private final WorkloadSpec.SharedPrefix spec;
    private final int[] order; // prompt number g * promptsPerGroup + i, in sending order

    public SharedPrefixGenerator(WorkloadSpec.SharedPrefix spec, Namespace namespace, long seed) {
        super(namespace, seed, spec.blockTokens(), Math.toIntExact((long) spec.groups() * spec.promptsPerGroup()));
        this.spec = spec;
        int g = spec.groups(), m = spec.promptsPerGroup();
        order = new int[count()];
        switch (spec.order()) {
            case "grouped" -> { for (int k = 0; k < order.length; k++) order[k] = k; }
            case "interleaved" -> { for (int k = 0; k < order.length; k++) order[k] = (k % g) * m + k / g; }
            case "random" -> {
                for (int k = 0; k < order.length; k++) order[k] = k;
                shuffle(order, random(2));
            }
            default -> throw new IllegalArgumentException("order " + spec.order());
        }
    }

    @Override
    protected Request make(int index) {
        int prompt = order[index];
        int group = prompt / spec.promptsPerGroup();
        TokenSequence p = new TokenSequence()
                .add(TokenSequence.contentId(seed, PREFIX, group), spec.prefixTokens())
                .add(TokenSequence.contentId(seed, SUFFIX, prompt),
                        vary(spec.suffixTokens(), spec.lengthSpread(), TokenSequence.contentId(seed, SUFFIX, prompt)));
        return request(index, "group-" + group, p, vary(spec.outputTokens(), spec.lengthSpread(), TokenSequence.contentId(seed, OUTPUT, prompt)));
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
