package dev.kvlab.transport.internal.local;

import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.spi.TransportProvider;

/** {@code local}: in-process copies between segments of the same JVM. */
public final class LocalTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return "local";
    }

    @Override
    public boolean emulated() {
        return false;
    }

    @Override
    public String description() {
        return "in-process copies (both sides in one JVM)";
    }

    @Override
    public TransferEngine create(TransportConfig config) {
        return new LocalTransferEngine(config);
    }
}
