package dev.kvlab.harness.api;

import java.util.ArrayList;
import java.util.List;

/**
 * RFC 4180 CSV as the bundle writes it: comma-separated, {@code \n} line ends, a field quoted when it holds a comma,
 * a quote or a line break; numbers printed with {@code Long.toString} / {@code Double.toString} (NaN as {@code NaN}).
 */
public final class Csv {

    private Csv() {}

    /** The text of one value: numbers as Java prints them, null as the empty field, everything else as its text. */
    public static String text(Object v) {
        if (v == null) return "";
        if (v instanceof Double d) return Double.toString(d);
        if (v instanceof Float f) return Double.toString(f);
        if (v instanceof Number n) return Long.toString(n.longValue());
        return v.toString();
    }

    public static String field(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) return s;
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    public static void appendRow(StringBuilder sb, List<?> values) {
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) sb.append(',');
            sb.append(field(text(values.get(i))));
        }
        sb.append('\n');
    }

    /** Parses CSV text into rows of fields (quotes undone). A final line without its line break still counts. */
    public static List<List<String>> parse(String text) {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder f = new StringBuilder();
        boolean quoted = false, any = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < text.length() && text.charAt(i + 1) == '"') {
                        f.append('"');
                        i++;
                    } else quoted = false;
                } else f.append(c);
                continue;
            }
            switch (c) {
                case '"' -> {
                    quoted = true;
                    any = true;
                }
                case ',' -> {
                    row.add(f.toString());
                    f.setLength(0);
                    any = true;
                }
                case '\r' -> {}
                case '\n' -> {
                    row.add(f.toString());
                    f.setLength(0);
                    rows.add(row);
                    row = new ArrayList<>();
                    any = false;
                }
                default -> {
                    f.append(c);
                    any = true;
                }
            }
        }
        if (quoted) throw new IllegalArgumentException("unterminated quoted field");
        if (any || !row.isEmpty()) {
            row.add(f.toString());
            rows.add(row);
        }
        return rows;
    }
}
