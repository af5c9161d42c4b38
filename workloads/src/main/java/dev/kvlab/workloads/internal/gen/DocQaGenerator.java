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
    private final int[] docs; // document of each request

    public DocQaGenerator(WorkloadSpec.DocQa spec, Namespace namespace, long seed) {
        super(namespace, seed, spec.blockTokens(), Math.toIntExact((long) spec.documents() * spec.repeats()));
        this.spec = spec;
        int d = spec.documents(), r = spec.repeats();
        docs = new int[count()];
        switch (spec.order()) {
            case "tile" -> { for (int k = 0; k < docs.length; k++) docs[k] = k % d; }
            case "interleave" -> { for (int k = 0; k < docs.length; k++) docs[k] = k / r; }
            case "random" -> {
                for (int k = 0; k < docs.length; k++) docs[k] = k % d;
                shuffle(docs, random(3));
            }
            default -> throw new IllegalArgumentException("order " + spec.order());
        }
    }

    @Override
    protected Request make(int index) {
        int doc = docs[index];
        TokenSequence p = new TokenSequence()
                .add(TokenSequence.contentId(seed, DOCUMENT, doc), spec.documentTokens())
                .add(TokenSequence.contentId(seed, QUESTION, index),
                        vary(spec.questionTokens(), spec.lengthSpread(), TokenSequence.contentId(seed, QUESTION, index)));
        return request(index, "doc-" + doc, p, vary(spec.outputTokens(), spec.lengthSpread(), TokenSequence.contentId(seed, OUTPUT, index)));
    }

    @Override
    public String describe() {
        return "doc-qa documents=" + spec.documents() + " document_tokens=" + spec.documentTokens() + " repeats="
                + spec.repeats() + " question_tokens=" + spec.questionTokens() + " output_tokens=" + spec.outputTokens()
                + " order=" + spec.order() + " block_tokens=" + blockTokens
                + (spec.lengthSpread() > 0 ? " length_spread=" + spec.lengthSpread() : "") + " seed=" + seed;
    }
}
