package dev.kvlab.workloads.internal.gen;

import dev.kvlab.workloads.api.BlockKeys;
import java.util.Arrays;

/**
 * A prompt as a sequence of text segments, each named by a content id (equal ids = equal text) and a token count.
 * Its block keys hash the pieces of segments that fall into each block and chain them over the prefix from the
 * namespace digest ({@link BlockKeys#chain}): a block has the same key in two prompts exactly when the two prompts
 * agree on every token up to the end of that block (same segments at the same offsets). A partial last block
 * differs from the full block it later grows into.
 */
public final class TokenSequence {

    private long[] contents = new long[8];
    private int[] lengths = new int[8];
    private int segments;
    private long tokens;

    /** Appends {@code tokens} tokens of the text named {@code contentId}; zero tokens add nothing. */
    public TokenSequence add(long contentId, int tokens) {
        if (tokens < 0) throw new IllegalArgumentException("negative token count " + tokens);
        if (tokens == 0) return this;
        if (segments == contents.length) {
            contents = Arrays.copyOf(contents, segments * 2);
            lengths = Arrays.copyOf(lengths, segments * 2);
        }
        contents[segments] = contentId;
        lengths[segments] = tokens;
        segments++;
        this.tokens += tokens;
        return this;
    }

    public long tokens() {
        return tokens;
    }

    /** {@code ceil(tokens / blockTokens)} chained keys rooted at {@code namespaceDigest}. */
    public long[] blockKeys(long namespaceDigest, int blockTokens) {
        int blocks = (int) ((tokens + blockTokens - 1) / blockTokens);
        long[] keys = new long[blocks];
        long parent = namespaceDigest;
        long h = 0;
        int filled = 0; // tokens in the current block
        int b = 0;
        for (int s = 0; s < segments; s++) {
            long content = contents[s];
            int len = lengths[s];
            int off = 0;
            while (off < len) {
                int take = Math.min(len - off, blockTokens - filled);
                h = BlockKeys.mix(h ^ BlockKeys.mix(content + BlockKeys.mix(off + 0x51L * take)));
                filled += take;
                off += take;
                if (filled == blockTokens) {
                    parent = BlockKeys.chain(parent, BlockKeys.mix(h + filled));
                    keys[b++] = parent;
                    h = 0;
                    filled = 0;
                }
            }
        }
        if (filled > 0) keys[b++] = BlockKeys.chain(parent, BlockKeys.mix(h + filled));
        return keys;
    }

    /** A content id derived from the workload seed and a path of numbers (kind tag, indices). */
    public static long contentId(long seed, long... path) {
        long h = BlockKeys.mix(seed ^ 0x636F6E74656E74L);
        for (long p : path) h = BlockKeys.mix(h + p * 0x9E3779B97F4A7C15L + 0x2545F4914F6CDD1DL);
        return h;
    }
}
