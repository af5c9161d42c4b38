/** For implementers of backends: {@link dev.kvlab.store.spi.KvBackendProvider}. */
package dev.kvlab.store.spi;
