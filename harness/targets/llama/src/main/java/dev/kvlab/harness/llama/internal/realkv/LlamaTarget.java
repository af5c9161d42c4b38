package dev.kvlab.harness.llama.internal.realkv;

import dev.kvlab.harness.Gguf;
import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.RouterKind;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.config.TargetKind;
import dev.kvlab.harness.api.gguf.GgufModelInfo;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.TreeBinder;
import dev.kvlab.harness.llama.api.EngineUnavailableException;
import dev.kvlab.harness.llama.internal.LlamaLibrary;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.StorePlan;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.harness.spi.TargetProvider;
import dev.kvlab.workloads.api.TokenCount;
import java.io.IOException;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@code llama.cpp} target: llama.cpp's library in this process serves a live cell on a GGUF model
 * ({@link LlamaCell}), and the tiers move its real KV: {@code local} is each instance's own prefix cache (the KV
 * cells of recent prompts' full blocks its context keeps, least recently used evicted by block; {@code
 * target.local_capacity}), {@code remote} kvlab's store over the configured transport. Each instance serves
 * {@code target.sequences} requests at once by continuous batching ({@link EngineInstance}). It reads the workload, warm-up, cache state, SLOs,
 * measurement, the instance count and router, the store, transport, tiers, policy, faults, and prefill/decode
 * disaggregation ({@code pd}, {@code cluster.prefill_instances}, {@code pd_transfer}: the prefill instances hand each
 * prompt's KV to a decode instance, {@link PdHandover}); the emulated model's keys (model, hardware, scheduler, link,
 * ...) are not its own and are refused when given.
 */
public final class LlamaTarget implements TargetProvider {

    static final String KIND = TargetKind.LLAMA;
    private static final Set<String> USES = Set.of(
            ConfigKeys.MODE,
            ConfigKeys.SEED,
            ConfigKeys.WORKLOAD,
            ConfigKeys.WARMUP,
            ConfigKeys.CACHE_STATE,
            ConfigKeys.SLO,
            ConfigKeys.MEASUREMENT,
            ConfigKeys.CLUSTER,
            "store.backend",
            "store.nodes",
            "store.capacity",
            "store.replicas",
            "store.lease_ttl",
            "store.high_watermark",
            "store.eviction_ratio",
            ConfigKeys.TRANSPORT,
            ConfigKeys.TIERS,
            ConfigKeys.POLICY,
            ConfigKeys.FAULT,
            ConfigKeys.FAULT_AT,
            ConfigKeys.FAULT_PARAMS,
            ConfigKeys.PD,
            ConfigKeys.PD_TRANSFER);
    private static final TreeBinder BINDER = new TreeBinder();

    /** The columns only this target produces ({@link LlamaColumns}). */
    @Override
    public dev.kvlab.harness.api.ColumnSet columns() {
        return LlamaColumns.SET;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String describe() {
        return "llama.cpp in-process on a GGUF model (real CPU prefill and decode), its KV blocks in kvlab's store";
    }

    @Override
    public boolean uses(String key) {
        for (String k = key; ; ) {
            if (USES.contains(k)) return true;
            int dot = k.lastIndexOf('.');
            if (dot < 0) return false;
            k = k.substring(0, dot);
        }
    }

    static LlamaTargetConfig.Resolved target(RunConfig c, Function<String, String> origin) {
        return BINDER.bindNode(c.target(), LlamaTargetConfig.class, "target", origin)
                .resolve(origin);
    }

    /** The cell's workload with block keys chained from {@code modelId} and {@code dtype}. */
    static CellSpec spec(RunConfig c, Function<String, String> origin, String modelId, String dtype) {
        return TargetFramework.get().spec(c, origin, modelId, dtype, "llama.cpp");
    }

    private static BadInputException bad(Function<String, String> origin, String key, String why) {
        String o = origin.apply(key);
        return new BadInputException((o == null ? "config" : o) + ": key '" + key + "': " + why);
    }

    @Override
    public void validate(RunConfig c, Function<String, String> origin) {
        if (c.mode() != Mode.LIVE)
            throw bad(origin, "mode", "the llama.cpp target runs a real engine on the live clock: set mode: live");
        LlamaTargetConfig.Resolved t = target(c, origin);
        CellSpec probe = spec(c, origin, "probe", "f16");
        if (t.localCapacity().blocks()
                && t.localCapacity().tokens(probe.blockTokens()) > LlamaTargetConfig.MAX_LOCAL_TOKENS)
            throw bad(
                    origin,
                    "target.local_capacity",
                    t.localCapacity() + " of " + probe.blockTokens() + " tokens is more than "
                            + LlamaTargetConfig.MAX_LOCAL_TOKENS + " tokens (the KV cells a context keeps)");
        StorePlan sp = storePlan(c, origin);
        decodeHost(c, origin, sp);
        var cl = c.cluster();
        if (cl.tp() != 1)
            throw bad(
                    origin,
                    "cluster.tp",
                    "an instance of the llama.cpp target is one context on the CPU: tp must be 1");
        if (cl.prefillInstances() != 0 && c.pd() != dev.kvlab.harness.api.config.Pd.DISAGGREGATED)
            throw bad(
                    origin,
                    "cluster.prefill_instances",
                    "is used only with pd: disaggregated (how many instances only prefill)");
        if (c.pd() == dev.kvlab.harness.api.config.Pd.DISAGGREGATED && LlamaCell.prefillInstances(c) >= cl.instances())
            throw bad(
                    origin,
                    "cluster.prefill_instances",
                    LlamaCell.prefillInstances(c) + " of " + cl.instances()
                            + " instances prefill: disaggregated needs a decode instance (at most instances - 1)");
        if (cl.router() == RouterKind.KV_CENTRIC)
            throw bad(
                    origin,
                    "cluster.router",
                    "kv-centric is not served by the llama.cpp target (round-robin | random | least-loaded | cache-aware)");
        if (TokenCount.isTokens(c.store().capacity()))
            throw bad(
                    origin,
                    "store.capacity",
                    "give bytes (256MiB) for the llama.cpp target: a token count would be sized by the emulated model");
        Double price = BINDER.bindNode(c.target(), LlamaTargetConfig.class, "target", origin)
                .pricePerHour();
        if (price != null && !(price >= 0 && price < 1e9))
            throw bad(
                    origin,
                    "target.price_per_hour",
                    "must be a number in [0, 1e9) (per instance and hour), got " + price);
        GgufModelInfo info;
        try {
            info = Gguf.read(t.model());
        } catch (IOException | RuntimeException e) {
            throw bad(origin, "target.model", t.model() + " is not a GGUF model kvlab can read: " + e.getMessage());
        }
        int[] most = WorkloadExtent.of(probe);
        // as vLLM refuses a request past max_model_len: positions the model was not built for are not a measurement of
        // it
        if (info.contextLength() > 0 && (long) most[0] + most[1] > info.contextLength())
            throw bad(
                    origin,
                    "workload",
                    "its longest request needs " + most[0] + " prompt + " + most[1] + " output tokens, more than "
                            + t.model().getFileName() + "'s context of " + info.contextLength()
                            + " tokens (llama.context_length)");
        try {
            LlamaLibrary.load();
        } catch (EngineUnavailableException e) {
            throw bad(origin, "target.kind", "llama.cpp is not available: " + e.getMessage());
        }
    }

    /** The run's store, transport and fault settings, validated as for every live cell (the emulated model in it is not used). */
    /** {@code target.decode_netns} (null: none). */
    static String decodeNetns(RunConfig c) {
        return BINDER.bindNode(c.target(), LlamaTargetConfig.class, "target", k -> null)
                .decodeNetns();
    }

    /** Refuses {@code target.decode_netns} where no handed-over byte would cross its link, or where it cannot be entered. */
    private static void decodeHost(RunConfig c, Function<String, String> origin, StorePlan sp) {
        String host = decodeNetns(c);
        if (host == null) return;
        if (c.pd() != dev.kvlab.harness.api.config.Pd.DISAGGREGATED
                || LlamaCell.pdTransfer(c) != dev.kvlab.harness.api.config.PdTransfer.DIRECT)
            throw bad(
                    origin,
                    "target.decode_netns",
                    "is used only with pd: disaggregated and pd_transfer: direct (the decode instances' receive "
                            + "segments are served from it); the store path crosses the hosts of its store: run kvlab "
                            + "in a netns cluster's client host against that store (store.backend: kvlab://...)");
        if (!"tcp".equals(sp.transportName()))
            throw bad(
                    origin,
                    "target.decode_netns",
                    "needs transport: tcp (" + sp.transportName()
                            + "'s segments are memory shared on this machine: no byte would cross the namespace's link)");
        String why = NetNamespace.problem(host);
        if (why == null) {
            try {
                NetNamespace.address(host);
            } catch (RuntimeException e) {
                why = e.getMessage();
            }
        }
        if (why != null) throw bad(origin, "target.decode_netns", why);
    }

    private static StorePlan storePlan(RunConfig c, Function<String, String> origin) {
        return TargetFramework.get().storePlan(c, origin);
    }

    @Override
    public String noTwin(RunConfig c) {
        LlamaTargetConfig.Resolved t = target(c, k -> null);
        return t.calibrateTokens() > 0 ? null : "off (target.calibrate_tokens: 0)";
    }

    @Override
    public dev.kvlab.harness.api.twin.TwinCalibration calibrate(RunConfig c) {
        return LlamaCalibrator.calibrate(c, storePlan(c, k -> null));
    }

    @Override
    public double pricePerHour(RunConfig c) {
        Double p = BINDER.bindNode(c.target(), LlamaTargetConfig.class, "target", k -> null)
                .pricePerHour();
        return p == null ? Double.NaN : p * c.cluster().instances();
    }

    @Override
    public String calibrationKey(RunConfig c) {
        // the engine and its scheduling (the target block, the workload's largest request and block size) and the store
        // path
        return c.target() + "|" + c.transport() + "|" + c.store() + "|" + c.workload() + "|" + c.cluster() + "|"
                + c.tiers().local() + "|" + c.tiers().remote();
    }

    @Override
    public CellResult run(RunConfig c, long wallStartNanos, CellObserver observer) {
        LlamaTargetConfig.Resolved t = target(c, k -> null);
        GgufModelInfo info;
        try {
            info = Gguf.read(t.model());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        LlamaCell cell = new LlamaCell(c, storePlan(c, k -> null), t, info);
        return cell.withTwin(cell.run(wallStartNanos, observer));
    }
}
