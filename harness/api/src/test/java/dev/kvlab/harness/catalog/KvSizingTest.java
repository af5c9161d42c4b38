package dev.kvlab.harness.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.api.catalog.Catalog;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.KvShape;
import dev.kvlab.harness.api.catalog.KvSizing;
import org.junit.jupiter.api.Test;

/** KV sizing against hand calculations: 2 (K,V) × layers × kv heads × head dim × bytes; MLA: layers × (rank + rope) × bytes. */
class KvSizingTest {

    private final Catalog catalog = Catalogs.builtIn();

    @Test
    void gqaLlama3_8b() {
        KvSizing kv = KvSizing.of(catalog.model("llama-3-8b"), Dtype.BF16, 1);
        // 2 × 32 layers × 8 KV heads × 128 × 2 bytes
        assertThat(kv.bytesPerToken()).isEqualTo(2L * 32 * 8 * 128 * 2).isEqualTo(131_072);
        assertThat(kv.bytesPerTokenPerRank()).isEqualTo(131_072);
        assertThat(kv.bytesPerRequest(4096)).isEqualTo(512L << 20);
        assertThat(kv.tokensPerGiB()).isEqualTo(8192.0);
        assertThat(kv.blockBytes(512)).isEqualTo(64L << 20);
    }

    @Test
    void mhaFromDimensions() {
        // Llama-2-7B-like MHA: 32 layers, 32 KV heads of 128
        KvSizing kv = new KvSizing(KvShape.heads(32, 32, 128), Dtype.FP16, 1);
        assertThat(kv.bytesPerToken()).isEqualTo(2L * 32 * 32 * 128 * 2).isEqualTo(524_288);
        KvSizing tp4 = new KvSizing(KvShape.heads(32, 32, 128), Dtype.FP16, 4);
        assertThat(tp4.kvHeadsPerRank()).isEqualTo(8);
        assertThat(tp4.bytesPerTokenPerRank()).isEqualTo(524_288 / 4);
        assertThat(tp4.bytesPerTokenAllRanks()).isEqualTo(524_288);
    }

    @Test
    void fp8HalvesBf16() {
        KvSizing kv = KvSizing.of(catalog.model("llama-3-8b"), Dtype.FP8, 1);
        assertThat(kv.bytesPerToken()).isEqualTo(2L * 32 * 8 * 128).isEqualTo(65_536);
    }

    @Test
    void tpBelowKvHeadsSplitsHeads() {
        KvSizing kv = KvSizing.of(catalog.model("llama-3-70b"), Dtype.BF16, 4);
        // 70B: 2 × 80 × 8 × 128 × 2 = 327,680; 8 heads over 4 ranks = 2 heads per rank
        assertThat(kv.bytesPerToken()).isEqualTo(327_680);
        assertThat(kv.kvHeadsPerRank()).isEqualTo(2);
        assertThat(kv.bytesPerTokenPerRank()).isEqualTo(2L * 80 * 2 * 128 * 2).isEqualTo(81_920);
        assertThat(kv.replication()).isEqualTo(1);
        assertThat(kv.bytesPerTokenAllRanks()).isEqualTo(327_680);
    }

    @Test
    void tpAboveKvHeadsReplicatesHeads() {
        // Qwen2.5-7B has 4 KV heads: at TP 8 each rank still holds one head, each head lives on 2 ranks
        KvSizing kv = KvSizing.of(catalog.model("qwen2.5-7b"), Dtype.BF16, 8);
        assertThat(kv.bytesPerToken()).isEqualTo(2L * 28 * 4 * 128 * 2).isEqualTo(57_344);
        assertThat(kv.kvHeadsPerRank()).isEqualTo(1);
        assertThat(kv.bytesPerTokenPerRank()).isEqualTo(2L * 28 * 1 * 128 * 2).isEqualTo(14_336);
        assertThat(kv.replication()).isEqualTo(2);
        assertThat(kv.bytesPerTokenAllRanks()).isEqualTo(114_688);
        // equal to the KV head count: exactly one head each, no replication
        KvSizing four = KvSizing.of(catalog.model("qwen2.5-7b"), Dtype.BF16, 4);
        assertThat(four.bytesPerTokenPerRank()).isEqualTo(14_336);
        assertThat(four.replication()).isEqualTo(1);
    }

    @Test
    void mlaLatentIsReplicatedNotSplit() {
        KvSizing one = KvSizing.of(catalog.model("deepseek-v3"), Dtype.BF16, 1);
        // 61 layers × (512 + 64) × 2 bytes
        assertThat(one.bytesPerToken()).isEqualTo(61L * 576 * 2).isEqualTo(70_272);
        KvSizing eight = KvSizing.of(catalog.model("deepseek-v3"), Dtype.BF16, 8);
        assertThat(eight.bytesPerTokenPerRank()).isEqualTo(70_272);
        assertThat(eight.replication()).isEqualTo(8);
        assertThat(eight.bytesPerTokenAllRanks()).isEqualTo(8L * 70_272);
        KvSizing fp8 = new KvSizing(KvShape.mla(61, 512, 64), Dtype.FP8, 1);
        assertThat(fp8.bytesPerToken()).isEqualTo(35_136);
    }

    @Test
    void smallModelsForLiveRuns() {
        assertThat(KvSizing.of(catalog.model("qwen2.5-0.5b"), Dtype.BF16, 1).bytesPerToken())
                .isEqualTo(2L * 24 * 2 * 64 * 2)
                .isEqualTo(12_288);
        assertThat(KvSizing.of(catalog.model("llama-3.2-1b"), Dtype.BF16, 1).bytesPerToken())
                .isEqualTo(2L * 16 * 8 * 64 * 2)
                .isEqualTo(32_768);
    }

    @Test
    void tpThatCannotLayOutHeadsIsRejected() {
        assertThatThrownBy(() -> KvSizing.of(catalog.model("qwen2.5-7b"), Dtype.BF16, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tp 3");
        assertThatThrownBy(() -> KvSizing.of(catalog.model("llama-3-8b"), Dtype.BF16, 12))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
