package dev.kvlab.harness.core.internal.live;

import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.spi.LinkProbe;
import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.transport.api.TransportProfile;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;

/**
 * Calibrates a live cell's data path on this machine into a transport profile that sim cells can run on: the same
 * store (embedded, the cell's settings and transport) and the same measurement as a live cell's own start
 * ({@link LinkProbe}: fetches of the cell's block size through the store client, verification included). The
 * profile's model for the cell's transport is what its fetches cost here; {@code kvlab demo} runs its sim cells
 * on it so that its sim and live rows describe the same system.
 */
public final class LoopbackCalibration {

    private LoopbackCalibration() {}

    /** Measures {@code livePlan}'s fetch path; {@code machine} describes this machine for the profile. */
    public static TransportProfile measure(CellPlan livePlan, Map<String, String> machine) throws InterruptedException {
        LiveLoop loop = new LiveLoop(livePlan.spinNanos());
        LiveCell cell = new LiveCell(livePlan);
        LinkProbe p;
        try (KvBackend raw =
                        KvBackends.discover().open(livePlan.config().store().backend(), cell.options());
                AuditedBackend b = new AuditedBackend(raw);
                LiveStore s = new LiveStore(livePlan, loop, b)) {
            s.probe(LiveCell.PROBE_ROUNDS); // the first pass warms the path up as a cell's would have been
            p = s.probe(LiveCell.PROBE_ROUNDS);
        }
        String t = livePlan.transportName();
        String source = String.format(
                Locale.ROOT,
                "kvlab store fetch path over %s (%s blocks, %d rounds; verification included): "
                        + "%.2f GB/s + %.0f us, lookup %.0f us",
                t,
                dev.kvlab.transport.api.ByteSize.format(livePlan.blockBytes()),
                p.rounds(),
                p.bytesPerSecond() / 1e9,
                p.latencySeconds() * 1e6,
                p.lookupNanos() / 1e3);
        var entry = new TransportProfile.Entry(
                false, p.latencySeconds() * 1e6, 0, p.bytesPerSecond(), p.bytesPerSecond(), source);
        return new TransportProfile(
                TransportProfile.KIND,
                TransportProfile.VERSION,
                Instant.now(Clock.systemUTC()).truncatedTo(ChronoUnit.SECONDS).toString(),
                machine,
                "measured on loopback through the embedded store, one machine",
                Map.of(t, entry));
    }
}
