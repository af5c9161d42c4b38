package dev.kvlab.harness.api.gguf;

import dev.kvlab.harness.api.input.BadInputException;
import java.util.AbstractList;
import java.util.List;

/**
 * The tokenizer vocabulary of a synthesized model: a SentencePiece ({@code tokenizer.ggml.model = "llama"}) vocabulary
 * built so that every word of {@link #words()} is exactly one token.
 *
 * <p><b>The rule.</b> Text of {@code n} tokens is {@code " " + w1 + " " + w2 + ... + " " + wn} (each word preceded by
 * one space, nothing else), for any words of {@link #words()}, repeated or not; it tokenizes to exactly {@code n}
 * tokens, and the server adds BOS in front ({@code n + 1} in the context). Two such texts concatenate to one of
 * {@code n1 + n2} tokens, so a prompt is a prefix text followed by a suffix text. The model sets
 * {@code tokenizer.ggml.add_space_prefix = false}, so the leading space is not doubled.
 *
 * <p><b>Why.</b> llama.cpp's SPM tokenizer turns spaces into {@code ▁}, splits the text into characters and merges
 * adjacent pairs whose concatenation is a token, highest score first. The only multi-character tokens here start with
 * {@code ▁} followed by 1 to 3 lowercase letters ({@code ▁a}, {@code ▁ab}, {@code ▁abc}, with every 1- and 2-letter
 * prefix present), so merges grow each word from its {@code ▁} and never cross into the next word: {@code ▁abc▁abd}
 * becomes {@code [▁abc, ▁abd]}.
 *
 * <p><b>Layout</b> (token ids): 0 {@code <unk>}, 1 {@code <s>} (BOS), 2 {@code </s>} (EOS), 3..258 the byte
 * fallbacks {@code <0x00>..<0xFF>}, 259 {@code ▁}, 260..285 {@code a..z}, then {@code ▁a..▁z}, {@code ▁aa..▁zz}
 * and as many 3-letter pieces {@code ▁aaa..} as the vocabulary has room for (17,576 at most); the rest are
 * unreachable {@code <unused_N>} tokens. Word {@code i} is token {@link #FIRST_WORD_ID} {@code + i} (286 + i).
 *
 * <p><b>Every token prints valid UTF-8.</b> A model with random weights samples any token. The byte fallbacks
 * {@code <0x80>..<0xFF>} alone are not UTF-8, and llama-server fails such a request with a server error ("does not
 * match the expected Content-only format"), so they are typed <i>unused</i>: they still tokenize (no text of
 * {@link #words()} needs them) but print nothing, like the {@code <unused_N>} tokens.
 */
public final class SynthVocabulary {

    /** Text of the word-boundary marker SentencePiece uses for a space. */
    public static final String SPACE_MARK = "\u2581";

    public static final int UNK_ID = 0;
    public static final int BOS_ID = 1;
    public static final int EOS_ID = 2;
    /** First id of the byte-fallback tokens {@code <0x00>..<0xFF>}. */
    public static final int FIRST_BYTE_ID = 3;
    /** Id of the lone {@code ▁}. */
    public static final int SPACE_ID = FIRST_BYTE_ID + 256;
    /** First id of the single letters {@code a..z}. */
    public static final int FIRST_LETTER_ID = SPACE_ID + 1;
    /** First id of the word pieces ({@code ▁a}); word {@code i} is token {@code FIRST_WORD_ID + i}. */
    public static final int FIRST_WORD_ID = FIRST_LETTER_ID + 26;

    private static final int ONE_AND_TWO_LETTER_WORDS = 26 + 26 * 26;
    private static final int THREE_LETTER_WORDS = 26 * 26 * 26;
    /** The smallest vocabulary: specials, bytes, {@code ▁}, letters and all 1- and 2-letter words (988). */
    public static final int MIN_VOCAB = FIRST_WORD_ID + ONE_AND_TWO_LETTER_WORDS;

    private final int vocabSize;
    private final int wordCount;

    private SynthVocabulary(int vocabSize) {
        this.vocabSize = vocabSize;
        this.wordCount = ONE_AND_TWO_LETTER_WORDS + Math.min(THREE_LETTER_WORDS, vocabSize - MIN_VOCAB);
    }

    /** The vocabulary of a model of {@code vocabSize} tokens; refuses fewer than {@link #MIN_VOCAB}. */
    public static SynthVocabulary of(int vocabSize) {
        if (vocabSize < MIN_VOCAB)
            throw new BadInputException(
                    "vocab " + vocabSize + " is too small for the synthetic tokenizer: it needs at least " + MIN_VOCAB
                            + " tokens (3 specials, 256 byte tokens, 27 characters, 702 one- and two-letter words)");
        return new SynthVocabulary(vocabSize);
    }

    public int vocabSize() {
        return vocabSize;
    }

    /** How many single-token words there are (702 + up to 17,576 three-letter ones; 18,278 from vocab 18,564 up). */
    public int wordCount() {
        return wordCount;
    }

    /** Word {@code i} (lowercase letters, no space), {@code 0 <= i < wordCount()}: a..z, aa..zz, aaa..zzz. */
    public String word(int i) {
        if (i < 0 || i >= wordCount) throw new IndexOutOfBoundsException("word " + i + " of " + wordCount);
        if (i < 26) return letters(i, 1);
        if (i < ONE_AND_TWO_LETTER_WORDS) return letters(i - 26, 2);
        return letters(i - ONE_AND_TWO_LETTER_WORDS, 3);
    }

    /** All single-token words, in token order. */
    public List<String> words() {
        return new AbstractList<>() {
            @Override
            public String get(int i) {
                return word(i);
            }

            @Override
            public int size() {
                return wordCount;
            }
        };
    }

    /** The token id word {@code i} becomes. */
    public int tokenId(int i) {
        if (i < 0 || i >= wordCount) throw new IndexOutOfBoundsException("word " + i + " of " + wordCount);
        return FIRST_WORD_ID + i;
    }

    /**
     * Text of exactly {@code count} tokens (BOS not counted): words {@code first, first+1, ...} (wrapping around
     * {@link #wordCount()}), each preceded by a space.
     */
    public String text(int first, int count) {
        if (count < 0 || first < 0) throw new IllegalArgumentException("first and count must be >= 0");
        StringBuilder sb = new StringBuilder(count * 4);
        for (int k = 0; k < count; k++) sb.append(' ').append(word((int) ((first + (long) k) % wordCount)));
        return sb.toString();
    }

    /** Text of exactly {@code wordIndexes.length} tokens: those words, each preceded by a space. */
    public String textOf(int[] wordIndexes) {
        StringBuilder sb = new StringBuilder(wordIndexes.length * 4);
        for (int i : wordIndexes) sb.append(' ').append(word(i));
        return sb.toString();
    }

    /** The text of token {@code id} as stored in the model ({@code ▁} for a space). */
    public String token(int id) {
        if (id < 0 || id >= vocabSize) throw new IndexOutOfBoundsException("token " + id + " of " + vocabSize);
        if (id == UNK_ID) return "<unk>";
        if (id == BOS_ID) return "<s>";
        if (id == EOS_ID) return "</s>";
        if (id < SPACE_ID) return String.format("<0x%02X>", id - FIRST_BYTE_ID);
        if (id == SPACE_ID) return SPACE_MARK;
        if (id < FIRST_WORD_ID) return letters(id - FIRST_LETTER_ID, 1);
        if (id < FIRST_WORD_ID + wordCount) return SPACE_MARK + word(id - FIRST_WORD_ID);
        return "<unused_" + (id - FIRST_WORD_ID - wordCount) + ">";
    }

    /** SentencePiece score of token {@code id}: a word piece scores its letter count, everything else 0. */
    public float score(int id) {
        if (id >= FIRST_WORD_ID && id < FIRST_WORD_ID + wordCount)
            return word(id - FIRST_WORD_ID).length();
        return 0f;
    }

    /**
     * GGUF token type of token {@code id}: 1 normal, 2 unknown, 3 control, 5 unused, 6 byte; the bytes {@code 0x80..0xFF}
     * are unused (they print nothing), so that no sampled token prints invalid UTF-8.
     */
    public int tokenType(int id) {
        if (id == UNK_ID) return 2;
        if (id == BOS_ID || id == EOS_ID) return 3;
        if (id < FIRST_BYTE_ID + 0x80) return 6;
        if (id < SPACE_ID) return 5;
        if (id < FIRST_WORD_ID + wordCount) return 1;
        return 5;
    }

    private static String letters(int index, int length) {
        char[] c = new char[length];
        for (int k = length - 1; k >= 0; k--) {
            c[k] = (char) ('a' + index % 26);
            index /= 26;
        }
        return new String(c);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SynthVocabulary v && v.vocabSize == vocabSize;
    }

    @Override
    public int hashCode() {
        return Integer.hashCode(vocabSize);
    }

    @Override
    public String toString() {
        return "SynthVocabulary[vocab=" + vocabSize + ", words=" + wordCount + "]";
    }
}
