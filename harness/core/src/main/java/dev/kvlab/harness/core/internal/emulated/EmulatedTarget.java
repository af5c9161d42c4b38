package dev.kvlab.harness.core.internal.emulated;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.config.TargetKind;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.core.CellPlan;
import dev.kvlab.harness.core.RunValidator;
import dev.kvlab.harness.core.internal.live.LiveCell;
import dev.kvlab.harness.core.internal.sim.SimCell;
import dev.kvlab.harness.core.internal.sim.SimTwin;
import dev.kvlab.harness.spi.TargetProvider;
import java.util.Iterator;
import java.util.function.Function;

/**
 * The emulated target: kvlab's serving model (roofline GPU time, the bundled store) on the sim clock, or on the
 * live clock with real bytes over real transports, followed there by its sim twin ({@link SimTwin}: the same cell
 * on the sim clock on the link the live cell measured). It reads every run-config key.
 */
public final class EmulatedTarget implements TargetProvider {

    @Override
    public String kind() {
        return TargetKind.EMULATED;
    }

    @Override
    public String describe() {
        return "kvlab's serving model: roofline GPU time (emulated), the bundled store";
    }

    @Override
    public boolean uses(String key) {
        return true;
    }

    @Override
    public void validate(RunConfig config, Function<String, String> origin) {
        var t = config.target();
        if (t != null && t.isObject()) {
            for (Iterator<String> it = t.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (f.equals("kind")) continue;
                String o = origin.apply("target." + f);
                if (f.equals("price_per_hour")) {
                    double p = t.get(f).isNumber() ? t.get(f).asDouble() : Double.NaN;
                    if (!(p >= 0 && p < 1e9))
                        throw new BadInputException((o == null ? "config" : o)
                                + ": key 'target.price_per_hour': must be a number in [0, 1e9) (per GPU "
                                + "and hour), got " + t.get(f));
                    continue;
                }
                throw new BadInputException(
                        (o == null ? "config" : o) + ": unknown key 'target." + f
                                + "' (the emulated target has no settings of its own but its kind and price_per_hour; its model is the run config's model, hardware, cluster ...)");
            }
        }
        if (config.pdTransfer() == dev.kvlab.harness.api.config.PdTransfer.STORE) {
            String o = origin.apply("pd_transfer");
            throw new BadInputException(
                    (o == null ? "config" : o)
                            + ": key 'pd_transfer': store is not modelled by the emulated target (its "
                            + "disaggregated cells hand the KV over directly, over the transport); use direct, or the llama.cpp target");
        }
        RunValidator.validate(config, origin);
    }

    /** {@code target.price_per_hour} per GPU, times the cluster's GPUs (instances x TP); NaN when not given. */
    @Override
    public double pricePerHour(RunConfig config) {
        var t = config.target();
        if (t == null || !t.path("price_per_hour").isNumber()) return Double.NaN;
        return t.get("price_per_hour").asDouble()
                * config.cluster().instances()
                * config.cluster().tp();
    }

    @Override
    public CellResult run(RunConfig config, long wallStartNanos, CellObserver observer) {
        CellPlan plan = RunValidator.plan(config, k -> null);
        if (config.mode() == Mode.SIM) return new SimCell(plan, null, observer).run(wallStartNanos);
        LiveCell live = new LiveCell(plan).observedBy(observer);
        CellResult r = live.run(wallStartNanos);
        // the twin runs on the link this cell measured at its start and its end (what its fetches met lies between),
        // its wake after idle included, even where auto decided on a transport_profile
        var p = live.twinProbe();
        var link = p.twinModel(plan.transportName());
        return SimTwin.attach(r, SimTwin.run(plan, link, p.lookupNanos()), link, live.twinLinkExtras());
    }
}
