package dev.kvlab.harness.api;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * One row of summary figures: column name → value ({@code Long}, {@code Double}, {@code String} or {@code Boolean}),
 * in the order the columns were first put. Immutable; a name appears once. The names are {@link Column} names where the
 * figure is a registered column ({@link #number(Column)}, {@link #text(Column)} read those), plus the matrix runner's
 * {@link #CELL} and {@link #REPLICATE} and a matrix's factor names, which depend on the matrix. As JSON, one object in
 * the row's order ({@link SummaryRowJson}).
 */
@JsonSerialize(using = SummaryRowJson.Writer.class)
@JsonDeserialize(using = SummaryRowJson.Reader.class)
public final class SummaryRow {

    /** The cell id column a matrix run puts ahead of the summary's. */
    public static final String CELL = "cell";
    /** The replicate index column a matrix run puts after {@link #CELL}. */
    public static final String REPLICATE = "replicate";

    private static final SummaryRow EMPTY = new Builder().build();

    private final List<String> names;
    private final Object[] values;
    private final Map<String, Integer> index;

    private SummaryRow(List<String> names, Object[] values, Map<String, Integer> index) {
        this.names = names;
        this.values = values;
        this.index = index;
    }

    /** The row without columns. */
    public static SummaryRow empty() {
        return EMPTY;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this row's columns, to add more. */
    public Builder toBuilder() {
        return new Builder().putAll(this);
    }

    /** The column names, in order. */
    public List<String> names() {
        return names;
    }

    public int size() {
        return names.size();
    }

    public boolean has(String name) {
        return index.containsKey(name);
    }

    public boolean has(Column<?> c) {
        return has(c.name());
    }

    /** The value under {@code name}; null when the row has no such column. */
    public Object get(String name) {
        Integer i = index.get(name);
        return i == null ? null : values[i];
    }

    /** The value of {@code c}; null when the row has no such column (a row read back has NaN where a figure is missing). */
    public Object get(Column<?> c) {
        return get(c.name());
    }

    /** The value of {@code c} as a double; NaN when absent or not a number. */
    public double number(Column<?> c) {
        return get(c.name()) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    /** The value of {@code c} as text; null when absent, a number's text as {@link Csv#text} prints it. */
    public String text(Column<?> c) {
        Object v = get(c.name());
        return v == null ? null : v instanceof String s ? s : Csv.text(v);
    }

    /** Every column and its value, in order. */
    public void forEach(BiConsumer<String, Object> action) {
        for (int i = 0; i < values.length; i++) action.accept(names.get(i), values[i]);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SummaryRow r && names.equals(r.names) && Arrays.equals(values, r.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(names, Arrays.hashCode(values));
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        forEach((k, v) ->
                sb.append(sb.length() > 1 ? ", " : "").append(k).append('=').append(v));
        return sb.append('}').toString();
    }

    /** Puts columns in order; putting a name again replaces its value and keeps its place. */
    public static final class Builder {
        private final List<String> names = new ArrayList<>();
        private final List<Object> values = new ArrayList<>();
        private final Map<String, Integer> index = new HashMap<>();

        private Builder() {}

        public Builder put(String name, Object v) {
            Integer i = index.get(name);
            if (i != null) values.set(i, v);
            else {
                index.put(name, names.size());
                names.add(name);
                values.add(v);
            }
            return this;
        }

        /** Puts {@code v} under the registered column {@code c}. */
        public <T> Builder put(Column<T> c, T v) {
            return put(c.name(), c.cast(v));
        }

        /** Puts {@code v} unless {@code name} has a value already. */
        public Builder putIfAbsent(String name, Object v) {
            return has(name) ? this : put(name, v);
        }

        /** Puts every column of {@code row}, in its order. */
        public Builder putAll(SummaryRow row) {
            row.forEach(this::put);
            return this;
        }

        public boolean has(String name) {
            return index.containsKey(name);
        }

        /** The value put under {@code name}; null when none was. */
        public Object get(String name) {
            Integer i = index.get(name);
            return i == null ? null : values.get(i);
        }

        /** The names put so far, in order (read-only). */
        public List<String> names() {
            return java.util.Collections.unmodifiableList(names);
        }

        public SummaryRow build() {
            return new SummaryRow(List.copyOf(names), values.toArray(), Map.copyOf(index));
        }
    }
}
