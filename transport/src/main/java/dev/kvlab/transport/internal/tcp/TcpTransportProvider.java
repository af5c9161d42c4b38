package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.spi.TransportProvider;

/** {@code tcp}: real sockets, several connections per peer, bounded frames (wire format in transport/WIRE.md). */
public final class TcpTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public boolean emulated() {
        return false;
    }

    @Override
    public String description() {
        return "real TCP sockets (blocking NIO), several connections per peer, bounded frames";
    }

    @Override
    public TransferEngine create(TransportConfig config) {
        return new TcpTransferEngine(config);
    }
}
