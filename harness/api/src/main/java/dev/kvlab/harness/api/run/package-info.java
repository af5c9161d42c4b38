/** Running what users wrote: the targets found by ServiceLoader, a config validated against its target, a cell run by its target, requests split over shards. */
package dev.kvlab.harness.api.run;
