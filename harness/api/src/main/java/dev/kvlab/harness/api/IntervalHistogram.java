package dev.kvlab.harness.api;

import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * One interval's histogram of one metric (µs), kept encoded (HdrHistogram's V2 byte form). Start and end are in the run's own clock
 * (virtual time for sim), in nanoseconds since the run's measured phase started; {@link #histogram()} decodes it
 * with its start/end timestamps set in milliseconds, ready for {@code HistogramLogWriter.outputIntervalHistogram}.
 *
 * @param metric      which metric
 * @param startNanos  interval start
 * @param endNanos    interval end
 * @param count       values recorded in the interval
 * @param encoded     {@code Histogram.encodeIntoByteBuffer} form
 * @param maxValue    the histogram's {@code getMaxValueAsDouble()} (µs): an interval log line's Interval_Max, kept so that
 *                    writing the log needs no decoding (a decoded histogram allocates its whole counts array)
 */
public record IntervalHistogram(
        Metric metric, long startNanos, long endNanos, long count, byte[] encoded, double maxValue) {

    public Histogram histogram() {
        Histogram h = Histogram.decodeFromByteBuffer(ByteBuffer.wrap(encoded), 0);
        h.setStartTimeStamp(startNanos / 1_000_000L);
        h.setEndTimeStamp(endNanos / 1_000_000L);
        return h;
    }
}
