package dev.kvlab.workloads.gen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.internal.gen.TokenSequence;
import org.junit.jupiter.api.Test;

/** Block keys are chained over the prefix and rooted in the namespace. */
class TokenSequenceTest {

    static final long X = 1, Y = 2, Z = 3;
    static final long NS = Namespace.of("m").digest();

    @Test
    void sameBlockAfterADifferentPrefixIsADifferentKey() {
        long[] xy = new TokenSequence().add(X, 512).add(Y, 512).blockKeys(NS, 512);
        long[] zy = new TokenSequence().add(Z, 512).add(Y, 512).blockKeys(NS, 512);
        long[] xy2 = new TokenSequence().add(X, 512).add(Y, 512).blockKeys(NS, 512);
        assertThat(xy).hasSize(2).containsExactly(xy2);
        assertThat(zy[1]).isNotEqualTo(xy[1]); // the same text Y, after a different prefix
        long[] x = new TokenSequence().add(X, 512).blockKeys(NS, 512);
        assertThat(x[0]).isEqualTo(xy[0]); // a block's key depends only on its prefix, not on what follows
        assertThat(zy[0]).isNotEqualTo(xy[0]);
    }

    @Test
    void sameTextInAnotherNamespaceIsADifferentKey() {
        long other = new Namespace("m", "fp8", "tp1", "none", "default").digest();
        long[] a = new TokenSequence().add(X, 1024).blockKeys(NS, 512);
        long[] b = new TokenSequence().add(X, 1024).blockKeys(other, 512);
        assertThat(a[0]).isNotEqualTo(b[0]);
        assertThat(a[1]).isNotEqualTo(b[1]);
    }

    @Test
    void aPartialBlockDiffersFromTheFullBlockItGrowsInto() {
        long[] shortSeq = new TokenSequence().add(X, 600).blockKeys(NS, 512);
        long[] longSeq = new TokenSequence().add(X, 600).add(Y, 424).blockKeys(NS, 512);
        assertThat(shortSeq).hasSize(2);
        assertThat(longSeq).hasSize(2);
        assertThat(longSeq[0]).isEqualTo(shortSeq[0]);
        assertThat(longSeq[1]).isNotEqualTo(shortSeq[1]);
    }

    @Test
    void segmentationDoesNotMatterOnlyTheTextDoes() {
        // the same text split into the same segments at the same offsets gives the same keys, whatever the block size
        for (int block : new int[] {1, 7, 16, 512}) {
            long[] a = new TokenSequence().add(X, 100).add(Y, 50).blockKeys(NS, block);
            long[] b = new TokenSequence().add(X, 100).add(Y, 50).blockKeys(NS, block);
            assertThat(a).containsExactly(b).hasSize((150 + block - 1) / block);
        }
        // a block containing a different slice of a segment is different
        long[] c = new TokenSequence().add(X, 100).blockKeys(NS, 50);
        assertThat(c[0]).isNotEqualTo(c[1]);
    }
}
