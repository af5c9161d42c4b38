/** The bundled store's master, nodes, client and wire formats; not an API. */
package dev.kvlab.store.internal;
