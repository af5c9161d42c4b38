package dev.kvlab.workloads.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BlockKeysTest {

    @Test
    void unmixInvertsMixAndTraceIdOfInvertsOfTraceId() {
        SplittableRandom r = new SplittableRandom(1);
        long d = Namespace.of("m").digest();
        for (int i = 0; i < 10_000; i++) {
            long z = r.nextLong();
            assertThat(BlockKeys.unmix(BlockKeys.mix(z))).isEqualTo(z);
            assertThat(BlockKeys.traceIdOf(d, BlockKeys.ofTraceId(d, z))).isEqualTo(z);
        }
        assertThat(BlockKeys.unmix(BlockKeys.mix(0))).isZero();
        assertThat(BlockKeys.unmix(BlockKeys.mix(-1))).isEqualTo(-1);
    }

    @Test
    void storeKeyIsKvSlashSixteenLowercaseHexDigits() {
        assertThat(BlockKeys.storeKey(0)).isEqualTo("kv/0000000000000000");
        assertThat(BlockKeys.storeKey(-1)).isEqualTo("kv/ffffffffffffffff");
        assertThat(BlockKeys.storeKey(0xABCL)).isEqualTo("kv/0000000000000abc");
        SplittableRandom r = new SplittableRandom(2);
        for (int i = 0; i < 10_000; i++) {
            long k = r.nextLong() >>> r.nextInt(64);
            assertThat(BlockKeys.storeKey(k)).isEqualTo(String.format("kv/%016x", k));
        }
    }

    @Test
    void everyNamespaceFieldChangesTheDigest() {
        Namespace base = new Namespace("m", "bf16", "tp1", "none", "default");
        assertThat(base.digest()).isEqualTo(new Namespace("m", "bf16", "tp1", "none", "default").digest());
        assertThat(new Namespace("m2", "bf16", "tp1", "none", "default").digest())
                .isNotEqualTo(base.digest());
        assertThat(new Namespace("m", "fp8", "tp1", "none", "default").digest()).isNotEqualTo(base.digest());
        assertThat(new Namespace("m", "bf16", "tp2", "none", "default").digest())
                .isNotEqualTo(base.digest());
        assertThat(new Namespace("m", "bf16", "tp1", "lora-a", "default").digest())
                .isNotEqualTo(base.digest());
        assertThat(new Namespace("m", "bf16", "tp1", "none", "acme").digest()).isNotEqualTo(base.digest());
        // field boundaries matter: ("ab","c") differs from ("a","bc")
        assertThat(new Namespace("ab", "c", "x", "y", "z").digest())
                .isNotEqualTo(new Namespace("a", "bc", "x", "y", "z").digest());
    }

    @Test
    void sameTraceIdInAnotherNamespaceIsAnotherKey() {
        long a = BlockKeys.ofTraceId(Namespace.of("m").digest(), 42);
        long b = BlockKeys.ofTraceId(new Namespace("m", "bf16", "tp1", "none", "other-tenant").digest(), 42);
        assertThat(a).isNotEqualTo(b);
    }
}
