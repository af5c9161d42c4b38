package dev.kvlab.harness.report.text;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.bundle.CapacityFile;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Prints {@code capacity.json}'s per-cell summary: capacity with its 95% CI, the gain over the baseline, the hit ratios at capacity. */
public final class CapacityText {

    private CapacityText() {}

    /** Prints {@code cap} ({@code capacity.json}): a row per searched cell, the flags' legend, the link sweep when there is one. */
    public static void print(PrintWriter out, JsonNode cap) {
        out.printf(
                Locale.ROOT,
                "Capacity under SLO: highest %s with SLO attainment >= %s (%s rule); mean over replicates, 95%% CI%n",
                cap.path("knob").asText(),
                cap.path("target_attainment").asText(),
                cap.path("rule").asText());
        int w = 10;
        for (JsonNode c : cap.path("summary"))
            w = Math.max(w, c.path("cell").asText().length());
        boolean predicted = false, cost = false;
        for (JsonNode c : cap.path("summary")) {
            predicted |= c.path("predicted").isObject();
            cost |= c.path("cost_per_m_output_tokens").isObject();
        }
        String more = (predicted ? String.format(Locale.ROOT, " %18s", "predicted (error)") : "")
                + (cost ? String.format(Locale.ROOT, " %22s", "cost/1M tok (vs base)") : "");
        out.printf(
                Locale.ROOT,
                "  %-" + w + "s %10s %22s %24s%s %5s %9s %10s %10s %11s  %s%n",
                "cell",
                "capacity",
                "95% CI",
                "vs baseline",
                more,
                "reps",
                "probes",
                "local hit",
                "remote hit",
                "goodput/s",
                "flags");
        for (JsonNode c : cap.path("summary")) {
            JsonNode k = c.path("capacity");
            String ci = k.path("ci95").isArray()
                    ? String.format(
                            Locale.ROOT,
                            "[%.4g, %.4g]",
                            k.path("ci95").get(0).asDouble(),
                            k.path("ci95").get(1).asDouble())
                    : "-";
            JsonNode vb = c.path("vs_baseline");
            String gain = "(baseline)";
            if (vb.isObject() && !vb.path("searched").asBoolean(true)) {
                gain = CapacityFile.NOT_SEARCHED;
            } else if (vb.isObject()) {
                JsonNode r = vb.path("ratio");
                gain = r.path("mean").isNumber()
                        ? String.format(
                                Locale.ROOT, "%+.0f%%", 100 * (r.path("mean").asDouble() - 1))
                        : "-";
                if (r.path("ci95").isArray())
                    gain += String.format(
                            Locale.ROOT,
                            " [%+.0f%%, %+.0f%%]",
                            100 * (r.path("ci95").get(0).asDouble() - 1),
                            100 * (r.path("ci95").get(1).asDouble() - 1));
            } else if (cap.path("baseline").isNull()) gain = "-";
            int probes = 0;
            for (JsonNode e : cap.path("cells"))
                if (e.path("cell").asText().equals(c.path("cell").asText()))
                    probes += e.path("probes_used").asInt();
            List<String> flags = new ArrayList<>();
            c.path("flags").forEach(f -> flags.add(f.asText()));
            String row = (predicted ? String.format(Locale.ROOT, " %18s", predictedText(c.path("predicted"))) : "")
                    + (cost ? String.format(Locale.ROOT, " %22s", costText(c)) : "");
            out.printf(
                    Locale.ROOT,
                    "  %-" + w + "s %10s %22s %24s%s %5d %9d %10s %10s %11s  %s%n",
                    c.path("cell").asText(),
                    num(k.path("mean")),
                    ci,
                    gain,
                    row,
                    c.path("replicates").asInt(),
                    probes,
                    num(c.path("local_hit_ratio_at_capacity").path("mean")),
                    num(c.path("remote_hit_ratio_at_capacity").path("mean")),
                    num(c.path("goodput_rps_at_capacity").path("mean")),
                    String.join(" ", flags));
        }
        List<String> legend = new ArrayList<>();
        for (String f : List.of("undecided", "wide")) {
            boolean any = false;
            for (JsonNode c : cap.path("summary"))
                for (JsonNode x : c.path("flags")) any |= x.asText().equals(f);
            if (any && cap.path(f + "_means").isTextual())
                legend.add(cap.path(f + "_means").asText());
        }
        for (String l : legend) out.println("  " + l);
        if (predicted) {
            out.println(
                    "  predicted: the twin's capacity, searched on the sim clock from the cell's calibration before the live search (twins/<cell>.json);"
                            + " error = predicted / measured - 1");
            for (JsonNode c : cap.path("summary")) {
                JsonNode p = c.path("predicted");
                if (p.path("cause").isTextual())
                    out.println("  " + c.path("cell").asText() + ": prediction off: "
                            + p.path("cause").asText());
                else if (p.path("off").isTextual())
                    out.println("  " + c.path("cell").asText() + ": no prediction: "
                            + p.path("off").asText());
            }
        }
        if (cost)
            out.println(
                    "  cost/1M tok: the cell's price per hour over the output tokens per hour served within the SLO at its capacity, per million");
        // the replicates' half-width target: each cell that got more replicates, or still misses it, says how it stands
        for (JsonNode c : cap.path("summary")) {
            JsonNode t = c.path("replicate_target");
            if (t.isObject()
                    && (!t.path("met").asBoolean(true)
                            || t.path("replicates").asInt()
                                    > t.path("started_with").asInt()))
                out.println(
                        "  " + c.path("cell").asText() + ": " + t.path("text").asText());
        }
        JsonNode sweep = cap.path("link_sweep");
        if (sweep.isObject()) {
            out.println("The link as an axis (" + sweep.path("factor").asText()
                    + "): capacity by link, and from which link a remote tier beats no cache");
            for (JsonNode g : sweep.path("groups")) {
                StringBuilder sb = new StringBuilder("  " + g.path("tiers").asText() + " "
                        + g.path("levels").path(ConfigKeys.CACHE_STATE).asText("") + ":");
                for (JsonNode p : g.path("points"))
                    sb.append(String.format(
                            Locale.ROOT,
                            " %s %s;",
                            p.path(sweep.path("factor").asText()).asText(),
                            num(p.path("capacity").path("mean"))));
                sb.append(" no cache ").append(num(g.path("reference_capacity")));
                out.println(sb);
                if (g.path("breakeven").path("text").isTextual())
                    out.println("    break-even: "
                            + g.path("breakeven").path("text").asText());
            }
        }
        out.println();
        out.flush();
    }

    private static String predictedText(JsonNode p) {
        if (!p.isObject()) return "-";
        if (p.path("off").isTextual()) return "off";
        if (!p.path("capacity").isNumber())
            return "none"; // the twin found no capacity within the bounds (its cause is printed below)
        return String.format(Locale.ROOT, "%.4g", p.path("capacity").asDouble())
                + (p.path("error").isNumber()
                        ? String.format(
                                Locale.ROOT, " (%+.0f%%)", 100 * p.path("error").asDouble())
                        : "");
    }

    private static String costText(JsonNode c) {
        JsonNode k = c.path("cost_per_m_output_tokens").path("mean");
        if (!k.isNumber()) return "-";
        JsonNode v = c.path("cost_vs_baseline").path("mean");
        return String.format(Locale.ROOT, "%.4g", k.asDouble())
                + (v.isNumber() ? String.format(Locale.ROOT, " (%+.0f%%)", 100 * (v.asDouble() - 1)) : "");
    }

    private static String num(JsonNode v) {
        return v.isNumber() ? String.format(Locale.ROOT, "%.4g", v.asDouble()) : "-";
    }
}
