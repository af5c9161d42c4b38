package dev.kvlab.harness.report;

/**
 * What each transport copies per transfer ("zero-copy has edges"), for the report. Live transports move real
 * bytes; the text mirrors each transfer engine's {@code copySemantics()}. A sim link or calibrated profile moves
 * no bytes: a transfer's time comes from the transport model.
 */
final class TransportCopies {

    private TransportCopies() {}

    /** The statement for transport {@code name} in a cell of {@code mode}. */
    static String of(String name, String mode) {
        String n = name == null ? "" : name.strip().toLowerCase(java.util.Locale.ROOT);
        boolean live = "live".equals(mode);
        String what = switch (n) {
            case "local" ->
                "one CPU memory copy between the initiator's buffer and the target segment, in process (no kernel, no socket)";
            case "tcp" ->
                "READ: target segment → kernel socket buffer → initiator buffer; WRITE: the reverse (2 CPU copies + the kernel TCP stack; no user-space staging)";
            case "shm" ->
                "one CPU memory copy by the initiator between its buffer and the target's shared-memory mapping (one-sided: the owner's CPU takes no part)";
            case "rdma-emu" ->
                "EMULATED RDMA: one CPU memory copy through shared memory (as shm); completion is timed by an emulated NIC model (latency, bandwidth, links). Real RDMA would DMA with no CPU copy";
            default -> null;
        };
        if (live) return what == null ? "live transport '" + name + "'" : what;
        String model = what == null ? "link / profile " + name : name + " (modelled)";
        return "sim: no bytes move; each transfer's time comes from the transport model of " + model
                + " (latency per batch + bytes over the bandwidth left by concurrent transfers)";
    }
}
