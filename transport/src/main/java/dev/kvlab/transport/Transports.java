package dev.kvlab.transport;

import dev.kvlab.transport.api.FaultableEngine;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.internal.fault.FaultInjectingTransferEngine;
import dev.kvlab.transport.spi.TransportProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** Finds transports by name through {@link ServiceLoader}. */
public final class Transports {

    private final TreeMap<String, TransportProvider> byName = new TreeMap<>();

    private Transports(Iterable<TransportProvider> providers) {
        for (TransportProvider p : providers) byName.putIfAbsent(p.name(), p);
    }

    /** The transports visible to {@code loader}'s class path. */
    public static Transports discover(ClassLoader loader) {
        return new Transports(ServiceLoader.load(TransportProvider.class, loader));
    }

    /**
     * {@code inner} behind a link that can be broken on purpose, with no fault yet; the fates of its batches drawn from
     * {@code seed}. Closing it closes {@code inner}.
     */
    public static FaultableEngine withLinkFaults(TransferEngine inner, long seed) {
        return FaultInjectingTransferEngine.wrap(inner, seed);
    }

    /** The transports visible to this class's loader. */
    public static Transports discover() {
        return discover(Transports.class.getClassLoader());
    }

    public List<String> names() {
        return new ArrayList<>(byName.keySet());
    }

    /** The provider called {@code name}; {@link IllegalArgumentException} naming the known ones otherwise. */
    public TransportProvider provider(String name) {
        TransportProvider p = byName.get(name);
        if (p == null)
            throw new IllegalArgumentException(
                    "unknown transport '" + name + "' (known: " + String.join(", ", byName.keySet()) + ")");
        return p;
    }

    public TransferEngine create(String name, TransportConfig config) {
        return provider(name).create(config);
    }
}
