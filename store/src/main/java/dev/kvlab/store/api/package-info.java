/** The store as its users see it: {@link dev.kvlab.store.api.KvBackend} and its results, payload derivation, options. */
package dev.kvlab.store.api;
