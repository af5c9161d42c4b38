package dev.kvlab.harness.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A report record prints as the same name-value pairs in a map would. */
class ReportJsonTest {

    record Part(double ratio, Double missing) {}

    record Report(
            String name,
            int count,
            long bytes,
            double seconds,
            double nan,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer absent,
            Long empty,
            @JsonUnwrapped Part part,
            @JsonUnwrapped Part none) {}

    @Test
    void aRecordPrintsAsItsNameValuePairs() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "x");
        m.put("count", 3);
        m.put("bytes", 3L << 40);
        m.put("seconds", 2.0);
        m.put("nan", Double.NaN);
        m.put("empty", null);
        m.put("ratio", Double.POSITIVE_INFINITY);
        m.put("missing", null);
        assertThat(ReportJson.write(new Report(
                        "x", 3, 3L << 40, 2.0, Double.NaN, null, null, new Part(Double.POSITIVE_INFINITY, null), null)))
                .isEqualTo(ReportJson.write(m))
                .contains("\"nan\" : null", "\"seconds\" : 2.0", "\"count\" : 3,");
    }
}
