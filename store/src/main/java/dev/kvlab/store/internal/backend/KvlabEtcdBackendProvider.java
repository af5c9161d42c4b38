package dev.kvlab.store.internal.backend;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.internal.client.StoreClient;
import dev.kvlab.store.internal.cluster.BackendExtras;
import dev.kvlab.store.internal.ha.EtcdMasterChannel;
import dev.kvlab.store.internal.ha.EtcdSpec;
import dev.kvlab.store.spi.KvBackendProvider;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;

/**
 * {@code kvlab+etcd://HOST:PORT[,HOST:PORT...][/CLUSTER]}: a client of a replicated store (masters started with
 * {@code --ha etcd://...}) that finds the leading master through etcd and follows a change of leader without a restart;
 * otherwise as {@code kvlab://} (the data plane is the transport of the options; the token from {@code KVLAB_STORE_TOKEN}).
 */
public final class KvlabEtcdBackendProvider implements KvBackendProvider {

    @Override
    public String name() {
        return "kvlab+etcd";
    }

    @Override
    public boolean accepts(String spec) {
        return spec != null && spec.startsWith("kvlab+etcd://");
    }

    @Override
    public KvBackend open(String spec, BackendOptions options) {
        EtcdSpec etcd = EtcdSpec.parse(spec);
        BackendExtras.check(options);
        String token = System.getenv("KVLAB_STORE_TOKEN");
        token = token == null || token.isBlank() ? null : token.strip();
        TransferEngine engine = BackendExtras.clientEngine(
                Transports.discover()
                        .create(
                                options.transport(),
                                TransportConfig.defaults()
                                        .withTimeout(options.timeout())
                                        .withAuthToken(token)),
                options);
        EtcdMasterChannel channel;
        try {
            channel = new EtcdMasterChannel(etcd, options.timeout(), token);
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
        try {
            return new StoreClient(spec + " (" + options.transport() + ")", channel, engine, options, () -> {
                channel.close();
                engine.close();
            });
        } catch (RuntimeException e) {
            channel.close();
            engine.close();
            throw e;
        }
    }
}
