package dev.kvlab.harness.fixed.internal;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.TreeBinder;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.harness.spi.TargetProvider;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@code fixed} target: every request answered after {@code target.delay} with {@code target.tokens} tokens, on the
 * live clock ({@link FixedCell}). It reads the workload, its warm-up, the cache state, the SLOs and the measurement
 * settings; any other key given (model, store, tiers, ...) is refused.
 */
public final class FixedTarget implements TargetProvider {

    static final String KIND = "fixed";
    private static final Set<String> USES = Set.of(
            ConfigKeys.MODE,
            ConfigKeys.SEED,
            ConfigKeys.WORKLOAD,
            ConfigKeys.WARMUP,
            ConfigKeys.CACHE_STATE,
            ConfigKeys.SLO,
            ConfigKeys.MEASUREMENT);
    private static final TreeBinder BINDER = new TreeBinder();

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String describe() {
        return "a stand-in answering every request after a fixed delay with a fixed token count";
    }

    @Override
    public boolean uses(String key) {
        int dot = key.indexOf('.');
        return USES.contains(dot < 0 ? key : key.substring(0, dot));
    }

    /** The block bound (an unknown key refused, naming it) and checked. */
    static FixedTargetConfig.Resolved target(RunConfig c, Function<String, String> origin) {
        return BINDER.bindNode(c.target(), FixedTargetConfig.class, "target", origin)
                .resolve(origin);
    }

    static CellSpec spec(RunConfig c, Function<String, String> origin) {
        return TargetFramework.get().spec(c, origin, KIND, "none", "none");
    }

    @Override
    public void validate(RunConfig c, Function<String, String> origin) {
        if (c.mode() != Mode.LIVE) {
            String o = origin.apply("mode");
            throw new BadInputException((o == null ? "config" : o)
                    + ": key 'mode': the fixed target answers on the live clock: set mode: live");
        }
        target(c, origin);
        spec(c, origin);
    }

    @Override
    public CellResult run(RunConfig c, long wallStartNanos, CellObserver observer) {
        return new FixedCell(spec(c, k -> null), target(c, k -> null)).run(wallStartNanos, observer);
    }
}
