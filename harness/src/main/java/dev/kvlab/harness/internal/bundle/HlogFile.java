package dev.kvlab.harness.internal.bundle;

import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * One metric's interval histograms as a standard HdrHistogram interval log ({@link HistogramLogWriter}): format
 * version, comments, legend, one line per interval (start and length in seconds of the run's own clock, the
 * interval's max in ms, the compressed histogram of µs values). Same intervals in, same bytes out.
 */
public final class HlogFile {

    private HlogFile() {}

    /** An interval as the log writer asks for it: its compressed bytes as they are (no decoding, no re-compressing). */
    private static final class Compressed extends EncodableHistogram {
        private final IntervalHistogram ih;
        private long start, end;

        Compressed(IntervalHistogram ih) {
            this.ih = ih;
            this.start = ih.startNanos() / 1_000_000L;
            this.end = ih.endNanos() / 1_000_000L;
        }

        @Override public int getNeededByteBufferCapacity() { return ih.compressed().length; }
        @Override public int encodeIntoCompressedByteBuffer(java.nio.ByteBuffer target, int level) {
            target.put(ih.compressed());
            return ih.compressed().length;
        }
        @Override public long getStartTimeStamp() { return start; }
        @Override public void setStartTimeStamp(long t) { start = t; }
        @Override public long getEndTimeStamp() { return end; }
        @Override public void setEndTimeStamp(long t) { end = t; }
        @Override public String getTag() { return null; }
        @Override public void setTag(String tag) { throw new UnsupportedOperationException("untagged"); }
        @Override public double getMaxValueAsDouble() { return ih.maxValue(); }
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
            for (IntervalHistogram ih : intervals) w.outputIntervalHistogram(ih.startNanos() / 1e9, ih.endNanos() / 1e9, new Compressed(ih), 1000.0);
            ps.flush();
        }
        return bytes.toByteArray();
    }
}
