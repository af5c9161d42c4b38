package dev.kvlab.harness.api;

import dev.kvlab.harness.api.config.Mode;
import java.util.Map;
import java.util.Set;

/**
 * One result column: a figure of a cell run, named once ({@link Columns} lists them all). A typed key: the column's
 * value has type {@code T} ({@code Long}, {@code Double} or {@code String}), so {@code summary.get(Columns.GOODPUT_RPS)}
 * is a {@code Double} and a producer cannot put a count where a rate belongs.
 *
 * @param name        the snake_case name, as {@code summary.csv}, {@code summary.json}, {@code cell.json}, InfluxDB and
 *                    {@code kvlab compare} spell it
 * @param type        the value's Java type
 * @param unit        what a value counts
 * @param description what it is, in one line (docs/columns.md)
 * @param source      which clocks and targets produce it (where absent: NaN in a row)
 * @param merge       how a cell's request-split shards combine it ({@code kvlab merge})
 * @param latency     the histogram statistic it is read off, or null when it is not a latency percentile
 */
public record Column<T>(
        String name, Class<T> type, Unit unit, String description, Source source, Merge merge, Latency latency) {

    /** A numeric row extra (a {@code summary.csv} column some cells add) merged by {@code merge}. */
    public static Column<Number> extra(String name, Unit unit, String description, Source source, Merge merge) {
        return new Column<>(name, Number.class, unit, description, source, merge, null);
    }

    /** A row extra of type {@code type} merged by {@code merge}. */
    public static <T> Column<T> extra(
            String name, Class<T> type, Unit unit, String description, Source source, Merge merge) {
        return new Column<>(name, type, unit, description, source, merge, null);
    }

    /** A {@code cell.json} figure: kept by {@code kvlab merge} where every shard agrees (what an unregistered figure got). */
    public static <T> Column<T> figure(String name, Class<T> type, Unit unit, String description, Source source) {
        return new Column<>(name, type, unit, description, source, Merge.SAME, null);
    }

    /** A numeric {@code cell.json} figure other code reads back, merged by {@code merge}. */
    public static Column<Number> detail(String name, Unit unit, String description, Source source, Merge merge) {
        return new Column<>(name, Number.class, unit, description, source, merge, null);
    }

    /** What a value counts; {@link #label()} is the unit as the docs and the Influx meters spell it. */
    public enum Unit {
        NONE(""),
        COUNT("count"),
        TOKENS("tokens"),
        BLOCKS("blocks"),
        BYTES("bytes"),
        MS("ms"),
        US("µs"),
        SECONDS("s"),
        RPS("requests/s"),
        TOKENS_PER_S("tokens/s"),
        BYTES_PER_S("bytes/s"),
        RATIO("ratio"),
        TEXT("text"),
        PRICE_PER_M_TOKENS("price per 1M tokens");

        private final String label;

        Unit(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** How the request-split shards of one cell combine the column (docs/bundle-format.md, "Request-split shards"). */
    public enum Merge {
        /** Kept when every shard agrees; otherwise NaN (text: per shard) and named in {@code merge_not_added}. */
        SAME,
        /** Added. */
        SUM,
        /** The largest shard's (spans, lags). */
        LARGEST,
        /** A per-request mean weighted by each shard's requests. */
        PER_REQUEST,
        /** Recomputed from the added histograms and request counts, whatever the shards say. */
        RECOMPUTED
    }

    /** The statistic of a {@link Metric}'s whole-run histogram a latency column is (ms). */
    public record Latency(Metric metric, Stat stat) {
        /** p50, p99, mean: in this order, their index in {@link CellSummary#percentilesMs()}'s arrays. */
        public enum Stat {
            P50,
            P99,
            MEAN
        }
    }

    /**
     * Which clocks and target kinds produce the column.
     *
     * @param clocks  the clocks
     * @param targets target kinds ({@link Targets#EMULATED}, ...); empty: every target
     */
    public record Source(Set<Mode> clocks, Set<String> targets) {
        /** Every clock and every target: the summary's own columns. */
        public static final Source EVERY = new Source(Set.of(Mode.SIM, Mode.LIVE), Set.of());

        public Source {
            clocks = Set.copyOf(clocks);
            targets = Set.copyOf(targets);
        }

        /** Live runs of the given target kinds. */
        public static Source live(String... targets) {
            return new Source(Set.of(Mode.LIVE), Set.of(targets));
        }

        /** Sim runs of the given target kinds. */
        public static Source sim(String... targets) {
            return new Source(Set.of(Mode.SIM), Set.of(targets));
        }

        /** Both clocks of the given target kinds. */
        public static Source both(String... targets) {
            return new Source(Set.of(Mode.SIM, Mode.LIVE), Set.of(targets));
        }
    }

    public Column {
        if (!name.matches("[a-z][a-z0-9_]*")) throw new IllegalArgumentException("column name not snake_case: " + name);
    }

    /** Whether its values are numbers (a metric a figure or a comparison may name). */
    public boolean numeric() {
        return Number.class.isAssignableFrom(type);
    }

    /** {@code v} as this column's type; {@link ClassCastException} naming the column when it is not. */
    public T cast(Object v) {
        if (v != null && !type.isInstance(v))
            throw new ClassCastException("column " + name + " holds " + type.getSimpleName() + ", not "
                    + v.getClass().getSimpleName());
        return type.cast(v);
    }

    /** Puts {@code v} under this column in a cell's {@code figures} (its extras on their way to {@code cell.json}). */
    public void put(Figures figures, T v) {
        figures.put(this, v);
    }

    /** This column's value in a row read back from a bundle ({@code summary.csv} row, {@code cell.json} summary); null when absent. */
    public Object in(Map<String, ?> row) {
        return row.get(name);
    }

    @Override
    public String toString() {
        return name;
    }
}
