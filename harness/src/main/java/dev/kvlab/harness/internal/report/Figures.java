package dev.kvlab.harness.internal.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decides which figures a bundle gets and builds them. Figures that do not apply (no cold/hot pair, no fault factor
 * and no live cells, no model to draw a roofline for) leave a note saying why instead.
 */
final class Figures {

    private final BundleData b;
    private final Map<String, String> notes;

    Figures(BundleData b, Map<String, String> notes) {
        this.b = b;
        this.notes = notes;
    }

    List<Plot> all() {
        List<Plot> out = new ArrayList<>();
        if (b.cells().isEmpty()) return out;
        out.add(LatencyBars.of(b, "ttft", "TTFT", "intended arrival to first output token"));
        out.add(LatencyBars.of(b, "itl", "ITL", "every gap between consecutive output tokens, pooled over requests"));
        out.add(GoodputHits.goodput(b));
        out.add(GoodputHits.hits(b));
        return out;
    }
}
