package dev.kvlab.harness.experiments.internal.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.transport.api.DurationSpec;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads and validates a matrix's {@code capacity:} block before anything runs: unknown keys, a knob that is not a
 * numeric load key (or does not fit a cell's arrival process), a knob also swept as a factor, {@code start} outside
 * [{@code min}, {@code max}], a target outside (0, 1], a searched cell without an SLO, a {@code half_width} outside (0, 1),
 * a {@code max_replicates} below the replicates a cell starts with (or above them from fewer than 2) — each an error naming the key
 * and where it was given ({@code FILE:LINE} or {@code --set}). The {@code cells:} selection names levels as the
 * matrix declares them; a selection that a {@code --set} pin empties (the demo's {@code --set clock=live}) leaves a
 * fixed matrix with nothing to search, which is not an error.
 */
public final class CapacityParser {

    public static final List<String> KEYS = List.of(
            "knob",
            "start",
            "min",
            "max",
            "target_attainment",
            "rule",
            "precision",
            "max_probes",
            "min_requests",
            "min_duration",
            "budget",
            "early_stop",
            "cells",
            "max_passes",
            "replicates",
            "max_replicates",
            "half_width",
            "predict");

    private CapacityParser() {}

    /**
     * @param node    the block (with {@code --set capacity.*} applied)
     * @param where   pointer ({@code /capacity/knob}) → origin text for messages
     * @param factors  the matrix's factors as run (after {@code --set} pins): key → levels
     * @param declared the factors as the file declares them (before pins): key → levels
     * @param cells    the matrix's cells, bound
     * @return the search, or {@code null} when pins leave no cell of the selection to search
     */
    public static CapacitySpec parse(
            JsonNode node,
            Function<String, String> where,
            Map<String, List<String>> factors,
            Map<String, List<String>> declared,
            List<MatrixCell> cells) {
        if (!(node instanceof ObjectNode o))
            throw new BadInputException(where.apply("/capacity")
                    + ": capacity: expected a mapping (knob, start, min, max, target_attainment, ...)");
        o.fieldNames().forEachRemaining(k -> {
            if (!KEYS.contains(k))
                throw bad(where, "/" + k, k + ": unknown key (keys: " + String.join(", ", KEYS) + ")");
        });
        String knob = knob(o, where, factors);
        Loads loads = loads(o, where, knob);
        double target = o.hasNonNull("target_attainment") ? number(o, "target_attainment", where) : 0.9;
        if (!(target > 0 && target <= 1))
            throw bad(
                    where,
                    "/target_attainment",
                    "target_attainment: must be in (0, 1], got " + o.get("target_attainment"));
        String rule = o.hasNonNull("rule") ? o.get("rule").asText().strip() : "attainment";
        if (!List.of("attainment", "percentile").contains(rule))
            throw bad(
                    where,
                    "/rule",
                    "rule: must be attainment (every SLO per request, DistServe) or percentile (each SLO metric's p<100*target>, MLPerf), got '"
                            + rule + "'");
        double precision = o.hasNonNull("precision") ? number(o, "precision", where) : 0.02;
        if (!(precision > 0 && precision < 1))
            throw bad(where, "/precision", "precision: must be in (0, 1), got " + o.get("precision"));
        int maxProbes = o.hasNonNull("max_probes")
                ? Math.toIntExact(whole(o, "max_probes", where, 1, CapacitySpec.MAX_PROBES))
                : 24;
        long minRequests =
                o.hasNonNull("min_requests") ? whole(o, "min_requests", where, 1, CapacitySpec.MAX_MIN_REQUESTS) : 1;
        double minDuration =
                o.hasNonNull("min_duration") ? seconds(o, "min_duration", where, CapacitySpec.MAX_MIN_DURATION_S) : 0;
        double budget = o.hasNonNull("budget") ? seconds(o, "budget", where, CapacitySpec.MAX_BUDGET_S) : 0;
        boolean earlyStop = earlyStop(o, where);
        Map<String, Set<String>> select = selection(o, where, declared);
        long maxPasses = o.hasNonNull("max_passes")
                ? whole(o, "max_passes", where, 1, CapacitySpec.MAX_MAX_PASSES)
                : CapacitySpec.MAX_PASSES;
        long replicates =
                o.hasNonNull("replicates") ? whole(o, "replicates", where, 1, CapacitySpec.MAX_REPLICATES) : 0;
        int initial = replicates > 0
                ? (int) replicates
                : cells.isEmpty() ? 1 : cells.get(0).runs().size();
        int maxReplicates = maxReplicates(o, where, initial);
        double halfWidth = o.hasNonNull("half_width") ? number(o, "half_width", where) : CapacitySpec.HALF_WIDTH;
        if (!(halfWidth > 0 && halfWidth < 1))
            throw bad(
                    where,
                    "/half_width",
                    "half_width: must be in (0, 1) (the 95% half-width as a share of the capacity), got "
                            + o.get("half_width"));
        CapacitySpec spec = new CapacitySpec(
                knob,
                loads.start(),
                loads.min(),
                loads.max(),
                target,
                rule,
                precision,
                maxProbes,
                minRequests,
                minDuration,
                budget,
                earlyStop,
                select,
                (int) maxPasses,
                (int) replicates,
                maxReplicates,
                halfWidth,
                predict(o, where));
        if (checkSearchedCells(spec, where, cells) > 0) return spec;
        boolean pinnedAway =
                select.keySet().stream().anyMatch(k -> !factors.get(k).equals(declared.get(k)));
        if (pinnedAway) return null;
        throw bad(where, "/cells", "cells: selects no cell of the matrix");
    }

    /** {@code predict}: true or false (default true). */
    private static boolean predict(ObjectNode o, Function<String, String> where) {
        if (!o.has("predict") || o.get("predict").isNull()) return true;
        JsonNode v = o.get("predict");
        if (v.isBoolean()) return v.booleanValue();
        String t = v.asText().strip().toLowerCase(java.util.Locale.ROOT);
        if (t.equals("true") || t.equals("false")) return Boolean.parseBoolean(t);
        throw bad(
                where,
                "/predict",
                "predict: must be true or false (the twin's capacity searched before each live cell's), got " + v);
    }

    /** The knob: one of {@link CapacitySpec#KNOBS} ({@code arrival.X} is read as {@code workload.arrival.X}), not swept as a factor. */
    private static String knob(ObjectNode o, Function<String, String> where, Map<String, List<String>> factors) {
        if (!o.hasNonNull("knob"))
            throw bad(where, "", "knob: missing (one of " + String.join(", ", CapacitySpec.KNOBS) + ")");
        String raw = o.get("knob").asText().strip();
        String knob = raw.startsWith("arrival.") ? "workload." + raw : raw;
        if (!CapacitySpec.KNOBS.contains(knob))
            throw bad(
                    where,
                    "/knob",
                    "knob: '" + raw + "' is not a numeric load key (one of " + String.join(", ", CapacitySpec.KNOBS)
                            + ")");
        for (String f : factors.keySet())
            if (f.equals(knob) || ("workload." + f).equals(knob))
                throw bad(
                        where,
                        "/knob",
                        "knob: " + knob
                                + " is also swept as a factor; a capacity search varies it itself (drop the factor or search another knob)");
        return knob;
    }

    /**
     * {@code max_replicates}: a whole number, at least the {@code initial} replicates a searched cell starts with (the
     * block's {@code replicates}, else the matrix's); above them only from 2 on (adding replicates is judged on an interval).
     */
    private static int maxReplicates(ObjectNode o, Function<String, String> where, int initial) {
        if (!o.hasNonNull("max_replicates")) return 0;
        int max = (int) whole(o, "max_replicates", where, 1, CapacitySpec.MAX_REPLICATES);
        if (max < initial)
            throw bad(
                    where,
                    "/max_replicates",
                    "max_replicates: " + max + " is below the " + initial
                            + " replicates every searched cell starts with"
                            + (o.hasNonNull("replicates") ? " (capacity.replicates)" : " (the matrix's replicates)"));
        if (max > initial && initial < 2)
            throw bad(
                    where,
                    "/max_replicates",
                    "max_replicates: adding replicates is decided on the capacity's 95% interval, which needs at least 2 "
                            + "replicates to start with (capacity.replicates: 2 or more)");
        return max;
    }

    /** The first probe's load and the bounds of the search. */
    private record Loads(double start, double min, double max) {}

    /** {@code start} (given), {@code min} and {@code max} (by default 1000 times below and above it); start within them. */
    private static Loads loads(ObjectNode o, Function<String, String> where, String knob) {
        boolean ints = knob.endsWith(".users") || knob.endsWith(".max_concurrency");
        double least = CapacitySpec.minLoad(knob);
        if (!o.hasNonNull("start")) throw bad(where, "", "start: missing (the first probe's load)");
        double start = load(o, "start", where, ints, knob);
        double min = o.hasNonNull("min") ? load(o, "min", where, ints, knob) : ints ? 1 : Math.max(start / 1000, least);
        double max =
                o.hasNonNull("max") ? load(o, "max", where, ints, knob) : Math.min(start * 1000, CapacitySpec.MAX_LOAD);
        if (!(min < max))
            throw bad(
                    where, "/min", "min (" + Bracket.format(min) + ") must be below max (" + Bracket.format(max) + ")");
        if (start < min || start > max)
            throw bad(
                    where,
                    "/start",
                    "start: " + Bracket.format(start) + " is outside [min, max] = [" + Bracket.format(min) + ", "
                            + Bracket.format(max) + "]");
        return new Loads(start, min, max);
    }

    private static boolean earlyStop(ObjectNode o, Function<String, String> where) {
        if (!o.hasNonNull("early_stop")) return true;
        if (!o.get("early_stop").isBoolean())
            throw bad(where, "/early_stop", "early_stop: must be true or false, got " + o.get("early_stop"));
        return o.get("early_stop").asBoolean();
    }

    /** {@code cells:}: factor → the levels (as the file declares them) of the cells searched; empty = every cell. */
    private static Map<String, Set<String>> selection(
            ObjectNode o, Function<String, String> where, Map<String, List<String>> declared) {
        Map<String, Set<String>> select = new LinkedHashMap<>();
        JsonNode sel = o.get("cells");
        if (sel == null || sel.isNull()) return select;
        if (!(sel instanceof ObjectNode so) || so.isEmpty())
            throw bad(
                    where,
                    "/cells",
                    "cells: expected a mapping of factor -> level (or list of levels) naming the cells searched, e.g. {mode: sim}");
        so.fields().forEachRemaining(e -> {
            List<String> levels = declared.get(e.getKey());
            if (levels == null)
                throw bad(
                        where,
                        "/cells/" + e.getKey(),
                        "cells: '" + e.getKey() + "' is not a factor of this matrix (factors: "
                                + String.join(", ", declared.keySet()) + ")");
            Set<String> vs = new LinkedHashSet<>();
            if (e.getValue().isArray()) e.getValue().forEach(v -> vs.add(v.asText()));
            else vs.add(e.getValue().asText());
            for (String v : vs)
                if (!levels.contains(v))
                    throw bad(
                            where,
                            "/cells/" + e.getKey(),
                            "cells: '" + v + "' is not a level of factor " + e.getKey() + " (levels: "
                                    + String.join(", ", levels) + ")");
            select.put(e.getKey(), vs);
        });
        return select;
    }

    /** Refuses a searched cell without an SLO or whose arrival process the knob does not vary; returns how many cells are searched. */
    private static int checkSearchedCells(CapacitySpec spec, Function<String, String> where, List<MatrixCell> cells) {
        String knob = spec.knob();
        int searched = 0;
        for (MatrixCell c : cells) {
            if (!spec.searches(c.factors())) continue;
            searched++;
            RunConfig rc = c.runs().get(0).config();
            if (rc.slo() == null || !rc.slo().any())
                throw bad(
                        where,
                        "",
                        "cell " + c.id()
                                + " gives no SLO: a capacity search needs one (slo: {ttft_ms, tpot_ms, tbt_ms, e2el_ms})");
            String process = rc.workload().arrival().process();
            String fits = knobMisfit(knob, process);
            if (fits != null)
                throw bad(
                        where,
                        "/knob",
                        "knob: " + knob + " does not vary the load of cell " + c.id() + " (its arrival process is '"
                                + process + "'; " + fits + ")");
        }
        return searched;
    }

    /** Why {@code knob} does not vary the load of an arrival {@code process}, or null when it does. */
    private static String knobMisfit(String knob, String process) {
        return switch (knob.substring("workload.arrival.".length())) {
            case "rate" ->
                List.of("poisson", "gamma", "constant").contains(process)
                        ? null
                        : "rate applies to poisson, gamma and constant arrivals";
            case "speedup" -> process.equals("trace") ? null : "speedup applies to trace arrivals";
            case "users" -> process.equals("closed") ? null : "users applies to closed-loop arrivals";
            default -> process.equals("closed") ? "max_concurrency applies to open-loop arrivals" : null;
        };
    }

    private static double number(ObjectNode o, String k, Function<String, String> where) {
        JsonNode v = o.get(k);
        if (v.isNumber()) return v.asDouble();
        try {
            return Double.parseDouble(v.asText().strip());
        } catch (NumberFormatException e) {
            throw bad(where, "/" + k, k + ": expected a number, got " + v);
        }
    }

    /** A load of the knob: a number within the knob's sane bounds ({@link CapacitySpec#MAX_LOAD}), whole for whole-number knobs. */
    private static double load(ObjectNode o, String k, Function<String, String> where, boolean ints, String knob) {
        double x = number(o, k, where);
        if (!(x > 0) || Double.isInfinite(x)) throw bad(where, "/" + k, k + ": must be a load > 0, got " + o.get(k));
        if (ints && x != Math.rint(x))
            throw bad(where, "/" + k, k + ": this knob takes whole numbers, got " + o.get(k));
        double least = CapacitySpec.minLoad(knob);
        if (x < least || x > CapacitySpec.MAX_LOAD)
            throw bad(
                    where,
                    "/" + k,
                    k + ": " + o.get(k) + " is outside the sane range of " + knob + " [" + Bracket.format(least) + ", "
                            + Bracket.format(CapacitySpec.MAX_LOAD) + "]");
        return x;
    }

    /** A whole number in [least, most], refused (never wrapped or saturated) outside it. */
    private static long whole(ObjectNode o, String k, Function<String, String> where, long least, long most) {
        double x = number(o, k, where);
        JsonNode v = o.get(k);
        if (x != Math.rint(x) || !(x >= least && x <= most))
            throw bad(where, "/" + k, k + ": expected a whole number in [" + least + ", " + most + "], got " + v);
        if (v.isIntegralNumber() && !v.canConvertToLong())
            throw bad(where, "/" + k, k + ": expected a whole number in [" + least + ", " + most + "], got " + v);
        return (long) x;
    }

    private static double seconds(ObjectNode o, String k, Function<String, String> where, double most) {
        JsonNode v = o.get(k);
        double s;
        if (v.isNumber()) {
            s = v.asDouble();
        } else {
            try {
                s = DurationSpec.parse(v.asText().strip()).toNanos() / 1e9;
            } catch (IllegalArgumentException | ArithmeticException e) {
                throw bad(where, "/" + k, k + ": " + e.getMessage());
            }
        }
        if (!(s >= 0 && s <= most))
            throw bad(where, "/" + k, k + ": must be a duration in [0, " + Bracket.format(most) + " s], got " + v);
        return s;
    }

    private static BadInputException bad(Function<String, String> where, String ptr, String reason) {
        return new BadInputException(
                where.apply("/capacity" + ptr) + ": capacity" + (reason.startsWith("cell ") ? ": " : ".") + reason);
    }
}
