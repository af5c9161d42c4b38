package dev.kvlab.transport.spi;

import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;

/**
 * The extension point for transports: one small class per transport, listed in
 * {@code META-INF/services/dev.kvlab.transport.spi.TransportProvider}. Every implementation must pass the
 * shared compatibility kit ({@code TransportCompatibilityKit} in this module's test-jar).
 */
public interface TransportProvider {

    /** The name users type: {@code local}, {@code tcp}, {@code shm}, {@code rdma-emu}. */
    String name();

    /** True when the transport models part of its behaviour instead of doing it (then it is labelled emulated). */
    boolean emulated();

    /** One line for {@code --help} and reports. */
    String description();

    TransferEngine create(TransportConfig config);
}
