package dev.kvlab.store.internal.ha;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.internal.client.StoreClient;
import dev.kvlab.store.internal.cluster.BackendExtras;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import java.util.function.LongConsumer;

/** Clients of a replicated store whose failed master calls are counted (a fault cell's failover). */
public final class HaClients {

    private HaClients() {}

    /** A store client of {@code spec} (no token) telling {@code failedKeys} the keys of each object call that found no master. */
    public static KvBackend open(String spec, BackendOptions options, LongConsumer failedKeys) {
        BackendExtras.check(options);
        TransferEngine engine = BackendExtras.clientEngine(
                Transports.discover()
                        .create(options.transport(), TransportConfig.defaults().withTimeout(options.timeout())),
                options);
        EtcdMasterChannel channel;
        try {
            channel = new EtcdMasterChannel(EtcdSpec.parse(spec), options.timeout(), null);
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
        FailureCountingChannel counted = new FailureCountingChannel(channel, failedKeys);
        return new StoreClient(spec + " (" + options.transport() + ")", counted, engine, options, () -> {
            counted.close();
            engine.close();
        });
    }
}
