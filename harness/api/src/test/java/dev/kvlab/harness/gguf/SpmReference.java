package dev.kvlab.harness.gguf;

import dev.kvlab.harness.api.gguf.SynthVocabulary;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * A plain model of SentencePiece-style tokenization as llama.cpp's SPM tokenizer does it, written from the
 * algorithm's description for checking a vocabulary offline: spaces become {@code ▁}; the text starts as one symbol
 * per character; the adjacent pair whose concatenation is a token of the highest score (leftmost on ties) is merged,
 * again and again; a final symbol that is no token falls back to byte tokens.
 */
final class SpmReference {

    private record Pair(int left, int right, float score, int length) {}

    private final Map<String, Integer> ids = new HashMap<>();
    private final SynthVocabulary vocab;

    SpmReference(SynthVocabulary vocab) {
        this.vocab = vocab;
        for (int id = 0; id < vocab.vocabSize(); id++) ids.put(vocab.token(id), id);
    }

    List<Integer> tokenize(String text) {
        String s = text.replace(" ", SynthVocabulary.SPACE_MARK);
        List<String> sym = new ArrayList<>();
        s.codePoints().forEach(cp -> sym.add(new String(Character.toChars(cp))));
        int n = sym.size();
        int[] prev = new int[n], next = new int[n];
        for (int i = 0; i < n; i++) {
            prev[i] = i - 1;
            next[i] = i + 1 < n ? i + 1 : -1;
        }
        PriorityQueue<Pair> queue = new PriorityQueue<>(
                Comparator.comparingDouble((Pair p) -> -p.score()).thenComparingInt(Pair::left));
        for (int i = 0; i + 1 < n; i++) offer(queue, sym, i, i + 1);
        while (!queue.isEmpty()) {
            Pair p = queue.poll();
            String l = sym.get(p.left()), r = sym.get(p.right());
            if (l.isEmpty() || r.isEmpty() || l.length() + r.length() != p.length() || next[p.left()] != p.right())
                continue;
            sym.set(p.left(), l + r);
            sym.set(p.right(), "");
            next[p.left()] = next[p.right()];
            if (next[p.left()] >= 0) prev[next[p.left()]] = p.left();
            if (prev[p.left()] >= 0) offer(queue, sym, prev[p.left()], p.left());
            if (next[p.left()] >= 0) offer(queue, sym, p.left(), next[p.left()]);
        }
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i >= 0 && n > 0; i = next[i]) {
            Integer id = ids.get(sym.get(i));
            if (id != null) out.add(id);
            else
                for (byte b : sym.get(i).getBytes(StandardCharsets.UTF_8))
                    out.add(SynthVocabulary.FIRST_BYTE_ID + (b & 0xFF));
        }
        return out;
    }

    private void offer(PriorityQueue<Pair> queue, List<String> sym, int left, int right) {
        String joined = sym.get(left) + sym.get(right);
        Integer id = ids.get(joined);
        if (id != null) queue.add(new Pair(left, right, vocab.score(id), joined.length()));
    }
}
