package dev.kvlab.harness.bundle;

import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.input.BadInputException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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

    /** HdrHistogram's cookie of the V2 compressed form (what {@code encodeIntoCompressedByteBuffer} writes first). */
    private static final int COMPRESSED_COOKIE;

    static {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1 << 12);
        new org.HdrHistogram.Histogram(3).encodeIntoCompressedByteBuffer(b, java.util.zip.Deflater.BEST_COMPRESSION);
        COMPRESSED_COOKIE = b.getInt(0);
    }

    /**
     * An interval as the log writer asks for it, compressed straight from its encoded bytes exactly as
     * {@code AbstractHistogram.encodeIntoCompressedByteBuffer} does (cookie, length, the V2 encoding deflated at the
     * level asked), without decoding it into a histogram first.
     */
    private static final class Compressed extends EncodableHistogram {
        private final IntervalHistogram ih;
        private final String tag;
        private long start, end;

        Compressed(IntervalHistogram ih, String tag) {
            this.ih = ih;
            this.tag = tag;
            this.start = ih.startNanos() / 1_000_000L;
            this.end = ih.endNanos() / 1_000_000L;
        }

        @Override
        public int getNeededByteBufferCapacity() {
            return ih.encoded().length + ih.encoded().length / 64 + 64;
        }

        @Override
        public int encodeIntoCompressedByteBuffer(java.nio.ByteBuffer target, int level) {
            int at = target.position();
            target.putInt(COMPRESSED_COOKIE);
            target.putInt(0);
            java.util.zip.Deflater d = new java.util.zip.Deflater(level);
            try {
                d.setInput(ih.encoded(), 0, ih.encoded().length);
                d.finish();
                byte[] arr = target.array();
                int n = d.deflate(arr, at + 8, arr.length - at - 8);
                if (!d.finished())
                    throw new IllegalStateException("interval log: buffer too small for a compressed interval");
                target.putInt(at + 4, n);
                target.position(at + 8 + n);
                return n + 8;
            } finally {
                d.end();
            }
        }

        @Override
        public long getStartTimeStamp() {
            return start;
        }

        @Override
        public void setStartTimeStamp(long t) {
            start = t;
        }

        @Override
        public long getEndTimeStamp() {
            return end;
        }

        @Override
        public void setEndTimeStamp(long t) {
            end = t;
        }

        @Override
        public String getTag() {
            return tag;
        }

        @Override
        public void setTag(String tag) {
            throw new UnsupportedOperationException("fixed tag");
        }

        @Override
        public double getMaxValueAsDouble() {
            return ih.maxValue();
        }
    }

    /** One interval of a log as read: {@code [startMs, endMs)} of the run's clock, its histogram of µs values. */
    public record TimedHistogram(long startMs, long endMs, Histogram histogram) {}

    /** True when the log carries a {@code #[StartTime: ...]} header (HdrHistogram's reader then adds its epoch to every stamp). */
    public static boolean hasStartTime(byte[] log) {
        return new String(log, 0, Math.min(log.length, 4096), StandardCharsets.UTF_8).contains("#[StartTime:");
    }

    /**
     * The intervals of the interval log {@code bytes} (read from {@code file}, named in errors), in file order, read
     * with HdrHistogram's {@link HistogramLogReader}; a {@code StartTime} header's epoch is taken off again, so times
     * are relative to the measured phase.
     *
     * @throws BadInputException when the bytes are not such a log of integer histograms
     */
    public static List<TimedHistogram> parse(Path file, byte[] bytes) {
        boolean hasStart = hasStartTime(bytes);
        List<TimedHistogram> out = new ArrayList<>();
        HistogramLogReader r = new HistogramLogReader(new ByteArrayInputStream(bytes));
        try {
            EncodableHistogram e;
            while ((e = r.nextIntervalHistogram()) != null) {
                if (!(e instanceof Histogram h))
                    throw new BadInputException(file + ": holds a DoubleHistogram; kvlab writes integer µs histograms");
                long base = hasStart ? Math.round(r.getStartTimeSec() * 1000) : 0;
                out.add(new TimedHistogram(h.getStartTimeStamp() - base, h.getEndTimeStamp() - base, h));
            }
        } catch (RuntimeException ex) {
            if (ex instanceof BadInputException) throw ex;
            throw new BadInputException(file + ": not a readable HdrHistogram interval log: " + ex.getMessage());
        } finally {
            r.close();
        }
        return out;
    }

    /**
     * The intervals of an interval log written by {@link #write} (or any without a {@code StartTime} header), in file
     * order ({@link #parse}): start and end in ns of the run's clock, histogram of µs.
     *
     * @throws BadInputException when the file is not such a log
     */
    public static List<IntervalHistogram> read(Metric metric, Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (hasStartTime(bytes))
            throw new BadInputException(
                    file + ": has a StartTime header; kvlab's interval logs are relative to the measured phase");
        List<IntervalHistogram> out = new ArrayList<>();
        for (TimedHistogram t : parse(file, bytes)) out.add(interval(metric, t));
        return out;
    }

    public static byte[] write(
            Metric metric, List<IntervalHistogram> intervals, String cell, int replicate, String clock) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(bytes, false, StandardCharsets.UTF_8)) {
            HistogramLogWriter w = new HistogramLogWriter(ps);
            w.outputLogFormatVersion();
            w.outputComment("kvlab " + metric.id() + " of cell " + cell + " replicate " + replicate
                    + ": values in microseconds,"
                    + " 3 significant digits; interval timestamps in seconds of the " + clock
                    + " clock since the measured phase began;"
                    + " Interval_Max in milliseconds");
            w.outputLegend();
            for (IntervalHistogram ih : intervals)
                w.outputIntervalHistogram(ih.startNanos() / 1e9, ih.endNanos() / 1e9, new Compressed(ih, null), 1000.0);
            ps.flush();
        }
        return bytes.toByteArray();
    }

    /**
     * A run's metrics in one interval log: each interval tagged with its metric's id ({@code Tag=ttft,...}), the metrics
     * one after another in {@link Metric} order, intervals without values left out. HdrHistogram's
     * {@link HistogramLogReader} reads it; a reader wanting one metric keeps the intervals whose {@code getTag()} is its id.
     */
    public static byte[] writeTagged(
            Map<Metric, List<IntervalHistogram>> intervals,
            String cell,
            int replicate,
            String clock,
            String... comments) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(bytes, false, StandardCharsets.UTF_8)) {
            HistogramLogWriter w = new HistogramLogWriter(ps);
            w.outputLogFormatVersion();
            w.outputComment("kvlab metrics of cell " + cell + " replicate " + replicate + ", one tag per metric ("
                    + String.join(
                            ", ",
                            java.util.Arrays.stream(Metric.values())
                                    .map(Metric::id)
                                    .toList()) + "; intervals without values"
                    + " left out): values in microseconds, 3 significant digits; interval timestamps in seconds of the "
                    + clock
                    + " clock since the measured phase began; Interval_Max in milliseconds");
            for (String c : comments) {
                if (c.indexOf('\n') >= 0 || c.indexOf('\r') >= 0)
                    throw new IllegalArgumentException("an interval log comment holds a line break");
                w.outputComment(c);
            }
            w.outputLegend();
            for (Metric m : Metric.values())
                for (IntervalHistogram ih : intervals.getOrDefault(m, List.of()))
                    if (ih.count() > 0)
                        w.outputIntervalHistogram(
                                ih.startNanos() / 1e9, ih.endNanos() / 1e9, new Compressed(ih, m.id()), 1000.0);
            ps.flush();
        }
        return bytes.toByteArray();
    }

    /** The intervals of {@code bytes} tagged {@code tag} (read from {@code file}), in file order ({@link #parse}). */
    public static List<TimedHistogram> parseTagged(Path file, byte[] bytes, String tag) {
        List<TimedHistogram> out = new ArrayList<>();
        for (TimedHistogram t : parse(file, bytes)) if (tag.equals(t.histogram().getTag())) out.add(t);
        return out;
    }

    /** As {@link #read}, the intervals of a tagged log ({@link #writeTagged}) whose tag is {@code metric}'s id. */
    public static List<IntervalHistogram> readTagged(Metric metric, Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        List<IntervalHistogram> out = new ArrayList<>();
        for (TimedHistogram t : parseTagged(file, bytes, metric.id())) out.add(interval(metric, t));
        return out;
    }

    private static IntervalHistogram interval(Metric metric, TimedHistogram t) {
        Histogram h = t.histogram();
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoByteBuffer(buf);
        return new IntervalHistogram(
                metric,
                t.startMs() * 1_000_000L,
                t.endMs() * 1_000_000L,
                h.getTotalCount(),
                Arrays.copyOf(buf.array(), n),
                h.getMaxValueAsDouble());
    }
}
