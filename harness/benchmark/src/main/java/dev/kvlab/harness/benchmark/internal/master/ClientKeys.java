package dev.kvlab.harness.benchmark.internal.master;

import dev.kvlab.harness.benchmark.api.MasterBenchSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One bench client's keys, call after call: fresh ones for puts, for lookups random ones of the set it put first
 * ({@code keysPerClient}). Seeded per client; not thread-safe (one client's calls follow each other).
 */
final class ClientKeys {

    private final int client;
    private final boolean reads;
    private final int perCall;
    private final long prefilled;
    private final SplittableRandom rnd;
    private long next;

    ClientKeys(MasterBenchSettings s, int client) {
        this.client = client;
        this.reads = s.op().reads();
        this.perCall = s.op().batched() ? s.batchSize() : 1;
        this.prefilled = s.keysPerClient();
        this.rnd = new SplittableRandom(s.seed() * 1_000_003L + client);
        this.next = reads ? prefilled : 0;
    }

    static String key(int client, long i) {
        return "c" + client + "/k" + i;
    }

    /** The keys of the next call. */
    List<String> next() {
        List<String> keys = new ArrayList<>(perCall);
        for (int i = 0; i < perCall; i++) keys.add(key(client, reads ? rnd.nextLong(prefilled) : next++));
        return keys;
    }
}
