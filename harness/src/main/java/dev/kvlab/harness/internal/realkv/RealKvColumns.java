package dev.kvlab.harness.internal.realkv;

import java.util.List;

/** The result columns only a real engine's KV has, named once: summary rows, {@code --json} and the report read them from here. */
public final class RealKvColumns {

    /** Prompt tokens of the measured requests whose KV came from the store (fetched, verified and restored). */
    public static final String FETCHED_TOKENS = "fetched_tokens";
    /** Bytes of one block's KV payload per token, as llama.cpp's state holds it (every layer's K and V rows). */
    public static final String KV_BYTES_PER_TOKEN = "engine_kv_bytes_per_token";

    /** The numeric ones, as summary columns. */
    public static final List<String> ROW = List.of(FETCHED_TOKENS, KV_BYTES_PER_TOKEN);

    private RealKvColumns() {}
}
