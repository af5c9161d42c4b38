package dev.kvlab.store.api;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Options for opening a backend; a backend ignores what does not apply to it.
 *
 * @param transport     data-plane transport for the bundled store: {@code tcp}, {@code shm}, {@code rdma-emu}, {@code local} [tcp]
 * @param verifyContent also check that fetched bytes are the content their key must hold ({@link KeyedPayload}) [false]
 * @param tenant        namespace the client is confined to; keys of other tenants are invisible [default]
 * @param nodes         storage nodes of an embedded ({@code bundled}) cluster [2]
 * @param segmentBytes  segment size each embedded node contributes [256 MiB]
 * @param timeout       per-operation timeout [5 s]
 * @param extra         backend-specific settings (documented by each backend)
 * @param master        settings of the master a backend starts itself ({@code bundled}: the embedded cluster's), or null
 *                      for its defaults; a backend that connects to a running master ignores it
 */
public record BackendOptions(
        String transport,
        boolean verifyContent,
        String tenant,
        int nodes,
        long segmentBytes,
        Duration timeout,
        Map<String, String> extra,
        MasterConfig master) {

    public BackendOptions {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(timeout, "timeout");
        if (nodes < 1) throw new IllegalArgumentException("nodes must be >= 1, got " + nodes);
        if (segmentBytes <= 0) throw new IllegalArgumentException("segmentBytes must be > 0, got " + segmentBytes);
        extra = Map.copyOf(extra == null ? Map.of() : extra);
    }

    public static BackendOptions defaults() {
        return new BackendOptions("tcp", false, "default", 2, 256L << 20, Duration.ofSeconds(5), Map.of(), null);
    }

    public BackendOptions withTransport(String v) {
        return new BackendOptions(v, verifyContent, tenant, nodes, segmentBytes, timeout, extra, master);
    }

    public BackendOptions withVerifyContent(boolean v) {
        return new BackendOptions(transport, v, tenant, nodes, segmentBytes, timeout, extra, master);
    }

    public BackendOptions withTenant(String v) {
        return new BackendOptions(transport, verifyContent, v, nodes, segmentBytes, timeout, extra, master);
    }

    public BackendOptions withNodes(int v) {
        return new BackendOptions(transport, verifyContent, tenant, v, segmentBytes, timeout, extra, master);
    }

    public BackendOptions withSegmentBytes(long v) {
        return new BackendOptions(transport, verifyContent, tenant, nodes, v, timeout, extra, master);
    }

    public BackendOptions withTimeout(Duration v) {
        return new BackendOptions(transport, verifyContent, tenant, nodes, segmentBytes, v, extra, master);
    }

    public BackendOptions withExtra(Map<String, String> v) {
        return new BackendOptions(transport, verifyContent, tenant, nodes, segmentBytes, timeout, v, master);
    }

    public BackendOptions withMaster(MasterConfig v) {
        return new BackendOptions(transport, verifyContent, tenant, nodes, segmentBytes, timeout, extra, v);
    }
}
