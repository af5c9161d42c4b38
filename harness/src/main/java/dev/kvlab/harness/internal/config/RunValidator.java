package dev.kvlab.harness.internal.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvlab.harness.api.BadInputException;
import dev.kvlab.harness.api.catalog.Catalog;
import dev.kvlab.harness.api.catalog.Dtype;
import dev.kvlab.harness.api.catalog.HardwareSpec;
import dev.kvlab.harness.api.catalog.KvSizing;
import dev.kvlab.harness.api.catalog.ModelSpec;
import dev.kvlab.harness.api.catalog.Roofline;
import dev.kvlab.harness.api.config.CacheAwareRouting;
import dev.kvlab.harness.api.config.ClusterConfig;
import dev.kvlab.harness.api.config.EarlyStopConfig;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.Pd;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.config.SchedulerConfig;
import dev.kvlab.harness.api.config.SloConfig;
import dev.kvlab.harness.api.config.StoreConfig;
import dev.kvlab.harness.api.config.WorkloadConfig;
import dev.kvlab.harness.internal.CellPlan;
import dev.kvlab.harness.internal.CellSpec;
import dev.kvlab.harness.internal.WorkloadPlan;
import dev.kvlab.harness.internal.fault.FaultPlan;
import dev.kvlab.workloads.api.ArrivalSpec;
import dev.kvlab.workloads.api.Namespace;
import dev.kvlab.workloads.api.TokenCount;
import dev.kvlab.workloads.api.TraceFormat;
import dev.kvlab.workloads.api.WorkloadFormatException;
import dev.kvlab.workloads.api.WorkloadSpec;
import dev.kvlab.transport.api.ByteSize;
import dev.kvlab.transport.api.DurationSpec;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.TransportModel;
import dev.kvlab.transport.api.TransportModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

    private final Function<String, String> origin;

    private RunValidator(Function<String, String> origin) {
        this.origin = origin;
    }

    /** Validates {@code c}; {@code origin} maps a dotted key to {@code FILE:LINE} (or null). */
    public static void validate(RunConfig c, Function<String, String> origin) {
        plan(c, origin);
    }

    public static CellPlan plan(RunConfig c, Function<String, String> origin) {
        return new RunValidator(origin).check(c);
    }

    /** Resolves {@code workload.trace} and {@code catalog[]} against {@code baseDir}, then the working directory. */
    public static void resolvePaths(LocatedTree t, Path baseDir) {
        JsonNode trace = t.root().at("/workload/trace");
        if (trace.isTextual()) {
            Path p = resolve(trace.asText(), baseDir, t, "/workload/trace", "workload.trace", "trace");
            ((ObjectNode) t.root().get("workload")).put("trace", p.toString());
        }
        JsonNode profile = t.root().get("transport_profile");
        if (profile != null && profile.isTextual()) {
            Path p = resolve(profile.asText(), baseDir, t, "/transport_profile", "transport_profile", "transport profile");
            t.root().put("transport_profile", p.toString());
        }
        JsonNode tr = t.root().get("transport");
        if (tr != null && tr.isTextual() && (tr.asText().contains(".yaml") || tr.asText().contains(".yml"))) {
            String text = tr.asText().strip();
            int hash = text.lastIndexOf('#');
            String file = hash >= 0 ? text.substring(0, hash) : text;
            Path p = resolve(file, baseDir, t, "/transport", "transport", "transport profile");
            t.root().put("transport", p + (hash >= 0 ? text.substring(hash) : ""));
        }
        JsonNode cat = t.root().get("catalog");
        if (cat instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                if (!a.get(i).isTextual()) continue;
                Path p = resolve(a.get(i).asText(), baseDir, t, "/catalog/" + i, "catalog[" + i + "]", "catalog");
                a.set(i, JsonNodeFactory.instance.textNode(p.toString()));
            }
        }
    }

    private static Path resolve(String text, Path baseDir, LocatedTree t, String ptr, String key, String what) {
        if (text.isBlank()) throw new BadInputException(TreeBinder.where(t, ptr) + ": key '" + key + "': empty path");
        Path p = Path.of(text);
        if (p.isAbsolute()) {
            if (!Files.exists(p)) throw new BadInputException(TreeBinder.where(t, ptr) + ": key '" + key + "': no such " + what + " file " + p);
            return p.normalize();
        }
        if (baseDir != null) {
            Path b = baseDir.resolve(p).normalize();
            if (Files.exists(b)) return b.toAbsolutePath();
        }
        Path w = p.toAbsolutePath().normalize();
        if (Files.exists(w)) return w;
        throw new BadInputException(TreeBinder.where(t, ptr) + ": key '" + key + "': no such " + what + " file '" + text + "' (looked in "
                + (baseDir != null ? baseDir.resolve(p).normalize() + " and " : "") + w + ")");
    }

    private BadInputException bad(String key, String reason) {
        String o = origin.apply(key);
        return new BadInputException((o == null ? "config" : o) + ": key '" + key + "': " + reason);
    }

    private <T> T need(String key, T v) {
        if (v == null) throw bad(key, "must be given");
        return v;
    }

    private long size(String key, String v, boolean zeroOk) {
        need(key, v);
        long n;
        try {
            n = ByteSize.parse(v);
        } catch (IllegalArgumentException e) {
            throw bad(key, e.getMessage());
        }
        if (n < 0 || (!zeroOk && n == 0)) throw bad(key, "must be " + (zeroOk ? ">= 0" : "> 0") + ", got " + v);
        return n;
    }

    /**
     * A KV capacity: a byte size ({@code 2TiB}) or tokens ({@code 3Mtok}, see {@link TokenCount}), which is
     * {@code tokens * bytesPerToken} bytes of this run's model.
     */
    private long kvSize(String key, String v, long bytesPerToken, boolean zeroOk) {
        need(key, v);
        if (!TokenCount.isTokens(v)) return size(key, v, zeroOk);
        long tokens;
        try {
            tokens = TokenCount.parse(v);
        } catch (IllegalArgumentException e) {
            throw bad(key, e.getMessage());
        }
        if (!zeroOk && tokens == 0) throw bad(key, "must be > 0, got " + v);
        try {
            return Math.multiplyExact(tokens, bytesPerToken);
        } catch (ArithmeticException e) {
            throw bad(key, v + " of " + bytesPerToken + "-byte tokens is too large");
        }
    }

    private long nanos(String key, String v, boolean zeroOk) {
        need(key, v);
        Duration d;
        try {
            d = DurationSpec.parse(v);
        } catch (IllegalArgumentException e) {
            throw bad(key, e.getMessage());
        }
        if (!zeroOk && d.isZero()) throw bad(key, "must be > 0");
        return d.toNanos();
    }

    private void fraction(String key, Double v) {
        if (v != null && !(v > 0 && v <= 1)) throw bad(key, "must be in (0, 1], got " + v);
    }

    private void atLeast(String key, long v, long min) {
        if (v < min) throw bad(key, "must be >= " + min + ", got " + v);
    }

    /**
     * Validates what every target's cell reads (mode, cache state, the workload with its warm-up, SLOs, measurement)
     * and returns it as a {@link CellSpec}; its requests' block keys are namespaced by {@code modelId}, {@code dtype}
     * and {@code layout} (with the workload's LoRA and tenant). {@link BadInputException} naming {@code origin} and the key.
     */
    public static CellSpec spec(RunConfig c, Function<String, String> origin, String modelId, String dtype, String layout) {
        return new RunValidator(origin).common(c, modelId, dtype, layout);
    }

    private CellSpec common(RunConfig c, String modelId, String dtype, String layout) {
        need("mode", c.mode());
        need("cache_state", c.cacheState());
        WorkloadPlan workload = workload(c, modelId, dtype, layout);
        if (c.warmup() == null) throw bad("warmup", "must be given");
        fraction("warmup.fraction", c.warmup().fraction());
        SloConfig slo = need("slo", c.slo());
        positive("slo.ttft_ms", slo.ttftMs());
        positive("slo.tpot_ms", slo.tpotMs());
        positive("slo.tbt_ms", slo.tbtMs());
        positive("slo.e2el_ms", slo.e2elMs());
        long interval = nanos("measurement.interval", need("measurement", c.measurement()).interval(), false);
        EarlyStopConfig es = need("measurement.early_stop", c.measurement().earlyStop());
        if (!(es.target() >= 0 && es.target() <= 1)) throw bad("measurement.early_stop.target", "must be in [0, 1] (0 = off), got " + es.target());
        if (es.enabled()) atLeast("measurement.early_stop.min_requests", es.minRequests(), 1);
        if (interval < 1_000_000L) throw bad("measurement.interval", "must be >= 1ms");
        return new CellSpec(c, workload, workload.blockTokens(), interval);
    }

    /**
     * {@link #plan} with the model, hardware and KV dtype given instead of looked up from the config's catalog: the
     * sim twin of a real engine runs on the engine's own shape and its calibrated "hardware" (the config's
     * {@code model}, {@code hardware}, {@code efficiency} and {@code kv_dtype} are not read).
     */
    public static CellPlan plan(RunConfig c, Function<String, String> origin, ModelSpec model, HardwareSpec hw, Dtype kvDtype) {
        RunValidator v = new RunValidator(origin);
        v.need("kv_dtype", kvDtype);
        return v.check(c, model, hw, kvDtype);
    }

    private CellPlan check(RunConfig c) {
        need("mode", c.mode());
        need("cache_state", c.cacheState());
        need("tiers", c.tiers());
        need("policy", c.policy());
        need("pd", c.pd());
        need("kv_dtype", c.kvDtype());
        Catalog catalog;
        try {
            catalog = Catalog.load(c.catalog().stream().map(Path::of).toList());
        } catch (BadInputException e) {
            throw bad("catalog", e.getMessage());
        }
        ModelSpec model;
        HardwareSpec hw;
        try {
            model = catalog.model(need("model", c.model()));
        } catch (BadInputException e) {
            throw bad("model", e.getMessage());
        }
        try {
            hw = catalog.hardware(need("hardware", c.hardware()));
        } catch (BadInputException e) {
            throw bad("hardware", e.getMessage());
        }
        if (c.efficiency() != null) {
            fraction("efficiency.prefill_mfu", c.efficiency().prefillMfu());
            fraction("efficiency.decode_bandwidth_utilization", c.efficiency().decodeBandwidthUtilization());
            hw = hw.withEfficiency(c.efficiency().prefillMfu(), c.efficiency().decodeBandwidthUtilization());
        }
        return check(c, model, hw, c.kvDtype());
    }

    private CellPlan check(RunConfig c, ModelSpec model, HardwareSpec hw, Dtype kvDtype) {
        Mode mode = need("mode", c.mode());
        need("cache_state", c.cacheState());
        need("tiers", c.tiers());
        need("policy", c.policy());
        Pd pd = need("pd", c.pd());
        ClusterConfig cl = need("cluster", c.cluster());
        atLeast("cluster.instances", cl.instances(), 1);
        if (cl.instances() > 4096) throw bad("cluster.instances", "must be <= 4096, got " + cl.instances());
        atLeast("cluster.tp", cl.tp(), 1);
        if (cl.tp() > 1024) throw bad("cluster.tp", "must be <= 1024, got " + cl.tp());
        need("cluster.router", cl.router());
        CacheAwareRouting ca = need("cluster.cache_aware", cl.cacheAware());
        if (!(ca.cacheThreshold() >= 0 && ca.cacheThreshold() <= 1))
            throw bad("cluster.cache_aware.cache_threshold", "must be in [0, 1], got " + ca.cacheThreshold());
        atLeast("cluster.cache_aware.balance_abs_threshold", ca.balanceAbsThreshold(), 0);
        if (!(ca.balanceRelThreshold() >= 1) || Double.isInfinite(ca.balanceRelThreshold()))
            throw bad("cluster.cache_aware.balance_rel_threshold", "must be a finite number >= 1, got " + ca.balanceRelThreshold());
        if (cl.prefillInstances() < 0 || cl.prefillInstances() >= Math.max(1, cl.instances()))
            throw bad("cluster.prefill_instances", "must be in [0, instances - 1] (0 = half), got " + cl.prefillInstances());
        if (pd == Pd.DISAGGREGATED && cl.instances() < 2) throw bad("pd", "disaggregated needs cluster.instances >= 2 (prefill and decode)");
        KvSizing kv;
        try {
            kv = KvSizing.of(model, kvDtype, cl.tp());
        } catch (IllegalArgumentException e) {
            throw bad("cluster.tp", e.getMessage());
        }
        SchedulerConfig s = need("scheduler", c.scheduler());
        atLeast("scheduler.max_batch_tokens", s.maxBatchTokens(), 1);
        atLeast("scheduler.max_running", s.maxRunning(), 1);
        fraction("scheduler.kv_memory_fraction", s.kvMemoryFraction());
        CellSpec common = common(c, model.id(), kvDtype.toString(), "tp" + cl.tp());
        WorkloadPlan workload = common.workload();
        int blockTokens = workload.blockTokens();

        double weightsPerRank = model.parameters() * model.weightDtype().bytes() / cl.tp();
        double usable = hw.hbmCapacity() * s.kvMemoryFraction();
        long hbmBlocks = (long) Math.floor((usable - weightsPerRank) / kv.blockBytesPerRank(blockTokens));
        if (hbmBlocks < 1)
            throw bad("cluster.tp", String.format(Locale.ROOT, "%s weights (%s per GPU at tp %d) leave no room for one KV block in %s of %s HBM "
                    + "(kv_memory_fraction %.2f): raise cluster.tp", model.id(), ByteSize.format((long) weightsPerRank), cl.tp(),
                    ByteSize.format(hw.hbmCapacity()), hw.id(), s.kvMemoryFraction()));

        // per instance, over all its ranks (3Mtok = 3M tokens' KV as the instance's GPUs hold it)
        long dram = kvSize("local.dram_capacity", need("local", c.local()).dramCapacity(), kv.bytesPerTokenAllRanks(), true);
        long dramBlocks = dram / (kv.bytesPerTokenAllRanks() * blockTokens);

        StoreConfig st = need("store", c.store());
        String backend = need("store.backend", st.backend());
        if (!backend.equals("bundled") && !backend.startsWith("kvlab://"))
            throw bad("store.backend", "must be bundled or kvlab://HOST:PORT, got '" + backend + "'");
        if (mode == Mode.SIM && !backend.equals("bundled"))
            throw bad("store.backend", "is not used by the sim clock (it models the bundled store under virtual time); '" + backend
                    + "' needs mode: live");
        atLeast("store.nodes", st.nodes(), 1);
        if (st.nodes() > 1024) throw bad("store.nodes", "must be <= 1024");
        long cap = kvSize("store.capacity", st.capacity(), kv.bytesPerToken(), false); // the store holds KV once
        if (cap / st.nodes() < kv.blockBytes(blockTokens))
            throw bad("store.capacity", "each of the " + st.nodes() + " nodes gets " + ByteSize.format(cap / st.nodes())
                    + ", less than one KV block (" + ByteSize.format(kv.blockBytes(blockTokens)) + ")");
        if (cap / st.nodes() > dev.kvlab.store.api.master.StoreMaster.MAX_SEGMENT_BYTES)
            throw bad("store.capacity", "each of the " + st.nodes() + " nodes would get " + ByteSize.format(cap / st.nodes())
                    + ", more than a store segment can be (" + ByteSize.format(dev.kvlab.store.api.master.StoreMaster.MAX_SEGMENT_BYTES)
                    + "); lower store.capacity or raise store.nodes");
        atLeast("store.replicas", st.replicas(), 1);
        if (st.replicas() > st.nodes()) throw bad("store.replicas", "must be <= store.nodes (" + st.nodes() + "), got " + st.replicas());
        long lease = nanos("store.lease_ttl", st.leaseTtl(), false);
        fraction("store.high_watermark", st.highWatermark());
        fraction("store.eviction_ratio", st.evictionRatio());
        long lookup = nanos("store.lookup_latency", st.lookupLatency(), true);
        atLeast("store.write_back_concurrency", st.writeBackConcurrency(), 1);
        if (st.writeBackConcurrency() > 64) throw bad("store.write_back_concurrency", "must be <= 64");
        atLeast("store.write_back_queue_blocks", st.writeBackQueueBlocks(), 0);

        String transport = need("transport", c.transport()).strip().toLowerCase(Locale.ROOT);
        LinkSpec link;
        try {
            link = LinkSpec.parse(need("link", c.link()));
        } catch (IllegalArgumentException e) {
            throw bad("link", e.getMessage());
        }
        String transportName = null;
        TransportModel tm;
        if (LIVE_TRANSPORTS.contains(transport)) {
            transportName = transport;
            if (c.transportProfile() != null) {
                try {
                    tm = TransportModels.load(Path.of(c.transportProfile())).model(transport);
                } catch (RuntimeException e) {
                    throw bad("transport_profile", e.getMessage());
                }
            } else {
                tm = TransportModels.fromLink(instanceLink(link, cl.tp()));
            }
        } else if (mode == Mode.LIVE) {
            throw bad("transport", "a live run needs a real transport: one of " + String.join(", ", LIVE_TRANSPORTS) + ", got '" + c.transport() + "'");
        } else {
            try {
                if (transport.contains(".yaml") || transport.contains(".yml")) {
                    tm = TransportModels.resolve(c.transport(), null);
                } else {
                    link = LinkSpec.parse(transport);
                    tm = TransportModels.fromLink(instanceLink(link, cl.tp()));
                }
            } catch (RuntimeException e) {
                throw bad("transport", "neither a transport (" + String.join(", ", LIVE_TRANSPORTS) + "), a link nor a profile: " + e.getMessage());
            }
        }
        long interval = common.intervalNanos();
        long spin = nanos("live.spin", need("live", c.live()).spin(), true);
        atLeast("live.io_threads", c.live().ioThreads(), 1);
        if (c.live().ioThreads() > 256) throw bad("live.io_threads", "must be <= 256");

        if (mode == Mode.LIVE && backend.equals("bundled")) {
            long ram = physicalMemory();
            // the embedded store's segments, plus transfer buffers (LiveStore: (io threads + writers of every instance) x 4 blocks) and PD staging
            long buffers = (long) (c.live().ioThreads() + (long) cl.instances() * st.writeBackConcurrency()) * 4 * kv.blockBytes(blockTokens)
                    * (pd == Pd.DISAGGREGATED ? 2 : 1);
            if (ram > 0 && cap + buffers > ram / 2)
                throw bad("store.capacity", "a live run keeps the embedded store in this machine's memory: " + ByteSize.format(cap)
                        + " of segments plus " + ByteSize.format(buffers) + " of transfer buffers is more than half of its "
                        + ByteSize.format(ram) + " (try --set store.capacity=2GiB; `kvlab plan` shows what fits)");
        }
        FaultPlan.of(c, lease, this::bad); // the fault keys (fault, fault_at, fault_params)

        Roofline roof = new Roofline(model, hw, kv);
        return new CellPlan(c, model, hw, kv, roof, workload, blockTokens, hbmBlocks, dramBlocks, cap, lease, lookup, interval, spin, link,
                transportName, tm);
    }

    /** An instance's link: each of its TP GPUs has the per-GPU link. */
    private static LinkSpec instanceLink(LinkSpec perGpu, int tp) {
        return new LinkSpec(perGpu.links() * tp, perGpu.bitsPerSecondPerLink(), perGpu.latency());
    }

    private WorkloadPlan workload(RunConfig c, String modelId, String dtype, String layout) {
        WorkloadConfig w = need("workload", c.workload());
        boolean gen = w.generator() != null && !w.generator().isNull();
        if ((w.trace() == null) == !gen)
            throw bad("workload", "give exactly one of workload.trace (a Mooncake trace) or workload.generator");
        atLeast("workload.limit", w.limit(), 0);
        atLeast("workload.block_tokens", w.blockTokens(), 0);
        atLeast("workload.passes", w.passes(), 1);
        if (!gen && w.passes() != 1) throw bad("workload.passes", "applies to generators; a trace is replayed once (workload.limit cuts it)");
        if (w.tenant() == null || w.tenant().isBlank()) throw bad("workload.tenant", "must be a non-empty name");
        if (w.lora() == null || w.lora().isBlank()) throw bad("workload.lora", "must be a non-empty name (none for no adapter)");
        ArrivalSpec arrival = need("workload.arrival", w.arrival());
        try {
            arrival.validate("workload.arrival");
        } catch (WorkloadFormatException e) {
            throw bad("workload.arrival", e.getMessage());
        }
        WorkloadSpec spec;
        if (gen) {
            if (!w.generator().isObject()) throw bad("workload.generator", "must be a mapping with a kind (" + String.join(", ", WorkloadSpec.KINDS) + ")");
            if (w.limit() != 0) throw bad("workload.limit", "applies to traces; a generator's size is set by its own fields");
            if (w.blockTokens() != 0) throw bad("workload.block_tokens", "applies to traces; give workload.generator.block_tokens");
            ObjectNode fields = ((ObjectNode) w.generator()).deepCopy();
            JsonNode kind = fields.remove("kind");
            Class<? extends WorkloadSpec> type;
            try {
                type = WorkloadSpec.kindOf(kind == null || kind.isNull() ? null : kind.asText());
            } catch (WorkloadFormatException e) {
                throw bad("workload.generator.kind", e.getMessage());
            }
            spec = BINDER.bindNode(fields, type, "workload.generator", origin);
        } else {
            spec = new WorkloadSpec.Trace(w.trace(), w.blockTokens(), false, w.limit());
        }
        try {
            spec.validate("workload");
        } catch (WorkloadFormatException e) {
            throw bad(gen ? "workload.generator" : "workload", e.getMessage());
        }
        int blockTokens = spec.blockTokens() == 0 ? TraceFormat.MOONCAKE_BLOCK_TOKENS : spec.blockTokens();
        Namespace ns = new Namespace(modelId, dtype, layout, w.lora(), w.tenant());
        return new WorkloadPlan(spec, arrival, ns, blockTokens, w.passes());
    }

    private static long physicalMemory() {
        try {
            if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
                return os.getTotalMemorySize();
        } catch (RuntimeException | LinkageError e) {
            // unknown: do not guess
        }
        return 0;
    }

    private void positive(String key, Double v) {
        if (v != null && !(v > 0 && Double.isFinite(v))) throw bad(key, "must be > 0 (or null for no SLO), got " + v);
    }
}
