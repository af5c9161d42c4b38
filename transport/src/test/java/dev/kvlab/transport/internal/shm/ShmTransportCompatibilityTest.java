package dev.kvlab.transport.internal.shm;

import dev.kvlab.transport.kit.TransportCompatibilityKit;

class ShmTransportCompatibilityTest extends TransportCompatibilityKit {
    @Override
    protected String transport() {
        return "shm";
    }
}
