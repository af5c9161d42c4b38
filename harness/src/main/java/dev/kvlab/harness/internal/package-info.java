/** The serving model, clocks, measurement, runner and bundle internals; not an API. */
package dev.kvlab.harness.internal;
