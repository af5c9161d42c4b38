/** What users of the harness write and read: run and matrix configuration, results. */
package dev.kvlab.harness.api;
