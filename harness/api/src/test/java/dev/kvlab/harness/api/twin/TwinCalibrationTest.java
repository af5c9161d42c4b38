package dev.kvlab.harness.api.twin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvlab.harness.api.SummaryRow;
import dev.kvlab.harness.api.catalog.Dtype;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A twin's calibration figures go into the bundle in the order they were measured, the same from JVM to JVM. */
class TwinCalibrationTest {

    static TwinCalibration of(SummaryRow figures) {
        return new TwinCalibration("e", null, null, Dtype.FP16, 512, 4, 2, Double.NaN, Double.NaN, 0, figures, null);
    }

    @Test
    void figuresKeepTheProducersOrderAndComeBackFromJson() throws Exception {
        SummaryRow.Builder f = SummaryRow.builder();
        List<String> order = new ArrayList<>();
        for (int i = 40; i > 0; i--) { // an order no hash map keeps
            f.put("check: figure " + i, i * 1.5);
            order.add("check: figure " + i);
        }
        f.put("timed_by", "client").put("slots", 4L).put("sum_compute_memory", true);
        order.addAll(List.of("timed_by", "slots", "sum_compute_memory"));
        TwinCalibration t = of(f.build());
        assertThat(t.figures().names()).containsExactlyElementsOf(order);
        assertThat(t.withCacheOff(true).figures().names()).containsExactlyElementsOf(order);
        ObjectMapper m = new ObjectMapper();
        String json = m.writeValueAsString(t.figures());
        assertThat(json).startsWith("{\"check: figure 40\":60.0,\"check: figure 39\":58.5,");
        assertThat(json).endsWith("\"timed_by\":\"client\",\"slots\":4,\"sum_compute_memory\":true}");
        assertThat(m.readValue(json, SummaryRow.class)).isEqualTo(t.figures());
    }

    @Test
    void aFigureWithoutAValueIsRefusedByName() {
        assertThatThrownBy(() -> of(SummaryRow.builder().put("flops", null).build()))
                .hasMessageContaining("flops");
    }

    @Test
    void aNestedValueIsNotARow() {
        assertThatThrownBy(() -> new ObjectMapper().readValue("{\"a\":[1]}", SummaryRow.class))
                .hasMessageContaining("'a'");
    }
}
