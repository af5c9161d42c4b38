package dev.kvlab.store.internal.ha;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.server.MasterService;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Keeps a standby hot: once, a few seconds after it starts standing by, it serves a few thousand calls of every kind (puts, lookups,
 * batches) to itself through a scratch master behind a loopback gRPC server of its own — the same classes its real
 * server runs once it leads — so that the JIT has compiled them before a failover instead of after it (a cold JVM serves
 * its first seconds several times slower: the failover would last longer than the election). The scratch master holds
 * nothing of the cluster's; it is dropped afterwards.
 */
final class StandbyWarmup {

    private StandbyWarmup() {}

    /**
     * Runs the warm-up on a daemon thread of low priority, {@code delayMillis} from now (a cluster's masters and nodes
     * starting together should not compete with it), {@code rounds} put+get rounds, while {@code wanted} holds (a
     * master that leads warms up by serving). The thread (join it to wait).
     */
    static Thread start(MasterConfig config, int rounds, long delayMillis, java.util.function.BooleanSupplier wanted) {
        Thread t = Thread.ofPlatform().daemon().name("kvlab-standby-warmup").unstarted(() -> {
            try {
                Thread.sleep(delayMillis);
            } catch (InterruptedException e) {
                return;
            }
            if (wanted.getAsBoolean()) run(config, rounds, wanted);
        });
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
        return t;
    }

    static void run(MasterConfig config, int rounds, java.util.function.BooleanSupplier wanted) {
        MasterService scratch =
                new MasterService(new StoreMaster(config, Clock.systemUTC()), new SimpleMeterRegistry());
        try (MasterServer srv = MasterServer.start(scratch, "127.0.0.1", 0, null);
                GrpcMasterChannel ch = new GrpcMasterChannel("127.0.0.1", srv.port(), Duration.ofSeconds(10), null)) {
            ch.mount("warmup", "warmup-seg", 1L << 40, "warmup://seg");
            ReplicateConfig one = ReplicateConfig.replicas(1);
            for (int i = 0; i < rounds && wanted.getAsBoolean(); i++) {
                List<String> k = List.of("k" + i);
                List<PutStartResult> s = ch.putStart("warmup", k, new long[] {4096}, new int[] {i}, one);
                ch.putEnd("warmup", k, new long[] {s.getFirst().putId()});
                ch.getReplicaList("warmup", k.getFirst());
                ch.exists("warmup", k);
                if (i % 16 == 0) {
                    List<String> batch = List.of("b" + i, "c" + i, "d" + i, "e" + i);
                    List<PutStartResult> bs =
                            ch.putStart("warmup", batch, new long[] {4096, 4096, 4096, 4096}, new int[4], one);
                    long[] ids = bs.stream().mapToLong(PutStartResult::putId).toArray();
                    ch.putEnd("warmup", batch, ids);
                    ch.getReplicaLists("warmup", batch);
                    ch.putRevoke("warmup", List.of("z" + i), new long[] {1});
                    ch.remove("warmup", k.getFirst());
                    ch.ping("warmup");
                    ch.status();
                }
            }
        } catch (Exception e) {
            // a warm-up: nothing depends on it
        } finally {
            scratch.close();
        }
    }
}
