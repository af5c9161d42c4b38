package dev.kvlab.harness.openai.internal;

import dev.kvlab.workloads.api.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Turns a request into prompt text whose token count on the target's tokenizer is the request's
 * {@code inputTokens}, and whose shared prefixes are shared token for token: each KV block's text is a function
 * of its chained block key alone (equal keys, as for equal Mooncake {@code hash_ids}, give identical text; AIPerf
 * does the same for Mooncake traces). The text is words from a vocabulary checked to be one token each on the
 * target ({@link WordCheck}), each preceded by a space, so that a block of {@code n} tokens is {@code n} words and a
 * prompt is its blocks' text joined. {@code specialTokens} (the BOS the server adds) are taken from the last block,
 * so the engine sees exactly {@code inputTokens}.
 */
public final class PromptText {

    private final String[] words;
    private final int specialTokens;

    /**
     * @param words          words that are one token each, with their leading space, on the target's tokenizer
     * @param specialTokens  tokens the server adds to every prompt (a BOS: 1)
     */
    public PromptText(List<String> words, int specialTokens) {
        if (words.size() < 2)
            throw new IllegalArgumentException("need at least 2 single-token words, got " + words.size());
        this.words = words.toArray(String[]::new);
        this.specialTokens = Math.max(0, specialTokens);
    }

    /** The text of {@code r}'s prompt. */
    public String of(Request r) {
        int tokens = Math.max(1, r.inputTokens() - specialTokens);
        StringBuilder sb = new StringBuilder(tokens * 5);
        long[] keys = r.blockKeys();
        int bt = r.blockTokens(), left = tokens;
        for (int b = 0; b < keys.length && left > 0; b++) {
            int n = Math.min(bt, left);
            append(sb, keys[b], n);
            left -= n;
        }
        return sb.toString();
    }

    /** {@code n} words of a block keyed {@code key}: the first {@code n} of the block's sequence, whatever {@code n}. */
    private void append(StringBuilder sb, long key, int n) {
        SplittableRandom rnd = new SplittableRandom(key ^ 0x6b766c6162L);
        for (int i = 0; i < n; i++) sb.append(words[rnd.nextInt(words.length)]);
    }

    /** Text of {@code tokens} words drawn from {@code seed}, sharing nothing with a workload's blocks (the cache-state probe). */
    public String probe(long seed, int tokens) {
        StringBuilder sb = new StringBuilder(tokens * 5);
        append(sb, seed * 0x9E3779B97F4A7C15L + 0x70726f6265L, Math.max(1, tokens - specialTokens));
        return sb.toString();
    }

    public int specialTokens() {
        return specialTokens;
    }

    /**
     * Candidate words, each with its leading space: every lowercase word of 1 and 2 letters (in order), then every one
     * of 3 letters in a fixed shuffled order (what a small vocabulary holds comes first).
     */
    public static List<String> candidates() {
        List<String> out = new ArrayList<>(26 + 26 * 26 + 26 * 26 * 26);
        for (char a = 'a'; a <= 'z'; a++) out.add(" " + a);
        for (char a = 'a'; a <= 'z'; a++) for (char b = 'a'; b <= 'z'; b++) out.add(" " + a + b);
        int shortWords = out.size();
        for (char a = 'a'; a <= 'z'; a++)
            for (char b = 'a'; b <= 'z'; b++) for (char c = 'a'; c <= 'z'; c++) out.add(" " + a + b + c);
        SplittableRandom rnd = new SplittableRandom(20261202L);
        for (int i = out.size() - 1; i > shortWords; i--) {
            int j = shortWords + rnd.nextInt(i - shortWords + 1);
            String t = out.get(i);
            out.set(i, out.get(j));
            out.set(j, t);
        }
        return out;
    }
}
