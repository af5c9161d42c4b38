package dev.kvlab.harness.report;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.Column;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.catalog.StepPrice;
import dev.kvlab.harness.report.Html.Cell;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report's "Prefill/decode disaggregation" section: the cells of a real engine that measured handovers (the
 * {@code llama.cpp} target's {@code handover_*} and {@code decode_prefill_tokens} columns), colocated and
 * disaggregated side by side: ITL p99 and TTFT p99 (each disaggregated cell against the colocated cell that shares
 * most of its factors), bytes handed over per request and per token against {@code kvlab plan --gguf}'s KV bytes per
 * token of the cell's model, prompt tokens the decoding instances computed, fallbacks, and where the TTFT went.
 */
final class PdSection {

    private PdSection() {}

    /** The cells the section is about: those with the PD columns, when at least one of them is disaggregated. */
    static List<CellData> cells(List<CellData> all) {
        List<CellData> out = new ArrayList<>();
        boolean disaggregated = false;
        for (CellData c : all) {
            if (!Double.isFinite(c.metric(Columns.DECODE_PREFILL_TOKENS.name()).mean())) continue;
            out.add(c);
            disaggregated |= "disaggregated".equals(c.text(Columns.PD.name()));
        }
        return disaggregated ? out : List.of();
    }

    static void render(Html h, List<CellData> all) {
        List<CellData> cells = cells(all);
        if (cells.isEmpty()) return;
        h.raw("<h2 id=\"pd\">Prefill/decode disaggregation</h2>\n");
        h.el(
                "p",
                "class=\"sub\"",
                "Colocated: every instance prefills and decodes, so a prompt chunk shares a step with every decoding "
                        + "sequence of its instance and stalls it for the chunk's time. Disaggregated: prefill instances only prefill and hand each "
                        + "prompt's KV (llama.cpp's own rows in block objects with a header and CRC32C, the prompt's tail included) to a decode "
                        + "instance, directly over the transfer engine into its registered buffer or through the store; the decode instance "
                        + "verifies and restores it, and computes no prompt token unless a handover failed (then it recomputes it: a PD fallback, "
                        + "never used). TTFT on a disaggregated cell is prefill queue + prefill + handover + decode queue + restore (the client "
                        + "gets the prefill's first token when the decode instance has taken the KV over); the first decode step gives the second "
                        + "token. ITL ratio: against the colocated cell that shares most factor levels. KV bytes per token: kvlab plan --gguf on "
                        + "the cell's model (the handover adds a 32-byte header per block). Twin: the sim on the cell's calibration with the same "
                        + "placement (pd, prefill instances, the handover over the link measured at cell start), predicted beside measured; where "
                        + "it is off by more than " + Math.round(TWIN_TOLERANCE * 100)
                        + "%, the cause read from the cell's own figures.");
        List<List<Cell>> rows = new ArrayList<>();
        for (CellData c : cells) {
            boolean pd = "disaggregated".equals(c.text(Columns.PD.name()));
            CellData ref = pd ? colocatedPeer(c, cells) : null;
            double itl = c.metric(Columns.ITL_P99.name()).mean(),
                    tbt = c.metric(Columns.TBT_P99.name()).mean(),
                    ttft = c.metric(Columns.TTFT_P99.name()).mean();
            double bytes = c.metric(Columns.HANDOVER_BYTES.name()).mean(),
                    tokens = c.metric(Columns.HANDOVER_TOKENS.name()).mean();
            double requests = c.metric(Columns.REQUESTS.name()).mean();
            double planKv = planKvBytesPerToken(c);
            double perToken = tokens > 0 ? bytes / tokens : Double.NaN;
            rows.add(List.of(
                    Cell.of(c.label()),
                    Cell.of(c.text(Columns.PD.name())),
                    Cell.of(pd ? transfer(c) : "-"),
                    Cell.of(c.text(Columns.TIERS.name())),
                    Cell.num(Fmt.num(itl)),
                    Cell.num(ratio(itl, ref, Columns.ITL_P99), null, ref == null ? null : "vs " + ref.label()),
                    Cell.num(Fmt.num(tbt)),
                    Cell.num(ratio(tbt, ref, Columns.TBT_P99)),
                    Cell.num(Fmt.num(ttft)),
                    Cell.num(ratio(ttft, ref, Columns.TTFT_P99)),
                    Cell.num(Fmt.num(c.metric(Columns.TTFT_P50.name()).mean())),
                    Cell.num(requests > 0 ? Fmt.bytes(bytes / requests) : "-"),
                    Cell.num(Fmt.num(perToken)),
                    Cell.num(Fmt.num(planKv)),
                    Cell.num(
                            Double.isFinite(perToken) && planKv > 0
                                    ? String.format(Locale.ROOT, "%.4f", perToken / planKv)
                                    : "-"),
                    Cell.num(Fmt.count(
                            c.metric(Columns.DECODE_PREFILL_TOKENS.name()).mean())),
                    Cell.num(Fmt.count(c.metric(Columns.PD_FALLBACKS.name()).mean())),
                    Cell.num(Fmt.num(c.metric(Columns.DECODE_STEPS_WITH_PROMPT_SHARE.name())
                            .mean())),
                    Cell.num(Fmt.num(c.metric(Columns.DECODE_STEPS_DESCHEDULED_SHARE.name())
                            .mean())),
                    Cell.num(parts(c)),
                    Cell.num(predicted(c, Columns.TTFT_P50, Columns.TWIN_TTFT_P50)),
                    Cell.num(predicted(c, Columns.ITL_P99, Columns.TWIN_ITL_P99)),
                    Cell.of(twinMiss(c))));
        }
        h.open("div", "class=\"scroll\"");
        h.table(
                null,
                List.of(
                        "cell",
                        "pd",
                        "handover",
                        "tiers",
                        "ITL p99 (ms)",
                        "ITL p99 / colocated",
                        "TBT p99 (ms)",
                        "TBT p99 / colocated",
                        "TTFT p99 (ms)",
                        "TTFT p99 / colocated",
                        "TTFT p50 (ms)",
                        "handed over per request",
                        "handed over B/token",
                        "plan --gguf KV B/token",
                        "ratio",
                        "prompt tokens on decoding " + "instances",
                        "PD fallbacks",
                        "decode steps with prompt",
                        "decode steps that waited for a core",
                        "TTFT p50 parts: prefill / handover / decode queue / restore; first " + "decode step (ms)",
                        "twin TTFT p50 (ms, error)",
                        "twin ITL p99 (ms, error)",
                        "where the twin misses"),
                rows);
        h.close("div");
        for (CellData c : cells) {
            String r = itlReading(c, cells);
            if (!r.isEmpty()) h.el("p", "class=\"sub\"", r);
        }
    }

    /** The share of decode steps below which an ITL p99 cannot see prefill interference: a p99 reads the top 1% of gaps. */
    static final double P99_SHARE = 0.01;

    /**
     * How to read a colocated cell's ITL p99 when fewer than {@link #P99_SHARE} of its decode steps carried a prompt
     * chunk: the p99 falls among unstalled gaps, so it and the disaggregated cells' stand for the machine's step noise,
     * not for prefill interference, which the TBT (each request's longest 10% of gaps) still shows; "" otherwise.
     */
    static String itlReading(CellData c, List<CellData> cells) {
        if (!"colocated".equals(c.text(Columns.PD.name()))) return "";
        double share = c.metric(Columns.DECODE_STEPS_WITH_PROMPT_SHARE.name()).mean();
        if (!Double.isFinite(share) || share >= P99_SHARE) return "";
        StringBuilder tbt = new StringBuilder(), waited = new StringBuilder(descheduled(c));
        for (CellData o : cells)
            if ("disaggregated".equals(o.text(Columns.PD.name())) && colocatedPeer(o, cells) == c) {
                tbt.append(String.format(
                        Locale.ROOT,
                        "%s %s ms (ITL p99 %s), ",
                        o.label(),
                        Fmt.num(o.metric(Columns.TBT_P99.name()).mean()),
                        Fmt.num(o.metric(Columns.ITL_P99.name()).mean())));
                waited.append(descheduled(o));
            }
        return String.format(
                Locale.ROOT,
                "Reading %s's ITL p99 (%s ms): %.2f%% of its decode steps carried a prompt chunk, fewer than the %.0f%% of gaps a "
                        + "p99 reads, so its ITL p99 and the disaggregated cells' are the machine's step noise at this load, not "
                        + "prefill interference%s; the interference shows in the TBT (each request's longest 10%% of gaps): "
                        + "colocated p99 %s ms%s. The share grows with the load (as often a prompt arrives, times the "
                        + "decoding sequences it meets); from the load at which it passes %.0f%%, ITL p99 sees the stalls too "
                        + "(a capacity search under a TBT SLO finds the load where they decide).",
                c.label(),
                Fmt.num(c.metric(Columns.ITL_P99.name()).mean()),
                100 * share,
                100 * P99_SHARE,
                waited.isEmpty()
                        ? ""
                        : " (decode steps that waited 1 ms or more for a core, their gaps that much longer: "
                                + waited.substring(0, waited.length() - 2) + ")",
                Fmt.num(c.metric(Columns.TBT_P99.name()).mean()),
                tbt.isEmpty() ? "" : " against " + tbt.substring(0, tbt.length() - 2),
                100 * P99_SHARE);
    }

    /** "label x.xx%, " of a cell's decode steps that waited for a core, or "" when it has no such figure. */
    private static String descheduled(CellData c) {
        double d = c.metric(Columns.DECODE_STEPS_DESCHEDULED_SHARE.name()).mean();
        return Double.isFinite(d) ? String.format(Locale.ROOT, "%s %.2f%%, ", c.label(), 100 * d) : "";
    }

    /** {@code v} over {@code ref}'s {@code col}, or "-" without a reference. */
    private static String ratio(double v, CellData ref, Column<?> col) {
        return ref == null ? "-" : Fmt.num(v / ref.metric(col.name()).mean());
    }

    /** Beyond this relative error a twin's figure is said to miss, and why. */
    static final double TWIN_TOLERANCE = 0.20;

    /** "312 (+7%)": the twin's figure and its error against the measured one; "-" without a twin. */
    private static String predicted(CellData c, Column<?> measured, Column<?> twin) {
        double m = c.metric(measured.name()).mean(), p = c.metric(twin.name()).mean();
        if (!Double.isFinite(p)) return "-";
        return Fmt.num(p) + (m > 0 ? String.format(Locale.ROOT, " (%+.0f%%)", 100 * TwinCheck.error(m, p)) : "");
    }

    /** Whether a twin's figure {@code p} and the measured {@code m} are both known and {@code p} is off by more than the tolerance. */
    private static boolean misses(double m, double p) {
        return Double.isFinite(p) && m > 0 && Math.abs(TwinCheck.error(m, p)) > TWIN_TOLERANCE;
    }

    /**
     * Why the twin's TTFT p50 or ITL p99 is off by more than {@link #TWIN_TOLERANCE}, read from the cell's figures; "" when
     * both are within it or there is no twin.
     */
    static String twinMiss(CellData c) {
        double itl = c.metric(Columns.ITL_P99.name()).mean(),
                twinItl = c.metric(Columns.TWIN_ITL_P99.name()).mean();
        double itl50 = c.metric(Columns.ITL_P50.name()).mean(),
                twinItl50 = c.metric(Columns.TWIN_ITL_P50.name()).mean();
        double ttft = c.metric(Columns.TTFT_P50.name()).mean(),
                twinTtft = c.metric(Columns.TWIN_TTFT_P50.name()).mean();
        double wallOverCpu = c.metric(Columns.ENGINE_STEP_WALL_OVER_CPU.name()).mean();
        String stepReading = StepPrice.reading(
                c.metric(Columns.ENGINE_STEP_TIME_OVER_TWIN.name()).mean());
        double withPrompt =
                c.metric(Columns.DECODE_STEPS_WITH_PROMPT_SHARE.name()).mean();
        List<String> why = new ArrayList<>();
        boolean p50Known = Double.isFinite(twinItl50) && itl50 > 0;
        if (misses(itl, twinItl)) {
            if (twinItl < itl && p50Known && !misses(itl50, twinItl50))
                why.add(String.format(
                        Locale.ROOT,
                        "ITL p99: the twin's p50 agrees (%s vs %s ms) but its tail is the roofline's steps; the "
                                + "engine's tail is its CPU's%s%s",
                        Fmt.num(twinItl50),
                        Fmt.num(itl50),
                        Double.isFinite(wallOverCpu) && wallOverCpu > 1.05
                                ? String.format(
                                        Locale.ROOT,
                                        " (steps took %.2f× their CPU time: the engine threads waited for a core)",
                                        wallOverCpu)
                                : "",
                        Double.isFinite(withPrompt) && withPrompt > 0
                                ? String.format(
                                        Locale.ROOT,
                                        "; %.2f%% of its decode steps carried a prompt chunk",
                                        100 * withPrompt)
                                : ""));
            else if (!p50Known)
                why.add(String.format(Locale.ROOT, "ITL p99: %s vs %s ms measured", Fmt.num(twinItl), Fmt.num(itl)));
            else
                why.add(
                        String.format(
                                Locale.ROOT,
                                "ITL p99: the twin's decode step is %s the engine's (p50 %s vs %s ms measured): %s",
                                twinItl50 < itl50 ? "faster than" : "slower than",
                                Fmt.num(twinItl50),
                                Fmt.num(itl50),
                                !stepReading.isEmpty()
                                        ? stepReading
                                        : "the calibration's decode cost per token does not hold at this cell's batch and context"));
        }
        if (misses(ttft, twinTtft))
            why.add(String.format(
                    Locale.ROOT,
                    "TTFT p50: %s vs %s ms measured (parts measured: %s)",
                    Fmt.num(twinTtft),
                    Fmt.num(ttft),
                    parts(c)));
        return String.join("; ", why);
    }

    /** The handover path of a disaggregated cell, as its config says ({@code pd_transfer}; absent: direct). */
    private static String transfer(CellData c) {
        String t = c.config().path("pd_transfer").asText("");
        return t.isEmpty() || t.equals("null") ? "direct" : t;
    }

    /** The colocated cell among {@code cells} that shares most factor levels with {@code c} (null: none). */
    private static CellData colocatedPeer(CellData c, List<CellData> cells) {
        CellData best = null;
        int bestShared = -1;
        for (CellData o : cells) {
            if (!"colocated".equals(o.text(Columns.PD.name()))) continue;
            int shared = 0;
            for (var e : c.factors().entrySet())
                if (e.getValue().equals(o.factors().get(e.getKey()))) shared++;
            if (shared > bestShared) {
                best = o;
                bestShared = shared;
            }
        }
        return best;
    }

    /** {@code kvlab plan --gguf}'s KV bytes per token of the cell's model, or (the file not here) the engine's own figure. */
    private static double planKvBytesPerToken(CellData c) {
        String model = c.config().path("target").path("model").asText("");
        if (!model.isEmpty() && Files.isRegularFile(Path.of(model))) {
            try {
                return Gguf.read(Path.of(model)).kvBytesPerToken();
            } catch (Exception e) {
                // the engine's figure below
            }
        }
        return c.metric(Columns.ENGINE_KV_BYTES_PER_TOKEN.name()).mean();
    }

    private static String parts(CellData c) {
        double[] v = {
            c.metric(Columns.PD_PREFILL_MS_P50.name()).mean(),
            c.metric(Columns.PD_HANDOVER_MS_P50.name()).mean(),
            c.metric(Columns.PD_DECODE_QUEUE_MS_P50.name()).mean(),
            c.metric(Columns.PD_RESTORE_MS_P50.name()).mean(),
            c.metric(Columns.PD_FIRST_DECODE_STEP_MS_P50.name()).mean()
        };
        if (!Double.isFinite(v[0])) return "-";
        return String.format(
                Locale.ROOT,
                "%s / %s / %s / %s; %s",
                Fmt.num(v[0]),
                Fmt.num(v[1]),
                Fmt.num(v[2]),
                Fmt.num(v[3]),
                Fmt.num(v[4]));
    }
}
