package dev.kvlab.harness.api.catalog;

import java.util.List;
import java.util.Locale;

/**
 * One accelerator's datasheet figures plus the efficiency factors the roofline applies to them.
 *
 * @param id                         stable lower-case id, e.g. {@code h100}
 * @param name                       display name
 * @param aliases                    other accepted names
 * @param source                     where the figures come from
 * @param bf16Flops                  dense BF16 FLOP/s
 * @param fp8Flops                   dense FP8 FLOP/s, or null (no FP8 tensor cores)
 * @param hbmBandwidth               HBM bytes/s
 * @param hbmCapacity                HBM bytes
 * @param hostLinkBandwidth          GPU↔host bytes/s (PCIe), for the DRAM tier
 * @param prefillMfu                 fraction of peak FLOP/s prefill reaches, in (0, 1]
 * @param decodeBandwidthUtilization fraction of HBM bandwidth decode reaches, in (0, 1]
 * @param attention                  attention's own rate ({@link AttentionCost}), or null: at the compute rate
 * @param kvLoad                     loading fetched KV into the engine ({@link KvLoadCost}), or null: free
 * @param outputRows                 a pass's output rows beyond its first ({@link OutputRowsCost}), or null: in its
 *                                   linear work
 */
public record HardwareSpec(
        String id,
        String name,
        List<String> aliases,
        String source,
        double bf16Flops,
        Double fp8Flops,
        double hbmBandwidth,
        long hbmCapacity,
        double hostLinkBandwidth,
        double prefillMfu,
        double decodeBandwidthUtilization,
        AttentionCost attention,
        KvLoadCost kvLoad,
        OutputRowsCost outputRows) {

    /** Without a measured cost of output rows (every entry but a calibrated engine's). */
    public HardwareSpec(
            String id,
            String name,
            List<String> aliases,
            String source,
            double bf16Flops,
            Double fp8Flops,
            double hbmBandwidth,
            long hbmCapacity,
            double hostLinkBandwidth,
            double prefillMfu,
            double decodeBandwidthUtilization,
            AttentionCost attention,
            KvLoadCost kvLoad) {
        this(
                id,
                name,
                aliases,
                source,
                bf16Flops,
                fp8Flops,
                hbmBandwidth,
                hbmCapacity,
                hostLinkBandwidth,
                prefillMfu,
                decodeBandwidthUtilization,
                attention,
                kvLoad,
                null);
    }

    /** A datasheet entry: attention at the compute rate, fetched KV loaded for free. */
    public HardwareSpec(
            String id,
            String name,
            List<String> aliases,
            String source,
            double bf16Flops,
            Double fp8Flops,
            double hbmBandwidth,
            long hbmCapacity,
            double hostLinkBandwidth,
            double prefillMfu,
            double decodeBandwidthUtilization) {
        this(
                id,
                name,
                aliases,
                source,
                bf16Flops,
                fp8Flops,
                hbmBandwidth,
                hbmCapacity,
                hostLinkBandwidth,
                prefillMfu,
                decodeBandwidthUtilization,
                null,
                null);
    }

    public HardwareSpec {
        if (id == null || id.isBlank()) throw new IllegalArgumentException("hardware needs an id");
        id = id.strip().toLowerCase(Locale.ROOT);
        if (name == null || name.isBlank()) name = id;
        aliases = aliases == null ? List.of() : List.copyOf(aliases);
        if (source == null) source = "";
        if (!(bf16Flops > 0)) throw new IllegalArgumentException("hardware " + id + ": bf16_flops must be > 0");
        if (fp8Flops != null && !(fp8Flops > 0))
            throw new IllegalArgumentException("hardware " + id + ": fp8_flops must be > 0");
        if (!(hbmBandwidth > 0)) throw new IllegalArgumentException("hardware " + id + ": hbm_bandwidth must be > 0");
        if (hbmCapacity <= 0) throw new IllegalArgumentException("hardware " + id + ": hbm_capacity must be > 0");
        if (!(hostLinkBandwidth > 0))
            throw new IllegalArgumentException("hardware " + id + ": host_link_bandwidth must be > 0");
        fraction(id, "prefill_mfu", prefillMfu);
        fraction(id, "decode_bandwidth_utilization", decodeBandwidthUtilization);
    }

    static void fraction(String id, String what, double v) {
        if (!(v > 0 && v <= 1))
            throw new IllegalArgumentException("hardware " + id + ": " + what + " must be in (0, 1], got " + v);
    }

    /** Dense FLOP/s for weights of {@code dtype} (FP8 weights use FP8 tensor cores where the GPU has them). */
    public double flopsFor(Dtype weights) {
        return weights == Dtype.FP8 && fp8Flops != null ? fp8Flops : bf16Flops;
    }

    /** The same hardware with {@code cost} as its attention's (null: attention at the compute rate). */
    public HardwareSpec withAttention(AttentionCost cost) {
        return with(prefillMfu, decodeBandwidthUtilization, cost, outputRows);
    }

    /** The same GPU with other efficiency factors (null keeps the catalog's). */
    public HardwareSpec withEfficiency(Double mfu, Double bandwidthUtilization) {
        return with(
                mfu == null ? prefillMfu : mfu,
                bandwidthUtilization == null ? decodeBandwidthUtilization : bandwidthUtilization,
                attention,
                outputRows);
    }

    private HardwareSpec with(double mfu, double bandwidthUtilization, AttentionCost cost, OutputRowsCost rows) {
        return new HardwareSpec(
                id,
                name,
                aliases,
                source,
                bf16Flops,
                fp8Flops,
                hbmBandwidth,
                hbmCapacity,
                hostLinkBandwidth,
                mfu,
                bandwidthUtilization,
                cost,
                kvLoad,
                rows);
    }

    /**
     * The same hardware {@code ratio} times slower (faster below 1): peak compute and memory rates divided by it, the
     * efficiencies, attention's cost relative to them and the loading of fetched KV as they are.
     */
    public HardwareSpec slowerBy(double ratio) {
        if (!(ratio > 0) || !Double.isFinite(ratio))
            throw new IllegalArgumentException("a step time ratio must be finite and > 0, not " + ratio);
        return new HardwareSpec(
                id,
                name,
                aliases,
                source,
                bf16Flops / ratio,
                fp8Flops == null ? null : fp8Flops / ratio,
                hbmBandwidth / ratio,
                hbmCapacity,
                hostLinkBandwidth,
                prefillMfu,
                decodeBandwidthUtilization,
                attention,
                kvLoad,
                outputRows == null
                        ? null
                        : new OutputRowsCost(outputRows.secondRowSeconds() * ratio, outputRows.rowSeconds() * ratio));
    }

    /** The same hardware with {@code cost} as its output rows' (null: priced in the pass's linear work). */
    public HardwareSpec withOutputRows(OutputRowsCost cost) {
        return with(prefillMfu, decodeBandwidthUtilization, attention, cost);
    }

    public boolean answersTo(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.equals(id) || t.equals(name.toLowerCase(Locale.ROOT))) return true;
        for (String a : aliases) if (t.equals(a.toLowerCase(Locale.ROOT))) return true;
        return false;
    }
}
