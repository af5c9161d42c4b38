package dev.kvlab.store;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.master.Master;
import dev.kvlab.store.api.master.MasterConnection;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.server.MasterService;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;

/** Builds store masters for code outside the store (issue 36: the master's implementation is store's internal). */
public final class Masters {

    private Masters() {}

    /** The master's metadata logic for one caller on {@code clock} (a simulator's loop): no locks, no threads. */
    public static Master singleThreaded(MasterConfig config, Clock clock) {
        return StoreMaster.singleThreaded(config, clock);
    }

    /** A thread-safe master behind its service (housekeeping not yet started), as {@code kvlab store master} runs it (store-only: the service is internal). */
    static MasterService service(MasterConfig config, Clock clock, MeterRegistry registry) {
        return new MasterService(new StoreMaster(config, clock), registry);
    }

    /**
     * A new gRPC connection to the master at {@code host:port} ({@code token}: null for none), each call with
     * {@code deadline}; connecting is lazy, so an unreachable master shows at the first call.
     */
    public static MasterConnection connect(String host, int port, Duration deadline, String token) {
        return new GrpcMasterChannel(host, port, deadline, token);
    }
}
