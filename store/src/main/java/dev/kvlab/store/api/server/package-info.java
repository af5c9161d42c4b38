/**
 * What it takes to run the bundled store's processes: a master ({@link dev.kvlab.store.api.server.MasterLaunch}: its
 * gRPC control plane and Prometheus endpoint) and a storage node ({@link dev.kvlab.store.api.server.NodeLaunch}: a
 * segment served over a transport, mounted at a master). Each record refuses a combination that cannot be safe (an
 * endpoint off loopback without a token). The launchers that start them, in this JVM or as child processes, are the
 * entry points {@code dev.kvlab.store.MasterLauncher}, {@code NodeLauncher} and {@code StoreChildProcess}.
 */
package dev.kvlab.store.api.server;
