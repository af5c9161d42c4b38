package dev.kvlab.store.api.server;

import dev.kvlab.store.api.MasterConfig;
import java.time.Duration;

/**
 * A store whose parts can really break ({@code dev.kvlab.store.BreakableStore}): a master, {@code nodes} storage nodes
 * of {@code segmentBytes} each on {@code transport}, and one client whose transfer engine can have its link broken.
 *
 * @param master          the master's configuration (its client TTL: how soon a silent node's segments go)
 * @param processLeaseTtl the lease TTL a master process is started with ({@code masterProcess})
 * @param masterProcess   the master is a child process on loopback, which {@code restartMaster} kills and starts again on
 *                        the same port; nodes and client reach it over gRPC. Otherwise it lives in this JVM behind a loopback
 *                        gRPC server, and the nodes and client of this JVM call it in process
 * @param nodeProcesses   every node is a child process (so that a crash is a real SIGKILL); otherwise nodes live in this JVM
 *                        with their own engines (so that {@code corrupt} can flip bytes in a node's registered segment)
 * @param nodes           storage nodes, {@code name-n0} ... (their segments {@code name-n<i>-seg0})
 * @param segmentBytes    each node's segment
 * @param transport       the data plane of nodes and client
 * @param ping            the nodes' liveness ping
 * @param name            what the nodes' ids start with (unique per store)
 * @param clientName      the client's name, as a backend says it
 * @param seed            the fates of the client's batches under a link fault, and which stretches {@code corrupt} flips
 */
public record BreakableStoreLaunch(
        MasterConfig master,
        Duration processLeaseTtl,
        boolean masterProcess,
        boolean nodeProcesses,
        int nodes,
        long segmentBytes,
        String transport,
        Duration ping,
        String name,
        String clientName,
        long seed) {}
