/**
 * The store module's entry point: {@link dev.kvlab.store.KvBackends} opens a store backend by address. It is the one
 * package that sees {@code api}, {@code spi} and the implementations; {@code api} sees only itself (and
 * {@code dev.kvlab.transport.api}).
 */
package dev.kvlab.store;
