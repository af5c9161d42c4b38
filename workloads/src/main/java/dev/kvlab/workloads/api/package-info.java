/** Workloads for users: {@link dev.kvlab.workloads.api.Request}, namespaces, chained block keys, sources. */
package dev.kvlab.workloads.api;
