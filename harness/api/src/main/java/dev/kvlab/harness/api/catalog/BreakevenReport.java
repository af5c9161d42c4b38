package dev.kvlab.harness.api.catalog;

import dev.kvlab.transport.api.LinkSpec;
import java.util.LinkedHashMap;
import java.util.Locale;
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
    public static Map<String, Object> of(
            ModelSpec m,
            HardwareSpec hw,
            KvSizing kv,
            LinkSpec link,
            long prefixTokens,
            int suffixTokens,
            int passTokens) {
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
        o.put(
                "speedup_of_winner",
                r.fetchWins() ? r.recomputeSeconds() / r.fetchSeconds() : r.fetchSeconds() / r.recomputeSeconds());
        o.put("breakeven_prefix_tokens", r.breakevenTokens());
        o.put("max_context", m.maxContext());
        o.put(
                "fetch_also_wins_below_tokens",
                !Double.isFinite(r.memoryFloorTokens()) ? null : (long) Math.ceil(r.memoryFloorTokens()));
        o.put(
                "breakeven_link_gbps",
                Double.isInfinite(r.breakevenBitsPerSecond()) ? null : r.breakevenBitsPerSecond() / 1e9);
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

    /** The report {@code o} of {@link #of} as {@code kvlab breakeven} prints it: recompute, fetch, the winner and where fetching wins. */
    public static String text(Map<String, Object> o) {
        StringBuilder w = new StringBuilder();
        w.append(String.format(
                Locale.ROOT,
                "%s on %s (tp %d), %d-token prefix over %s per GPU:%n",
                o.get("model"),
                o.get("hardware"),
                o.get("tp"),
                o.get("prefix_tokens"),
                o.get("link")));
        w.append(String.format(
                Locale.ROOT,
                "  recompute %.3f ms (compute %.3f ms, memory %.3f ms)%n",
                o.get("recompute_ms"),
                o.get("compute_bound_ms"),
                o.get("memory_bound_ms")));
        w.append(String.format(
                Locale.ROOT,
                "  fetch     %.3f ms (%,d bytes per rank%s)%n",
                o.get("fetch_ms"),
                o.get("kv_bytes_per_rank"),
                o.get("kv_load_ms") == null
                        ? ""
                        : String.format(
                                Locale.ROOT, "; loading it into the engine %.3f ms", (Double) o.get("kv_load_ms"))));
        if (o.get("suffix_tokens") instanceof Number n && n.longValue() > 0)
            w.append(String.format(
                    Locale.ROOT,
                    "  (both with the %d-token suffix prefilled: after the fetched prefix, or with the recomputed one)%n",
                    n.longValue()));
        w.append(String.format(
                Locale.ROOT,
                "  %s wins; %s; break-even link for this prefix: %s%n",
                Boolean.TRUE.equals(o.get("fetch_wins")) ? "fetch" : "recompute",
                fetchWinsFrom(o),
                o.get("breakeven_link_gbps") == null
                        ? "none (fetch never wins)"
                        : String.format(Locale.ROOT, "%.2f Gbps", (Double) o.get("breakeven_link_gbps"))));
        return w.toString();
    }

    /** Where fetching wins, in words: from the break-even length (noting when that is past the model's context), and below the weight-read floor. */
    static String fetchWinsFrom(Map<String, Object> o) {
        long from = ((Number) o.get("breakeven_prefix_tokens")).longValue();
        long context = ((Number) o.get("max_context")).longValue();
        String s = from <= 1
                ? "fetch wins at every prefix length"
                : String.format(
                        Locale.ROOT,
                        "fetch always wins from %,d tokens%s",
                        from,
                        from > context
                                ? String.format(Locale.ROOT, " (beyond the model's %,d-token context)", context)
                                : "");
        Object below = o.get("fetch_also_wins_below_tokens");
        if (from > 1 && below instanceof Number n && n.longValue() > 1)
            s += String.format(
                    Locale.ROOT,
                    " and below %,d tokens (a lone prefill that short is weight-read-bound)",
                    n.longValue());
        return s;
    }
}
