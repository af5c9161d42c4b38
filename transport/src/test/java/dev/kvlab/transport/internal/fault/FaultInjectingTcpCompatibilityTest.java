package dev.kvlab.transport.internal.fault;

import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.kit.TransportCompatibilityKit;

/** With no fault injected, the wrapper is the transport it wraps: the whole compatibility kit passes through it. */
class FaultInjectingTcpCompatibilityTest extends TransportCompatibilityKit {
    @Override
    protected String transport() {
        return "tcp";
    }

    @Override
    protected boolean suspendedPeerStopsServing() {
        return true;
    }

    @Override
    protected long allowedAllocationPerSlice() {
        return 192;
    } // tcp's own allowance: the wrapper adds nothing per slice

    @Override
    protected TransferEngine create(TransportConfig config) {
        return FaultInjectingTransferEngine.wrap(super.create(config), 42);
    }
}
