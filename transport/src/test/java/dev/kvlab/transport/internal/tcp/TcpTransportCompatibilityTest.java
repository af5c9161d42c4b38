package dev.kvlab.transport.internal.tcp;

import dev.kvlab.transport.kit.TransportCompatibilityKit;

class TcpTransportCompatibilityTest extends TransportCompatibilityKit {
    @Override
    protected String transport() {
        return "tcp";
    }

    @Override
    protected boolean suspendedPeerStopsServing() {
        return true;
    }

    /** The JDK allocates ~56 bytes per MemorySegment-backed buffer per scattering/gathering call (both sides, this JVM). */
    @Override
    protected long allowedAllocationPerSlice() {
        return 192;
    }
}
