package dev.kvlab.harness.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvlab.harness.api.input.BadInputException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HlogsTest {

    @TempDir
    Path tmp;

    static Histogram values(long... us) {
        Histogram h = new Histogram(3);
        for (long v : us) h.recordValue(v);
        return h;
    }

    @Test
    void intervalTimesAreTheRunsOwnClockWhicheverWayTheLogWasWritten() throws Exception {
        // the bundle writer's way: no StartTime header, stamps in seconds of the run's clock
        ByteArrayOutputStream a = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(a, true, StandardCharsets.UTF_8)) {
            HistogramLogWriter w = new HistogramLogWriter(ps);
            w.outputLogFormatVersion();
            w.outputLegend();
            w.outputIntervalHistogram(0.0, 10.0, values(1000, 2000), 1000.0);
            w.outputIntervalHistogram(10.0, 20.0, values(3000), 1000.0);
            w.outputIntervalHistogram(20.0, 30.0, values(50_000), 1000.0);
        }
        // with a wall-clock StartTime header and relative stamps
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(b, true, StandardCharsets.UTF_8)) {
            HistogramLogWriter w = new HistogramLogWriter(ps);
            w.outputLogFormatVersion();
            w.outputStartTime(1_767_225_600_000L);
            w.outputLegend();
            Histogram h = values(1000, 2000);
            h.setStartTimeStamp(0);
            h.setEndTimeStamp(10_000);
            w.outputIntervalHistogram(h);
            h = values(3000);
            h.setStartTimeStamp(10_000);
            h.setEndTimeStamp(20_000);
            w.outputIntervalHistogram(h);
            h = values(50_000);
            h.setStartTimeStamp(20_000);
            h.setEndTimeStamp(30_000);
            w.outputIntervalHistogram(h);
        }
        for (byte[] log : List.of(a.toByteArray(), b.toByteArray())) {
            Path f = tmp.resolve("ttft.hlog");
            Files.write(f, log);
            List<Hlogs.Interval> iv = Hlogs.read(tmp, "ttft");
            assertThat(iv).extracting(Hlogs.Interval::start).containsExactly(0.0, 10.0, 20.0);
            assertThat(iv).extracting(Hlogs.Interval::end).containsExactly(10.0, 20.0, 30.0);
            assertThat(iv).extracting(i -> i.histogram().getTotalCount()).containsExactly(2L, 1L, 1L);
            assertThat(iv.get(2).histogram().getValueAtPercentile(99)).isBetween(49_900L, 50_100L);
        }
    }

    @Test
    void aMissingLogIsEmptyAndAGarbledOneIsBadInputNamingTheFile() throws Exception {
        assertThat(Hlogs.read(tmp, "nope")).isEmpty();
        Path bad = tmp.resolve("itl.hlog");
        Files.writeString(bad, "#[Histogram log format version 1.3]\n0.000,10.000,1.0,not-base64!!\n");
        assertThatThrownBy(() -> Hlogs.read(tmp, "itl"))
                .isInstanceOf(BadInputException.class)
                .hasMessageContaining("itl.hlog");
    }
}
