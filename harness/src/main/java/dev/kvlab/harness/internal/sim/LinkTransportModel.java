package dev.kvlab.harness.internal.sim;

import dev.kvlab.harness.api.catalog.Breakeven;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportModel;

/**
 * A link as a transport model: one latency per batch plus the bytes over the bandwidth left by the sharers
 * (fair share). Emulated. Used until the transport module provides its models.
 */
public final class LinkTransportModel implements TransportModel {

    private final LinkSpec link;
    private final double latency;

    public LinkTransportModel(LinkSpec link) {
        this.link = link;
        this.latency = (link.latency() == null ? Breakeven.DEFAULT_LATENCY : link.latency()).toNanos() / 1e9;
    }

    @Override
    public String name() {
        return link.toString();
    }

    @Override
    public boolean emulated() {
        return true;
    }

    @Override
    public double batchSeconds(long bytes, int requests, int sharers) {
        return latency + bytes * (double) Math.max(1, sharers) / link.bytesPerSecond();
    }
}
