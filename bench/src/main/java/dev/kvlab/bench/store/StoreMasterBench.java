package dev.kvlab.bench.store;

import dev.kvlab.store.api.MasterConfig;
import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import dev.kvlab.store.api.master.PutStartResult;
import dev.kvlab.store.api.master.ReplicaList;
import dev.kvlab.store.internal.master.StoreMaster;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The master's metadata operations alone (no RPC, no bytes): a lookup with its lease, and a full
 * putStart → putEnd → remove cycle, with {@code objects} objects already stored on 8 segments.
 * Run: {@code java -jar bench/target/kvlab-bench.jar StoreMasterBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class StoreMasterBench {

    @Param({"100000"})
    int objects;

    StoreMaster master;
    String[] keys;
    long next;
    int i;

    @Setup(Level.Trial)
    public void setup() {
        master = new StoreMaster(MasterConfig.defaults(), Clock.systemUTC());
        for (int s = 0; s < 8; s++) master.mountSegment("n" + s, "s" + s, 64L << 30);
        keys = new String[objects];
        for (int k = 0; k < objects; k++) {
            keys[k] = "tenant/block-" + k;
            PutStartResult r = master.putStart(keys[k], 256 * 1024, k, ReplicateConfig.DEFAULT);
            master.putEnd(keys[k], r.putId());
        }
    }

    @Benchmark
    public ReplicaList getReplicaList() {
        i = (i + 1) % objects;
        return master.getReplicaList(keys[i]);
    }

    @Benchmark
    public RemoveStatus putStartEndRemove() {
        String k = "tenant/fresh-" + (next++);
        PutStartResult r = master.putStart(k, 256 * 1024, 1, ReplicateConfig.replicas(2));
        master.putEnd(k, r.putId());
        return master.remove(k);
    }
}
