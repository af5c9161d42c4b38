package dev.kvlab.harness.internal.live;

import dev.kvlab.transport.api.LinearTransportModel;

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
 */
public record LinkProbe(long lookupNanos, double latencySeconds, double bytesPerSecond, int rounds, int reputs) {

    /**
     * The measured link in kvlab's link syntax, for labelling the cell: payload rate (3 significant digits) {@code @}
     * the lookup round trip, e.g. {@code 912mbps@450us (measured)}: what the cell's data crossed, not an emulation.
     */
    public String label() {
        double bits = bytesPerSecond * 8;
        double scale = Math.pow(10, Math.floor(Math.log10(Math.max(1, bits))) - 2);
        double r = Math.max(1, Math.round(bits / scale) * scale);
        return new dev.kvlab.transport.api.LinkSpec(1, r, java.time.Duration.ofNanos(lookupNanos / 1000 * 1000)) + " (measured)";
    }

    /**
     * The link of two probes of the same path (a cell's start and end): mean lookup and fixed cost, and the bandwidth
     * whose time per byte is the mean of theirs (what a fetch's time averages).
     */
    public static LinkProbe bracket(LinkProbe before, LinkProbe after) {
        double bw = 2 / (1 / before.bytesPerSecond + 1 / after.bytesPerSecond);
        return new LinkProbe((before.lookupNanos + after.lookupNanos) / 2, (before.latencySeconds + after.latencySeconds) / 2, bw,
                before.rounds + after.rounds, before.reputs + after.reputs);
    }

    /** The measured link as a transport model (not emulated: measured on this machine, now). */
    public LinearTransportModel model(String transport) {
        return new LinearTransportModel(transport + "-measured", false, latencySeconds, 0, bytesPerSecond, bytesPerSecond);
    }
}
