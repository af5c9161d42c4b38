package dev.kvlab.harness.api.catalog;

import dev.kvlab.transport.api.ByteSize;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code kvlab plan} reports, as ordered name-value pairs (its JSON object and its table): a model's KV sizing,
 * and what fits a store capacity and a GPU's HBM (a GGUF file's facts: {@code GgufModelInfo#facts}).
 */
public final class KvPlan {

    private KvPlan() {}

    /**
     * The KV sizing of {@code shape} (of catalog model {@code m}, or null for bare dimensions) at {@code dt} and
     * {@code kv}'s tensor parallelism: per token, per request of {@code tokens}, per block of {@code blockTokens}, and
     * what a store of {@code capacityBytes} holds.
     */
    public static Map<String, Object> sizes(
            ModelSpec m, KvShape shape, Dtype dt, KvSizing kv, long tokens, int blockTokens, long capacityBytes) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("model", m == null ? null : m.id());
        o.put("attention", m != null ? m.attentionKind() : shape.isMla() ? "mla" : "kv-heads");
        o.put("layers", shape.layers());
        o.put("kv_heads", shape.isMla() ? null : shape.kvHeads());
        o.put("head_dim", shape.isMla() ? null : shape.headDim());
        o.put("mla_rank", shape.mlaRank());
        o.put("rope_dim", shape.ropeDim());
        o.put("dtype", dt.toString());
        o.put("tp", kv.tp());
        o.put("kv_bytes_per_token", kv.bytesPerToken());
        o.put("kv_bytes_per_token_per_rank", kv.bytesPerTokenPerRank());
        o.put("kv_heads_per_rank", shape.isMla() ? null : kv.kvHeadsPerRank());
        o.put("kv_replication", kv.replication());
        o.put("kv_bytes_per_token_all_ranks", kv.bytesPerTokenAllRanks());
        o.put("request_tokens", tokens);
        o.put("kv_bytes_per_request", kv.bytesPerRequest(tokens));
        o.put("kv_bytes_per_request_per_rank", kv.bytesPerRequestPerRank(tokens));
        o.put("tokens_per_gib", kv.tokensPerGiB());
        o.put("tokens_per_gib_per_rank", kv.tokensPerGiBPerRank());
        o.put("block_tokens", blockTokens);
        o.put("block_bytes", kv.blockBytes(blockTokens));
        o.put("block_bytes_per_rank", kv.blockBytesPerRank(blockTokens));
        o.put("store_capacity_bytes", capacityBytes);
        o.put("store_tokens", capacityBytes / kv.bytesPerToken());
        o.put("store_blocks", capacityBytes / kv.blockBytes(blockTokens));
        o.put("store_requests", capacityBytes / kv.bytesPerRequest(tokens));
        return o;
    }

    /** What fits the HBM of each of {@code kv}'s TP GPUs of kind {@code hw}, {@code memFraction} of it usable for weights and KV. */
    public static Map<String, Object> hbm(
            ModelSpec m, HardwareSpec hw, KvSizing kv, double memFraction, long tokens, int blockTokens) {
        Map<String, Object> o = new LinkedHashMap<>();
        double weightsPerRank = m.parameters() * m.weightDtype().bytes() / kv.tp();
        double usable = hw.hbmCapacity() * memFraction;
        double kvPerRank = Math.max(0, usable - weightsPerRank);
        o.put("hardware", hw.id());
        o.put("hbm_bytes_per_rank", hw.hbmCapacity());
        o.put("weight_bytes_per_rank", (long) weightsPerRank);
        o.put("weights_fit", weightsPerRank < usable);
        o.put("hbm_kv_bytes_per_rank", (long) kvPerRank);
        o.put("hbm_kv_tokens", (long) (kvPerRank / kv.bytesPerTokenPerRank()));
        o.put("hbm_kv_blocks", (long) (kvPerRank / kv.blockBytesPerRank(blockTokens)));
        o.put("hbm_kv_requests", (long) (kvPerRank / kv.bytesPerRequestPerRank(tokens)));
        return o;
    }

    /**
     * The plan {@code o} as {@code kvlab plan}'s table: one line per non-null entry, byte counts also in binary units,
     * fractions to one decimal.
     */
    public static String text(Map<String, Object> o) {
        StringBuilder w = new StringBuilder();
        for (Map.Entry<String, Object> e : o.entrySet()) {
            if (e.getValue() == null) continue;
            Object v = e.getValue();
            String s;
            if (v instanceof Double d) s = String.format(Locale.ROOT, "%,.1f", d);
            else if (v instanceof Long l && e.getKey().contains("bytes"))
                s = String.format(Locale.ROOT, "%,d  (%s)", l, ByteSize.format(l));
            else if (v instanceof Long l) s = String.format(Locale.ROOT, "%,d", l);
            else s = String.valueOf(v);
            w.append(String.format(Locale.ROOT, "%-30s %s%n", e.getKey(), s));
        }
        return w.toString();
    }
}
