package dev.kvlab.harness.llama.internal.realkv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.gguf.SynthSpec;
import dev.kvlab.harness.api.gguf.WeightType;
import dev.kvlab.harness.llama.internal.LlamaContext;
import dev.kvlab.harness.llama.internal.LlamaLibrary;
import dev.kvlab.harness.llama.internal.LlamaModel;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local tier on a real unified llama.cpp context (a tiny synthesized model): blocks a prompt leaves behind serve a
 * later prompt that shares them (its next-token logits those of a full recompute), a key met at another depth is never
 * taken, and the least recently used blocks leave first, their cells with them. Skipped with the reason where the
 * pinned llama.cpp library is unavailable; with {@code KVLAB_CI=1} that fails instead.
 */
class LocalPrefixCacheTest {

    static final int B = 16, REQUEST_SEQS = 2, CACHE_SEQS = 4, FIRST_CACHE = REQUEST_SEQS;

    @TempDir
    static Path dir;

    static LlamaModel model;
    static LlamaContext ctx;

    @BeforeAll
    static void context() throws Exception {
        LlamaLibrary lib = RealKvTestSupport.library();
        Path file = Gguf.synth(
                        new SynthSpec(2, 256, 4, 2, 688, 32000, WeightType.F16, 5, 2048), dir.resolve("tiny.gguf"))
                .path();
        model = LlamaModel.load(lib, file);
        ctx = model.newContext(new LlamaContext.Options(
                1024, 256, REQUEST_SEQS + CACHE_SEQS, 1, LlamaContext.FlashAttention.AUTO, true));
    }

    @AfterAll
    static void close() {
        if (ctx != null) ctx.close();
        if (model != null) model.close();
    }

    static LocalPrefixCache cache(int capacity) {
        ctx.clear();
        return new LocalPrefixCache(
                new LocalPrefixCache.Cells() {
                    @Override
                    public void share(int src, int dst, int p0, int p1) {
                        ctx.copySeq(src, dst, p0, p1);
                    }

                    @Override
                    public void release(int seq, int p0, int p1) {
                        ctx.removeSeq(seq, p0, p1);
                    }
                },
                FIRST_CACHE,
                CACHE_SEQS,
                capacity,
                B);
    }

    /** Tokens of a prompt whose block {@code i} is drawn from {@code keys[i]} (as {@link PromptTokens} does). */
    static int[] tokens(long... keys) {
        int[] t = new int[keys.length * B];
        for (int k = 0; k < keys.length; k++) {
            SplittableRandom r = new SplittableRandom(keys[k]);
            for (int i = 0; i < B; i++) t[k * B + i] = PromptTokens.FIRST + r.nextInt(1000);
        }
        return t;
    }

    static void prefillAndKeep(LocalPrefixCache c, long... keys) {
        ctx.prefill(0, tokens(keys), 0, keys.length * B, 0);
        c.keep(keys, keys.length, 0);
        ctx.removeSeq(0, -1, -1);
    }

    static double maxDiff(float[] a, float[] b) {
        double d = 0;
        for (int i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
        return d;
    }

    @Test
    void keptBlocksServeALaterPromptAsARecomputeWould() {
        LocalPrefixCache c = cache(16);
        prefillAndKeep(c, 1, 2, 3, 4);
        assertThat(ctx.maxPos(0)).isEqualTo(-1); // the request's sequence is gone, its blocks are not
        long[] b = {1, 2, 7, 8};
        int[] toks = tokens(b);
        assertThat(c.match(b, 3)).isEqualTo(2);
        c.lend(b, 2, 1);
        assertThat(ctx.maxPos(1)).isEqualTo(2 * B - 1);
        float[] reused = ctx.prefill(1, toks, 2 * B, 4 * B, 2 * B);
        // the same prompt computed from nothing on the other sequence, in the same two batches
        ctx.prefill(0, toks, 0, 2 * B, 0);
        float[] recomputed = ctx.prefill(0, toks, 2 * B, 4 * B, 2 * B);
        ctx.removeSeq(0, -1, -1);
        // control: the same tail after two other blocks gives other logits, by far more than the tolerance
        int[] other = tokens(5, 6, 7, 8);
        ctx.prefill(0, other, 0, 2 * B, 0);
        float[] otherPrefix = ctx.prefill(0, other, 2 * B, 4 * B, 2 * B);
        ctx.removeSeq(0, -1, -1);
        assertThat(maxDiff(reused, recomputed)).isLessThanOrEqualTo(0.02);
        assertThat(maxDiff(reused, otherPrefix)).isGreaterThan(0.2);
        // a prompt whose first block is another one's second is no hit, and neither is one past what the cache holds
        assertThat(c.match(new long[] {2, 3}, 2)).isZero();
        assertThat(c.match(new long[] {1, 2, 3, 4, 5}, 5)).isEqualTo(4);
        assertThatThrownBy(() -> c.lend(new long[] {1, 9}, 2, 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theLeastRecentlyUsedBlocksLeaveFirstAndTheirCellsWithThem() {
        LocalPrefixCache c = cache(4);
        prefillAndKeep(c, 1, 2, 3, 4); // one chain on the first cache sequence
        assertThat(ctx.maxPos(FIRST_CACHE)).isEqualTo(4 * B - 1);
        prefillAndKeep(c, 9, 10); // full: the chain's tail leaves, deepest first
        assertThat(c.evictions()).isEqualTo(2);
        assertThat(c.match(new long[] {1, 2, 3, 4}, 4)).isEqualTo(2);
        assertThat(c.match(new long[] {9, 10}, 2)).isEqualTo(2);
        assertThat(ctx.maxPos(FIRST_CACHE)).isEqualTo(2 * B - 1); // blocks 3 and 4's cells are released
        assertThat(ctx.maxPos(FIRST_CACHE + 1)).isEqualTo(2 * B - 1); // 9, 10 at depths the first id already holds
        c.lend(new long[] {1, 2}, 2, 1); // 1, 2 now the most recent
        ctx.removeSeq(1, -1, -1);
        prefillAndKeep(c, 11); // evicts 10, the least recently used block
        assertThat(c.keysByAge()).containsExactly(9L, 2L, 1L, 11L);
        assertThat(c.match(new long[] {9, 10}, 2)).isEqualTo(1);
        assertThat(ctx.maxPos(FIRST_CACHE + 1)).isEqualTo(B - 1);
        assertThat(c.size()).isEqualTo(4);
        assertThat(List.of(c.evictions())).containsExactly(3L);
    }

    @Test
    void withNoSequenceIdFreeAtADepthTheRestOfTheChainIsNotKept() {
        LocalPrefixCache c = cache(64);
        for (long g = 0; g < CACHE_SEQS + 1; g++) prefillAndKeep(c, 100 + g, 200 + g);
        assertThat(c.size()).isEqualTo(2 * CACHE_SEQS);
        assertThat(c.unplaced()).isEqualTo(2);
        assertThat(c.match(new long[] {100 + CACHE_SEQS, 200 + CACHE_SEQS}, 2)).isZero();
    }
}
