package dev.kvlab.harness.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A summary row keeps its columns in the order first put, reads them by name or column, and does not change. */
class SummaryRowTest {

    @Test
    void keepsOrderReplacesInPlaceAndReadsByColumn() {
        SummaryRow.Builder b = SummaryRow.builder()
                .put(SummaryRow.CELL, "c0")
                .put(SummaryRow.REPLICATE, 0L)
                .put(Columns.MODE, "sim")
                .put(Columns.GOODPUT_RPS, 1.5);
        b.put(SummaryRow.CELL, "c1").putIfAbsent(Columns.MODE.name(), "live").putIfAbsent("tiers", "none");
        SummaryRow r = b.build();
        b.put("later", 1L); // a row built does not see what its builder gets after
        assertThat(r.names()).containsExactly("cell", "replicate", "mode", "goodput_rps", "tiers");
        assertThat(r.get(SummaryRow.CELL)).isEqualTo("c1");
        assertThat(r.text(Columns.MODE)).isEqualTo("sim");
        assertThat(r.number(Columns.GOODPUT_RPS)).isEqualTo(1.5);
        assertThat(r.number(Columns.MODE)).isNaN();
        assertThat(r.get("later")).isNull();
        assertThat(r.has("later")).isFalse();
        assertThat(r.toString()).isEqualTo("{cell=c1, replicate=0, mode=sim, goodput_rps=1.5, tiers=none}");
        assertThat(r.toBuilder().build()).isEqualTo(r).hasSameHashCodeAs(r);
    }
}
