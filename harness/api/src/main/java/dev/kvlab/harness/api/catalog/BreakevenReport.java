package dev.kvlab.harness.api.catalog;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.kvlab.transport.api.LinkSpec;
import java.util.Locale;

/**
 * What {@code kvlab breakeven} reports: what it compares ({@code setup}), recompute against fetch for the prefix with
 * the break-even prefix length and link rate ({@code times}), the GPU efficiencies assumed ({@code efficiency}) and
 * whether the weights fit ({@code weights}). Its JSON object ({@code ReportJson.write}) holds the parts' fields flat,
 * in this order, then {@link #emulated}; {@link #text} is its summary in words.
 */
public record BreakevenReport(
        @JsonUnwrapped BreakevenSetup setup,
        @JsonUnwrapped BreakevenTimes times,
        @JsonUnwrapped BreakevenEfficiency efficiency,
        @JsonUnwrapped BreakevenWeights weights) {

    /** Model {@code m} on {@code hw} at {@code kv}'s dtype and TP, fetching over {@code link} per GPU, for a prefix of {@code prefixTokens}. */
    public static BreakevenReport of(ModelSpec m, HardwareSpec hw, KvSizing kv, LinkSpec link, long prefixTokens) {
        return of(m, hw, kv, link, prefixTokens, 0, Integer.MAX_VALUE);
    }

    /** The same for a prefix followed by {@code suffixTokens} prompt tokens on an engine of {@code passTokens} tokens per pass ({@link Breakeven}). */
    public static BreakevenReport of(
            ModelSpec m,
            HardwareSpec hw,
            KvSizing kv,
            LinkSpec link,
            long prefixTokens,
            int suffixTokens,
            int passTokens) {
        Roofline roof = new Roofline(m, hw, kv);
        Breakeven be = new Breakeven(roof, link, suffixTokens, passTokens);
        BreakevenSetup setup = new BreakevenSetup(
                m.id(),
                hw.id(),
                link.toString(),
                link.bytesPerSecond() * 8 / 1e9,
                be.latencySeconds() * 1e6,
                kv.tp(),
                kv.dtype().toString(),
                prefixTokens,
                suffixTokens > 0 ? suffixTokens : null,
                passTokens != Integer.MAX_VALUE ? passTokens : null);
        return new BreakevenReport(
                setup,
                BreakevenTimes.of(be.at(prefixTokens), m.maxContext()),
                BreakevenEfficiency.of(hw, roof, prefixTokens),
                BreakevenWeights.of(m, hw, kv.tp()));
    }

    /** What the times are: the roofline model's estimate of GPU time, not a measurement. */
    @JsonProperty("emulated")
    public String emulated() {
        return "gpu time (roofline model)";
    }

    /** The report as {@code kvlab breakeven} prints it: recompute, fetch, the winner and where fetching wins. */
    public String text() {
        BreakevenSetup s = setup;
        BreakevenTimes t = times;
        StringBuilder w = new StringBuilder();
        w.append(String.format(
                Locale.ROOT,
                "%s on %s (tp %d), %d-token prefix over %s per GPU:%n",
                s.model(),
                s.hardware(),
                s.tp(),
                s.prefixTokens(),
                s.link()));
        w.append(String.format(
                Locale.ROOT,
                "  recompute %.3f ms (compute %.3f ms, memory %.3f ms)%n",
                t.recomputeMs(),
                t.computeBoundMs(),
                t.memoryBoundMs()));
        w.append(String.format(
                Locale.ROOT,
                "  fetch     %.3f ms (%,d bytes per rank%s)%n",
                t.fetchMs(),
                t.kvBytesPerRank(),
                efficiency.kvLoad() == null
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                "; loading it into the engine %.3f ms",
                                efficiency.kvLoad().kvLoadMs())));
        if (s.suffixTokens() != null && s.suffixTokens() > 0)
            w.append(String.format(
                    Locale.ROOT,
                    "  (both with the %d-token suffix prefilled: after the fetched prefix, or with the recomputed one)%n",
                    s.suffixTokens().longValue()));
        w.append(String.format(
                Locale.ROOT,
                "  %s wins; %s; break-even link for this prefix: %s%n",
                t.fetchWins() ? "fetch" : "recompute",
                fetchWinsFrom(t),
                t.breakevenLinkGbps() == null
                        ? "none (fetch never wins)"
                        : String.format(Locale.ROOT, "%.2f Gbps", t.breakevenLinkGbps())));
        return w.toString();
    }

    /** Where fetching wins, in words: from the break-even length (noting when that is past the model's context), and below the weight-read floor. */
    static String fetchWinsFrom(BreakevenTimes t) {
        long from = t.breakevenPrefixTokens();
        long context = t.maxContext();
        String s = from <= 1
                ? "fetch wins at every prefix length"
                : String.format(
                        Locale.ROOT,
                        "fetch always wins from %,d tokens%s",
                        from,
                        from > context
                                ? String.format(Locale.ROOT, " (beyond the model's %,d-token context)", context)
                                : "");
        Long below = t.fetchAlsoWinsBelowTokens();
        if (from > 1 && below != null && below > 1)
            s += String.format(
                    Locale.ROOT, " and below %,d tokens (a lone prefill that short is weight-read-bound)", below);
        return s;
    }
}
