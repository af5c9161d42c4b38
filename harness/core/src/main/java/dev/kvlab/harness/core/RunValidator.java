package dev.kvlab.harness.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.Catalogs;
import dev.kvlab.harness.api.catalog.Catalog;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.config.ClusterConfig;
import dev.kvlab.harness.api.config.ConfigCheck;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.Pd;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.config.SchedulerConfig;
import dev.kvlab.harness.api.config.StoreConfig;
import dev.kvlab.harness.api.config.WorkloadConfig;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.TreeBinder;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.WorkloadPlan;
import dev.kvlab.store.KvBackends;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportModel;
import dev.kvlab.transport.api.TransportModels;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.api.WorkloadFormatException;
import dev.kvlab.workloads.api.WorkloadSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Checks every value of a {@link RunConfig} before anything runs and derives the {@link CellPlan}. Errors are
 * {@link BadInputException}s naming where the value came from and the key.
 */
public final class RunValidator {

    /** Transports a live run can use. */
    public static final List<String> LIVE_TRANSPORTS = List.of("tcp", "shm", "rdma-emu", "local");

    private static final TreeBinder BINDER = new TreeBinder();

    private final ConfigCheck check;

    private RunValidator(Function<String, String> origin) {
        this.check = new ConfigCheck(origin);
    }

    /** Validates {@code c}; {@code origin} maps a dotted key to {@code FILE:LINE} (or null). */
    public static void validate(RunConfig c, Function<String, String> origin) {
        plan(c, origin);
    }

    public static CellPlan plan(RunConfig c, Function<String, String> origin) {
        return new RunValidator(origin).cellPlan(c);
    }

    private BadInputException bad(String key, String reason) {
        return check.bad(key, reason);
    }

    private <T> T need(String key, T v) {
        return check.need(key, v);
    }

    /**
     * Validates what every target's cell reads (mode, cache state, the workload with its warm-up, SLOs, measurement)
     * and returns it as a {@link CellSpec}; its requests' block keys are namespaced by {@code modelId}, {@code dtype}
     * and {@code layout} (with the workload's LoRA and tenant). {@link BadInputException} naming {@code origin} and the key.
     */
    public static CellSpec spec(
            RunConfig c, Function<String, String> origin, String modelId, String dtype, String layout) {
        return new RunValidator(origin).common(c, modelId, dtype, layout);
    }

    private CellSpec common(RunConfig c, String modelId, String dtype, String layout) {
        need("mode", c.mode());
        need(ConfigKeys.CACHE_STATE, c.cacheState());
        WorkloadPlan workload = workload(c, modelId, dtype, layout);
        need("warmup", c.warmup()).check(check);
        need("slo", c.slo()).check(check);
        long interval = need("measurement", c.measurement()).checkedIntervalNanos(check);
        return new CellSpec(c, workload, workload.blockTokens(), interval);
    }

    /**
     * {@link #plan} with the model, hardware and KV dtype given instead of looked up from the config's catalog: the
     * sim twin of a real engine runs on the engine's own shape and its calibrated "hardware" (the config's
     * {@code model}, {@code hardware}, {@code efficiency} and {@code kv_dtype} are not read).
     */
    public static CellPlan plan(
            RunConfig c, Function<String, String> origin, ModelSpec model, HardwareSpec hw, Dtype kvDtype) {
        RunValidator v = new RunValidator(origin);
        v.need("kv_dtype", kvDtype);
        v.need("mode", c.mode());
        v.needFactors(c);
        return v.cellPlan(c, model, hw, kvDtype);
    }

    private CellPlan cellPlan(RunConfig c) {
        need("mode", c.mode());
        needFactors(c);
        Catalog catalog = catalog(c);
        ModelSpec model = model(catalog, c);
        HardwareSpec hw = hardware(catalog, c);
        return cellPlan(c, model, hw, c.kvDtype());
    }

    /** The plan on the model and hardware given (mode and factors checked). */
    private CellPlan cellPlan(RunConfig c, ModelSpec model, HardwareSpec hw, Dtype kvDtype) {
        Mode mode = c.mode();
        ClusterConfig cl = cluster(c);
        KvSizing kv = kvSizing(model, kvDtype, cl);
        SchedulerConfig s = need("scheduler", c.scheduler());
        s.check(check);
        CellSpec common = common(c, model.id(), kvDtype.toString(), "tp" + cl.tp());
        WorkloadPlan workload = common.workload();
        int blockTokens = workload.blockTokens();
        long hbmBlocks = hbmBlocks(model, hw, kv, cl.tp(), s.kvMemoryFraction(), blockTokens);
        // per instance, over all its ranks (3Mtok = 3M tokens' KV as the instance's GPUs hold it)
        long dram = need("local", c.local()).checkedDramBytes(check, kv.bytesPerTokenAllRanks());
        long dramBlocks = dram / (kv.bytesPerTokenAllRanks() * blockTokens);
        long cacheBytes = c.local().checkedCacheBytes(check, kv.bytesPerTokenAllRanks());
        long cacheBlocks = cacheBytes / (kv.bytesPerTokenAllRanks() * blockTokens);
        if (cacheBytes > 0 && cacheBlocks == 0)
            throw bad(
                    "local.cache_capacity",
                    "is less than one block of " + blockTokens + " tokens: "
                            + c.local().cacheCapacity());
        StoreConfig st = need("store", c.store());
        checkBackend(need("store.backend", st.backend()), mode);
        StoreConfig.Checked store = st.check(check, kv.bytesPerToken(), kv.blockBytes(blockTokens));
        Transport transport = transport(c, mode, cl.tp());
        long spin = need("live", c.live()).checkedSpinNanos(check);
        long capacity = store.capacityBytes();
        if (mode == Mode.LIVE && st.backend().equals("bundled")) {
            // a store no tier reads or writes needs no sizing against this machine: it is opened at the least that
            // serves nothing
            if (storeUsed(c)) checkLiveMemory(c, st, kv.blockBytes(blockTokens), capacity);
            else capacity = Math.min(capacity, UNUSED_STORE_BYTES);
        }
        FaultPlan.of(c, store.leaseTtlNanos(), this::bad); // the fault keys (fault, fault_at, fault_params)

        Roofline roof = new Roofline(model, hw, kv);
        return new CellPlan(
                c,
                model,
                hw,
                kv,
                roof,
                workload,
                blockTokens,
                hbmBlocks,
                dramBlocks,
                cacheBlocks,
                capacity,
                store.leaseTtlNanos(),
                store.lookupLatencyNanos(),
                common.intervalNanos(),
                spin,
                transport.link(),
                transport.name(),
                transport.model(),
                java.util.List.of());
    }

    /** The factors every cell needs given (their values are typed by their enums). */
    private void needFactors(RunConfig c) {
        need(ConfigKeys.CACHE_STATE, c.cacheState());
        need("tiers", c.tiers());
        need("policy", c.policy());
        need("pd", c.pd());
        need("kv_dtype", c.kvDtype());
    }

    private Catalog catalog(RunConfig c) {
        try {
            return Catalogs.load(c.catalog().stream().map(Path::of).toList());
        } catch (BadInputException e) {
            throw bad("catalog", e.getMessage());
        }
    }

    private ModelSpec model(Catalog catalog, RunConfig c) {
        try {
            return catalog.model(need("model", c.model()));
        } catch (BadInputException e) {
            throw bad("model", e.getMessage());
        }
    }

    /** The catalog's hardware, with the config's efficiency factors when given. */
    private HardwareSpec hardware(Catalog catalog, RunConfig c) {
        HardwareSpec hw;
        try {
            hw = catalog.hardware(need("hardware", c.hardware()));
        } catch (BadInputException e) {
            throw bad("hardware", e.getMessage());
        }
        if (c.efficiency() == null) return hw;
        c.efficiency().check(check);
        return hw.withEfficiency(c.efficiency().prefillMfu(), c.efficiency().decodeBandwidthUtilization());
    }

    /** A backend the store's registry ({@link KvBackends}) opens; the sim clock models the bundled store only. */
    private void checkBackend(String backend, Mode mode) {
        KvBackends backends = KvBackends.discover();
        if (!backends.accepts(backend))
            throw bad(
                    "store.backend",
                    "no store backend accepts '" + backend + "' (backends: " + String.join(", ", backends.names())
                            + "; e.g. bundled or kvlab://HOST:PORT)");
        if (mode == Mode.SIM && !backend.equals("bundled"))
            throw bad(
                    "store.backend",
                    "is not used by the sim clock (it models the bundled store under virtual time); '" + backend
                            + "' needs mode: live");
    }

    /** The cluster, checked; disaggregated PD needs a prefill and a decode instance. */
    private ClusterConfig cluster(RunConfig c) {
        ClusterConfig cl = need("cluster", c.cluster());
        cl.check(check);
        if (c.pd() == Pd.DISAGGREGATED && cl.instances() < 2)
            throw bad("pd", "disaggregated needs cluster.instances >= 2 (prefill and decode)");
        if (c.pdTransfer() != null && c.pd() != Pd.DISAGGREGATED)
            throw bad(
                    "pd_transfer",
                    "is used only with pd: disaggregated (how the prefill instance hands the KV to the decode instance); this cell is "
                            + c.pd().label());
        return cl;
    }

    private KvSizing kvSizing(ModelSpec model, Dtype kvDtype, ClusterConfig cl) {
        try {
            return KvSizing.of(model, kvDtype, cl.tp());
        } catch (IllegalArgumentException e) {
            throw bad("cluster.tp", e.getMessage());
        }
    }

    /** KV blocks one rank's HBM holds after its share of the weights; at least one, else raise cluster.tp. */
    private long hbmBlocks(
            ModelSpec model, HardwareSpec hw, KvSizing kv, int tp, double kvMemoryFraction, int blockTokens) {
        double weightsPerRank = model.weightBytes() / tp;
        double usable = hw.hbmCapacity() * kvMemoryFraction;
        long hbmBlocks = (long) Math.floor((usable - weightsPerRank) / kv.blockBytesPerRank(blockTokens));
        if (hbmBlocks < 1)
            throw bad(
                    "cluster.tp",
                    String.format(
                            Locale.ROOT,
                            "%s weights (%s per GPU at tp %d) leave no room for one KV block in %s of %s HBM "
                                    + "(kv_memory_fraction %.2f): raise cluster.tp",
                            model.id(),
                            ByteSize.format((long) weightsPerRank),
                            tp,
                            ByteSize.format(hw.hbmCapacity()),
                            hw.id(),
                            kvMemoryFraction));
        return hbmBlocks;
    }

    /** The transport a cell's KV moves over: its link per GPU, its name when a live one ({@code tcp}...), its model. */
    private record Transport(LinkSpec link, String name, TransportModel model) {}

    /** A live transport (tcp, shm, rdma-emu, local); under the sim clock also a link per GPU or a calibrated profile. */
    private Transport transport(RunConfig c, Mode mode, int tp) {
        String transport = need("transport", c.transport()).strip().toLowerCase(Locale.ROOT);
        LinkSpec link;
        try {
            link = LinkSpec.parse(need("link", c.link()));
        } catch (IllegalArgumentException e) {
            throw bad("link", e.getMessage());
        }
        if (LIVE_TRANSPORTS.contains(transport))
            return new Transport(link, transport, liveTransportModel(c, transport, link, tp));
        if (mode == Mode.LIVE)
            throw bad(
                    "transport",
                    "a live run needs a real transport: one of " + String.join(", ", LIVE_TRANSPORTS) + ", got '"
                            + c.transport() + "'");
        try {
            if (transport.contains(".yaml") || transport.contains(".yml"))
                return new Transport(link, null, TransportModels.resolve(c.transport(), null));
            LinkSpec given = LinkSpec.parse(transport);
            return new Transport(given, null, TransportModels.fromLink(instanceLink(given, tp)));
        } catch (RuntimeException e) {
            throw bad(
                    "transport",
                    "neither a transport (" + String.join(", ", LIVE_TRANSPORTS) + "), a link nor a profile: "
                            + e.getMessage());
        }
    }

    /** A live transport's model: the calibrated profile's when one is given, else the link's. */
    private TransportModel liveTransportModel(RunConfig c, String transport, LinkSpec link, int tp) {
        if (c.transportProfile() == null) return TransportModels.fromLink(instanceLink(link, tp));
        try {
            return TransportModels.load(Path.of(c.transportProfile())).model(transport);
        } catch (RuntimeException e) {
            throw bad("transport_profile", e.getMessage());
        }
    }

    /** The embedded store of a live cell whose tiers use none ({@code none}, {@code local-only}, colocated, no store fault): opened this small. */
    public static final long UNUSED_STORE_BYTES = 64L << 20;

    /** Whether a cell's tiers, PD handoff or fault use the store. */
    public static boolean storeUsed(RunConfig c) {
        return c.tiers().remote()
                || c.pd() == Pd.DISAGGREGATED
                || c.fault() != null && c.fault() != dev.kvlab.harness.api.config.Fault.NONE;
    }

    /** A live run keeps the embedded store in this machine's memory: its segments and transfer buffers within half of it. */
    private void checkLiveMemory(RunConfig c, StoreConfig st, long blockBytes, long cap) {
        long ram = physicalMemory();
        // the embedded store's segments, plus transfer buffers (LiveStore: (io threads + writers of every instance) x 4
        // blocks) and PD staging
        long buffers = (long) (c.live().ioThreads() + (long) c.cluster().instances() * st.writeBackConcurrency())
                * 4
                * blockBytes
                * (c.pd() == Pd.DISAGGREGATED ? 2 : 1);
        if (ram > 0 && cap + buffers > ram / 2)
            throw bad(
                    "store.capacity",
                    "a live run keeps the embedded store in this machine's memory: " + ByteSize.format(cap)
                            + " of segments plus " + ByteSize.format(buffers)
                            + " of transfer buffers is more than half of its "
                            + ByteSize.format(ram) + " (try --set store.capacity=2GiB; `kvlab plan` shows what fits)");
    }

    /** An instance's link: each of its TP GPUs has the per-GPU link. */
    private static LinkSpec instanceLink(LinkSpec perGpu, int tp) {
        return new LinkSpec(perGpu.links() * tp, perGpu.bitsPerSecondPerLink(), perGpu.latency());
    }

    private WorkloadPlan workload(RunConfig c, String modelId, String dtype, String layout) {
        WorkloadConfig w = need("workload", c.workload());
        w.check(check);
        boolean gen = w.generated();
        WorkloadSpec spec = gen ? generator(w) : new WorkloadSpec.Trace(w.trace(), w.blockTokens(), false, w.limit());
        try {
            spec.validate("workload");
        } catch (WorkloadFormatException e) {
            throw bad(gen ? "workload.generator" : "workload", e.getMessage());
        }
        int blockTokens = spec.blockTokens() == 0 ? TraceFormat.MOONCAKE_BLOCK_TOKENS : spec.blockTokens();
        Namespace ns = new Namespace(modelId, dtype, layout, w.lora(), w.tenant());
        return new WorkloadPlan(spec, w.arrival(), ns, blockTokens, w.passes());
    }

    /** The generator block bound to the spec of its {@code kind}. */
    private WorkloadSpec generator(WorkloadConfig w) {
        ObjectNode fields = ((ObjectNode) w.generator()).deepCopy();
        JsonNode kind = fields.remove("kind");
        Class<? extends WorkloadSpec> type;
        try {
            type = WorkloadSpec.kindOf(kind == null || kind.isNull() ? null : kind.asText());
        } catch (WorkloadFormatException e) {
            throw bad("workload.generator.kind", e.getMessage());
        }
        return BINDER.bindNode(fields, type, "workload.generator", check.origin());
    }

    private static long physicalMemory() {
        try {
            if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    instanceof com.sun.management.OperatingSystemMXBean os) return os.getTotalMemorySize();
        } catch (RuntimeException | LinkageError e) {
            // unknown: do not guess
        }
        return 0;
    }
}
