package dev.kvlab.harness.api;

/**
 * A cell's further figures (its {@code cell.json} extras beyond the summary), in the order they were put: every one a
 * registered {@link Column}, put through it with a value of its type, so that no figure goes in by a raw name. What a
 * clock or a target reports of its cell ({@code TargetCell.extras}), assembled into {@link CellResult#extras()}.
 */
public final class Figures {

    private final SummaryRow.Builder values = SummaryRow.builder();

    /** Puts {@code v} under {@code c} (replacing an earlier value, keeping its place). */
    public <T> Figures put(Column<T> c, T v) {
        values.put(c, v);
        return this;
    }

    /** Adds every figure of {@code other}, in its order. */
    public Figures putAll(Figures other) {
        values.putAll(other.asRow());
        return this;
    }

    /** The value under {@code c}, or null when absent. */
    public Object get(Column<?> c) {
        return values.get(c.name());
    }

    /** Whether {@code c} has a value. */
    public boolean has(Column<?> c) {
        return values.has(c.name());
    }

    /**
     * The figures of a result already assembled ({@link CellResult#extras()}, e.g. a live cell's before its sim twin's
     * join it); a name that is not a registered column is an error.
     */
    public static Figures of(SummaryRow extras) {
        Figures f = new Figures();
        extras.forEach((k, v) -> {
            Column<?> c =
                    Columns.named(k).orElseThrow(() -> new IllegalArgumentException("not a registered column: " + k));
            f.values.put(k, c.cast(v));
        });
        return f;
    }

    /** The figures so far, by name, in order (a snapshot): what {@code cell.json} writes. */
    public SummaryRow asRow() {
        return values.build();
    }

    @Override
    public String toString() {
        return asRow().toString();
    }
}
