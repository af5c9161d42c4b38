package dev.kvlab.store.internal.client;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/** CRC32C of a memory range through the JDK's intrinsic (a direct ByteBuffer view: no copy). */
public final class Crc32c {

    private Crc32c() {}

    public static int of(MemorySegment m, long offset, long length) {
        CRC32C c = new CRC32C();
        long done = 0;
        while (done < length) { // ByteBuffer views are int-sized
            long n = Math.min(length - done, 1L << 30);
            c.update(m.asSlice(offset + done, n).asByteBuffer());
            done += n;
        }
        return (int) c.getValue();
    }

    public static int of(MemorySegment m) {
        return of(m, 0, m.byteSize());
    }
}
