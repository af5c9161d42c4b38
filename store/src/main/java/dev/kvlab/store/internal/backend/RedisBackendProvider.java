package dev.kvlab.store.internal.backend;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.spi.KvBackendProvider;

/** {@code redis://HOST:PORT}: a Redis or Valkey server as a peer backend (Jedis). */
public final class RedisBackendProvider implements KvBackendProvider {

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public boolean accepts(String spec) {
        return spec != null && spec.startsWith("redis://");
    }

    /** Jedis moves the values; kvlab's transports do not apply. */
    @Override
    public boolean usesTransport() {
        return false;
    }

    @Override
    public KvBackend open(String spec, BackendOptions options) {
        HostPort hp = HostPort.parse(spec, "redis");
        return new RedisBackend(spec, hp.host(), hp.port(), options);
    }
}
