package dev.kvlab.harness.spi;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.transport.api.LinkSpec;

/**
 * The run's store as the framework planned and checked it ({@link TargetFramework#storePlan}), for a target that keeps
 * KV blocks in kvlab's store: how its clients reach it and how large it is. The framework's own plan object; a target
 * reads it and hands it back ({@link TargetFramework#faults}).
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
}
