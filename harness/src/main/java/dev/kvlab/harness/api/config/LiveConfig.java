package dev.kvlab.harness.api.config;

/**
 * Settings of the live clock.
 *
 * @param spin         the last stretch of a modelled GPU wait is spun rather than parked [50us]
 * @param ioThreads    threads issuing store operations [4]
 */
public record LiveConfig(String spin, int ioThreads) {}
