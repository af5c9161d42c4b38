package dev.kvlab.harness.openai.internal;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds words that are one token each on a target's tokenizer ({@code POST /tokenize}): batches of candidate words
 * are tokenized joined, and a batch whose count is its word count is kept whole, one that is not is split until its
 * single-token words are found (bounded in calls). The candidates are what a vocabulary holds most densely first: every
 * lowercase word of 1 and 2 letters, then 3-letter words (a small vocabulary, e.g. a synthesized model's of 2,000
 * tokens, holds all the short ones and few of the rest). Also counts the special tokens the server adds to a prompt (a
 * BOS). Where the server cannot tokenize, the candidates are used unchecked and why is recorded.
 */
final class WordCheck {

    static final int WANT = 2048, MIN = 64, MAX_CALLS = 400, BATCH = 256;

    /** The words, the special tokens per prompt, and how they were found ({@code why}: why unchecked, or null). */
    record Result(List<String> words, int specialTokens, boolean checked, int calls, String why) {}

    static Result run(EngineClient c, URI u, String model) {
        List<String> cand = PromptText.candidates();
        EngineClient.Tokenized with = c.tokenized(u, model, cand.get(0), true),
                without = c.tokenized(u, model, cand.get(0), false);
        if (with.count() < 0 || without.count() < 0)
            return new Result(cand, 1, false, 2, with.count() < 0 ? with.why() : without.why());
        int[] calls = {2};
        List<String> keep = new ArrayList<>();
        for (int i = 0; i < cand.size() && keep.size() < WANT && calls[0] < MAX_CALLS; i += BATCH)
            split(c, u, model, cand.subList(i, Math.min(cand.size(), i + BATCH)), keep, calls);
        if (keep.size() < MIN)
            throw new dev.kvlab.harness.api.input.BadInputException(
                    "target " + u + ": found only " + keep.size() + " single-token words in "
                            + calls[0] + " tokenize calls (need " + MIN + "; asked about "
                            + Math.min(cand.size(), (long) calls[0] * BATCH)
                            + " lowercase words of 1 to 3 letters): its tokenizer splits short lowercase words, so kvlab cannot build prompts of exact"
                            + " token counts on it");
        return new Result(keep, Math.max(0, with.count() - without.count()), true, calls[0], null);
    }

    private static void split(EngineClient c, URI u, String model, List<String> words, List<String> keep, int[] calls) {
        if (words.isEmpty() || calls[0] >= MAX_CALLS) return;
        calls[0]++;
        int n = c.tokenize(u, model, String.join("", words), false);
        if (n == words.size()) {
            keep.addAll(words);
            return;
        }
        if (words.size() == 1 || n < 0) return;
        int h = words.size() / 2;
        split(c, u, model, words.subList(0, h), keep, calls);
        split(c, u, model, words.subList(h, words.size()), keep, calls);
    }

    private WordCheck() {}
}
