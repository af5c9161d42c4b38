package dev.kvlab.harness.spi;

/**
 * What a target's server (the emulated serving model or a real engine) reports as it happens, on the loop thread, with the loop's time. Measurement lives in
 * one implementation of this (the model computes no latencies itself).
 */
public interface ServingListener {

    /** {@code s} arrived (at or after its intended time) and was routed. */
    default void arrived(Served s, long now) {}

    /** The scheduler admitted {@code s} (KV blocks reserved, local tier looked up). */
    default void admitted(Served s, long now) {}

    /** The fetch of {@code s}'s KV ended; it took {@code fetchNanos}. */
    default void fetched(Served s, long fetchNanos, long now) {}

    /**
     * PD disaggregation on a real engine: {@code s}'s prompt KV was handed to its decode instance ({@link Handover}:
     * when each part ended, bytes, tokens); told once, when the decode instance restored it or decided to recompute it.
     */
    default void handedOver(Served s, Handover h, long now) {}

    /** The first output token of {@code s}. */
    default void firstToken(Served s, long now) {}

    /** Another output token of {@code s}. */
    default void token(Served s, long now) {}

    /** The last output token of {@code s}; it is done. */
    default void completed(Served s, long now) {}

    /** {@code s} cannot be served (its {@link Served#observed()} says why). */
    default void failed(Served s, long now) {}

    ServingListener NONE = new ServingListener() {};
}
