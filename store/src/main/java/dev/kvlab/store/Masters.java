package dev.kvlab.store;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.master.Master;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.server.MasterService;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;

/** Builds store masters for code outside the store (issue 36: the master's implementation is store's internal). */
public final class Masters {

    private Masters() {}

    /** The master's metadata logic for one caller on {@code clock} (a simulator's loop): no locks, no threads. */
    public static Master singleThreaded(MasterConfig config, Clock clock) {
        return StoreMaster.singleThreaded(config, clock);
    }

    /** A thread-safe master behind its service (housekeeping not yet started), as {@code kvlab store master} runs it. */
    public static MasterService service(MasterConfig config, Clock clock, MeterRegistry registry) {
        return new MasterService(new StoreMaster(config, clock), registry);
    }
}
