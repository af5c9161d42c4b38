package dev.kvlab.harness.openai.internal;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.CellSummary;
import dev.kvlab.harness.api.Columns;
import dev.kvlab.harness.api.Figures;
import dev.kvlab.harness.api.Shard;
import dev.kvlab.harness.api.config.CacheState;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.EventLoop;
import dev.kvlab.harness.spi.LiveClock;
import dev.kvlab.harness.spi.MeasurementView;
import dev.kvlab.harness.spi.PhaseDriver;
import dev.kvlab.harness.spi.Server;
import dev.kvlab.harness.spi.TargetCell;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.workloads.Workloads;
import dev.kvlab.workloads.api.ArrivalProcess;
import dev.kvlab.workloads.api.Request;
import dev.kvlab.workloads.api.RequestSource;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One cell served by OpenAI-compatible endpoints, on the live clock, through the same steps as every cell
 * ({@link TargetFramework#run}): before them it finds single-token words on the target's tokenizer and checks the prompts'
 * token counts, carries out {@code cache_state} ({@link CacheStateProtocol}), and scrapes the engines' Prometheus
 * counters around the measured phase. Nothing is emulated: the latencies are the engines', timed from each
 * request's intended start. The harness's own cost per request is measured (the loop thread's work and the HTTP
 * client's threads' CPU) and shown.
 */
final class OpenAiCell implements TargetCell {

    /** Bounds of the spun tail before each send: as long as this machine's park overshoots, within these. */
    /** The harness's own request path runs this often on a loopback stand-in before the cell, with the workload's first requests. */
    private static final int WARMUP_ROUNDS = 400, WARMUP_REQUESTS = 16;

    private ClientWarmup.Figures selfTest;
    private static final long MIN_SPIN_NANOS = 50_000, MAX_SPIN_NANOS = 2_000_000;

    private final CellSpec spec;
    private final OpenAiConfig.Resolved target;
    private final List<Thread> httpThreads = new CopyOnWriteArrayList<>();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private LiveClock loop;
    private EngineClient client;
    private EngineServer server;
    private WordCheck.Result words;
    private CacheStateProtocol.Verdict verdict;
    private List<String> engines = new ArrayList<>();
    private final List<EngineInfo> infos = new ArrayList<>();
    private PromMetrics before = PromMetrics.NONE, after = PromMetrics.NONE;
    private long measuredStartEpochMs, workBefore, busyBefore, httpCpuBefore;
    /** What the warm-up of a hot cell's responses said about the engine's cache (null until it ran). */
    private EngineServer.Evidence warmEvidence;

    private int checkedPrompts, tokenErrorMax;
    private String tokenCheck;
    private ContextCheck.Result context;

    OpenAiCell(CellSpec spec, OpenAiConfig.Resolved target) {
        this.spec = spec;
        this.target = target;
    }

    CellResult run(long wallStartNanos, CellObserver observer) {
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = Thread.ofPlatform()
                    .name("kvlab-http-", httpThreads.size())
                    .daemon()
                    .unstarted(r);
            httpThreads.add(t);
            return t;
        });
        try (EngineClient c = new EngineClient(pool)) {
            client = c;
            URI first = target.endpoints().get(0);
            for (URI u : target.endpoints()) {
                EngineInfo info = EngineInfo.of(c, u);
                infos.add(info);
                engines.add(info.kind().label + "@" + u.getAuthority());
            }
            words = WordCheck.run(c, first, target.model());
            PromptText prompts = new PromptText(words.words(), words.specialTokens());
            List<Request> firstRequests = firstRequests(WARMUP_REQUESTS);
            checkPrompts(c, first, prompts, firstRequests);
            context = ContextCheck.run(spec, infos);
            selfTest = ClientWarmup.run(c, target, prompts, firstRequests, WARMUP_ROUNDS);
            loop = TargetFramework.get().liveClock(MIN_SPIN_NANOS, MAX_SPIN_NANOS);
            server = new EngineServer(
                    target,
                    c,
                    loop,
                    prompts,
                    infos.stream().map(EngineInfo::kind).toList());
            if (spec.config().cacheState() == CacheState.COLD && target.resetsCache())
                verdict = new CacheStateProtocol(target, c, prompts, context.longestPrompt(), context.context())
                        .cold(spec.config().seed());
            return TargetFramework.get().run(spec, this, observer, wallStartNanos);
        } finally {
            if (scraper != null) scraper.close();
        }
    }

    /** The workload's first {@code n} requests (fewer where it has fewer). */
    private List<Request> firstRequests(int n) {
        List<Request> out = new ArrayList<>();
        try (RequestSource s = Workloads.open(
                spec.workload().spec(),
                spec.workload().namespace(),
                spec.config().seed())) {
            while (out.size() < n && s.hasNext()) out.add(s.next());
        }
        return out;
    }

    /** Tokenizes the first prompts of the workload with the server's tokenizer: the counts it achieves. */
    private void checkPrompts(EngineClient c, URI u, PromptText prompts, List<Request> requests) {
        if (!words.checked()) {
            tokenCheck = "unchecked: " + words.why() + "; the server's usage.prompt_tokens per response is recorded";
            return;
        }
        for (Request r : requests.subList(0, Math.min(8, requests.size()))) {
            int got = c.tokenize(u, target.model(), prompts.of(r), true);
            if (got < 0) break;
            checkedPrompts++;
            tokenErrorMax = Math.max(tokenErrorMax, Math.abs(got - r.inputTokens()));
        }
        tokenCheck = checkedPrompts + " prompts tokenized by the server: largest difference to the workload's count "
                + tokenErrorMax + " tokens";
    }

    @Override
    public ArrivalProcess arrivals(ArrivalProcess whole) {
        return target.share() == null ? whole : new ShareOfArrivals(whole, target.share());
    }

    /** What a request-split shard other than 1 says of a cold cache: it leaves the reset to shard 1 (see {@link OpenAiConfig.Resolved#resetsCache}). */
    private String coldLeftToShardOne() {
        return "left to shard 1/" + target.share().count()
                + ": a request-split shard other than 1 does not reset (it would empty the cache the other"
                + " shards' measured requests fill)";
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public Server server() {
        return server;
    }

    @Override
    public long phaseOrigin(boolean warmup) {
        return loop.now() + 5_000_000L;
    }

    @Override
    public boolean serverGone() {
        return server.down();
    }

    @Override
    public void runPhase(PhaseDriver d) {
        loop.run(() -> (d.done() || d.error() != null) && server.inFlight() == 0);
        if (warmEvidence == null && spec.config().cacheState() == CacheState.HOT)
            warmEvidence = server.totals().evidence();
    }

    /** Every endpoint's counters, kept apart series by series (a counter reset on one is not hidden by another's growth). */
    private PromMetrics scrape() {
        List<PromMetrics> ms = new ArrayList<>();
        for (URI u : target.endpoints()) ms.add(PromMetrics.parse(client.metrics(u)));
        return PromMetrics.of(ms);
    }

    /** The engine's hit ratios from {@link #before} to {@code now}; per-response counts are local only where every endpoint is llama.cpp. */
    private EngineHits hits(PromMetrics now) {
        boolean llama = infos.stream().allMatch(i -> i.kind() == EngineKind.LLAMA_CPP);
        return EngineHits.of(before, now, server.totals(), llama);
    }

    private long httpCpu() {
        long t = 0;
        for (Thread th : httpThreads) {
            long c = threads.getThreadCpuTime(th.threadId());
            if (c > 0) t += c;
        }
        return t;
    }

    /** How often the engines' counters are scraped during the measured phase (for the interval samples). */
    private static final java.time.Duration SCRAPE_EVERY = java.time.Duration.ofSeconds(1);

    private EngineScraper scraper;

    @Override
    public Map<String, Double> engineCounters() {
        if (scraper == null) return Map.of();
        EngineServer.EngineTotals t = server.totals();
        EngineHits hits = hits(scraper.latest());
        Map<String, Double> c = new java.util.LinkedHashMap<>();
        c.put(Columns.ENGINE_LOCAL_HIT_RATIO.name(), hits.local());
        c.put(Columns.ENGINE_EXTERNAL_HIT_RATIO.name(), hits.external());
        c.put(Columns.ENGINE_DEVICE_HIT_RATIO.name(), hits.device());
        c.put(Columns.ENGINE_HOST_HIT_RATIO.name(), hits.host());
        c.put(Columns.ENGINE_STORAGE_HIT_RATIO.name(), hits.storage());
        c.put(Columns.ENGINE_CACHED_HIT_RATIO.name(), hits.allTiers());
        c.put(Columns.ENGINE_PROMPT_TOKENS.name(), t.reportedPromptTokens());
        c.put(Columns.ENGINE_CACHED_PROMPT_TOKENS.name(), t.reportedCachedTokens());
        return c;
    }

    @Override
    public void measuredPhaseStarts() {
        server.totals().reset();
        before = scrape();
        if (scraper != null) scraper.close();
        scraper = new EngineScraper(this::scrape, before, SCRAPE_EVERY);
        loop.resetFigures();
        measuredStartEpochMs = System.currentTimeMillis();
        workBefore = loop.workCpuNanos();
        busyBefore = loop.busyNanos();
        httpCpuBefore = httpCpu();
    }

    @Override
    public void extras(MeasurementView m, Figures x) {
        if (scraper != null) scraper.close();
        after = scrape();
        long n = m.requests();
        Columns.TARGET_KIND.put(x, "openai");
        OpenAiColumns.ENGINES.put(x, String.join(" ", engines));
        Columns.TARGET_MODEL.put(x, target.model());
        boolean leftCold = spec.config().cacheState() == CacheState.COLD && !target.resetsCache();
        Columns.CACHE_STATE_PROTOCOL.put(
                x,
                verdict == null
                        ? (spec.config().cacheState() == CacheState.HOT
                                ? "primed by the warm-up"
                                : leftCold ? coldLeftToShardOne() : "none")
                        : verdict.protocol());
        OpenAiColumns.CACHE_STATE_VERIFICATION.put(
                x,
                verdict != null
                        ? verdict.verification()
                        : leftCold
                                ? "not verified by this shard: shard 1 resets and verifies before its measured phase; shards are not synchronised,"
                                        + " so requests this shard sends before that reset may meet a warm cache"
                                : warmEvidence != null
                                        ? HotVerification.of(
                                                warmEvidence, server.totals().evidence(), words.specialTokens())
                                        : "not verified");
        OpenAiColumns.PROMPT_WORDS.put(x, words.words().size());
        OpenAiColumns.PROMPT_SPECIAL_TOKENS.put(x, words.specialTokens());
        OpenAiColumns.PROMPT_TOKEN_CHECK.put(x, tokenCheck);
        OpenAiColumns.PROMPT_TOKEN_ERROR_MAX.put(x, words.checked() ? tokenErrorMax : Double.NaN);
        EngineServer.EngineTotals t = server.totals();
        OpenAiColumns.WORKLOAD_PROMPT_TOKENS.put(x, t.workloadPromptTokens);
        Columns.ENGINE_PROMPT_TOKENS.put(x, t.reportedPromptTokens());
        Columns.ENGINE_CACHED_PROMPT_TOKENS.put(x, t.reportedCachedTokens());
        if (t.cachedTokensReason() != null)
            OpenAiColumns.ENGINE_CACHED_PROMPT_TOKENS_REASON.put(x, t.cachedTokensReason());
        EngineHits hits = hits(after);
        Columns.ENGINE_LOCAL_HIT_RATIO.put(x, hits.local());
        Columns.ENGINE_EXTERNAL_HIT_RATIO.put(x, hits.external());
        Columns.ENGINE_DEVICE_HIT_RATIO.put(x, hits.device());
        Columns.ENGINE_HOST_HIT_RATIO.put(x, hits.host());
        Columns.ENGINE_STORAGE_HIT_RATIO.put(x, hits.storage());
        Columns.ENGINE_CACHED_HIT_RATIO.put(x, hits.allTiers());
        Columns.ENGINE_LOOKUP_HIT_RATIO.put(x, hits.lookup());
        Columns.ENGINE_HITS_SOURCE.put(x, hits.source());
        OpenAiColumns.ENGINE_PROMPT_MS_P50.put(
                x,
                t.enginePromptMicros.getTotalCount() == 0
                        ? Double.NaN
                        : t.enginePromptMicros.getValueAtPercentile(50) / 1e3);
        OpenAiColumns.HARNESS_TTFT_GAP_P50.put(x, t.gapP50Ms());
        OpenAiColumns.HARNESS_TTFT_GAP_NEGATIVE.put(x, t.gaps() == 0 ? Double.NaN : (double) t.negativeGaps());
        if (t.negativeGaps() > 0)
            OpenAiColumns.HARNESS_TTFT_GAP_NOTE.put(
                    x,
                    t.negativeGaps() + " of " + t.gaps()
                            + " completed requests saw their first token before the engine's own"
                            + " prompt time (timings.prompt_ms) ended: the engine's timing covers more than the client waited for, or the clocks disagree");
        OpenAiColumns.PROMPT_CONTEXT_CHECK.put(x, context.note());
        long work = loop.workCpuNanos() - workBefore, http = httpCpu() - httpCpuBefore;
        Columns.HARNESS_CPU_US_PER_REQUEST.put(x, n == 0 ? Double.NaN : (work + http) / 1e3 / n);
        OpenAiColumns.HARNESS_HTTP_CPU_US_PER_REQUEST.put(x, n == 0 ? Double.NaN : http / 1e3 / n);
        Columns.HARNESS_OVERHEAD_US_PER_REQUEST.put(x, n == 0 ? Double.NaN : (loop.busyNanos() - busyBefore) / 1e3 / n);
        Columns.EVENT_LAG_P50_US.put(x, (double) loop.lag().getValueAtPercentile(50));
        Columns.EVENT_LAG_P99_US.put(x, (double) loop.lag().getValueAtPercentile(99));
        OpenAiColumns.HARNESS_LOOPBACK_TTFT_P50.put(x, selfTest.p50Micros());
        OpenAiColumns.HARNESS_LOOPBACK_TTFT_P99.put(x, selfTest.p99Micros());
        if (target.share() != null) {
            Columns.REQUEST_SHARD.put(x, target.share().label());
            Columns.MEASURED_PHASE_STARTED_EPOCH_MS.put(x, measuredStartEpochMs);
        }
        if (server.down()) {
            OpenAiColumns.TARGET_DOWN.put(x, "every endpoint refused connections: the cell stopped sending");
            OpenAiColumns.UNSENT_REQUESTS.put(x, Math.max(0, requestsSent() - n));
        }
    }

    /** Why the summary's store figures of an openai cell are null (NaN), never 0. */
    static final String UNKNOWN_COLUMNS =
            "fetched_bytes, fallbacks, wrong_hits_used, written_back_bytes, rejected_blocks: not reported by an"
                    + " OpenAI-compatible engine (kvlab does not see what it moves between its tiers, or verifies): unknown, not 0";

    /** GPUs per instance where every endpoint says the same (SGLang's tp_size), else null (unknown). */
    private Long tensorParallel() {
        long tp = infos.isEmpty() ? -1 : infos.get(0).tp();
        for (EngineInfo i : infos) if (i.tp() != tp) return null;
        return tp > 0 ? tp : null;
    }

    /** The requests this cell sends: the workload's, or this shard's share of them. */
    private long requestsSent() {
        long all = TargetFramework.get().requestCount(spec);
        if (target.share() == null) return all;
        Shard s = target.share();
        return all / s.count() + (all % s.count() >= s.index() ? 1 : 0);
    }

    @Override
    public String describe() {
        return "live (wall clock): real engine(s) over HTTP, " + String.join(", ", engines)
                + "; each send waited out by parking, then spinning"
                + " a tail as long as this machine's park overshoots (" + MIN_SPIN_NANOS / 1000 + "-"
                + MAX_SPIN_NANOS / 1000 + " us"
                + (loop == null ? "" : ", ended at " + loop.spinNanos() / 1000 + " us") + ")";
    }

    @Override
    public void summary(CellSummary.Builder row, Figures extras) {
        Object lh = extras.get(Columns.ENGINE_LOCAL_HIT_RATIO), eh = extras.get(Columns.ENGINE_EXTERNAL_HIT_RATIO);
        String emulated = "nothing (real engines over HTTP: " + String.join(", ", engines) + ")";
        row.put(Columns.TIERS, "-")
                .put(Columns.POLICY, "-")
                .put(Columns.TRANSPORT, "-")
                .put(Columns.PD, "-")
                .put(Columns.LOCAL_HIT_RATIO, lh instanceof Double d ? d : Double.NaN)
                .put(Columns.REMOTE_HIT_RATIO, eh instanceof Double d ? d : Double.NaN)
                .put(Columns.REMOTE_AVAILABLE_RATIO, Double.NaN)
                .put(Columns.FETCHED_BYTES, null)
                .put(Columns.FALLBACKS, null)
                .put(Columns.WRONG_HITS_USED, null)
                .put(Columns.WRITTEN_BACK_BYTES, null)
                .put(Columns.REJECTED_BLOCKS, null)
                .put(Columns.MODEL, target.model())
                .put(Columns.HARDWARE, String.join(" ", engines))
                .put(Columns.INSTANCES, (long) target.endpoints().size())
                .put(Columns.TP, tensorParallel())
                .put(Columns.EMULATED_PARTS, emulated)
                .put(Columns.PREFILL_GPU_MS_MEAN, Double.NaN);
    }

    @Override
    public void finish(Figures x, Map<String, String> d) {
        OpenAiColumns.UNKNOWN_COLUMNS.put(x, UNKNOWN_COLUMNS);
        if (tensorParallel() == null)
            OpenAiColumns.TP_REASON.put(
                    x,
                    "the engine does not report its tensor parallelism (SGLang's /get_server_info tp_size does; vLLM and"
                            + " llama-server do not)"
                            + (infos.stream().map(EngineInfo::tp).distinct().count() > 1
                                    ? " or the endpoints differ"
                                    : ""));
        d.put(
                "target",
                "openai: " + target.endpoints() + " model " + target.model() + ", " + OpenAiConfig.label(target.api())
                        + ", routing " + OpenAiConfig.label(target.routing()) + ", extra_body " + target.extraBody());
        if (target.share() != null)
            d.put(
                    "load",
                    "request-split shard " + target.share().label() + ": this host sent every "
                            + target.share().count()
                            + "-th request of the stream (positions i with i mod "
                            + target.share().count() + " = " + (target.share().index() - 1)
                            + ") at its intended time; kvlab merge adds the shards into one cell");
        d.put(
                ConfigKeys.CACHE_STATE,
                x.get(Columns.CACHE_STATE_PROTOCOL) + ": " + x.get(OpenAiColumns.CACHE_STATE_VERIFICATION));
        d.put(
                "prompts",
                words.words().size() + " single-token words"
                        + (words.checked() ? " (checked by the server's tokenizer)" : " (unchecked)") + "; "
                        + tokenCheck);
    }
}
