package dev.kvlab.harness.benchmark.internal.master;

import dev.kvlab.store.api.master.EndStatus;
import dev.kvlab.store.api.master.PutStartResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The puts a PutStart started, to be ended by one PutEnd: their keys and put ids. */
record PendingEnds(List<String> keys, long[] putIds) {

    /** Those of {@code keys} that {@code started} (the PutStart answer, in key order) reports STARTED. */
    static PendingEnds of(List<String> keys, List<PutStartResult> started) {
        List<String> k = new ArrayList<>(keys.size());
        long[] ids = new long[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            if (started.get(i).status() != PutStartResult.Status.STARTED) continue;
            ids[k.size()] = started.get(i).putId();
            k.add(keys.get(i));
        }
        return new PendingEnds(k, Arrays.copyOf(ids, k.size()));
    }

    boolean isEmpty() {
        return keys.isEmpty();
    }

    /** The number of puts a PutEnd answer completed. */
    static int completed(List<EndStatus> ends) {
        int ok = 0;
        for (EndStatus e : ends) if (e == EndStatus.OK) ok++;
        return ok;
    }
}
