package dev.kvlab.harness.openai.internal;

import dev.kvlab.harness.api.CellObserver;
import dev.kvlab.harness.api.CellResult;
import dev.kvlab.harness.api.config.ConfigKeys;
import dev.kvlab.harness.api.config.Mode;
import dev.kvlab.harness.api.config.RunConfig;
import dev.kvlab.harness.api.config.TargetKind;
import dev.kvlab.harness.api.input.BadInputException;
import dev.kvlab.harness.api.input.TreeBinder;
import dev.kvlab.harness.api.twin.EndpointCalibrationPlan;
import dev.kvlab.harness.spi.CellSpec;
import dev.kvlab.harness.spi.TargetFramework;
import dev.kvlab.harness.spi.TargetProvider;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * The {@code openai} target: any OpenAI-compatible server (vLLM, SGLang, llama.cpp's llama-server, ...) driven
 * over HTTP on the live clock ({@link OpenAiCell}). It reads the workload, its warm-up, the cache state, the SLOs
 * and the measurement settings; the emulated model's keys (model, hardware, cluster, store, tiers, transport,
 * faults, ...) are not its own and are refused when given. Every endpoint must answer before anything runs.
 */
public final class OpenAiTarget implements TargetProvider {

    private static final Set<String> USES = Set.of(
            ConfigKeys.MODE,
            ConfigKeys.SEED,
            ConfigKeys.WORKLOAD,
            ConfigKeys.WARMUP,
            ConfigKeys.CACHE_STATE,
            ConfigKeys.SLO,
            ConfigKeys.MEASUREMENT);
    private static final TreeBinder BINDER = new TreeBinder();

    /** The columns only this target produces ({@link OpenAiColumns}). */
    @Override
    public dev.kvlab.harness.api.ColumnSet columns() {
        return OpenAiColumns.SET;
    }

    @Override
    public String kind() {
        return TargetKind.OPENAI;
    }

    @Override
    public String describe() {
        return "OpenAI-compatible HTTP endpoints: vLLM, SGLang, llama-server, ...";
    }

    /** Every shard sends its share of the stream to the same endpoints ({@code target.request_shard}). */
    @Override
    public boolean splitsRequests() {
        return true;
    }

    @Override
    public boolean uses(String key) {
        int dot = key.indexOf('.');
        return USES.contains(dot < 0 ? key : key.substring(0, dot));
    }

    /** The block bound and checked. */
    static OpenAiConfig.Resolved target(RunConfig c, Function<String, String> origin) {
        return BINDER.bindNode(c.target(), OpenAiConfig.class, "target", origin).resolve(origin);
    }

    static CellSpec spec(RunConfig c, OpenAiConfig.Resolved t, Function<String, String> origin) {
        return TargetFramework.get().spec(c, origin, t.model(), "engine", "engine");
    }

    @Override
    public void validate(RunConfig c, Function<String, String> origin) {
        if (c.mode() != Mode.LIVE) {
            String o = origin.apply("mode");
            throw new BadInputException((o == null ? "config" : o)
                    + ": key 'mode': the openai target serves real requests on the live clock: set mode: live");
        }
        OpenAiConfig.Resolved t = target(c, origin);
        spec(c, t, origin);
        OpenAiConfig raw = BINDER.bindNode(c.target(), OpenAiConfig.class, "target", origin);
        if (raw.pricePerHour() != null && !(raw.pricePerHour() >= 0 && raw.pricePerHour() < 1e9)) {
            String o = origin.apply("target.price_per_hour");
            throw new BadInputException((o == null ? "config" : o)
                    + ": key 'target.price_per_hour': must be a number in [0, 1e9) (per endpoint and hour), got "
                    + raw.pricePerHour());
        }
        if (raw.gguf() != null && !java.nio.file.Files.isRegularFile(java.nio.file.Path.of(raw.gguf()))) {
            String o = origin.apply("target.gguf");
            throw new BadInputException((o == null ? "config" : o) + ": key 'target.gguf': no such file " + raw.gguf());
        }
        if (t.share() != null) dev.kvlab.harness.api.run.RequestSplit.checkArrival(c, origin);
        ExecutorService pool = Executors.newSingleThreadExecutor(
                r -> Thread.ofPlatform().daemon().name("kvlab-health").unstarted(r));
        try (EngineClient client = new EngineClient(pool)) {
            for (URI u : t.endpoints()) {
                String why = health(client, u);
                if (why != null) {
                    String o = origin.apply("target.endpoints");
                    throw new BadInputException(
                            (o == null ? "config" : o) + ": key 'target.endpoints': " + u + " " + why);
                }
            }
        }
    }

    /** Null when {@code u} answers as a serving engine, else why not ({@code GET /health}, else {@code GET /v1/models}). */
    public static String health(EngineClient c, URI u) {
        EngineClient.Reply h = c.get(u, "/health");
        if (h.unreachable()) return "does not answer: " + h.error();
        if (h.ok()) return null;
        EngineClient.Reply m = c.get(u, "/v1/models");
        if (m.ok()) return null;
        return "is not ready: GET /health answered http " + h.status() + ", GET /v1/models http " + m.status()
                + (h.status() == 503 ? " (still loading its model?)" : "");
    }

    /** The block's twin settings (not in {@link OpenAiConfig.Resolved}: read where a twin or a price is asked for). */
    private static OpenAiConfig raw(RunConfig c) {
        return BINDER.bindNode(c.target(), OpenAiConfig.class, "target", k -> null);
    }

    @Override
    public String noTwin(RunConfig c) {
        OpenAiConfig.Resolved t = target(c, k -> null);
        if (t.share() != null)
            return "a request shard (target.request_shard) sends only part of the load: its twin would not be the cell's";
        if (t.api() != OpenAiConfig.Api.COMPLETIONS)
            return "the twin's prompts need exact token counts: target.api: completions";
        return null;
    }

    @Override
    public dev.kvlab.harness.api.twin.TwinCalibration calibrate(RunConfig c) {
        OpenAiConfig.Resolved t = target(c, k -> null);
        String gguf = raw(c).gguf();
        int longest = Math.max(
                64, ContextCheck.run(spec(c, t, k -> null), java.util.List.of()).longestPrompt());
        int lo = Math.max(16, Math.min(128, longest / 4));
        int hi = Math.max(lo * 2, Math.min(longest, 2048));
        EndpointCalibrationPlan plan = new EndpointCalibrationPlan(lo, hi, Math.max(1, Math.min(64, hi / 8)), 16, 3);
        ExecutorService pool = Executors.newCachedThreadPool(
                r -> Thread.ofPlatform().daemon().name("kvlab-calibrate").unstarted(r));
        try (EngineClient client = new EngineClient(pool)) {
            EndpointCalibration cal = EndpointCalibration.measure(
                    client,
                    t.endpoints().getFirst(),
                    t.model(),
                    gguf == null ? null : java.nio.file.Path.of(gguf),
                    plan,
                    t.endpoints().size());
            return cal.twin()
                    .withCacheOff(t.extraBody().path("cache_prompt").isBoolean()
                            && !t.extraBody().path("cache_prompt").asBoolean());
        }
    }

    @Override
    public double pricePerHour(RunConfig c) {
        Double p = raw(c).pricePerHour();
        return p == null ? Double.NaN : p * target(c, k -> null).endpoints().size();
    }

    @Override
    public CellResult run(RunConfig c, long wallStartNanos, CellObserver observer) {
        OpenAiConfig.Resolved t = target(c, k -> null);
        return new OpenAiCell(spec(c, t, k -> null), t).run(wallStartNanos, observer);
    }
}
