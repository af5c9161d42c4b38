/**
 * The {@code fixed} target: a stand-in server that answers every request after a fixed, configured delay with a fixed
 * number of tokens, on the framework's live clock. The smallest target on the SPI (the recipe of docs/architecture.md):
 * it depends on {@code dev.kvlab.harness.spi} and {@code api} only.
 */
package dev.kvlab.harness.fixed.internal;
