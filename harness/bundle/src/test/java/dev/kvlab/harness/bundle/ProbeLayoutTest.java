package dev.kvlab.harness.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A capacity probe's one tagged interval log, its record line, and a probe's config given by reference in the manifest. */
class ProbeLayoutTest {

    @TempDir
    Path tmp;

    private static IntervalHistogram interval(Metric m, int second, long... micros) {
        Histogram h = new Histogram(3);
        for (long v : micros) h.recordValue(v);
        ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoByteBuffer(b);
        return new IntervalHistogram(
                m,
                second * 1_000_000_000L,
                (second + 1) * 1_000_000_000L,
                h.getTotalCount(),
                Arrays.copyOf(b.array(), n),
                h.getMaxValueAsDouble());
    }

    @Test
    void oneLogHoldsEveryMetricTaggedAndHdrHistogramsOwnReaderSplitsThemByTag() throws Exception {
        Map<Metric, List<IntervalHistogram>> iv = new EnumMap<>(Metric.class);
        iv.put(Metric.TTFT, List.of(interval(Metric.TTFT, 0, 1000, 2000), interval(Metric.TTFT, 1, 50_000)));
        iv.put(Metric.TPOT, List.of(interval(Metric.TPOT, 0, 7000, 7100, 7200)));
        iv.put(Metric.FETCH, List.of(interval(Metric.FETCH, 0))); // no values: left out
        Map<Metric, List<IntervalHistogram>> whole = CellFiles.whole(iv);
        assertThat(whole.get(Metric.TTFT)).hasSize(1);
        assertThat(whole.get(Metric.TTFT).get(0).count()).isEqualTo(3);
        assertThat(whole.get(Metric.TTFT).get(0).endNanos()).isEqualTo(2_000_000_000L);
        assertThat(whole).doesNotContainKey(Metric.FETCH);

        byte[] log = HlogFile.writeTagged(
                whole, "c01@1", 0, "virtual (sim)", CellFiles.CELL_COMMENT + "{\"summary\":{\"completed\":3}}");
        Path dir = Files.createDirectories(tmp.resolve("cells/c01@1/r0"));
        Files.write(dir.resolve(CellFiles.RUN_HLOG), log);

        // HdrHistogram's own reader, as ../shared/checks/HlogCheck.java reads it: every interval, each with its tag
        HistogramLogReader r = new HistogramLogReader(new ByteArrayInputStream(log));
        List<String> tags = new ArrayList<>();
        long ttft = 0;
        EncodableHistogram e;
        while ((e = r.nextIntervalHistogram()) != null) {
            tags.add(e.getTag());
            if ("ttft".equals(e.getTag())) ttft += ((Histogram) e).getTotalCount();
        }
        assertThat(tags).containsExactly("ttft", "tpot");
        assertThat(ttft).isEqualTo(3);
        assertThat(RunFiles.timed(dir, "ttft").get(0).histogram().getValueAtPercentile(99))
                .isBetween(49_900L, 50_100L);
        assertThat(RunFiles.intervals(dir, Metric.TPOT).get(0).count()).isEqualTo(3);
        assertThat(RunFiles.intervals(dir, Metric.ITL)).isEmpty();
        assertThat(RunFiles.recorded(dir)).isTrue();
        assertThat(RunFiles.cellJson(dir).path("summary").path("completed").asInt())
                .isEqualTo(3);
        assertThat(RunFiles.requests(dir)).isNull();
    }

    @Test
    void aProbesConfigIsItsSearchsFirstProbesWithTheKeysThatDiffer() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode first = f.objectNode();
        first.put("seed", 1);
        first.putObject("workload").putObject("arrival").put("rate", 1.0);
        ObjectNode later = first.deepCopy();
        ((ObjectNode) later.get("workload").get("arrival")).put("rate", 23.5);
        ((ObjectNode) later.get("workload")).put("passes", 16);
        ObjectNode set = Manifest.diff(first, later);
        assertThat(set.toString()).isEqualTo("{\"workload.arrival.rate\":23.5,\"workload.passes\":16}");
        ObjectNode lacking = f.objectNode();
        lacking.put("seed", 1);
        assertThat(Manifest.diff(first, lacking))
                .as("a key removed cannot be said by setting keys")
                .isNull();

        ObjectNode m = f.objectNode();
        ObjectNode c1 = m.putArray("cells").addObject();
        c1.put("cell", "c01@1");
        ObjectNode r1 = c1.putArray("replicates").addObject();
        r1.put("replicate", 0);
        r1.set("config", first);
        ObjectNode c2 = ((com.fasterxml.jackson.databind.node.ArrayNode) m.get("cells")).addObject();
        c2.put("cell", "c01@23.5x16");
        ObjectNode r2 = c2.putArray("replicates").addObject();
        r2.put("replicate", 0);
        r2.put("config_from", "c01@1/r0");
        r2.set("config_set", set);
        Map<String, ObjectNode> configs = Manifest.configs(m);
        assertThat((JsonNode) configs.get("c01@23.5x16/r0")).isEqualTo(later);
        r2.put("config_from", "c09@1/r0");
        assertThat(Manifest.configs(m)).doesNotContainKey("c01@23.5x16/r0");
    }
}
