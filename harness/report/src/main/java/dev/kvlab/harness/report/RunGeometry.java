package dev.kvlab.harness.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.api.catalog.Catalog;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.config.TargetKind;
import dev.kvlab.harness.core.RunValidator;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportModel;
import dev.kvlab.transport.api.TransportModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a cell's resolved config says about the GPU side and the link, resolved the way the run resolved it:
 * the catalog model and hardware (with efficiency overrides), KV sizing, the roofline, and the transport model an
 * instance's fetch is costed with (a link per GPU × TP, or a calibrated profile). Read from the bundle's config
 * tree, not re-validated: an archived bundle whose trace is gone still reports.
 *
 * @param setupKey     model, hardware, TP, dtype and efficiency: cells with equal keys share a recompute curve
 * @param setupLabel   e.g. {@code llama-3-8b on 1× h100, bf16 KV}
 * @param roofline     the GPU time model of one instance
 * @param blockTokens  tokens per KV block
 * @param linkLabel    the link as the run named it, e.g. {@code 4x200gbps} or {@code tcp (profile lab.yaml)}
 * @param fetch        what fetching costs on one instance
 */
record RunGeometry(
        String setupKey,
        String setupLabel,
        Roofline roofline,
        int blockTokens,
        String linkLabel,
        TransportModel fetch) {

    /** Seconds to fetch the KV of {@code tokens} prompt tokens into one instance, alone on its link. */
    double fetchSeconds(long tokens) {
        long blocks = Math.max(1, (tokens + blockTokens - 1) / blockTokens);
        return fetch.batchSeconds(
                tokens * roofline.kv().bytesPerTokenAllRanks(), (int) Math.min(Integer.MAX_VALUE, blocks), 1);
    }

    /** Seconds to recompute (prefill) {@code tokens} tokens alone on the instance's GPUs. */
    double recomputeSeconds(long tokens) {
        return roofline.prefillSeconds(tokens, 0);
    }

    /** Resolves {@code config}; {@link IllegalArgumentException} saying what is missing or unknown. */
    static RunGeometry of(JsonNode config) {
        if (!config.isObject()) throw new IllegalArgumentException("the bundle holds no resolved config for the cell");
        String kind = config.path("target").path("kind").asText(TargetKind.EMULATED);
        if (!kind.equals(TargetKind.EMULATED))
            throw new IllegalArgumentException(
                    "served by the " + kind + " target, not by the catalog model its config names"
                            + (kind.equals("llama.cpp")
                                    ? " (its engine's break-even is in the section on the real engine, when the run swept it)"
                                    : ""));
        List<Path> extra = new ArrayList<>();
        for (JsonNode p : config.path("catalog")) {
            Path path = Path.of(p.asText());
            if (!Files.exists(path))
                throw new IllegalArgumentException("catalog file " + path + " is not on this machine");
            extra.add(path);
        }
        Catalog catalog = Catalogs.load(extra);
        ModelSpec model = catalog.model(text(config, "model"));
        JsonNode eff = config.path("efficiency");
        HardwareSpec hw = catalog.hardware(text(config, "hardware"))
                .withEfficiency(
                        optDouble(eff.path("prefill_mfu")), optDouble(eff.path("decode_bandwidth_utilization")));
        Dtype dtype = Dtype.parse(config.path("kv_dtype").asText("bf16"));
        int tp = config.path("cluster").path("tp").asInt(1);
        KvSizing kv = KvSizing.of(model, dtype, tp);
        Roofline roof = new Roofline(model, hw, kv);
        int bt = config.path("workload").path("block_tokens").asInt(0);
        if (bt <= 0)
            bt = config.path("workload").path("generator").path("block_tokens").asInt(0);
        if (bt <= 0) bt = 512;

        String transport = text(config, "transport").strip();
        String t = transport.toLowerCase(Locale.ROOT);
        LinkSpec link = LinkSpec.parse(config.path("link").asText("4x200gbps"));
        TransportModel tm;
        String label;
        String profile = config.path("transport_profile").isTextual()
                ? config.get("transport_profile").asText()
                : null;
        if (RunValidator.LIVE_TRANSPORTS.contains(t)) {
            if (profile != null && Files.isRegularFile(Path.of(profile))) {
                tm = TransportModels.load(Path.of(profile)).model(t);
                label = t + " (calibrated, " + Path.of(profile).getFileName() + ")";
            } else {
                tm = TransportModels.fromLink(perInstance(link, tp));
                label = t + ": estimate from link " + link + " (uncalibrated)";
            }
        } else if (t.contains(".yaml") || t.contains(".yml")) {
            tm = TransportModels.resolve(transport, null);
            label = transport;
        } else {
            link = LinkSpec.parse(transport);
            tm = TransportModels.fromLink(perInstance(link, tp));
            label = link.toString();
        }
        String key = model.id() + "|" + hw.id() + "|" + hw.prefillMfu() + "|" + hw.decodeBandwidthUtilization() + "|"
                + dtype + "|" + tp;
        String setup = model.id() + " on " + tp + "× " + hw.id() + ", "
                + dtype.toString().toLowerCase(Locale.ROOT) + " KV";
        return new RunGeometry(key, setup, roof, bt, label, tm);
    }

    private static LinkSpec perInstance(LinkSpec perGpu, int tp) {
        return new LinkSpec(perGpu.links() * tp, perGpu.bitsPerSecondPerLink(), perGpu.latency());
    }

    private static String text(JsonNode c, String key) {
        JsonNode v = c.path(key);
        if (!v.isValueNode() || v.isNull()) throw new IllegalArgumentException("the config has no " + key);
        return v.asText();
    }

    private static Double optDouble(JsonNode v) {
        if (v.isNumber()) return Double.valueOf(v.asDouble());
        if (v.isTextual()) return Double.valueOf(v.asText());
        return null;
    }
}
