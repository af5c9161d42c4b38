/**
 * The transfer API for users: {@link dev.kvlab.transport.api.TransferEngine}, segments, batches, configuration,
 * unit parsing and {@link dev.kvlab.transport.api.TransportModel}.
 */
package dev.kvlab.transport.api;
