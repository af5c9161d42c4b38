package dev.kvlab.store.internal.master;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/** The lock of a {@link StoreMaster#singleThreaded} master: only one thread calls it, so there is nothing to exclude. */
final class NoLock implements Lock {

    @Override
    public void lock() {}

    @Override
    public void lockInterruptibly() {}

    @Override
    public boolean tryLock() {
        return true;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) {
        return true;
    }

    @Override
    public void unlock() {}

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a single-threaded master has no conditions");
    }
}
