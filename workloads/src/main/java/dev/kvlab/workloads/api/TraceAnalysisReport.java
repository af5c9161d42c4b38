package dev.kvlab.workloads.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A {@link TraceAnalysis} as {@code kvlab analyze} prints it: one JSON object, or a table of request and token
 * statistics, cache hit ratios and reuse distances, and the miss-ratio curve as a text chart.
 */
public final class TraceAnalysisReport {

    private TraceAnalysisReport() {}

    /** One JSON object (jackson-core streaming: no databind on the start-up path); {@code blockTokensUsed} null: mixed. */
    public static String json(Path trace, TraceAnalysis a, Integer blockTokensUsed) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("trace", trace.toString());
            if (blockTokensUsed == null) g.writeNullField("block_tokens");
            else g.writeNumberField("block_tokens", blockTokensUsed);
            g.writeNumberField("requests", a.requests());
            g.writeObjectFieldStart("span_ms");
            millis(g, "first", a.firstArrivalNanos());
            millis(g, "last", a.lastArrivalNanos());
            millis(g, "duration", a.lastArrivalNanos() - a.firstArrivalNanos());
            g.writeEndObject();
            tokens(g, "input_tokens", a.inputTokens());
            tokens(g, "output_tokens", a.outputTokens());
            g.writeNumberField("total_blocks", a.totalBlocks());
            g.writeNumberField("distinct_blocks", a.distinctBlocks());
            g.writeObjectFieldStart("ideal");
            hits(g, a.ideal());
            g.writeEndObject();
            g.writeArrayFieldStart("lru");
            for (TraceAnalysis.CacheHits h : a.lru()) {
                g.writeStartObject();
                g.writeNumberField("capacity_fraction", h.capacityFraction());
                g.writeNumberField("capacity_blocks", h.capacityBlocks());
                if (h.capacityTokens() < 0) g.writeNullField("capacity_tokens");
                else g.writeNumberField("capacity_tokens", h.capacityTokens());
                hits(g, h);
                g.writeEndObject();
            }
            g.writeEndArray();
            TraceAnalysis.ReuseDistances rd = a.reuseDistances();
            g.writeObjectFieldStart("reuse_distance");
            g.writeStringField(
                    "definition",
                    "LRU stack distance per block access: distinct other blocks accessed since "
                            + "the previous access to the same block; first accesses are cold");
            g.writeNumberField("accesses", rd.accesses());
            g.writeNumberField("cold", rd.cold());
            g.writeNumberField("mean", rd.mean());
            g.writeArrayFieldStart("buckets");
            for (TraceAnalysis.ReuseDistances.Bucket k : rd.buckets()) {
                g.writeStartObject();
                g.writeNumberField("from", k.from());
                g.writeNumberField("to", k.to());
                g.writeNumberField("count", k.count());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    private static void hits(JsonGenerator g, TraceAnalysis.CacheHits h) throws IOException {
        g.writeNumberField("hit_blocks", h.hitBlocks());
        g.writeNumberField("block_hit_ratio", h.blockHitRatio());
        g.writeNumberField("token_hit_ratio", h.tokenHitRatio());
        g.writeNumberField("hit_tokens", h.hitTokens());
        g.writeNumberField("block_miss_ratio", h.blockMissRatio());
    }

    private static void tokens(JsonGenerator g, String name, TraceAnalysis.TokenStats s) throws IOException {
        g.writeObjectFieldStart(name);
        g.writeNumberField("total", s.total());
        g.writeNumberField("min", s.min());
        g.writeNumberField("mean", s.mean());
        g.writeNumberField("p50", s.p50());
        g.writeNumberField("p90", s.p90());
        g.writeNumberField("p99", s.p99());
        g.writeNumberField("max", s.max());
        g.writeEndObject();
    }

    private static void millis(JsonGenerator g, String name, long nanos) throws IOException {
        if (nanos % 1_000_000L == 0) g.writeNumberField(name, nanos / 1_000_000L);
        else g.writeNumberField(name, BigDecimal.valueOf(nanos, 6));
    }

    /** The human-readable table: statistics, the caches' hit ratios ({@code capacities} as asked, in order), reuse distances. */
    public static void table(PrintWriter out, Path trace, TraceAnalysis a, List<LruCapacity> capacities, Integer bt) {
        out.printf(Locale.ROOT, "trace          %s%n", trace);
        out.printf(Locale.ROOT, "requests       %,d%n", a.requests());
        double dur = (a.lastArrivalNanos() - a.firstArrivalNanos()) / 1e9;
        out.printf(
                Locale.ROOT,
                "span           %s .. %s ms (%s)%n",
                ms(a.firstArrivalNanos()),
                ms(a.lastArrivalNanos()),
                human(dur));
        out.printf(
                Locale.ROOT,
                "               %10s %12s %10s %10s %10s %10s %10s%n",
                "total",
                "mean",
                "min",
                "p50",
                "p90",
                "p99",
                "max");
        tokenRow(out, "input tokens", a.inputTokens());
        tokenRow(out, "output tokens", a.outputTokens());
        out.printf(
                Locale.ROOT,
                "blocks         %,d total, %,d distinct, %s tokens per block%n",
                a.totalBlocks(),
                a.distinctBlocks(),
                bt == null ? "mixed" : bt.toString());
        out.println();
        out.printf(
                Locale.ROOT,
                "%-14s %14s %14s %10s %10s %10s%n",
                "cache",
                "capacity",
                "hit blocks",
                "block hit",
                "token hit",
                "block miss");
        cacheRow(out, "ideal (inf)", "unbounded", a.ideal());
        for (int i = 0; i < a.lru().size(); i++) {
            TraceAnalysis.CacheHits h = a.lru().get(i);
            cacheRow(out, "LRU " + name(capacities.get(i)), String.format(Locale.ROOT, "%,d", h.capacityBlocks()), h);
        }
        out.println();
        TraceAnalysis.ReuseDistances rd = a.reuseDistances();
        out.printf(
                Locale.ROOT,
                "reuse distance (LRU stack distance in blocks; %,d accesses, %,d cold, mean %.1f warm)%n",
                rd.accesses(),
                rd.cold(),
                rd.mean());
        long max = rd.buckets().stream()
                .mapToLong(TraceAnalysis.ReuseDistances.Bucket::count)
                .max()
                .orElse(1);
        for (TraceAnalysis.ReuseDistances.Bucket k : rd.buckets()) {
            String range = k.from() == k.to()
                    ? String.format(Locale.ROOT, "%,d", k.from())
                    : String.format(Locale.ROOT, "%,d-%,d", k.from(), k.to());
            out.printf(Locale.ROOT, "  %-22s %,12d %s%n", range, k.count(), bar((double) k.count() / max, 30));
        }
    }

    private static void tokenRow(PrintWriter out, String name, TraceAnalysis.TokenStats s) {
        out.printf(
                Locale.ROOT,
                "%-14s %,10d %,12.1f %,10d %,10d %,10d %,10d %,10d%n",
                name,
                s.total(),
                s.mean(),
                s.min(),
                s.p50(),
                s.p90(),
                s.p99(),
                s.max());
    }

    private static void cacheRow(PrintWriter out, String name, String cap, TraceAnalysis.CacheHits h) {
        out.printf(
                Locale.ROOT,
                "%-14s %14s %,14d %9.4f%% %9.4f%% %9.4f%%%n",
                name,
                cap,
                h.hitBlocks(),
                100 * h.blockHitRatio(),
                100 * h.tokenHitRatio(),
                100 * h.blockMissRatio());
    }

    /** The miss-ratio curve as a text chart. */
    public static void chart(PrintWriter out, TraceAnalysis a) {
        out.println();
        out.println("miss-ratio curve (block miss ratio by LRU capacity; 'inf' = ideal cache)");
        List<String[]> rows = new ArrayList<>();
        List<TraceAnalysis.CacheHits> sorted = new ArrayList<>(a.lru());
        sorted.sort((x, y) -> Double.compare(x.capacityFraction(), y.capacityFraction()));
        for (TraceAnalysis.CacheHits h : sorted)
            rows.add(new String[] {pct(h.capacityFraction()), Double.toString(h.blockMissRatio())});
        rows.add(new String[] {"inf", Double.toString(a.ideal().blockMissRatio())});
        for (String[] row : rows) {
            double miss = Double.parseDouble(row[1]);
            out.printf(Locale.ROOT, "  %7s |%-50s| %6.2f%%%n", row[0], bar(miss, 50), 100 * miss);
        }
        out.printf(Locale.ROOT, "  %7s  0%%%47s100%%%n", "", "");
    }

    /** {@code 1%} for a fraction, {@code 3Mtok} for tokens. */
    static String name(LruCapacity c) {
        return switch (c) {
            case LruCapacity.Fraction f -> pct(f.fraction());
            case LruCapacity.Tokens t ->
                t.tokens() != 0 && t.tokens() % 1_000_000_000L == 0
                        ? t.tokens() / 1_000_000_000L + "Gtok"
                        : t.tokens() != 0 && t.tokens() % 1_000_000L == 0
                                ? t.tokens() / 1_000_000L + "Mtok"
                                : t.tokens() != 0 && t.tokens() % 1_000L == 0
                                        ? t.tokens() / 1_000L + "Ktok"
                                        : t.tokens() + "tok";
        };
    }

    private static String bar(double fraction, int width) {
        int eighths = (int) Math.round(Math.max(0, Math.min(1, fraction)) * width * 8);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < eighths / 8; i++) sb.append('\u2588');
        int rest = eighths % 8;
        if (rest > 0) sb.append("\u258F\u258E\u258D\u258C\u258B\u258A\u2589".charAt(rest - 1));
        return sb.toString();
    }

    static String pct(double f) {
        return new BigDecimal(Double.toString(f * 100)).stripTrailingZeros().toPlainString() + "%";
    }

    private static String ms(long nanos) {
        if (nanos % 1_000_000L == 0) return String.format(Locale.ROOT, "%,d", nanos / 1_000_000L);
        return BigDecimal.valueOf(nanos, 6).stripTrailingZeros().toPlainString();
    }

    private static String human(double seconds) {
        if (seconds < 120) return String.format(Locale.ROOT, "%.3f s", seconds);
        if (seconds < 7200) return String.format(Locale.ROOT, "%.1f min", seconds / 60);
        return String.format(Locale.ROOT, "%.2f h", seconds / 3600);
    }
}
