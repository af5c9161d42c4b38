/**
 * The store master's metadata logic as a plain object ({@link dev.kvlab.store.internal.master.StoreMaster}): for the
 * real master (behind {@code internal.server.MasterService}) and for simulation, which reaches it through
 * {@link dev.kvlab.store.api.master.Master} and {@code dev.kvlab.store.Masters}. Its export image and journal
 * ({@link dev.kvlab.store.internal.master.MasterImage}, {@link dev.kvlab.store.internal.master.MasterJournal}) serve the
 * master's HA ({@code internal.ha}).
 */
package dev.kvlab.store.internal.master;
