package dev.kvlab.harness.api;

import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * One interval's histogram of one metric (µs), kept compressed (HdrHistogram's V2 compressed form, as an interval log
 * line carries it, Deflater level 9). Start and end are in the run's own clock (virtual time for sim), in nanoseconds
 * since the run's measured phase started; {@link #histogram()} decodes it with its start/end timestamps set in
 * milliseconds. Kept compressed so that writing the interval log needs no decoding (a decoded histogram allocates its
 * whole counts array: that was most of a short sim run's time).
 *
 * @param metric      which metric
 * @param startNanos  interval start
 * @param endNanos    interval end
 * @param count       values recorded in the interval
 * @param compressed  {@code Histogram.encodeIntoCompressedByteBuffer(buf, 9)} form
 * @param maxValue    the histogram's {@code getMaxValueAsDouble()} (µs), the log line's Interval_Max before scaling
 */
public record IntervalHistogram(Metric metric, long startNanos, long endNanos, long count, byte[] compressed, double maxValue) {

    public Histogram histogram() {
        Histogram h;
        try {
            h = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(compressed), 0);
        } catch (DataFormatException e) {
            throw new IllegalStateException("interval histogram of " + metric + " does not decode", e);
        }
        h.setStartTimeStamp(startNanos / 1_000_000L);
        h.setEndTimeStamp(endNanos / 1_000_000L);
        return h;
    }
}
