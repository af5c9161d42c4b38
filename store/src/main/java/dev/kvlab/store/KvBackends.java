package dev.kvlab.store;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.spi.KvBackendProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Opens backends by spec through {@link ServiceLoader}. */
public final class KvBackends {

    private final List<KvBackendProvider> providers = new ArrayList<>();

    private KvBackends(Iterable<KvBackendProvider> found) {
        for (KvBackendProvider p : found) providers.add(p);
    }

    public static KvBackends discover() {
        return new KvBackends(ServiceLoader.load(KvBackendProvider.class, KvBackends.class.getClassLoader()));
    }

    public List<String> names() {
        return providers.stream().map(KvBackendProvider::name).toList();
    }

    /** Whether a backend found here opens {@code spec}. */
    public boolean accepts(String spec) {
        for (KvBackendProvider p : providers) if (p.accepts(spec)) return true;
        return false;
    }

    /** The provider that opens {@code spec}; {@link IllegalArgumentException} naming the known forms when none accepts it. */
    public KvBackendProvider provider(String spec) {
        for (KvBackendProvider p : providers) if (p.accepts(spec)) return p;
        throw new IllegalArgumentException(
                "unknown backend '" + spec + "' (known: " + String.join(", ", names()) + ")");
    }

    /** Opens {@code spec}; {@link IllegalArgumentException} naming the known forms when no provider accepts it. */
    public KvBackend open(String spec, BackendOptions options) {
        return provider(spec).open(spec, options);
    }
}
