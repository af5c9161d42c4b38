package dev.kvlab.harness.api.twin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.catalog.Dtype;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A twin's calibration figures go into the bundle in the order they were measured, the same from JVM to JVM. */
class TwinCalibrationTest {

    static TwinCalibration of(Map<String, Object> figures) {
        return new TwinCalibration("e", null, null, Dtype.FP16, 512, 4, 2, Double.NaN, Double.NaN, 0, figures, null);
    }

    @Test
    void figuresKeepTheProducersOrder() {
        Map<String, Object> f = new LinkedHashMap<>();
        List<String> order = new ArrayList<>();
        for (int i = 40; i > 0; i--) { // an order no hash map keeps
            f.put("check: figure " + i, i * 1.5);
            order.add("check: figure " + i);
        }
        TwinCalibration t = of(f);
        assertThat(t.figures().keySet()).containsExactlyElementsOf(order);
        assertThat(t.withCacheOff(true).figures().keySet()).containsExactlyElementsOf(order);
        f.clear();
        assertThat(t.figures()).hasSize(40); // a copy
        assertThatThrownBy(() -> t.figures().put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aFigureWithoutAValueIsRefusedByName() {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("flops", null);
        assertThatThrownBy(() -> of(f)).hasMessageContaining("flops");
    }
}
