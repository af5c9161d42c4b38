package dev.kvlab.store.spi;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;

/**
 * The extension point for backends, listed in {@code META-INF/services/dev.kvlab.store.spi.KvBackendProvider}.
 * A provider claims backend specs by their form ({@code bundled}, {@code kvlab://HOST:PORT},
 * {@code redis://HOST:PORT}, …). Every implementation must pass the shared backend compatibility kit in this
 * module's test-jar.
 */
public interface KvBackendProvider {

    /** Short name for listings, e.g. {@code bundled}, {@code kvlab}, {@code redis}. */
    String name();

    /** True when this provider opens {@code spec}. */
    boolean accepts(String spec);

    KvBackend open(String spec, BackendOptions options);

    /**
     * Whether its clients move values over kvlab's transports, so that a transport option applies (the bundled store,
     * {@code kvlab://}); false for a peer with a client of its own (Redis).
     */
    default boolean usesTransport() {
        return true;
    }
}
