/** The emulated target: the serving model (roofline GPU time) on the sim or live clock. */
package dev.kvlab.harness.core.internal.emulated;
