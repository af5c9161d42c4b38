package dev.kvlab.harness.report;

import dev.kvlab.harness.api.Column;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.config.Mode;
import java.util.List;
import java.util.Locale;

/**
 * docs/columns.md, generated from the column registry ({@link Columns} and the columns each target on the class path declares):
 * every result column with its unit, what it is and who produces it.
 */
public final class ColumnsDoc {

    private ColumnsDoc() {}

    public static String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("# Result columns\n\n")
                .append(
                        "Generated from the column registry: `dev.kvlab.harness.api.Columns` (kvlab's own columns) and the columns each ")
                .append(
                        "target declares (`TargetProvider.columns()`), each named once; `ColumnsDocWithEveryTargetTest` (harness/cli) fails when this file and the registry ")
                .append("with every target of the CLI disagree.\n")
                .append(
                        "Sources: the clocks (sim, live) and target kinds that produce a column; a row of another cell has NaN there.\n")
                .append("Merge: how `kvlab merge` combines a cell's request-split shards.\n");
        table(sb, "summary.csv / summary.json columns, in order (after `cell, replicate`)", Columns.SUMMARY);
        table(sb, "Row extras (columns of the rows of the cells that have them)", Columns.rowExtras());
        table(sb, "cell.json figures read back by kvlab (not row columns)", Columns.details());
        table(sb, "Further cell.json figures of the clocks and targets (not row columns)", Columns.figures());
        table(sb, "capacity.json summary figures (per searched cell)", Columns.CAPACITY);
        return sb.toString();
    }

    private static void table(StringBuilder sb, String title, List<Column<?>> columns) {
        sb.append("\n## ")
                .append(title)
                .append("\n\n| column | unit | what | sources | merge |\n|---|---|---|---|---|\n");
        for (Column<?> c : columns)
            sb.append("| `")
                    .append(c.name())
                    .append("` | ")
                    .append(c.unit().label())
                    .append(" | ")
                    .append(c.description().replace("|", "\\|"))
                    .append(" | ")
                    .append(sources(c.source()))
                    .append(" | ")
                    .append(c.merge().name().toLowerCase(Locale.ROOT).replace('_', ' '))
                    .append(" |\n");
    }

    private static String sources(Column.Source s) {
        String clocks = s.clocks().size() == Mode.values().length
                ? "sim, live"
                : String.join(
                        ", ", s.clocks().stream().map(Mode::label).sorted().toList());
        return clocks + "; "
                + (s.targets().isEmpty()
                        ? "every target"
                        : String.join(", ", s.targets().stream().sorted().toList()));
    }
}
