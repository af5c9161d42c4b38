package dev.kvlab.transport.internal.shm;

import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.spi.TransportProvider;

/** {@code shm}: one-sided copies through shared-memory files, across processes of one host. */
public final class ShmTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return "shm";
    }

    @Override
    public boolean emulated() {
        return false;
    }

    @Override
    public String description() {
        return "one-sided copies through shared-memory files in /dev/shm (processes of one host)";
    }

    @Override
    public TransferEngine create(TransportConfig config) {
        return new ShmTransferEngine("shm", config, null);
    }
}
