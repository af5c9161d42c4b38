/**
 * The transport module's entry point: {@link dev.kvlab.transport.Transports} finds transfer engines by name. It is the
 * one package that sees {@code api}, {@code spi} and the implementations; {@code api} sees only itself.
 */
package dev.kvlab.transport;
