package dev.kvlab.harness.api.catalog;

import dev.kvlab.transport.api.LinkSpec;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@code kvlab breakeven} reports, as ordered name-value pairs (its JSON object): recompute against fetch for
 * one prefix, the break-even prefix length and link rate, and whether the weights fit.
 */
public final class BreakevenReport {

    private BreakevenReport() {}

    /** Model {@code m} on {@code hw} at {@code kv}'s dtype and TP, fetching over {@code link} per GPU, for a prefix of {@code prefixTokens}. */
    public static Map<String, Object> of(ModelSpec m, HardwareSpec hw, KvSizing kv, LinkSpec link, long prefixTokens) {
        return of(m, hw, kv, link, prefixTokens, 0, Integer.MAX_VALUE);
    }

    /** The same for a prefix followed by {@code suffixTokens} prompt tokens on an engine of {@code passTokens} tokens per pass ({@link Breakeven}). */
    public static Map<String, Object> of(ModelSpec m, HardwareSpec hw, KvSizing kv, LinkSpec link, long prefixTokens, int suffixTokens, int passTokens) {
        LinkSpec l = link;
        Roofline roof = new Roofline(m, hw, kv);
        Breakeven be = new Breakeven(roof, l, suffixTokens, passTokens);
        Breakeven.Result r = be.at(prefixTokens);
        double weightsPerRank = m.parameters() * m.weightDtype().bytes() / kv.tp();
        int minTp = 1;
        while (m.parameters() * m.weightDtype().bytes() / minTp > 0.9 * hw.hbmCapacity() && minTp < 1024) minTp *= 2;
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("model", m.id());
        o.put("hardware", hw.id());
        o.put("link", l.toString());
        o.put("link_gbps_per_gpu", l.bytesPerSecond() * 8 / 1e9);
        o.put("link_latency_us", be.latencySeconds() * 1e6);
        o.put("tp", kv.tp());
        o.put("dtype", kv.dtype().toString());
        o.put("prefix_tokens", prefixTokens);
        if (suffixTokens > 0) o.put("suffix_tokens", suffixTokens);
        if (passTokens != Integer.MAX_VALUE) o.put("pass_tokens", passTokens);
        o.put("kv_bytes", r.kvBytes());
        o.put("kv_bytes_per_rank", r.kvBytesPerRank());
        o.put("recompute_seconds", r.recomputeSeconds());
        o.put("fetch_seconds", r.fetchSeconds());
        o.put("recompute_ms", r.recomputeSeconds() * 1e3);
        o.put("compute_bound_ms", r.computeSeconds() * 1e3);
        o.put("memory_bound_ms", r.memorySeconds() * 1e3);
        o.put("fetch_ms", r.fetchSeconds() * 1e3);
        o.put("fetch_wins", r.fetchWins());
        o.put("winner", r.fetchWins() ? "fetch" : "recompute");
        o.put("speedup_of_winner", r.fetchWins() ? r.recomputeSeconds() / r.fetchSeconds() : r.fetchSeconds() / r.recomputeSeconds());
        o.put("breakeven_prefix_tokens", r.breakevenTokens());
        o.put("max_context", m.maxContext());
        o.put("fetch_also_wins_below_tokens", !Double.isFinite(r.memoryFloorTokens()) ? null : (long) Math.ceil(r.memoryFloorTokens()));
        o.put("breakeven_link_gbps", Double.isInfinite(r.breakevenBitsPerSecond()) ? null : r.breakevenBitsPerSecond() / 1e9);
        o.put("prefill_mfu", hw.prefillMfu());
        o.put("decode_bandwidth_utilization", hw.decodeBandwidthUtilization());
        if (hw.attention() != null) {
            o.put("attention_efficiency", hw.attention().efficiency());
            o.put("attention_small_pass_efficiency", hw.attention().smallPassEfficiency());
            o.put("attention_small_pass_tokens", hw.attention().smallPassTokens());
        }
        if (hw.kvLoad() != null) {
            o.put("kv_load_ms", roof.kvLoadSeconds(prefixTokens) * 1e3);
            o.put("kv_load_latency_us", hw.kvLoad().latencySeconds() * 1e6);
            o.put("kv_load_bytes_per_second", hw.kvLoad().bytesPerSecond());
        }
        o.put("weight_bytes_per_rank", (long) weightsPerRank);
        o.put("weights_fit", weightsPerRank <= 0.9 * hw.hbmCapacity());
        o.put("min_tp_that_fits", minTp);
        o.put("emulated", "gpu time (roofline model)");
        return o;
    }
}
