package dev.kvlab.harness.spi;

/**
 * One request in service, as the measurement sees it whatever serves it (the emulated model's {@code Seq}, or a
 * real engine's request): its identity, its intended arrival, the tokens it is to generate, a slot for the
 * listener's own state, and at its end what the server observed of it. Touched only on the cell's loop thread.
 */
public interface Served {

    long id();

    /** Intended arrival on the loop's clock (all latencies are measured from it). */
    long intendedNanos();

    /** True for a warm-up request (not measured). */
    boolean warmup();

    /** Tokens to generate (at least one). */
    int outputTokens();

    /** Attaches the listener's own per-request state; the server never reads it. */
    void attach(Object state);

    /** The listener's per-request state, null before {@link #attach}. */
    Object attachment();

    /** What the server observed of this request so far, as an immutable record (what measurement reads at its end). */
    Observed observed();
}
