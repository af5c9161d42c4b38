package dev.kvlab.harness.spi;

import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.transport.api.LinearTransportModel;
import dev.kvlab.transport.api.TransportModel;
import dev.kvlab.transport.api.WakingTransportModel;

/**
 * What a live cell measured of its own store and link at its start, before the warm-up: the metadata round trip
 * (one exists call) and fetches of 1 to 12 blocks through the same path, verification included, as the cell's
 * fetches take it, in groups of rounds until two groups agree. The fit (least squares through the median of each
 * size) is {@code fetch(n) = latency + n × block / bandwidth}; the {@code auto} policy decides on it and the cell's
 * sim twin runs on it.
 *
 * @param lookupNanos        median exists round trip (ns)
 * @param latencySeconds     a fetch's fixed cost beyond one lookup (replica list, transfer set-up, thread hand-offs)
 * @param bytesPerSecond     the fetch path's throughput, verification included
 * @param rounds             rounds measured (one or more groups)
 * @param reputs             times the probe objects had to be put again (one did not come back: a put lost or an
 *                           object evicted under load); those rounds were repeated, not timed
 * @param wakeSeconds        what a one-block fetch after the path idled {@value #WAKE_IDLE_MS} ms costs beyond one
 *                           right behind another (median of paired rounds, clipped at 0; NaN where not measured):
 *                           the sim twin charges it to a fetch that starts after an idle spell
 *                           ({@link WakingTransportModel})
 */
public record LinkProbe(
        long lookupNanos, double latencySeconds, double bytesPerSecond, int rounds, int reputs, double wakeSeconds) {

    /** The idle spell before each wake round of a probe (ms): longer than the spell from which the wake is whole. */
    public static final int WAKE_IDLE_MS = 30;

    /** A probe that did not measure the wake. */
    public LinkProbe(long lookupNanos, double latencySeconds, double bytesPerSecond, int rounds, int reputs) {
        this(lookupNanos, latencySeconds, bytesPerSecond, rounds, reputs, Double.NaN);
    }

    /** This probe with its wake measured: {@code afterIdle[i]} and {@code behind[i]} one round's pair (ns). */
    public LinkProbe withWake(long[] afterIdle, long[] behind) {
        long[] d = new long[afterIdle.length];
        for (int i = 0; i < d.length; i++) d[i] = afterIdle[i] - behind[i];
        return new LinkProbe(lookupNanos, latencySeconds, bytesPerSecond, rounds, reputs, Math.max(0, median(d)) / 1e9);
    }

    /**
     * The measured link in kvlab's link syntax, for labelling the cell: payload rate (3 significant digits) {@code @}
     * the lookup round trip, e.g. {@code 912mbps@450us (measured)}: what the cell's data crossed, not an emulation.
     */
    public String label() {
        double bits = bytesPerSecond * 8;
        double scale = Math.pow(10, Math.floor(Math.log10(Math.max(1, bits))) - 2);
        double r = Math.max(1, Math.round(bits / scale) * scale);
        return new dev.kvlab.transport.api.LinkSpec(1, r, java.time.Duration.ofNanos(lookupNanos / 1000 * 1000))
                + " (measured)";
    }

    /** The probe as a cell's figures: its label, bandwidth, fixed cost, lookup and rounds, in that order. */
    public void extras(Figures x) {
        Columns.LINK_MEASURED.put(x, label());
        Columns.LINK_MEASURED_BYTES_PER_S.put(x, bytesPerSecond);
        Columns.LINK_MEASURED_LATENCY_US.put(x, latencySeconds * 1e6);
        Columns.LINK_MEASURED_LOOKUP_US.put(x, lookupNanos / 1e3);
        Columns.LINK_PROBE_ROUNDS.put(x, rounds);
        if (Double.isFinite(wakeSeconds)) Columns.LINK_MEASURED_WAKE_US.put(x, wakeSeconds * 1e6);
    }

    /** The link a cell's sim twin runs on: its start and end probes bracketed, or the start's alone (no end probe). */
    public static LinkProbe twinOf(LinkProbe start, LinkProbe end) {
        return end == null ? start : bracket(start, end);
    }

    /** What a twin's link came from, for the twin's row: the end probe (or why it could not run) and the link's bandwidth. */
    public static Figures twinLinkExtras(LinkProbe end, String endError, LinkProbe twin) {
        Figures x = new Figures();
        if (end != null) {
            Columns.LINK_MEASURED_END_BYTES_PER_S.put(x, end.bytesPerSecond());
            Columns.LINK_MEASURED_END_LATENCY_US.put(x, end.latencySeconds() * 1e6);
        }
        if (endError != null) Columns.LINK_PROBE_END_ERROR.put(x, endError);
        Columns.TWIN_LINK_BYTES_PER_S.put(x, twin.bytesPerSecond());
        if (Double.isFinite(twin.wakeSeconds())) Columns.TWIN_LINK_WAKE_US.put(x, twin.wakeSeconds() * 1e6);
        return x;
    }

    /**
     * The link of two probes of the same path (a cell's start and end): mean lookup and fixed cost, and the bandwidth
     * whose time per byte is the mean of theirs (what a fetch's time averages).
     */
    public static LinkProbe bracket(LinkProbe before, LinkProbe after) {
        double bw = 2 / (1 / before.bytesPerSecond + 1 / after.bytesPerSecond);
        return new LinkProbe(
                (before.lookupNanos + after.lookupNanos) / 2,
                (before.latencySeconds + after.latencySeconds) / 2,
                bw,
                before.rounds + after.rounds,
                before.reputs + after.reputs,
                meanOfMeasured(before.wakeSeconds, after.wakeSeconds));
    }

    /** The mean of {@code a} and {@code b}, or the one that was measured (finite), or NaN. */
    private static double meanOfMeasured(double a, double b) {
        if (!Double.isFinite(a)) return b;
        return Double.isFinite(b) ? (a + b) / 2 : a;
    }

    /**
     * The fit of probe rounds {@code g}: {@code g[0]} the exists round trips, {@code g[1 + i]} the fetches of
     * {@code sizes[i]} blocks (ns). A least-squares line through the median time of each size beyond the metadata
     * round trip (several sizes, so that the fixed cost is not one small fetch's difference to a large one: with two,
     * it was the noisiest figure, 0 to 0.9 ms from probe to probe); the fixed cost is clipped to [0, half a one-block
     * fetch]. {@code sizes[0]} must be 1.
     */
    public static LinkProbe fit(long[][] g, int[] sizes, long blockBytes, int rounds, int reputs) {
        long l = median(g[0]);
        int k = sizes.length;
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (int i = 0; i < k; i++) {
            double x = sizes[i], y = median(g[1 + i]) - l;
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
        }
        double slope = k > 1 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : sy / sx;
        double perBlock = Math.max(1, slope); // ns per block
        double intercept = (sy - perBlock * sx) / k;
        double latency = Math.min(Math.max(0, intercept), median(g[1]) / 2.0) / 1e9;
        return new LinkProbe(l, latency, blockBytes / (perBlock / 1e9), rounds, reputs);
    }

    /**
     * Whether {@code other} describes the same link: both predict the same fetch times, within 10% or 50 us, for one
     * block and for {@code blocks} (what the figures are used for), not parameter by parameter (latency and
     * bandwidth trade off).
     */
    public boolean agrees(LinkProbe other, int blocks, long blockBytes) {
        return close(fetchSeconds(1, blockBytes), other.fetchSeconds(1, blockBytes))
                && close(fetchSeconds(blocks, blockBytes), other.fetchSeconds(blocks, blockBytes));
    }

    private static boolean close(double x, double y) {
        return Math.abs(x - y) <= Math.max(0.1 * Math.max(x, y), 50e-6);
    }

    /** A fetch of {@code blocks} blocks on this link, its lookup included (s). */
    double fetchSeconds(int blocks, long blockBytes) {
        return lookupNanos / 1e9 + model("probe").batchSeconds(blocks * blockBytes, blocks, 1);
    }

    static long median(long[] v) {
        long[] c = v.clone();
        java.util.Arrays.sort(c);
        return c[c.length / 2];
    }

    /** The measured link as a transport model (not emulated: measured on this machine, now). */
    public LinearTransportModel model(String transport) {
        return new LinearTransportModel(
                transport + "-measured", false, latencySeconds, 0, bytesPerSecond, bytesPerSecond);
    }

    /** What a sim twin runs on: {@link #model}, and the wake after idle where one was measured (and is above 0). */
    public TransportModel twinModel(String transport) {
        return wakeSeconds > 0 ? new WakingTransportModel(model(transport), wakeSeconds) : model(transport);
    }
}
