package dev.kvlab.bench.store;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.grpc.GrpcMasterChannel;
import dev.kvlab.store.internal.grpc.MasterServer;
import dev.kvlab.store.internal.master.StoreMaster;
import dev.kvlab.store.internal.server.MasterService;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One control-plane call over loopback gRPC (the replica lookup that grants a lease), against an in-process call
 * of the same service: the price of the RPC on the get path of {@code kvlab://} clients.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class GrpcControlBench {

    MasterService service;
    MasterServer server;
    GrpcMasterChannel channel;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        service = new MasterService(
                new StoreMaster(MasterConfig.defaults(), Clock.systemUTC()), new SimpleMeterRegistry());
        service.mount("n", "seg", 1L << 30, "local://x/seg?size=1073741824");
        long id = service.putStart("t", List.of("k"), new long[] {1 << 20}, new int[] {0}, ReplicateConfig.DEFAULT)
                .getFirst()
                .putId();
        service.putEnd("t", List.of("k"), new long[] {id});
        server = MasterServer.start(service, "127.0.0.1", 0, null);
        channel = new GrpcMasterChannel("127.0.0.1", server.port(), Duration.ofSeconds(5), null);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.close();
        server.close();
    }

    @Benchmark
    public ReplicaList grpcGetReplicaList() {
        return channel.getReplicaList("t", "k");
    }

    @Benchmark
    public ReplicaList inProcessGetReplicaList() {
        return service.getReplicaList("t", "k");
    }
}
