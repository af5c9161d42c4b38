/**
 * The core behind the target SPI ({@code dev.kvlab.harness.spi}): {@link dev.kvlab.harness.core.internal.framework.CoreTargetFramework}, found
 * by ServiceLoader, gives a target the cell spec, the live clock, the audited store tier and the cell's steps, and runs its
 * {@code TargetCell} through the cell's steps. A package of its own, which nothing in core depends on (it depends on the
 * cell, live and config packages, which would otherwise form a cycle).
 */
package dev.kvlab.harness.core.internal.framework;
