package dev.kvlab.harness.spi;

import dev.kvlab.store.api.KvBackend;
import java.lang.foreign.MemorySegment;

/**
 * The store tier the framework gives a target that asks for one ({@link TargetFramework#audited}): a {@link KvBackend}
 * with the framework's independent audit around it, which remembers a digest of every value written through it and
 * checks each hit it is shown against it. A hit whose bytes differ from what was written counts in {@link #wrongHits()}
 * (a cell's {@code wrong_hits_used}).
 */
public interface AuditedStore extends KvBackend {

    /** What the audit says of bytes about to be used under a key. */
    enum Verdict {
        /** The bytes are what was written under the key. */
        MATCH,
        /** They are not: using them would be a wrong hit. */
        MISMATCH,
        /** Nothing was written under the key through this store: it cannot say. */
        UNKNOWN
    }

    /** Hits checked against what was written. */
    long hitsChecked();

    /** Hits whose bytes were not what was written under their key (must stay 0). */
    long wrongHits();

    /** Whether {@code buf[0, length)}, a hit under {@code key}, is what was written under it (counted). */
    Verdict check(String key, MemorySegment buf, long length);
}
