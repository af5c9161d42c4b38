package dev.kvlab.workloads.internal.gen;

import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.util.SplittableRandom;

/** {@link WorkloadSpec.Chat}: round by round, users in a seeded random order within each round. */
public final class ChatGenerator extends GeneratedSource {

    private static final long SYSTEM = 1, CONTEXT = 2, QUESTION = 3, ANSWER = 4;
    private final WorkloadSpec.Chat spec;
    private final int[] userOrder; // users in the order of the current round
    private final SplittableRandom rnd;
    private int round = -1;

    public ChatGenerator(WorkloadSpec.Chat spec, Namespace namespace, long seed) {
        super(namespace, seed, spec.blockTokens(), Math.toIntExact((long) spec.users() * spec.rounds()));
        this.spec = spec;
        this.userOrder = new int[spec.users()];
        this.rnd = random(1);
    }

    @Override
    protected Request make(int index) {
        int r = index / spec.users();
        if (r != round) {
            round = r;
            for (int u = 0; u < userOrder.length; u++) userOrder[u] = u;
            shuffle(userOrder, rnd);
        }
        int u = userOrder[index % spec.users()];
        TokenSequence p = new TokenSequence();
        p.add(TokenSequence.contentId(seed, SYSTEM, u % spec.systemPrompts()), spec.systemPromptTokens());
        p.add(TokenSequence.contentId(seed, CONTEXT, u), spec.contextTokens());
        for (int i = 0; i < r; i++) {
            p.add(question(u, i), questionTokens(u, i));
            p.add(answer(u, i), answerTokens(u, i));
        }
        p.add(question(u, r), questionTokens(u, r));
        return request(index, "user-" + u, p, answerTokens(u, r));
    }

    private long question(int u, int round) {
        return TokenSequence.contentId(seed, QUESTION, u, round);
    }

    private long answer(int u, int round) {
        return TokenSequence.contentId(seed, ANSWER, u, round);
    }

    private int questionTokens(int u, int round) {
        return vary(spec.questionTokens(), spec.lengthSpread(), question(u, round));
    }

    /** The answer generated in a round is the one its later rounds carry in their history: one length for both. */
    private int answerTokens(int u, int round) {
        return vary(spec.answerTokens(), spec.lengthSpread(), answer(u, round));
    }

    @Override
    public String describe() {
        return "chat users=" + spec.users() + " rounds=" + spec.rounds() + " system_prompts=" + spec.systemPrompts()
                + " system_prompt_tokens=" + spec.systemPromptTokens() + " context_tokens=" + spec.contextTokens()
                + " question_tokens=" + spec.questionTokens() + " answer_tokens=" + spec.answerTokens()
                + " block_tokens=" + blockTokens
                + (spec.lengthSpread() > 0 ? " length_spread=" + spec.lengthSpread() : "") + " seed=" + seed;
    }
}
