package dev.kvlab.harness.experiments.internal.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.CapacitySpec;
import dev.kvlab.harness.api.CellRun;
import dev.kvlab.harness.api.MatrixCell;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.run.ConfigTree;
import dev.kvlab.harness.api.run.ResolvedConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An operating point: a load key given as a share of another cell's capacity, {@code workload.arrival.rate:
 * {capacity_of: {tiers: none}, fraction: 0.8}}. The capacity search runs first; every cell it does not search then
 * runs once per replicate at {@code fraction} x the mean capacity (over replicates) of its reference cell, so tails are
 * compared at one load in one bundle. The reference of a cell is the searched cell the selector names; where it names
 * several, the one that agrees with the cell on its other factors.
 *
 * @param key      the load key ({@code workload.arrival.rate}, ...: the capacity search's knob)
 * @param selector factor → level naming the searched cell(s)
 * @param fraction share of the reference capacity, in (0, 1]
 * @param where    where it was given ({@code FILE:LINE})
 */
public record OperatingPoint(String key, Map<String, String> selector, double fraction, String where) {

    /** The key in the matrix's resolved section (and so in the manifest). */
    public static final String RESOLVED = "operating_point";

    public OperatingPoint {
        selector = Map.copyOf(selector);
    }

    /**
     * Takes an operating point out of the config's load keys: the mapping is replaced by a placeholder load (1) until
     * it is resolved. Null when every load key holds a plain number.
     */
    public static OperatingPoint take(ConfigTree base) {
        for (String key : CapacitySpec.KNOBS) {
            JsonNode v = base.get(key);
            if (!(v instanceof ObjectNode o)) continue;
            String at = base.origin(key) == null ? key : base.origin(key);
            o.fieldNames().forEachRemaining(k -> {
                if (!k.equals("capacity_of") && !k.equals("fraction"))
                    throw new BadInputException(at + ": " + key + ": unknown key '" + k
                            + "' (an operating point is {capacity_of: {FACTOR: LEVEL, ...}, fraction: F})");
            });
            if (!(o.get("capacity_of") instanceof ObjectNode sel) || sel.isEmpty())
                throw new BadInputException(
                        at + ": " + key
                                + ": capacity_of: expected a mapping of factor -> level naming a searched cell, e.g. {tiers: none}");
            Map<String, String> selector = new LinkedHashMap<>();
            sel.fields().forEachRemaining(e -> {
                if (!e.getValue().isValueNode() || e.getValue().isNull())
                    throw new BadInputException(at + ": " + key + ": capacity_of." + e.getKey()
                            + ": expected one level, got " + e.getValue());
                selector.put(e.getKey(), e.getValue().asText());
            });
            JsonNode f = o.get("fraction");
            double fraction = f == null || f.isNull() ? 1.0 : f.isNumber() ? f.asDouble() : parse(f.asText(), at, key);
            if (!(fraction > 0 && fraction <= 1))
                throw new BadInputException(at + ": " + key
                        + ": fraction: must be in (0, 1] (a share of the reference cell's capacity), got " + f);
            base.set(
                    key,
                    JsonNodeFactory.instance.numberNode(1),
                    at + " (operating point, resolved after the capacity search)");
            return new OperatingPoint(key, selector, fraction, at);
        }
        return null;
    }

    private static double parse(String s, String at, String key) {
        try {
            return Double.parseDouble(s.strip());
        } catch (NumberFormatException e) {
            throw new BadInputException(at + ": " + key + ": fraction: expected a number in (0, 1], got '" + s + "'");
        }
    }

    /** Checks every cell's operating point (cell id → point) against the matrix; searched cells' points are moot (the search sets their load). */
    public static void check(Map<String, OperatingPoint> points, CapacitySpec c, List<MatrixCell> cells) {
        if (c != null)
            points.keySet().removeIf(id -> cells.stream().anyMatch(m -> m.id().equals(id) && c.searches(m.factors())));
        for (var e : points.entrySet()) {
            OperatingPoint p = e.getValue();
            p.check(c, cells);
            for (MatrixCell m : cells) if (m.id().equals(e.getKey())) p.reference(m, cells, c);
        }
    }

    /** Checks it against the matrix (exit 2 naming where it was given): a capacity block, its knob, a searched cell it selects. */
    public void check(CapacitySpec c, List<MatrixCell> cells) {
        if (c == null)
            throw new BadInputException(where + ": " + key
                    + ": capacity_of needs a capacity search in the same matrix (a capacity: block whose cells include "
                    + selector + ")");
        if (!c.knob().equals(key))
            throw new BadInputException(
                    where + ": " + key + ": an operating point sets the capacity search's knob, here " + c.knob());
        if (cells.stream().noneMatch(m -> c.searches(m.factors()) && matches(m)))
            throw new BadInputException(where + ": " + key + ": capacity_of " + selector
                    + " selects no searched cell (searched: "
                    + String.join(
                            ", ",
                            cells.stream()
                                    .filter(m -> c.searches(m.factors()))
                                    .map(MatrixCell::id)
                                    .toList())
                    + ")");
    }

    private boolean matches(MatrixCell m) {
        for (var e : selector.entrySet()) if (!e.getValue().equals(m.factors().get(e.getKey()))) return false;
        return true;
    }

    /** The searched cell whose capacity sets {@code cell}'s load. */
    public MatrixCell reference(MatrixCell cell, List<MatrixCell> cells, CapacitySpec c) {
        List<MatrixCell> cand = new ArrayList<>();
        for (MatrixCell m : cells) if (c.searches(m.factors()) && matches(m)) cand.add(m);
        if (cand.size() > 1) {
            List<MatrixCell> agree = new ArrayList<>();
            for (MatrixCell m : cand) {
                boolean same = true;
                for (var e : m.factors().entrySet())
                    if (!selector.containsKey(e.getKey())
                            && !c.cells().containsKey(e.getKey())
                            && !e.getValue().equals(cell.factors().get(e.getKey()))) same = false;
                if (same) agree.add(m);
            }
            cand = agree;
        }
        if (cand.size() != 1)
            throw new BadInputException(where + ": " + key + ": capacity_of " + selector + " names "
                    + (cand.isEmpty() ? "no" : cand.size())
                    + " searched cells for cell " + cell.id()
                    + (cand.isEmpty()
                            ? ""
                            : " ("
                                    + String.join(
                                            ", ",
                                            cand.stream().map(MatrixCell::id).toList()) + ")")
                    + "; name more factors");
        return cand.get(0);
    }

    /** The load of an operating point: {@code fraction} x the reference capacity, six significant digits. */
    public double load(double referenceCapacity) {
        return Bracket.round(fraction * referenceCapacity, 6);
    }

    /** {@code run} at {@code load}: its tree with the key set, rebound; the key joins its factors (a column of its row). */
    public CellRun at(CellRun run, double load) {
        ResolvedConfig r = new ResolvedConfig(
                        run.config(),
                        run.tree(),
                        run.label() + " at " + key + "=" + Bracket.format(load) + " (" + fraction + " x capacity of "
                                + selector + ")")
                .withLoad(key, load, false);
        RunConfig rc = r.checked();
        Map<String, String> factors = new LinkedHashMap<>(run.factors());
        factors.put(key, Bracket.format(load));
        return new CellRun(run.cell(), run.index(), factors, run.replicate(), run.seed(), run.mode(), rc, r.tree());
    }

    /** As recorded in the manifest's resolved matrix: {@code {key, capacity_of, fraction}}. */
    public ObjectNode json() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("key", key);
        ObjectNode s = o.putObject("capacity_of");
        selector.forEach(s::put);
        o.put("fraction", fraction);
        return o;
    }

    /** The resolved matrix's section: per cell at an operating point, {@code {key, capacity_of, fraction, reference}}. */
    public static ObjectNode json(Map<String, OperatingPoint> points, CapacitySpec c) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        points.forEach((id, p) -> o.set(id, p.json()));
        return o;
    }

    /** Read back from the resolved matrix: cell id → its operating point (empty when there is none). */
    public static Map<String, OperatingPoint> of(JsonNode resolved) {
        Map<String, OperatingPoint> out = new LinkedHashMap<>();
        JsonNode all = resolved == null ? null : resolved.get(RESOLVED);
        if (all == null || !all.isObject()) return out;
        all.fields().forEachRemaining(en -> {
            JsonNode o = en.getValue();
            Map<String, String> sel = new LinkedHashMap<>();
            o.path("capacity_of")
                    .fields()
                    .forEachRemaining(e -> sel.put(e.getKey(), e.getValue().asText()));
            out.put(
                    en.getKey(),
                    new OperatingPoint(
                            o.path("key").asText(), sel, o.path("fraction").asDouble(), "matrix"));
        });
        return out;
    }
}
