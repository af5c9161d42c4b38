package dev.kvlab.store.internal.backend;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.internal.client.StoreClient;
import dev.kvlab.store.internal.cluster.BackendExtras;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.spi.KvBackendProvider;
import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;

/**
 * {@code kvlab://HOST:PORT}: a client of an external store (a {@code kvlab store master} and its nodes). The
 * control plane is gRPC to the master; the data plane is the transport of the options, which must be the
 * nodes' transport. The auth token, when the master needs one, comes from {@code KVLAB_STORE_TOKEN}.
 */
public final class KvlabBackendProvider implements KvBackendProvider {

    @Override
    public String name() {
        return "kvlab";
    }

    @Override
    public boolean accepts(String spec) {
        return spec != null && spec.startsWith("kvlab://");
    }

    @Override
    public KvBackend open(String spec, BackendOptions options) {
        HostPort hp = HostPort.parse(spec, "kvlab");
        BackendExtras.check(options);
        String token = System.getenv("KVLAB_STORE_TOKEN");
        if (token != null && token.isBlank()) token = null;
        // the token guards both planes: the master's gRPC calls and the nodes' data connections
        TransferEngine engine = BackendExtras.clientEngine(
                Transports.discover()
                        .create(
                                options.transport(),
                                TransportConfig.defaults()
                                        .withTimeout(options.timeout())
                                        .withAuthToken(token == null ? null : token.strip())),
                options);
        GrpcMasterChannel channel;
        try {
            channel = new GrpcMasterChannel(
                    hp.host(), hp.port(), options.timeout(), token == null ? null : token.strip());
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
