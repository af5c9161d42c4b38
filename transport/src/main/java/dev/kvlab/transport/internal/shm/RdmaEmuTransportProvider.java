package dev.kvlab.transport.internal.shm;

import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import dev.kvlab.transport.api.TransportModels;
import dev.kvlab.transport.spi.TransportProvider;

/**
 * {@code rdma-emu}: the shm data path timed by an emulated NIC (per-operation latency, bandwidth pacing, link
 * count) from {@link TransportConfig#link()}, {@link #DEFAULT_LINK} when none is given. Always emulated.
 */
public final class RdmaEmuTransportProvider implements TransportProvider {

    /** One 200 Gb/s port with 2 µs per operation, when the config names no link. */
    public static final LinkSpec DEFAULT_LINK = TransportModels.DEFAULT_EMULATED_LINK;
    /** Per-operation latency when the link gives none. */
    public static final long DEFAULT_LATENCY_NANOS = TransportModels.DEFAULT_LINK_LATENCY.toNanos();

    @Override
    public String name() {
        return "rdma-emu";
    }

    @Override
    public boolean emulated() {
        return true;
    }

    @Override
    public String description() {
        return "EMULATED RDMA: shm one-sided copies paced by a NIC model (latency, bandwidth, links; --link, default "
                + DEFAULT_LINK + ")";
    }

    @Override
    public TransferEngine create(TransportConfig config) {
        LinkSpec link = config.link() != null ? config.link() : DEFAULT_LINK;
        return new ShmTransferEngine("rdma-emu", config, new NicPacer(link, DEFAULT_LATENCY_NANOS));
    }
}
