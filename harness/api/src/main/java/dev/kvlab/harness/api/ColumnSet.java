package dev.kvlab.harness.api;

import java.util.List;

/**
 * Columns a module declares, by what they are ({@link Columns} lists kvlab's own the same way): row extras (columns of
 * the {@code summary.csv}/{@code summary.json} rows of the cells that have them, NaN in the others), {@code cell.json}
 * figures kvlab reads back, and further {@code cell.json} figures.
 *
 * @param rowExtras row extras
 * @param details   {@code cell.json} figures read back (not row columns)
 * @param figures   further {@code cell.json} figures (not row columns)
 */
public record ColumnSet(List<Column<?>> rowExtras, List<Column<?>> details, List<Column<?>> figures) {

    /** No columns. */
    public static final ColumnSet NONE = new ColumnSet(List.of(), List.of(), List.of());

    public ColumnSet {
        rowExtras = List.copyOf(rowExtras);
        details = List.copyOf(details);
        figures = List.copyOf(figures);
    }
}
