package dev.kvlab.transport.internal.local;

import dev.kvlab.transport.kit.TransportCompatibilityKit;

class LocalTransportCompatibilityTest extends TransportCompatibilityKit {
    @Override
    protected String transport() {
        return "local";
    }

    @Override
    protected boolean crossProcess() {
        return false;
    }
}
