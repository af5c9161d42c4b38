/** JMH microbenchmarks of transports, the store and workload parsing. */
package dev.kvlab.bench;
