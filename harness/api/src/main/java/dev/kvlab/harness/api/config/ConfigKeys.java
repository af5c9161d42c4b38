package dev.kvlab.harness.api.config;

/**
 * The run config's top-level keys, each named here once: the snake_case names {@link RunConfig}'s components bind
 * from, which are also the factors of a matrix and (for the factor keys) the summary's columns of the same name.
 * {@code ClockKeys}, the targets' lists of the keys they read, the validator's messages and the factor lookups of the
 * report read them from here; a test holds them to {@link RunConfig}'s components.
 */
public final class ConfigKeys {

    public static final String MODE = "mode",
            SEED = "seed",
            CATALOG = "catalog",
            MODEL = "model",
            HARDWARE = "hardware",
            KV_DTYPE = "kv_dtype",
            EFFICIENCY = "efficiency",
            CLUSTER = "cluster",
            SCHEDULER = "scheduler",
            LOCAL = "local",
            STORE = "store",
            WORKLOAD = "workload",
            WARMUP = "warmup",
            CACHE_STATE = "cache_state",
            TIERS = "tiers",
            POLICY = "policy",
            TRANSPORT = "transport",
            TRANSPORT_PROFILE = "transport_profile",
            LINK = "link",
            PD = "pd",
            PD_TRANSFER = "pd_transfer",
            SLO = "slo",
            MEASUREMENT = "measurement",
            LIVE = "live",
            FAULT = "fault",
            FAULT_AT = "fault_at",
            FAULT_PARAMS = "fault_params",
            TARGET = "target";

    /** Every top-level key, in {@link RunConfig}'s order. */
    public static final java.util.List<String> ALL = java.util.List.of(
            MODE,
            SEED,
            CATALOG,
            MODEL,
            HARDWARE,
            KV_DTYPE,
            EFFICIENCY,
            CLUSTER,
            SCHEDULER,
            LOCAL,
            STORE,
            WORKLOAD,
            WARMUP,
            CACHE_STATE,
            TIERS,
            POLICY,
            TRANSPORT,
            TRANSPORT_PROFILE,
            LINK,
            PD,
            PD_TRANSFER,
            SLO,
            MEASUREMENT,
            LIVE,
            FAULT,
            FAULT_AT,
            FAULT_PARAMS,
            TARGET);

    private ConfigKeys() {}
}
