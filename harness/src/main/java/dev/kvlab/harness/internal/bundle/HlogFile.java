package dev.kvlab.harness.internal.bundle;

import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.BadInputException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;

/**
 * One metric's interval histograms as a standard HdrHistogram interval log ({@link HistogramLogWriter}): format
 * version, comments, legend, one line per interval (start and length in seconds of the run's own clock, the
 * interval's max in ms, the compressed histogram of µs values). Same intervals in, same bytes out.
 */
public final class HlogFile {

    private HlogFile() {}

    /**
     * The intervals of an interval log written by {@link #write} (or any without a {@code StartTime} header), in file
     * order, read with HdrHistogram's {@link HistogramLogReader}: start and end in ns of the run's clock, histogram of µs.
     *
     * @throws BadInputException when the file is not such a log
     */
    public static List<IntervalHistogram> read(Metric metric, Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (new String(bytes, 0, Math.min(bytes.length, 4096), StandardCharsets.UTF_8).contains("#[StartTime:"))
            throw new BadInputException(file + ": has a StartTime header; kvlab's interval logs are relative to the measured phase");
        List<IntervalHistogram> out = new ArrayList<>();
        HistogramLogReader r = new HistogramLogReader(new ByteArrayInputStream(bytes));
        try {
            EncodableHistogram e;
            while ((e = r.nextIntervalHistogram()) != null) {
                if (!(e instanceof Histogram h)) throw new BadInputException(file + ": holds a DoubleHistogram; kvlab writes integer µs histograms");
                ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
                int n = h.encodeIntoByteBuffer(buf);
                out.add(new IntervalHistogram(metric, h.getStartTimeStamp() * 1_000_000L, h.getEndTimeStamp() * 1_000_000L, h.getTotalCount(),
                        Arrays.copyOf(buf.array(), n)));
            }
        } catch (RuntimeException ex) {
            if (ex instanceof BadInputException) throw ex;
            throw new BadInputException(file + ": not a readable HdrHistogram interval log: " + ex.getMessage());
        } finally {
            r.close();
        }
        return out;
    }

    public static byte[] write(Metric metric, List<IntervalHistogram> intervals, String cell, int replicate, String clock) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(bytes, false, StandardCharsets.UTF_8)) {
            HistogramLogWriter w = new HistogramLogWriter(ps);
            w.outputLogFormatVersion();
            w.outputComment("kvlab " + metric.id() + " of cell " + cell + " replicate " + replicate + ": values in microseconds,"
                    + " 3 significant digits; interval timestamps in seconds of the " + clock + " clock since the measured phase began;"
                    + " Interval_Max in milliseconds");
            w.outputLegend();
            for (IntervalHistogram ih : intervals) {
                Histogram h = ih.histogram();
                w.outputIntervalHistogram(ih.startNanos() / 1e9, ih.endNanos() / 1e9, h, 1000.0);
            }
            ps.flush();
        }
        return bytes.toByteArray();
    }
}
