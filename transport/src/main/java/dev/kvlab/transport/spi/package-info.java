/** For implementers of transports: {@link dev.kvlab.transport.spi.TransportProvider}. */
package dev.kvlab.transport.spi;
