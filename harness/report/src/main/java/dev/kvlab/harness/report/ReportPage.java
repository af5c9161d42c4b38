package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.Column;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.report.Html.Cell;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code report.html}: one self-contained page (CSS inline, plots as PNG data URIs, no scripts, no external
 * resources) built from a {@link BundleData} and the rendered plots. Deterministic: the same bundle gives the same
 * bytes.
 */
final class ReportPage {

    private static final String CSS = "/dev/kvlab/harness/report/report.css";
    private static final Map<String, String> DISPLAY = Map.of(
            Columns.TTFT_P50.name(),
            "TTFT p50",
            Columns.TTFT_P99.name(),
            "TTFT p99",
            Columns.ITL_P99.name(),
            "ITL p99",
            Columns.E2EL_P99.name(),
            "E2EL p99",
            Columns.GOODPUT_RPS.name(),
            "goodput",
            Columns.SLO_ATTAINMENT.name(),
            "SLO att.",
            Columns.LOCAL_HIT_RATIO.name(),
            "local hit",
            Columns.REMOTE_HIT_RATIO.name(),
            "remote hit",
            Columns.TPOT_P99.name(),
            "TPOT p99");

    private final BundleData b;
    /** The fixed-load cells (capacity probes left out): what the fixed-load sections show. */
    private final BundleData f;
    /** capacity.json, or null. */
    private final JsonNode capacity;

    private final Map<String, Plot> plots;
    private final Map<String, byte[]> pngs;
    private final Map<String, String> notes;
    private final List<BreakevenPlot.Row> breakevenRows;
    private final Html h = new Html();

    /**
     * @param plots rendered plots by name
     * @param pngs  their PNG bytes by name
     * @param notes why an optional figure is absent, by section id (e.g. {@code cdf})
     * @param breakevenRows the break-even table
     */
    ReportPage(
            BundleData b,
            Map<String, Plot> plots,
            Map<String, byte[]> pngs,
            Map<String, String> notes,
            List<BreakevenPlot.Row> breakevenRows) {
        this(b, b, null, plots, pngs, notes, breakevenRows);
    }

    /** {@code fixed}: the bundle's fixed-load cells; {@code capacity}: capacity.json or null. */
    ReportPage(
            BundleData b,
            BundleData fixed,
            JsonNode capacity,
            Map<String, Plot> plots,
            Map<String, byte[]> pngs,
            Map<String, String> notes,
            List<BreakevenPlot.Row> breakevenRows) {
        this.b = b;
        this.f = fixed;
        this.capacity = capacity;
        this.plots = plots;
        this.pngs = pngs;
        this.notes = notes;
        this.breakevenRows = breakevenRows;
    }

    String render() {
        h.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .el("title", "kvlab report – " + b.runId())
                .raw("<style>\n")
                .raw(css())
                .raw("</style>\n</head>\n<body>\n<main>\n");
        header();
        glance();
        if (capacity != null) new CapacitySection(h, capacity, this::figure).render();
        paper();
        emulated();
        if (!f.cells().isEmpty()) {
            if (capacity != null)
                h.raw("<h2 id=\"fixed\">Fixed-load cells</h2>\n")
                        .el(
                                "p",
                                "The cells below ran once per replicate at their own "
                                        + "configured load (not searched); the sections that follow are theirs.");
            latency();
            goodput();
            cdf();
            breakeven();
            engineBreakeven();
            PdSection.render(h, f.cells());
            tails();
            twins();
            summaryTable();
            pairedTable();
        } else if (capacity != null) {
            h.el(
                    "p",
                    "class=\"sub\"",
                    "Every cell of this run was searched for its capacity: each probe is an ordinary cell run, a row of "
                            + "summary.csv with its own cells/<cell>@<load>/r<k>/ files; the fixed-load sections do not apply.");
        }
        crosswalk();
        provenance();
        h.raw("<footer>")
                .text("Rendered by kvlab " + version() + " from this bundle's summary.json, cells/ and manifest.json. "
                        + "Plots are also in plots/ as PNG and SVG.")
                .raw("</footer>\n");
        h.raw("</main>\n</body>\n</html>\n");
        return h.toString();
    }

    // ---- sections ------------------------------------------------------------------------------------------

    private void header() {
        JsonNode m = b.manifest();
        h.open("header", "class=\"top\"");
        h.el("h1", "kvlab report — " + b.runId());
        List<String> bits = new ArrayList<>();
        if (!b.matrix().isEmpty()) bits.add("matrix " + b.matrix());
        bits.add(b.cells().size() + " cell" + (b.cells().size() == 1 ? "" : "s"));
        int reps = b.cells().stream().mapToInt(CellData::replicates).max().orElse(0);
        bits.add(reps + " replicate" + (reps == 1 ? "" : "s") + " each");
        Set<String> modes = new LinkedHashSet<>();
        b.cells().forEach(c -> modes.add(c.mode()));
        bits.add("mode " + String.join(" + ", modes));
        if (m.hasNonNull("started_at"))
            bits.add("started " + m.get("started_at").asText());
        if (b.baseline() != null) bits.add("baseline " + b.baseline());
        h.el("div", "class=\"sub\"", String.join(" · ", bits));
        if (!b.factors().isEmpty()) {
            List<String> fs = new ArrayList<>();
            b.factors().forEach((k, v) -> fs.add(k + " = " + String.join(" | ", v)));
            h.el("div", "class=\"sub\"", "factors: " + String.join("; ", fs));
        }
        h.raw("<nav class=\"toc\">");
        if (capacity != null)
            h.raw("<a href=\"#capacity\">").text("Capacity under SLO").raw("</a>");
        if (!PaperComparison.rows(b).isEmpty())
            h.raw("<a href=\"#paper\">").text("Compared with the paper").raw("</a>");
        for (String[] t : List.of(
                new String[] {"emulated", "What was emulated"},
                new String[] {"latency", "Latency"},
                new String[] {"goodput", "Goodput & hits"},
                new String[] {"cdf", "TTFT CDF"},
                new String[] {"breakeven", "Recompute vs fetch"},
                new String[] {"tails", "Tails over time"},
                new String[] {"summary", "Summary table"},
                new String[] {"paired", "vs baseline"},
                new String[] {"crosswalk", "Metric names"},
                new String[] {"provenance", "Provenance"})) {
            h.raw("<a href=\"#" + t[0] + "\">").text(t[1]).raw("</a>");
        }
        if (!PdSection.cells(f.cells()).isEmpty())
            h.raw("<a href=\"#pd\">").text("Prefill/decode disaggregation").raw("</a>");
        h.raw("</nav>\n");
        h.close("header");
    }

    private void glance() {
        double wrong = total(Columns.WRONG_HITS_USED.name());
        double failed = total(Columns.FAILED.name());
        double requests = total(Columns.REQUESTS.name());
        double fallbacks = total(Columns.FALLBACKS.name());
        if (wrong > 0) {
            h.raw("<div class=\"banner bad\"><b>")
                    .text(Fmt.count(wrong) + " wrong hit(s) were used.")
                    .raw("</b> ")
                    .text(
                            "A fetched KV block that failed verification reached a request: these results are not trustworthy. "
                                    + "Cells: " + String.join(", ", cellsWhere(Columns.WRONG_HITS_USED.name())) + ".")
                    .raw("</div>\n");
        } else {
            h.raw("<div class=\"banner ok\">")
                    .text("0 wrong hits used in every cell (every fetched block was verified; failed blocks were "
                            + "recomputed and counted as fallbacks: " + Fmt.count(fallbacks) + " in total).")
                    .raw("</div>\n");
        }
        if (failed > 0) {
            h.raw("<div class=\"banner bad\">")
                    .text(Fmt.count(failed) + " of " + Fmt.count(requests) + " measured requests failed, in "
                            + String.join(", ", cellsWhere(Columns.FAILED.name())) + ".")
                    .raw("</div>\n");
        }
        h.open("div", "class=\"facts\"");
        fact(
                "cells × replicates",
                b.cells().size() + " × "
                        + b.cells().stream()
                                .mapToInt(CellData::replicates)
                                .max()
                                .orElse(0));
        fact("measured requests", Fmt.count(requests));
        fact("failed requests", Fmt.count(failed));
        fact("wrong hits used", Fmt.count(wrong));
        fact("fallbacks (blocks recomputed after a failed fetch)", Fmt.count(fallbacks));
        fact("bytes fetched (all cells)", Fmt.bytes(total(Columns.FETCHED_BYTES.name())));
        h.close("div");
    }

    /** "Compared with the paper", when the matrix carries a {@code paper:} block. */
    private void paper() {
        List<PaperComparison.Row> rows = PaperComparison.rows(b);
        if (rows.isEmpty()) return;
        h.raw("<h2 id=\"paper\">Compared with the paper</h2>\n");
        String src = PaperComparison.source(b);
        h.el(
                "p",
                (src.isEmpty() ? "" : src + ". ")
                        + "Each published figure next to this run's value in the same form; ratio = kvlab / paper. "
                        + "kvlab's GPU time is a roofline model and its network a transport model (emulated), so a gap is expected: the "
                        + "setup differences say where it comes from.");
        List<List<Cell>> out = new ArrayList<>();
        for (PaperComparison.Row r : rows) {
            out.add(List.of(
                    Cell.of(r.figure()),
                    Cell.of(r.label()),
                    Cell.num(PaperComparison.format(r.paper(), r.as(), r.unit())),
                    Cell.num(PaperComparison.format(r.kvlab(), r.as(), r.unit())),
                    Cell.num(
                            Double.isFinite(r.ratio()) ? String.format(java.util.Locale.ROOT, "%.2f", r.ratio()) : "–"),
                    Cell.code(r.cells()),
                    Cell.of(r.differences())));
        }
        h.open("div", "class=\"scroll\"");
        h.table("paper", List.of("figure", "what", "paper", "kvlab", "ratio", "cells", "setup differences"), out);
        h.close("div");
    }

    private void emulated() {
        h.raw("<h2 id=\"emulated\">What was emulated</h2>\n");
        Set<String> items = new LinkedHashSet<>();
        b.manifest().path("emulated").forEach(e -> items.add(e.asText()));
        Set<String> perCell = new LinkedHashSet<>();
        for (CellData c : b.cells()) {
            String e = c.text(Columns.EMULATED_PARTS.name());
            if (!e.isEmpty()) perCell.add(e);
        }
        // a cell on a real engine (openai, llama.cpp) says "nothing ..." in its emulated column: its prefill and decode
        // ran
        boolean modelled = b.cells().isEmpty()
                || b.cells().stream()
                        .anyMatch(c -> !c.text(Columns.EMULATED_PARTS.name()).startsWith("nothing"));
        boolean real = b.cells().stream()
                .anyMatch(c -> c.text(Columns.EMULATED_PARTS.name()).startsWith("nothing"));
        if (modelled) {
            h.raw("<div class=\"banner\"><b>Emulated, not measured on real hardware.</b> ");
            h.text("GPU time is emulated" + (real ? " in the cells of the emulated target" : "")
                    + ": prefill and decode take the time the "
                    + "roofline model gives for the run's model and GPU (prefill at the hardware's MFU, decode at its HBM bandwidth "
                    + "utilisation); no GPU ran, and live cells wait that long precisely. ");
        } else {
            h.raw("<div class=\"banner\"><b>Real engines: no GPU time was emulated.</b> ");
        }
        if (real)
            h.text(
                    "Cells on a real engine emulate nothing: their prefill and decode are the engine's own work, as the list below says "
                            + "(e.g. a real engine on CPU with synthesized random weights). ");
        if (b.cells().stream().anyMatch(c -> "sim".equals(c.mode())))
            h.text("In sim cells no bytes move either: each transfer costs what the transport model says. ");
        if (usesTransport("rdma-emu"))
            h.text(
                    "RDMA is emulated: rdma-emu moves real bytes through shared memory and times completions with a NIC model; no RDMA NIC was used. ");
        if (!items.isEmpty()) {
            h.raw("<br>The run's manifest lists as emulated:<ul>");
            for (String i : items) h.raw("<li>").text(i).raw("</li>");
            h.raw("</ul>");
        }
        h.raw("</div>\n");
        if (!perCell.isEmpty() && !items.containsAll(perCell)) {
            h.el("p", "As each cell reports it:");
            List<List<Cell>> rows = new ArrayList<>();
            for (String e : perCell) {
                List<String> cs = new ArrayList<>();
                for (CellData c : b.cells()) if (e.equals(c.text(Columns.EMULATED_PARTS.name()))) cs.add(c.id());
                rows.add(List.of(Cell.of(e), Cell.of(abbreviate(cs))));
            }
            h.table(null, List.of("emulated", "cells"), rows);
        }
        whatRan();
        h.el("h3", "What each transport copies");
        Map<String, List<String>> byTransport = new TreeMap<>();
        for (CellData c : b.cells())
            byTransport
                    .computeIfAbsent(c.mode() + "\u0000" + c.text("transport"), k -> new ArrayList<>())
                    .add(c.id());
        List<List<Cell>> rows = new ArrayList<>();
        for (var e : byTransport.entrySet()) {
            String[] k = e.getKey().split("\u0000", -1);
            String copies = TransportCopies.of(k[1], k[0]);
            if ("live".equals(k[0])) {
                // a live cell says what its store client's transport copies (the engine's own copySemantics)
                CellData first = b.cells().stream()
                        .filter(c -> c.id().equals(e.getValue().getFirst()))
                        .findFirst()
                        .orElseThrow();
                String said = first.describe().get("store");
                if (said != null && !said.isBlank()) copies = said;
            }
            rows.add(List.of(Cell.code(k[1]), Cell.of(k[0]), Cell.of(copies), Cell.of(abbreviate(e.getValue()))));
        }
        h.table(null, List.of("transport", "mode", "what a transfer copies", "cells"), rows);
    }

    /** The cells' own descriptions (cell.json "describe"), each distinct text once with the cells it applies to. */
    private void whatRan() {
        Map<String, Map<String, List<String>>> byKey = new LinkedHashMap<>();
        for (CellData c : b.cells())
            c.describe()
                    .forEach((k, v) -> byKey.computeIfAbsent(k, x -> new LinkedHashMap<>())
                            .computeIfAbsent(v, x -> new ArrayList<>())
                            .add(c.id()));
        if (byKey.isEmpty()) return;
        h.el("h3", "What ran");
        List<List<Cell>> rows = new ArrayList<>();
        byKey.forEach((k, texts) -> texts.forEach((text, cells) -> rows.add(List.of(
                Cell.head(k),
                Cell.of(text),
                new Cell(
                        cells.size() == b.cells().size() ? "all cells" : abbreviate(cells),
                        "nowrap",
                        null,
                        false,
                        false)))));
        h.table(null, List.of("", "as the cells describe it", "cells"), rows);
    }

    private void latency() {
        h.raw("<h2 id=\"latency\">Latency: TTFT and ITL per cell</h2>\n");
        figure("ttft-p50-p99");
        figure("itl-p50-p99");
    }

    private void goodput() {
        h.raw("<h2 id=\"goodput\">Goodput under SLO, next to cache hits</h2>\n");
        h.el(
                "p",
                "Capacity is not throughput: a higher hit ratio matters only if it raises the requests per second that meet the SLO. "
                        + "Read the two charts together.");
        String slo = sloText();
        h.el("p", "class=\"sub\"", slo);
        h.open("div", "class=\"pair\"");
        figure("goodput");
        figure("hit-ratios");
        h.close("div");
        List<List<Cell>> rows = new ArrayList<>();
        for (CellData c : f.cells()) {
            rows.add(List.of(
                    Cell.code(c.id()),
                    stat(c.metric(Columns.GOODPUT_RPS.name()), false),
                    stat(c.metric(Columns.SLO_ATTAINMENT.name()), true),
                    stat(c.metric(Columns.LOCAL_HIT_RATIO.name()), true),
                    stat(c.metric(Columns.REMOTE_HIT_RATIO.name()), true),
                    Cell.num(Fmt.bytes(c.metric(Columns.FETCHED_BYTES.name()).mean())),
                    Cell.num(Fmt.count(c.sum(Columns.FALLBACKS.name()))),
                    wrongHits(c)));
        }
        h.open("div", "class=\"scroll\"");
        h.table(
                null,
                List.of(
                        "cell",
                        "goodput (req/s)",
                        "SLO attainment",
                        "local hit ratio",
                        "remote hit ratio",
                        "fetched / replicate",
                        "fallbacks (all replicates)",
                        "wrong hits used"),
                rows);
        h.close("div");
    }

    private void cdf() {
        h.raw("<h2 id=\"cdf\">TTFT distribution: cold vs hot</h2>\n");
        if (!figure("ttft-cdf")) note("cdf");
    }

    private void breakeven() {
        h.raw("<h2 id=\"breakeven\">Recompute vs fetch: the break-even</h2>\n");
        if (!figure("breakeven")) note("breakeven");
        if (breakevenRows.isEmpty()) return;
        List<List<Cell>> rows = new ArrayList<>();
        for (BreakevenPlot.Row r : breakevenRows) {
            String winner = !Double.isFinite(r.recomputeMs())
                    ? Fmt.NONE
                    : r.fetchMs() < r.recomputeMs() ? "fetch" : "recompute";
            rows.add(List.of(
                    Cell.of(r.setup()),
                    Cell.code(r.link()),
                    Cell.of(String.join("; ", r.crossings())),
                    Cell.num(r.medianPrompt() > 0 ? Fmt.count(r.medianPrompt()) : Fmt.NONE),
                    Cell.num(Fmt.num(r.recomputeMs())),
                    Cell.num(Fmt.num(r.fetchMs())),
                    Cell.of(winner),
                    Cell.num(
                            r.measured() == 0
                                    ? "none"
                                    : Fmt.count(r.measured()) + " (× " + Fmt.num(r.measuredMedianRatio()) + ")"),
                    Cell.of(abbreviate(r.cells()))));
        }
        h.open("div", "class=\"scroll\"");
        h.table(
                null,
                List.of(
                        "model / GPUs",
                        "link",
                        "where the winner changes",
                        "median prompt (tokens)",
                        "recompute ms",
                        "fetch ms",
                        "faster at the median",
                        "measured fetches (median measured / model)",
                        "cells"),
                rows);
        h.close("div");
        if (breakevenRows.stream().anyMatch(r -> r.link().contains("uncalibrated")))
            h.raw("<div class=\"banner\">")
                    .text(
                            "A live transport without a calibrated profile is drawn from the config's link key: that is only "
                                    + "the auto policy's estimate, not a measurement of this machine. The measured fetches show what the transport really did; "
                                    + "run kvlab calibrate and set transport_profile to draw (and decide by) the measured model.")
                    .raw("</div>\n");
        h.el(
                "p",
                "class=\"sub\"",
                "The model's fetch time assumes the link to itself; measured fetches include queueing behind other "
                        + "transfers, store look-ups and verification, so a ratio above 1 is expected under load. kvlab breakeven --model M "
                        + "--hardware H --link L gives the same figures for one prefix length.");
    }

    /** Recompute vs fetch on a real engine: the break-even measured by a prefix-length sweep next to the predicted one. */
    private void engineBreakeven() {
        List<EngineBreakeven> sweeps = EngineBreakeven.of(b.cells());
        if (sweeps.isEmpty()) return;
        h.raw("<h2 id=\"engine-breakeven\">Recompute vs fetch on the real engine: prediction vs measurement</h2>\n");
        h.el(
                "p",
                "class=\"sub\"",
                "Cells on a real engine swept over the shared prefix length with policy recompute and fetch. Measured: "
                        + "TTFT p50 of each policy (their difference is what fetching the prefix saved, restore and the first prefill after it "
                        + "included). Predicted: kvlab breakeven on the engine calibrated by each cell before it served (its prefill into an empty "
                        + "context and behind a long one, decode steps after a short and a long context, passes of several lengths, loading "
                        + "fetched KV: a roofline with attention's own rate for long and short passes and a load cost) and the store path the cell "
                        + "measured at its start (lookup, fixed cost and bandwidth), for a request of the workload: recompute is the prefill of "
                        + "the prefix and the suffix in the engine's passes, fetch the prefix's KV over that link, its load into the engine and the "
                        + "suffix's prefill behind it. The measured break-even is the shortest swept length from which fetch's TTFT p50 is below "
                        + "recompute's at every longer length; the predicted one is kvlab breakeven's (from which fetch wins at every length up to "
                        + "the model's context, median over the cells), and the same rule on the predicted times at the swept lengths.");
        for (EngineBreakeven s : sweeps) {
            List<List<Cell>> rows = new ArrayList<>();
            for (EngineBreakeven.Point p : s.points()) {
                rows.add(List.of(
                        Cell.num(Fmt.count(p.prefixTokens())),
                        Cell.num(Fmt.num(p.ttftRecompute())),
                        Cell.num(Fmt.num(p.ttftFetch())),
                        Cell.num(Fmt.num(p.measuredSaving()), p.measuredSaving() > 0 ? null : "bad", null),
                        Cell.num(Fmt.num(p.fetchP50())),
                        Cell.num(Fmt.num(p.predictedRecompute())),
                        Cell.num(Fmt.num(p.predictedFetch())),
                        Cell.num(Fmt.num(p.predictedSaving())),
                        Cell.of(p.measuredSaving() > 0 ? "fetch" : "recompute"),
                        Cell.of(p.predictedSaving() > 0 ? "fetch" : "recompute"),
                        Cell.of(String.join(", ", p.cells()))));
            }
            long onSweep = s.predictedOnSweep();
            h.el(
                    "p",
                    (s.group().isEmpty() ? "" : s.group() + ": ") + "break-even measured " + s.measuredText()
                            + ", predicted "
                            + Fmt.count(s.predicted()) + " tokens: "
                            + (s.agrees()
                                    ? "the prediction agrees with the measurement"
                                    : "the prediction does not agree with the measurement")
                            + "; at the swept lengths the prediction puts it at "
                            + (onSweep == 0
                                    ? "none (recompute predicted to win at the longest)"
                                    : Fmt.count(onSweep) + " tokens")
                            + (s.agreesOnSweep() ? ", as measured." : ", not where measured."));
            h.open("div", "class=\"scroll\"");
            h.table(
                    null,
                    List.of(
                            "prefix (tokens)",
                            "TTFT p50 recompute",
                            "TTFT p50 fetch",
                            "measured saving (ms)",
                            "fetch p50 (ms)",
                            "predicted recompute (ms)",
                            "predicted fetch (ms)",
                            "predicted saving (ms)",
                            "measured winner",
                            "predicted winner",
                            "cells"),
                    rows);
            h.close("div");
        }
    }

    private void tails() {
        h.raw("<h2 id=\"tails\">TTFT / ITL tail over time</h2>\n");
        boolean any = figure("ttft-p99-over-time");
        any |= figure("itl-p99-over-time");
        if (!any) note("tails");
    }

    /** Sim predicted next to live measured, per live cell and replicate (their sim twins). */
    private void twins() {
        List<List<Cell>> rows = new ArrayList<>();
        int off = 0;
        for (CellData c : b.cells()) {
            for (int i = 0; i < c.rows().size(); i++) {
                Map<String, com.fasterxml.jackson.databind.JsonNode> row =
                        c.rows().get(i);
                TwinCheck t = TwinCheck.of(row);
                if (t == null) continue;
                if (!t.agrees()) off++;
                double bw = Stat.num(row.get(Columns.LINK_MEASURED_BYTES_PER_S.name())),
                        lat = Stat.num(row.get(Columns.LINK_MEASURED_LATENCY_US.name()));
                rows.add(List.of(
                        Cell.code(c.id()),
                        Cell.num(Integer.toString(i)),
                        Cell.num(Fmt.num(t.ttft())),
                        Cell.num(Fmt.num(t.twinTtft())),
                        err(t.ttft(), t.twinTtft(), TwinCheck.TTFT_TOLERANCE),
                        Cell.num(Fmt.num(t.fetch())),
                        Cell.num(Fmt.num(t.twinFetch())),
                        err(t.fetch(), t.twinFetch(), TwinCheck.FETCH_TOLERANCE),
                        Cell.num(Fmt.num(Stat.num(row.get(Columns.GOODPUT_RPS.name())))),
                        Cell.num(Fmt.num(Stat.num(row.get(Columns.TWIN_GOODPUT_RPS.name())))),
                        Cell.num(
                                Double.isFinite(bw)
                                        ? String.format(java.util.Locale.ROOT, "%.2f GB/s + %.0f us", bw / 1e9, lat)
                                        : ""),
                        t.agrees() ? Cell.of("agree") : Cell.num("disagree: " + t.cause(), "bad", null)));
            }
        }
        if (rows.isEmpty()) return;
        h.raw("<h2 id=\"twin\">Sim predicted vs live measured</h2>\n");
        h.el(
                "p",
                "class=\"sub\"",
                "Every live cell ran a sim twin: the same cell (seed, workload, model, store settings) on the sim clock, "
                        + "its data path costed by the link the live cell measured at its start and its metadata round trip the one it measured. Tolerance: TTFT p50 within 20%, fetch p50 within 25%, either within 0.5 ms. "
                        + (off == 0
                                ? "All live cells agree with their twin."
                                : off + " of " + rows.size() + " live runs disagree; the likely cause "
                                        + "is read from the live cell's own overhead figures (event lag, harness CPU, GC, fetch time)."));
        h.open("div", "class=\"scroll\"");
        h.table(
                "twin",
                List.of(
                        "cell",
                        "r",
                        "TTFT p50 live",
                        "TTFT p50 sim",
                        "error",
                        "fetch p50 live",
                        "fetch p50 sim",
                        "error",
                        "goodput live",
                        "goodput sim",
                        "link the live cell measured",
                        "verdict"),
                rows);
        h.close("div");
    }

    private static Cell err(double measured, double predicted, double tol) {
        double e = TwinCheck.error(measured, predicted);
        if (!Double.isFinite(e)) return Cell.num("");
        return Cell.num(
                String.format(java.util.Locale.ROOT, "%+.0f%%", e * 100),
                TwinCheck.within(measured, predicted, tol) ? null : "bad",
                null);
    }

    private void summaryTable() {
        h.raw("<h2 id=\"summary\">Summary per cell (mean over replicates, 95% CI below)</h2>\n");
        List<String> varying = f.varyingFactors();
        Set<String> modes = new LinkedHashSet<>();
        Set<Integer> ns = new LinkedHashSet<>();
        f.cells().forEach(c -> {
            modes.add(c.mode());
            ns.add(c.replicates());
        });
        List<String> head = new ArrayList<>(List.of("cell"));
        head.addAll(varying);
        if (modes.size() > 1) head.add("mode");
        if (ns.size() > 1) head.add("n");
        head.addAll(List.of(
                "completed / requests",
                "failed",
                "TTFT p50 ms",
                "TTFT p99 ms",
                "ITL p50 ms",
                "ITL p99 ms",
                "TPOT p99 ms",
                "E2EL p99 ms",
                "goodput req/s",
                "SLO att.",
                "local hit",
                "remote hit"));
        List<List<Cell>> rows = new ArrayList<>();
        for (CellData c : f.cells()) {
            List<Cell> r = new ArrayList<>();
            r.add(Cell.code(c.id()));
            for (String f : varying) r.add(Cell.of(c.factors().getOrDefault(f, "")));
            if (modes.size() > 1) r.add(Cell.of(c.mode()));
            if (ns.size() > 1) r.add(Cell.num(Integer.toString(c.replicates())));
            r.add(Cell.num(Fmt.count(c.metric(Columns.COMPLETED.name()).mean()) + " / "
                    + Fmt.count(c.metric(Columns.REQUESTS.name()).mean())));
            double failed = c.sum(Columns.FAILED.name());
            r.add(Cell.num(Fmt.count(failed), failed > 0 ? "bad" : null, null));
            for (String col : Columns.names(List.of(
                    Columns.TTFT_P50,
                    Columns.TTFT_P99,
                    Columns.ITL_P50,
                    Columns.ITL_P99,
                    Columns.TPOT_P99,
                    Columns.E2EL_P99,
                    Columns.GOODPUT_RPS))) r.add(stat(c.metric(col), false));
            for (String col :
                    Columns.names(List.of(Columns.SLO_ATTAINMENT, Columns.LOCAL_HIT_RATIO, Columns.REMOTE_HIT_RATIO)))
                r.add(stat(c.metric(col), true));
            rows.add(r);
        }
        h.open("div", "class=\"scroll\"");
        h.table("summary", head, rows);
        h.close("div");
        List<String> notes = new ArrayList<>();
        if (modes.size() == 1) notes.add("All cells ran in " + modes.iterator().next() + " mode");
        if (ns.size() == 1) notes.add(ns.iterator().next() + " replicate(s) per cell");
        h.el(
                "p",
                "class=\"sub\"",
                String.join("; ", notes) + (notes.isEmpty() ? "" : ". ")
                        + "Per-replicate rows are in summary.csv; the figures here come from summary.json. Percentiles are HdrHistogram's "
                        + "(3 significant digits) per replicate, averaged over replicates. " + intervalNote()
                        + " Bytes fetched, fallbacks and wrong hits are in the goodput table above.");
    }

    /** How to read the intervals: the t multiplier for the replicates run, and the clipping to each metric's range. */
    private String intervalNote() {
        int n = b.cells().stream().mapToInt(CellData::replicates).min().orElse(0);
        String t = switch (n) {
            case 0, 1 -> "With one replicate there are no intervals. ";
            case 2 ->
                "With 2 replicates the interval is the mean ± 12.7 standard errors (Student-t, 1 degree of freedom): wide by "
                        + "construction; 3 replicates give ± 4.3, 5 give ± 2.8. ";
            default -> "";
        };
        return t + "Intervals are shown clipped to the metric's range (no negative latency, no ratio outside 0–100%).";
    }

    private void pairedTable() {
        h.raw("<h2 id=\"paired\">Paired differences vs the baseline</h2>\n");
        if (f.baseline() == null) {
            h.el("p", "This run names no baseline cell, so there are no paired differences.");
            return;
        }
        h.el(
                "p",
                "Each cell minus the baseline cell " + f.baseline()
                        + ", replicate by replicate (same seed), with the Student-t 95% interval "
                        + "of the mean difference. Bold: the interval excludes zero. Latencies in ms, goodput in requests/s, ratios in percentage points (pp).");
        List<String> cols = Columns.names(List.of(
                Columns.TTFT_P50,
                Columns.TTFT_P99,
                Columns.ITL_P99,
                Columns.E2EL_P99,
                Columns.GOODPUT_RPS,
                Columns.SLO_ATTAINMENT,
                Columns.LOCAL_HIT_RATIO,
                Columns.REMOTE_HIT_RATIO));
        List<String> head = new ArrayList<>(List.of("cell"));
        for (String c : cols) head.add("Δ " + DISPLAY.getOrDefault(c, c));
        List<List<Cell>> rows = new ArrayList<>();
        for (CellData c : f.cells()) {
            List<Cell> r = new ArrayList<>();
            r.add(Cell.code(c.id()));
            boolean base = c.id().equals(f.baseline());
            for (String col : cols) {
                if (base) r.add(Cell.num("baseline"));
                else {
                    Stat d = c.diff(col);
                    boolean ratio = Columns.named(col)
                            .map(k -> k.unit() == Column.Unit.RATIO)
                            .orElse(false);
                    String v = ratio
                            ? (Double.isFinite(d.mean())
                                    ? (d.mean() > 0 ? "+" : "")
                                            + Fmt.pct(d.mean()).replace("%", " pp")
                                    : Fmt.NONE)
                            : Fmt.signed(d.mean());
                    String ci = d.hasCi()
                            ? (ratio
                                    ? "[" + Fmt.num(Math.max(-1, d.lo()) * 100) + ", "
                                            + Fmt.num(Math.min(1, d.hi()) * 100) + "] pp"
                                    : Fmt.ci(d))
                            : "";
                    r.add(Cell.markup(
                            Html.esc(v) + (ci.isEmpty() ? "" : "<br><span class=\"ci\">" + Html.esc(ci) + "</span>"),
                            d.excludesZero() ? "num sig" : "num"));
                }
            }
            rows.add(r);
        }
        h.open("div", "class=\"scroll\"");
        h.table("paired", head, rows);
        h.close("div");
    }

    private void crosswalk() {
        h.raw("<h2 id=\"crosswalk\">Metric names: kvlab ↔ vLLM ↔ AIPerf ↔ MLPerf</h2>\n");
        List<List<Cell>> rows = new ArrayList<>();
        for (Crosswalk.Row r : Crosswalk.ROWS)
            rows.add(List.of(
                    Cell.code(r.kvlab()),
                    Cell.of(r.definition()),
                    Cell.of(r.vllm()),
                    Cell.of(r.aiperf()),
                    Cell.of(r.mlperf()),
                    Cell.of(r.other())));
        h.table(null, List.of("kvlab", "definition", "vLLM", "AIPerf", "MLPerf", "also"), rows);
        h.el(
                "p",
                "class=\"sub\"",
                "All latencies are measured from the request's intended arrival time (no coordinated omission), "
                        + "recorded in HdrHistogram interval logs in microseconds (cells/<cell>/r<k>/<metric>.hlog), reported in milliseconds.");
    }

    private void provenance() {
        h.raw("<h2 id=\"provenance\">Provenance</h2>\n");
        JsonNode m = b.manifest();
        if (m.isMissingNode()) {
            h.el("p", "No manifest.json: provenance is unknown for this bundle.");
            return;
        }
        Map<String, String> kv = new LinkedHashMap<>();
        kv.put("run id", m.path("run_id").asText(b.runId()));
        kv.put("kvlab version", m.path("kvlab_version").asText(""));
        JsonNode git = m.path("git");
        if (!git.isMissingNode())
            kv.put(
                    "git commit",
                    git.path("commit").asText("")
                            + (git.path("dirty").asBoolean(false) ? " (dirty working tree)" : ""));
        List<String> cmd = new ArrayList<>();
        m.path("command_line").forEach(a -> cmd.add(a.asText()));
        kv.put("command line", String.join(" ", cmd));
        kv.put("started", m.path("started_at").asText(""));
        kv.put("ended", m.path("ended_at").asText(""));
        kv.put("JVM", join(m.path("jvm"), "name", "version", "vendor"));
        kv.put("OS", join(m.path("os"), "name", "version", "arch"));
        JsonNode cpu = m.path("cpu");
        kv.put(
                "CPU",
                cpu.path("model").asText("")
                        + (cpu.has("logical_cores")
                                ? " (" + cpu.get("logical_cores").asText() + " logical cores)"
                                : ""));
        JsonNode mx = m.path("matrix");
        if (mx.has("file"))
            kv.put(
                    "matrix",
                    mx.path("file").asText("") + "  sha256 " + mx.path("sha256").asText(""));
        kv.put("seeds", seeds());
        h.open("dl", "class=\"kv\"");
        kv.forEach((k, v) -> {
            if (v == null || v.isBlank()) return;
            h.el("dt", k);
            h.raw("<dd><code>").text(v).raw("</code></dd>\n");
        });
        h.close("dl");
        List<List<Cell>> rows = new ArrayList<>();
        m.path("inputs")
                .forEach(i -> rows.add(List.of(
                        Cell.code(i.path("path").asText()),
                        Cell.code(i.path("sha256").asText()),
                        Cell.num(Fmt.count(i.path("bytes").asDouble(Double.NaN))))));
        h.el("h3", "Inputs");
        if (rows.isEmpty()) h.el("p", "No input files (generated workloads only).");
        else h.table(null, List.of("path", "sha256", "bytes"), rows);
    }

    // ---- helpers -------------------------------------------------------------------------------------------

    boolean figure(String name) {
        Plot p = plots.get(name);
        byte[] png = pngs.get(name);
        if (p == null || png == null) return false;
        h.open("figure", "id=\"fig-" + name + "\"");
        h.raw("<img alt=\"")
                .text(p.title())
                .raw("\" width=\"" + ChartStyle.WIDTH + "\" src=\"data:image/png;base64,")
                .raw(Base64.getEncoder().encodeToString(png))
                .raw("\">\n");
        h.raw("<figcaption><b>")
                .text(p.title())
                .raw(".</b> ")
                .text(p.caption())
                .raw(" <span class=\"mono\">")
                .text("plots/" + name + ".png, .svg")
                .raw("</span></figcaption>\n");
        h.close("figure");
        return true;
    }

    private void note(String section) {
        String n = notes.get(section);
        if (n != null) h.el("p", "class=\"sub\"", n);
    }

    private void fact(String k, String v) {
        h.raw("<div class=\"fact\"><div class=\"k\">")
                .text(k)
                .raw("</div><div class=\"v\">")
                .text(v)
                .raw("</div></div>\n");
    }

    private static Cell stat(Stat s, boolean pct) {
        String v = pct ? Fmt.pct(s.mean()) : Fmt.num(s.mean());
        Stat shown = pct ? s.clip(0, 1) : s.clip(0, Double.POSITIVE_INFINITY);
        String ci = pct ? Fmt.ciPct(shown) : Fmt.ci(shown);
        if (ci.isEmpty()) return Cell.num(v);
        return Cell.markup(Html.esc(v) + "<br><span class=\"ci\">" + Html.esc(ci) + "</span>", "num");
    }

    private static Cell wrongHits(CellData c) {
        double w = c.sum(Columns.WRONG_HITS_USED.name());
        return Cell.num(Fmt.count(w), w > 0 ? "bad" : null, null);
    }

    private double total(String column) {
        double t = 0;
        for (CellData c : b.cells()) {
            double v = c.sum(column);
            if (Double.isFinite(v)) t += v;
        }
        return t;
    }

    private List<String> cellsWhere(String column) {
        List<String> out = new ArrayList<>();
        for (CellData c : b.cells()) if (c.sum(column) > 0) out.add(c.id());
        return out;
    }

    private boolean usesTransport(String name) {
        return b.cells().stream().anyMatch(c -> name.equalsIgnoreCase(c.text("transport")));
    }

    private String sloText() {
        Set<String> slos = new LinkedHashSet<>();
        for (CellData c : b.cells()) {
            JsonNode s = c.config().path("slo");
            List<String> parts = new ArrayList<>();
            for (String k : List.of("ttft_ms", "tpot_ms", "tbt_ms", "e2el_ms")) {
                JsonNode v = s.get(k);
                if (v != null && !v.isNull()) parts.add(k.replace("_ms", "") + " ≤ " + v.asText() + " ms");
            }
            if (!c.config().isMissingNode())
                slos.add(
                        parts.isEmpty()
                                ? "no SLO given (every completed request counts as good)"
                                : String.join(", ", parts));
        }
        if (slos.isEmpty()) return "SLOs: unknown (no cell config in the bundle).";
        return "SLO" + (slos.size() > 1 ? "s (differ by cell): " : ": ") + String.join("; ", slos)
                + ". Goodput = requests per second that met every SLO given; "
                + "SLO attainment = good / measured requests.";
    }

    private String seeds() {
        Map<Integer, Set<String>> byRep = new TreeMap<>();
        for (CellData c : b.cells())
            for (Map<String, JsonNode> r : c.rows())
                byRep.computeIfAbsent(
                                r.get("replicate") == null
                                        ? 0
                                        : r.get("replicate").asInt(),
                                k -> new LinkedHashSet<>())
                        .add(r.get("seed") == null ? "?" : r.get("seed").asText());
        List<String> parts = new ArrayList<>();
        byRep.forEach((k, v) -> parts.add("r" + k + ": " + String.join("/", v)));
        return String.join(", ", parts);
    }

    private static String join(JsonNode o, String... keys) {
        List<String> parts = new ArrayList<>();
        for (String k : keys) if (o.hasNonNull(k)) parts.add(o.get(k).asText());
        return String.join(" ", parts);
    }

    private static String abbreviate(List<String> ids) {
        if (ids.size() <= 6) return String.join(", ", ids);
        return String.join(", ", ids.subList(0, 5)) + String.format(Locale.ROOT, " and %d more", ids.size() - 5);
    }

    private static String version() {
        String v = ReportPage.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    private static String css() {
        try (InputStream in = ReportPage.class.getResourceAsStream(CSS)) {
            if (in == null) throw new IllegalStateException("report stylesheet missing from the jar: " + CSS);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
