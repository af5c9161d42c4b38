package dev.kvlab.harness.core.internal.measure;

import dev.kvlab.harness.api.HandoverRecord;
import dev.kvlab.harness.api.IntervalHistogram;
import dev.kvlab.harness.api.Metric;
import dev.kvlab.harness.api.RequestLog;
import dev.kvlab.harness.api.RequestRecord;
import dev.kvlab.harness.api.config.SloConfig;
import dev.kvlab.harness.spi.MeasurementView;
import dev.kvlab.harness.spi.Observed;
import dev.kvlab.harness.spi.Served;
import dev.kvlab.harness.spi.ServingListener;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * All measurement of a run, in one place: the serving model reports events, this records them. One HdrHistogram
 * {@link SingleWriterRecorder} (every event arrives on the loop thread) per {@link Metric} (µs, 3 significant digits), every latency from the request's intended
 * arrival; interval histograms cut every {@code intervalNanos} of the run's own clock (virtual in sim); SLO
 * goodput; hit and fetch counters; one {@link RequestRecord} per request, streamed to a {@link RequestLog}.
 *
 * <p>The success metrics (TTFT, ITL, TPOT, TBT, E2EL) are over completed requests only, as every peer defines them
 * (vLLM {@code bench serve}, GuideLLM, AIPerf): a request's first token and token gaps are held with it and recorded
 * when it completes, into the interval it completes in; a request that fails after its first token contributes no
 * sample (it is counted in {@code failed}). {@code queue} and {@code fetch} describe the system's work and are
 * recorded for every request that reached them.
 */
public final class Measurement implements ServingListener, MeasurementView {

    private static final int DIGITS = 3;

    private final SloConfig slo;
    private final long intervalNanos;
    private final long origin;
    private final EnumMap<Metric, SingleWriterRecorder> recorders = new EnumMap<>(Metric.class);
    private final EnumMap<Metric, Histogram> recycled = new EnumMap<>(Metric.class);
    private final EnumMap<Metric, Histogram> totals = new EnumMap<>(Metric.class);
    private final EnumMap<Metric, List<IntervalHistogram>> intervals = new EnumMap<>(Metric.class);
    private final RequestLog records;
    private ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
    /**
     * ITL has a sample per token (millions): they are counted here and handed to the ITL recorder bucket by bucket
     * ({@code recordValueWithCount}) at each cut, which gives the recorder exactly the same bucket counts.
     */
    private final Histogram itlStage = unencoded();
    /**
     * The latest ITL value (µs) and how many tokens in a row had it, not yet in {@link #itlStage}: a completed
     * request's gaps come as runs of equal values (a decode's gap is its iteration's duration, which changes slowly),
     * and each run is one {@code recordValueWithCount}; the stage's bucket counts are the same.
     */
    private long itlRunValue = -1, itlRunCount;

    private long intervalStart, intervalEnd;
    private long lastEvent;
    private boolean finished;
    private CutListener cutListener;

    /** Told of every interval cut: its end (ns since the measured phase began) and its histograms (µs; reused after the call). */
    @FunctionalInterface
    public interface CutListener {
        void cut(long endNanos, Map<Metric, Histogram> interval);
    }

    long requests, completed, failed, good;
    /** Measured requests still without a first token, by intended start (ns) → how many: their TTFT is still open. */
    /** Intended start → measured requests without a first token yet; kept only once {@link #watchWaiting} is called (an early stop). */
    private final java.util.TreeMap<Long, Integer> awaitingFirst = new java.util.TreeMap<>();

    private boolean watchWaiting;
    long inputTokens, localHitTokens, remoteHitTokens, fetchedBytes, fallbackBlocks, outputTokens;
    long remoteAvailableTokens;

    /**
     * PD disaggregation on a real engine: the measured requests' handovers (every one the server reported) and, over
     * the completed ones, each part of the time to first token and the first decode step ({@link #pdStages}).
     */
    long handovers,
            handoverBytes,
            handoverTokens,
            pdFallbacks,
            handoverTransferNanos,
            handoverTransfersTimed,
            handoverRestoreNanos;

    /** The parts of a disaggregated request's time to its first token, then its first decode step, in order. */
    public static final java.util.List<String> PD_STAGES =
            java.util.List.of("prefill_queue", "prefill", "handover", "decode_queue", "restore", "first_decode_step");

    private final Map<String, Histogram> pdStages = new java.util.LinkedHashMap<>();
    /** Each completed measured request's handover, in completion order (PD cells only: none is kept otherwise). */
    private final List<HandoverRecord> handoverRecords = new java.util.ArrayList<>();

    private static final class Probe {
        long admitted = -1, first = -1, last = -1, second = -1;
        dev.kvlab.harness.spi.Handover handover;
        final TopGaps gaps;
        /** The request's token gaps (µs) as runs of equal values, held until it completes: {@code itlValues[i]} {@code itlCounts[i]} times. */
        long[] itlValues;

        int[] itlCounts;
        int itlRuns;

        Probe(int outputTokens) {
            gaps = new TopGaps(outputTokens);
        }

        void itl(long us) {
            if (itlRuns > 0 && itlValues[itlRuns - 1] == us) {
                itlCounts[itlRuns - 1]++;
                return;
            }
            if (itlValues == null) {
                itlValues = new long[8];
                itlCounts = new int[8];
            } else if (itlRuns == itlValues.length) {
                itlValues = Arrays.copyOf(itlValues, itlRuns * 2);
                itlCounts = Arrays.copyOf(itlCounts, itlRuns * 2);
            }
            itlValues[itlRuns] = us;
            itlCounts[itlRuns++] = 1;
        }
    }

    /**
     * @param slo            SLOs for goodput
     * @param intervalNanos  interval histogram length
     * @param originNanos    the loop time at which the measured phase starts (interval and arrival times are relative to it)
     */
    public Measurement(SloConfig slo, long intervalNanos, long originNanos) {
        this(slo, intervalNanos, originNanos, RequestLog.temporary());
    }

    /** A measurement whose request records go to {@code log}. */
    public Measurement(SloConfig slo, long intervalNanos, long originNanos, RequestLog log) {
        this.records = log;
        this.slo = slo;
        this.intervalNanos = intervalNanos;
        this.origin = originNanos;
        this.intervalStart = 0;
        this.intervalEnd = intervalNanos;
        for (Metric m : Metric.values()) {
            recorders.put(m, new SingleWriterRecorder(DIGITS));
            totals.put(m, unencoded());
            intervals.put(m, new ArrayList<>());
        }
    }

    /** An hour in µs: what the whole-run and staging histograms hold from the start. */
    private static final long PRESIZED_MICROS = 3_600_000_000L;

    /**
     * A histogram that is never encoded (a whole-run total, the ITL stage), sized up front: an auto-resizing
     * histogram grows by catching an {@code ArrayIndexOutOfBoundsException} per new power of two, dozens per trace
     * replay, each dear in a cold JVM under the loop's deep stack. Its size shows in none of its percentiles, counts or
     * means. The interval histograms keep growing as they did, since their encoding (the hlog) carries their size.
     */
    private static Histogram unencoded() {
        Histogram h = new Histogram(1, PRESIZED_MICROS, DIGITS);
        h.setAutoResize(true);
        return h;
    }

    private void advance(long now) {
        long t = now - origin;
        if (t > lastEvent) lastEvent = t;
        while (t >= intervalEnd) {
            cut(intervalStart, intervalEnd);
            intervalStart = intervalEnd;
            intervalEnd += intervalNanos;
        }
    }

    private void cut(long start, long end) {
        flushItlRun();
        if (itlStage.getTotalCount() > 0) {
            SingleWriterRecorder itl = recorders.get(Metric.ITL);
            Histogram itlTotal = totals.get(Metric.ITL);
            for (org.HdrHistogram.HistogramIterationValue v : itlStage.recordedValues()) {
                itl.recordValueWithCount(v.getValueIteratedTo(), v.getCountAtValueIteratedTo());
                itlTotal.recordValueWithCount(v.getValueIteratedTo(), v.getCountAtValueIteratedTo());
            }
            itlStage.reset();
        }
        for (Metric m : Metric.values()) {
            Histogram h = recorders.get(m).getIntervalHistogram(recycled.get(m));
            recycled.put(m, h);
            int need = h.getNeededByteBufferCapacity();
            if (buffer.capacity() < need) buffer = ByteBuffer.allocate(Math.max(need, 2 * buffer.capacity()));
            ByteBuffer buf = buffer;
            buf.clear();
            int n = h.encodeIntoByteBuffer(buf);
            intervals
                    .get(m)
                    .add(new IntervalHistogram(
                            m, start, end, h.getTotalCount(), Arrays.copyOf(buf.array(), n), h.getMaxValueAsDouble()));
        }
        if (cutListener != null) cutListener.cut(end, recycled);
        records.writeHeld();
    }

    private void flushItlRun() {
        if (itlRunCount > 0) itlStage.recordValueWithCount(itlRunValue, itlRunCount);
        itlRunCount = 0;
    }

    /** Sets the one listener told of every interval cut (observers of a running cell); {@code null} for none. */
    public void onCut(CutListener l) {
        cutListener = l;
    }

    private static long micros(long nanos) {
        return Math.max(0, (nanos + 500) / 1000);
    }

    /**
     * Records into the metric's interval recorder and its whole-run total at once (adding each interval histogram
     * to the total at every cut instead walked every bucket of every metric, thousands of times per run).
     */
    private void record(Metric m, long nanos) {
        long v = micros(nanos);
        recorders.get(m).recordValue(v);
        totals.get(m).recordValue(v);
    }

    @Override
    public void arrived(Served s, long now) {
        advance(now);
        requests++;
        s.attach(new Probe(s.outputTokens()));
        if (watchWaiting) awaitingFirst.merge(s.intendedNanos(), 1, Integer::sum);
    }

    @Override
    public void admitted(Served s, long now) {
        advance(now);
        Probe p = (Probe) s.attachment();
        p.admitted = now;
        record(Metric.QUEUE, now - s.intendedNanos());
    }

    @Override
    public void fetched(Served s, long fetchNanos, long now) {
        advance(now);
        record(Metric.FETCH, fetchNanos);
    }

    /** A PD handover: counted at once; its parts are recorded with the request's TTFT when it completes. */
    @Override
    public void handedOver(Served s, dev.kvlab.harness.spi.Handover h, long now) {
        advance(now);
        Probe p = (Probe) s.attachment();
        p.handover = h;
        handovers++;
        handoverBytes += h.bytes();
        handoverTokens += h.tokens();
        if (h.transferNanos() >= 0) { // -1: the transfer failed before it ended, not timed
            handoverTransferNanos += h.transferNanos();
            handoverTransfersTimed++;
        }
        handoverRestoreNanos += h.restoreNanos();
        if (!h.ok()) pdFallbacks++;
    }

    /**
     * The parts of a completed disaggregated request's TTFT (from its intended arrival) and its first decode step: its
     * row of {@code handovers.csv}, and the stage histograms where the handover succeeded.
     */
    private void recordPdStages(Observed o, Probe p, long intended) {
        var h = p.handover;
        if (h == null) return;
        // the parts in PD_STAGES' order (ns; -1: not observed), each from the end of the one before
        long[] v = {
            p.admitted < 0 ? -1 : p.admitted - intended,
            span(p.admitted, h.prefilledAt()),
            span(h.prefilledAt(), h.arrivedAt()),
            span(h.arrivedAt(), h.decodeAdmittedAt()),
            span(h.decodeAdmittedAt(), h.restoredAt()),
            span(p.first, p.second)
        };
        handoverRecords.add(new HandoverRecord(
                o.id(),
                (intended - origin) / 1e6,
                ms(v[0]),
                ms(v[1]),
                ms(v[2]),
                ms(v[3]),
                ms(v[4]),
                ms(p.first < 0 ? -1 : p.first - intended),
                ms(v[5]),
                h.bytes(),
                h.tokens(),
                ms(h.transferNanos()),
                ms(h.restoreNanos()),
                h.ok()));
        if (!h.ok()) return; // a recomputed handover's first token came after the recompute: its parts are not these
        for (int i = 0; i < v.length; i++)
            if (v[i] >= 0)
                pdStages.computeIfAbsent(PD_STAGES.get(i), k -> unencoded()).recordValue(micros(v[i]));
    }

    /** The first token: held with the request, recorded as its TTFT when it completes. */
    @Override
    public void firstToken(Served s, long now) {
        advance(now);
        Probe p = (Probe) s.attachment();
        if (p.first < 0) firstTokenOrEnd(s.intendedNanos());
        p.first = p.last = now;
    }

    /** A later token: its gap is held with the request, recorded as ITL samples when it completes. */
    @Override
    public void token(Served s, long now) {
        advance(now);
        Probe p = (Probe) s.attachment();
        if (p.second < 0) p.second = now;
        long gap = now - p.last;
        p.last = now;
        p.itl(micros(gap));
        p.gaps.add(gap);
    }

    /** Stages a completed request's token gaps for the ITL recorder, run by run. */
    private void stageItl(Probe p) {
        for (int i = 0; i < p.itlRuns; i++) {
            long us = p.itlValues[i];
            if (us != itlRunValue) {
                flushItlRun();
                itlRunValue = us;
            }
            itlRunCount += p.itlCounts[i];
        }
    }

    @Override
    public void completed(Served s, long now) {
        advance(now);
        Probe p = (Probe) s.attachment();
        Observed o = s.observed();
        if (p.first < 0) firstTokenOrEnd(o.intendedNanos());
        completed++;
        long e2el = now - o.intendedNanos();
        long ttft = p.first - o.intendedNanos();
        int out = o.outputTokens();
        double tpotMs = Double.NaN, tbtMs = Double.NaN;
        if (p.first >= 0) record(Metric.TTFT, ttft);
        recordPdStages(o, p, o.intendedNanos());
        stageItl(p);
        record(Metric.E2EL, e2el);
        if (out > 1) {
            long tpot = Math.round((double) (e2el - ttft) / (out - 1));
            record(Metric.TPOT, tpot);
            tpotMs = tpot / 1e6;
            long tbt = p.gaps.mean();
            record(Metric.TBT, tbt);
            tbtMs = tbt / 1e6;
        }
        double ttftMs = ttft / 1e6, e2elMs = e2el / 1e6;
        boolean ok = meets(slo.ttftMs(), ttftMs)
                && meets(slo.tpotMs(), tpotMs)
                && meets(slo.tbtMs(), tbtMs)
                && meets(slo.e2elMs(), e2elMs);
        if (ok) good++;
        count(o);
        outputTokens += out;
        records.add(new RequestRecord(
                o.id(),
                o.session(),
                (o.intendedNanos() - origin) / 1e6,
                o.instance(),
                o.inputTokens(),
                out,
                o.localHitTokens(),
                o.remoteHitTokens(),
                o.fetchedBytes(),
                o.fallbackBlocks(),
                p.admitted < 0 ? Double.NaN : (p.admitted - o.intendedNanos()) / 1e6,
                o.fetchNanos() < 0 ? Double.NaN : o.fetchNanos() / 1e6,
                ttftMs,
                tpotMs,
                tbtMs,
                e2elMs,
                ok,
                "ok"));
    }

    private void firstTokenOrEnd(long intendedNanos) {
        if (watchWaiting) awaitingFirst.computeIfPresent(intendedNanos, (k, n) -> n == 1 ? null : n - 1);
    }

    /**
     * Keeps the measured requests still waiting for their first token, for {@link #missedWhileWaiting}: only a cell that
     * stops early asks, so no other cell pays a sorted map's insert and remove per request. Call before the first arrival.
     */
    public void watchWaiting() {
        if (requests > 0) throw new IllegalStateException("watchWaiting() after " + requests + " arrivals");
        watchWaiting = true;
    }

    /**
     * Measured requests still in flight without a first token at loop time {@code now} whose TTFT already exceeds
     * the SLO's ({@code slo.ttft_ms}; 0 without one): however they end, none can meet the SLO. An early stop counts
     * them as decided (a saturated probe is known to fail long before its queue drains).
     */
    public long missedWhileWaiting(long now) {
        if (!watchWaiting)
            throw new IllegalStateException("missedWhileWaiting needs watchWaiting() before the first arrival");
        if (slo.ttftMs() == null || awaitingFirst.isEmpty()) return 0;
        long before = now - Math.round(slo.ttftMs() * 1e6);
        long n = 0;
        for (int k : awaitingFirst.headMap(before, false).values()) n += k;
        return n;
    }

    private static boolean meets(Double limitMs, double valueMs) {
        return limitMs == null || Double.isNaN(valueMs) || valueMs <= limitMs;
    }

    /** Adds a request's counts; a count its target does not know ({@code RequestRecord.UNKNOWN}, negative) adds nothing. */
    private void count(Observed o) {
        inputTokens += o.inputTokens();
        localHitTokens += Math.max(0, o.localHitTokens());
        remoteHitTokens += Math.max(0, o.remoteHitTokens());
        remoteAvailableTokens += Math.max(0, o.remoteAvailableTokens());
        fetchedBytes += Math.max(0, o.fetchedBytes());
        fallbackBlocks += Math.max(0, o.fallbackBlocks());
    }

    @Override
    public void failed(Served s, long now) {
        advance(now);
        failed++;
        Observed o = s.observed();
        count(o);
        Probe p = s.attachment() instanceof Probe x ? x : null;
        if (p != null && p.first < 0) firstTokenOrEnd(o.intendedNanos());
        records.add(new RequestRecord(
                o.id(),
                o.session(),
                (o.intendedNanos() - origin) / 1e6,
                o.instance(),
                o.inputTokens(),
                o.outputTokens(),
                o.localHitTokens(),
                o.remoteHitTokens(),
                o.fetchedBytes(),
                o.fallbackBlocks(),
                p == null || p.admitted < 0 ? Double.NaN : (p.admitted - o.intendedNanos()) / 1e6,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                false,
                "failed: " + o.failure()));
    }

    /** Closes the last interval at {@code endNanos} (loop time); call once, after the run. */
    public void finish(long endNanos) {
        if (finished) return;
        finished = true;
        advance(endNanos);
        long end = Math.max(lastEvent, intervalStart);
        if (end > intervalStart || intervals.get(Metric.TTFT).isEmpty())
            cut(intervalStart, Math.max(end, intervalStart + 1));
    }

    /** True once {@link #finish} began: the cuts it makes are the measured phase's last. */
    public boolean finishing() {
        return finished;
    }

    /** Span of the measured phase: from its start to its last event (ns). */
    @Override
    public long spanNanos() {
        return lastEvent;
    }

    public Histogram total(Metric m) {
        return totals.get(m);
    }

    public Map<Metric, List<IntervalHistogram>> intervals() {
        EnumMap<Metric, List<IntervalHistogram>> out = new EnumMap<>(Metric.class);
        intervals.forEach((k, v) -> out.put(k, List.copyOf(v)));
        return out;
    }

    /** The request records so far (close it once the run is over). */
    public RequestLog records() {
        return records;
    }

    public long requests() {
        return requests;
    }

    public long completed() {
        return completed;
    }

    public long failed() {
        return failed;
    }

    public long good() {
        return good;
    }

    public long inputTokens() {
        return inputTokens;
    }

    public long outputTokens() {
        return outputTokens;
    }

    public long localHitTokens() {
        return localHitTokens;
    }

    public long remoteHitTokens() {
        return remoteHitTokens;
    }

    public long remoteAvailableTokens() {
        return remoteAvailableTokens;
    }

    public long fetchedBytes() {
        return fetchedBytes;
    }

    public long fallbackBlocks() {
        return fallbackBlocks;
    }
    /** PD handovers reported for measured requests, their bytes and prompt tokens, those recomputed on the decode side. */
    public long handovers() {
        return handovers;
    }

    public long handoverBytes() {
        return handoverBytes;
    }

    public long handoverTokens() {
        return handoverTokens;
    }

    public long pdFallbacks() {
        return pdFallbacks;
    }

    public long handoverTransferNanos() {
        return handoverTransferNanos;
    }

    public long handoverTransfersTimed() {
        return handoverTransfersTimed;
    }

    public long handoverRestoreNanos() {
        return handoverRestoreNanos;
    }

    /** Each completed measured request's handover ({@code handovers.csv}), in completion order; empty without PD. */
    public List<HandoverRecord> handoverRecords() {
        return java.util.Collections.unmodifiableList(handoverRecords);
    }

    /** Nanoseconds from {@code from} to {@code to} on the loop's clock; -1 where either was not observed. */
    private static long span(long from, long to) {
        return from < 0 || to < 0 ? -1 : to - from;
    }

    /** {@code nanos} in milliseconds; NaN for -1 (not observed). */
    private static double ms(long nanos) {
        return nanos < 0 ? Double.NaN : nanos / 1e6;
    }

    /** Over completed disaggregated requests, each part of {@link #PD_STAGES} (µs), for the parts any request had. */
    public Map<String, Histogram> pdStages() {
        return java.util.Collections.unmodifiableMap(pdStages);
    }
}
