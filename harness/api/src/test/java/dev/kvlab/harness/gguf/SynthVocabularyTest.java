package dev.kvlab.harness.gguf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.harness.api.gguf.SynthVocabulary;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Every word is one token, also inside a run of words, against a reference model of SPM merging. */
class SynthVocabularyTest {

    @Test
    void layoutAndWordCounts() {
        SynthVocabulary v = SynthVocabulary.of(32000);
        assertThat(v.wordCount()).isEqualTo(26 + 676 + 17576);
        assertThat(v.word(0)).isEqualTo("a");
        assertThat(v.word(26)).isEqualTo("aa");
        assertThat(v.word(701)).isEqualTo("zz");
        assertThat(v.word(702)).isEqualTo("aaa");
        assertThat(v.word(v.wordCount() - 1)).isEqualTo("zzz");
        assertThat(v.token(v.tokenId(702))).isEqualTo("\u2581aaa");
        assertThat(v.token(3 + 10)).isEqualTo("<0x0A>");
        assertThat(v.token(31999)).startsWith("<unused_");
        assertThat(new HashSet<>(tokens(v))).hasSize(32000);
        assertThat(SynthVocabulary.of(SynthVocabulary.MIN_VOCAB).wordCount()).isEqualTo(702);
        assertThat(SynthVocabulary.of(1024).wordCount()).isEqualTo(702 + 1024 - 988);
        assertThat(v.text(0, 3)).isEqualTo(" a b c");
        assertThat(v.text(v.wordCount() - 1, 2)).isEqualTo(" zzz a");
        assertThat(v.textOf(new int[] {702, 0, 702})).isEqualTo(" aaa a aaa");
    }

    @Test
    void wordsAreSingleTokensAloneAndInRuns() {
        for (int size : new int[] {SynthVocabulary.MIN_VOCAB, 1024, 32000}) {
            SynthVocabulary v = SynthVocabulary.of(size);
            SpmReference spm = new SpmReference(v);
            for (int i = 0; i < v.wordCount(); i += 37)
                assertThat(spm.tokenize(" " + v.word(i))).containsExactly(v.tokenId(i));
            SplittableRandom rnd = new SplittableRandom(size);
            List<Integer> expected = new ArrayList<>();
            StringBuilder text = new StringBuilder();
            for (int k = 0; k < 300; k++) {
                int i = rnd.nextInt(v.wordCount());
                expected.add(v.tokenId(i));
                text.append(' ').append(v.word(i));
            }
            assertThat(spm.tokenize(text.toString())).isEqualTo(expected);
        }
        SynthVocabulary v = SynthVocabulary.of(32000);
        SpmReference spm = new SpmReference(v);
        assertThat(spm.tokenize("  ab"))
                .as("a doubled space costs a token")
                .containsExactly(SynthVocabulary.SPACE_ID, v.tokenId(26 + 1));
        assertThat(spm.tokenize("abc")).as("no leading space: letters").hasSize(3);
        assertThat(spm.tokenize(v.text(5, 1024) + v.text(9000, 32))).hasSize(1056);
    }

    private static List<String> tokens(SynthVocabulary v) {
        List<String> t = new ArrayList<>();
        for (int id = 0; id < v.vocabSize(); id++) t.add(v.token(id));
        return t;
    }
}
