package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.kit.TransportCompatibilityKit;

class TcpTransportCompatibilityTest extends TransportCompatibilityKit {
    @Override protected String transport() { return "tcp"; }

    @Override protected boolean suspendedPeerStopsServing() { return true; }
}
