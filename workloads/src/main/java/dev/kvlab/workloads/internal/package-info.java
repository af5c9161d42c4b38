/** Trace readers, generators, arrival processes and analysis internals; not an API. */
package dev.kvlab.workloads.internal;
