package dev.kvlab.transport.internal.shm;

import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.kit.TransportCompatibilityKit;

class RdmaEmuTransportCompatibilityTest extends TransportCompatibilityKit {
    @Override
    protected String transport() {
        return "rdma-emu";
    }

    /** A fast emulated link, so the kit's large transfers stay quick; pacing has its own test. */
    @Override
    protected TransportConfig config() {
        return super.config().withLink(LinkSpec.parse("4x200gbps@2us"));
    }
}
