package dev.kvlab.workloads.api;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When requests are sent. A plain record for config binding (snake_case keys: {@code process, rate, burstiness,
 * speedup, users, think_ms, max_concurrency}); a field left at 0 (or null) means its default.
 *
 * <ul>
 *   <li>{@code trace} (default): the source's own timestamps divided by {@code speedup} (traces; generated workloads
 *       have every arrival at 0, i.e. all at once). {@code spread} says what to do with quantized timestamps:
 *       {@code auto} (default) detects a trace whose stamps are rounded to a tick (the Mooncake traces: 3 s, up to 28
 *       requests on one stamp) and spreads each tick's requests over it, uniformly and seeded; {@code none} sends
 *       them as stamped, at once; a duration ({@code 3s}, {@code 500ms}) spreads over that tick.</li>
 *   <li>{@code poisson}: exponential gaps with mean {@code 1/rate}; the first request at 0.</li>
 *   <li>{@code gamma}: gamma-distributed gaps with shape {@code burstiness} and mean {@code 1/rate} (as vLLM's
 *       {@code --burstiness}: below 1 burstier than Poisson, above 1 more regular, 1 = Poisson).</li>
 *   <li>{@code constant}: request {@code i} at {@code i / rate}.</li>
 *   <li>{@code closed}: {@code users} concurrent users; a user sends its next request when its previous one
 *       completes plus {@code thinkMs}; requests of one session never overlap (see {@link ArrivalProcess}).</li>
 * </ul>
 * {@code maxConcurrency} caps the requests in flight on top of an open-loop process: a request that arrives when
 * the cap is reached waits for a completion (its intended arrival stays the open-loop time).
 *
 * @param process        {@code trace}, {@code poisson}, {@code gamma}, {@code constant} or {@code closed}
 * @param rate           requests per second ({@code poisson}, {@code gamma}, {@code constant})
 * @param burstiness     gamma shape ({@code gamma}; 0 = 1)
 * @param speedup        trace time compression ({@code trace}; 0 = 1; 2 = twice as fast)
 * @param users          concurrent users ({@code closed})
 * @param thinkMs        pause after a completion before the user's next request ({@code closed}; >= 0)
 * @param maxConcurrency cap on requests in flight for open-loop processes; 0 = none
 * @param spread         {@code trace}: {@code auto}, {@code none} or a tick duration (null = auto)
 */
public record ArrivalSpec(
        String process,
        double rate,
        double burstiness,
        double speedup,
        int users,
        double thinkMs,
        int maxConcurrency,
        String spread) {

    public static final List<String> PROCESSES = List.of("trace", "poisson", "gamma", "constant", "closed");

    public ArrivalSpec {
        process =
                process == null || process.isBlank() ? "trace" : process.strip().toLowerCase(Locale.ROOT);
        if (burstiness == 0) burstiness = 1;
        if (speedup == 0) speedup = 1;
        spread = spread == null || spread.isBlank() ? "auto" : spread.strip().toLowerCase(Locale.ROOT);
    }

    /** Open-loop or closed-loop spec without a spread setting (auto). */
    public ArrivalSpec(
            String process,
            double rate,
            double burstiness,
            double speedup,
            int users,
            double thinkMs,
            int maxConcurrency) {
        this(process, rate, burstiness, speedup, users, thinkMs, maxConcurrency, null);
    }

    /** The source's own timing (trace timestamps, speed-up 1). */
    public static ArrivalSpec trace(double speedup) {
        return new ArrivalSpec("trace", 0, 0, speedup, 0, 0, 0);
    }

    public static ArrivalSpec poisson(double rate) {
        return new ArrivalSpec("poisson", rate, 1, 0, 0, 0, 0);
    }

    public static ArrivalSpec gamma(double rate, double burstiness) {
        return new ArrivalSpec("gamma", rate, burstiness, 0, 0, 0, 0);
    }

    public static ArrivalSpec constant(double rate) {
        return new ArrivalSpec("constant", rate, 0, 0, 0, 0, 0);
    }

    public static ArrivalSpec closed(int users, double thinkMs) {
        return new ArrivalSpec("closed", 0, 0, 0, users, thinkMs, 0);
    }

    /** The same process with a cap on requests in flight. */
    public ArrivalSpec withMaxConcurrency(int cap) {
        return new ArrivalSpec(process, rate, burstiness, speedup, users, thinkMs, cap, spread);
    }

    public boolean closedLoop() {
        return process.equals("closed");
    }

    /** The spread tick in nanoseconds: -1 = detect ({@code auto}), 0 = none, else the tick. */
    public long spreadNanos() {
        if (spread.equals("auto")) return -1;
        if (spread.equals("none")) return 0;
        Matcher m = SPREAD.matcher(spread);
        if (!m.matches())
            throw new WorkloadFormatException(
                    "spread: must be auto, none or a duration such as 3s or 500ms, got '" + spread + "'");
        double v = Double.parseDouble(m.group(1));
        double nanos = v
                * switch (m.group(2)) {
                    case "us" -> 1e3;
                    case "ms" -> 1e6;
                    case "s" -> 1e9;
                    default -> throw new IllegalStateException(m.group(2));
                };
        if (!(nanos >= 1) || nanos > 1e15)
            throw new WorkloadFormatException(
                    "spread: must be a duration in [1ns, 1e6 s] (or none), got '" + spread + "'");
        return Math.round(nanos);
    }

    private static final Pattern SPREAD = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*(us|ms|s)");

    /** Throws a {@link WorkloadFormatException} naming the first bad field as {@code prefix.field} (snake_case, as configs spell it). */
    public void validate(String prefix) {
        String p = prefix == null || prefix.isEmpty() ? "" : prefix + ".";
        if (!PROCESSES.contains(process))
            throw new WorkloadFormatException(p + "process: must be one of " + PROCESSES + ", got '" + process + "'");
        switch (process) {
            case "poisson", "gamma", "constant" -> {
                if (!(rate > 0) || Double.isInfinite(rate)) {
                    throw new WorkloadFormatException(
                            p + "rate: must be > 0 requests/s for process '" + process + "', got " + rate);
                }
            }
            case "closed" -> {
                if (users < 1)
                    throw new WorkloadFormatException(p + "users: must be >= 1 for process 'closed', got " + users);
                if (maxConcurrency != 0) {
                    throw new WorkloadFormatException(p
                            + "max_concurrency: applies to open-loop processes; a closed loop is capped by its users");
                }
            }
            default -> {}
        }
        if (!(burstiness > 0) || Double.isInfinite(burstiness))
            throw new WorkloadFormatException(p + "burstiness: must be > 0, got " + burstiness);
        if (!(speedup > 0) || Double.isInfinite(speedup))
            throw new WorkloadFormatException(p + "speedup: must be > 0, got " + speedup);
        if (!(thinkMs >= 0) || Double.isInfinite(thinkMs))
            throw new WorkloadFormatException(p + "think_ms: must be >= 0, got " + thinkMs);
        if (maxConcurrency < 0)
            throw new WorkloadFormatException(p + "max_concurrency: must be >= 0 (0 = none), got " + maxConcurrency);
        if (!spread.equals("auto") && !process.equals("trace"))
            throw new WorkloadFormatException(
                    p + "spread: applies to process 'trace' (timestamps) only; process is '" + process + "'");
        try {
            spreadNanos();
        } catch (WorkloadFormatException e) {
            throw new WorkloadFormatException(p + e.getMessage());
        }
    }

    public String describe() {
        return switch (process) {
            case "trace" -> "trace-timestamps speedup=" + speedup + cap();
            case "poisson" -> "poisson rate=" + rate + "/s" + cap();
            case "gamma" -> "gamma rate=" + rate + "/s burstiness=" + burstiness + cap();
            case "constant" -> "constant rate=" + rate + "/s" + cap();
            case "closed" -> "closed-loop users=" + users + " think=" + thinkMs + "ms";
            default -> process;
        };
    }

    private String cap() {
        return maxConcurrency > 0 ? " max_concurrency=" + maxConcurrency : "";
    }
}
