package dev.kvlab.harness.report;

import java.util.List;

/** A small HTML writer: escaped text, tags, tables. Everything written goes through {@link #esc}. */
final class Html {

    private final StringBuilder sb = new StringBuilder(1 << 16);

    static String esc(String s) {
        if (s == null) return "";
        StringBuilder o = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '&' -> o.append("&amp;");
                case '<' -> o.append("&lt;");
                case '>' -> o.append("&gt;");
                case '"' -> o.append("&quot;");
                case '\'' -> o.append("&#39;");
                default -> o.append(ch);
            }
        }
        return o.toString();
    }

    /** Appends trusted markup (literal tags written by this package). */
    Html raw(String markup) {
        sb.append(markup);
        return this;
    }

    Html text(String s) {
        sb.append(esc(s));
        return this;
    }

    /** {@code <tag attrs>text</tag>} with {@code text} escaped; {@code attrs} is trusted. */
    Html el(String tag, String attrs, String text) {
        sb.append('<').append(tag);
        if (attrs != null && !attrs.isEmpty()) sb.append(' ').append(attrs);
        sb.append('>').append(esc(text)).append("</").append(tag).append(">\n");
        return this;
    }

    Html el(String tag, String text) {
        return el(tag, null, text);
    }

    Html open(String tag, String attrs) {
        sb.append('<').append(tag);
        if (attrs != null && !attrs.isEmpty()) sb.append(' ').append(attrs);
        sb.append(">\n");
        return this;
    }

    Html close(String tag) {
        sb.append("</").append(tag).append(">\n");
        return this;
    }

    /** A table; every cell is a {@link Cell} (text escaped, class trusted). */
    Html table(String cls, List<String> head, List<List<Cell>> rows) {
        open("table", cls == null ? null : "class=\"" + cls + "\"");
        sb.append("<thead><tr>");
        for (String h : head) sb.append("<th>").append(esc(h)).append("</th>");
        sb.append("</tr></thead>\n<tbody>\n");
        for (List<Cell> r : rows) {
            sb.append("<tr>");
            for (Cell c : r) {
                sb.append(c.header ? "<th" : "<td");
                if (c.cls != null) sb.append(" class=\"").append(c.cls).append('"');
                if (c.title != null) sb.append(" title=\"").append(esc(c.title)).append('"');
                sb.append('>').append(c.markup ? c.text : esc(c.text)).append(c.header ? "</th>" : "</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</tbody>\n");
        return close("table");
    }

    @Override
    public String toString() {
        return sb.toString();
    }

    /** One table cell. */
    record Cell(String text, String cls, String title, boolean header, boolean markup) {

        static Cell of(String text) {
            return new Cell(text, null, null, false, false);
        }

        static Cell num(String text) {
            return new Cell(text, "num", null, false, false);
        }

        static Cell num(String text, String cls, String title) {
            return new Cell(text, cls == null ? "num" : "num " + cls, title, false, false);
        }

        static Cell head(String text) {
            return new Cell(text, null, null, true, false);
        }

        static Cell code(String text) {
            return new Cell("<code>" + esc(text) + "</code>", null, null, false, true);
        }

        static Cell markup(String markup, String cls) {
            return new Cell(markup, cls, null, false, true);
        }
    }
}
