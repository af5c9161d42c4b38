package dev.kvlab.workloads.internal.gen;

import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.WorkloadSpec;

/**
 * {@link WorkloadSpec.DocQa}: each of D documents asked {@code repeats} times; {@code tile} sends d1..dD repeatedly
 * (reuse distance D documents), {@code interleave} sends each document's questions back to back (distance 0),
 * {@code random} shuffles them.
 */
public final class DocQaGenerator extends GeneratedSource {

    private static final long DOCUMENT = 21, QUESTION = 22, OUTPUT = 23;
    private final WorkloadSpec.DocQa spec;
    /**
     * Document of each request for {@code order: random} only (a seeded shuffle needs the permutation); tile and
     * interleave are computed per request, so they stream in constant memory.
     */
    private final int[] shuffled;

    public DocQaGenerator(WorkloadSpec.DocQa spec, Namespace namespace, long seed) {
        super(namespace, seed, spec.blockTokens(), Math.toIntExact((long) spec.documents() * spec.repeats()));
        this.spec = spec;
        switch (spec.order()) {
            case "tile", "interleave" -> shuffled = null;
            case "random" -> {
                int d = spec.documents();
                shuffled = new int[count()];
                for (int k = 0; k < shuffled.length; k++) shuffled[k] = k % d;
                shuffle(shuffled, random(3));
            }
            default -> throw new IllegalArgumentException("order " + spec.order());
        }
    }

    /** The document asked about in request {@code k}. */
    private int doc(int k) {
        if (shuffled != null) return shuffled[k];
        return spec.order().equals("tile") ? k % spec.documents() : k / spec.repeats();
    }

    @Override
    protected Request make(int index) {
        int doc = doc(index);
        TokenSequence p = new TokenSequence()
                .add(TokenSequence.contentId(seed, DOCUMENT, doc), spec.documentTokens())
                .add(
                        TokenSequence.contentId(seed, QUESTION, index),
                        vary(
                                spec.questionTokens(),
                                spec.lengthSpread(),
                                TokenSequence.contentId(seed, QUESTION, index)));
        return request(
                index,
                "doc-" + doc,
                p,
                vary(spec.outputTokens(), spec.lengthSpread(), TokenSequence.contentId(seed, OUTPUT, index)));
    }

    @Override
    public String describe() {
        return "doc-qa documents=" + spec.documents() + " document_tokens=" + spec.documentTokens() + " repeats="
                + spec.repeats() + " question_tokens=" + spec.questionTokens() + " output_tokens=" + spec.outputTokens()
                + " order=" + spec.order() + " block_tokens=" + blockTokens
                + (spec.lengthSpread() > 0 ? " length_spread=" + spec.lengthSpread() : "") + " seed=" + seed;
    }
}
