package dev.kvlab.harness.core.internal.sim;

import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.transport.api.TransportModel;
import java.util.ArrayList;
import java.util.List;

/**
 * One link on the sim clock that the transfers on it share at every instant (processor sharing, as TCP streams share
 * a bottleneck): a transfer first pays the model's fixed cost, then its bytes flow at the rate the model gives one of
 * {@code n} transfers at once ({@code bytes / (batchSeconds(bytes, 1, n) - fixed)}), recomputed whenever one joins or
 * leaves. So a transfer that starts beside another is slowed only while both are on the link, not for its whole
 * length (what pricing each transfer once, at its start, with the sharers of that moment does). Deterministic: the
 * same calls in the same order give the same times.
 */
final class SharedLink {

    /** Bytes the rate is read at (any size does for a linear model; large, so the fixed cost is exact to a ns). */
    private static final long PROBE_BYTES = 1L << 30;

    private final EventLoop loop;
    private final TransportModel model;
    private final double fixedSeconds;
    private final List<Flow> flows = new ArrayList<>();
    private long updated;
    private long generation;

    private static final class Flow {
        double remaining;
        final Runnable done;

        Flow(double bytes, Runnable done) {
            this.remaining = bytes;
            this.done = done;
        }
    }

    SharedLink(EventLoop loop, TransportModel model) {
        this.loop = loop;
        this.model = model;
        double alone = model.batchSeconds(PROBE_BYTES, 1, 1), twice = model.batchSeconds(2 * PROBE_BYTES, 1, 1);
        this.fixedSeconds = Math.max(0, alone - (twice - alone));
    }

    /** Moves {@code bytes} over the link, then runs {@code done} on the loop. */
    void transfer(long bytes, Runnable done) {
        loop.after(Math.round(fixedSeconds * 1e9), () -> join(bytes, done));
    }

    /** Bytes per second each of {@code n} transfers gets. */
    private double rate(int n) {
        return PROBE_BYTES / Math.max(1e-12, model.batchSeconds(PROBE_BYTES, 1, n) - fixedSeconds);
    }

    private void join(long bytes, Runnable done) {
        advance();
        flows.add(new Flow(bytes, done));
        reschedule();
    }

    /** The bytes every flow moved since the last change, at the rate of the flows then on the link. */
    private void advance() {
        long now = loop.now();
        if (!flows.isEmpty() && now > updated) {
            double moved = rate(flows.size()) * (now - updated) / 1e9;
            for (Flow f : flows) f.remaining -= moved;
        }
        updated = now;
    }

    private void reschedule() {
        long gen = ++generation;
        if (flows.isEmpty()) return;
        double least = Double.MAX_VALUE;
        for (Flow f : flows) least = Math.min(least, f.remaining);
        long delay = (long) Math.ceil(Math.max(0, least) / rate(flows.size()) * 1e9);
        loop.after(delay, () -> {
            if (gen != generation) return; // the flows changed since: a later event holds the next completion
            advance();
            List<Runnable> finished = new ArrayList<>();
            for (int i = 0; i < flows.size(); ) {
                if (flows.get(i).remaining <= 0.5) finished.add(flows.remove(i).done);
                else i++;
            }
            reschedule();
            for (Runnable r : finished) r.run();
        });
    }
}
