package dev.kvlab.harness.spi;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.transport.api.LinkSpec;

/**
 * The run's store as the framework planned and checked it ({@link TargetFramework#storePlan}), for a target that keeps
 * KV blocks in kvlab's store: how its clients reach it, how large it is, and the run's fault on it. What the framework
 * does with its plan is asked of the plan itself ({@link #faults}), so that no implementation casts it back.
 */
public interface StorePlan {

    /** The transport's name when {@code transport} names one (tcp, shm, rdma-emu, local), else null. */
    String transportName();

    /** The link per GPU (per instance for a CPU engine). */
    LinkSpec link();

    /** Bytes of the shared store. */
    long storeCapacity();

    /** The store master's settings. */
    MasterConfig masterConfig();

    /** The run's store fault for store objects {@code blockBytes} long (a real engine's KV blocks), or null: none. */
    StoreFaults faults(long blockBytes);
}
