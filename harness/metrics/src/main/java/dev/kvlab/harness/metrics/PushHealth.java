package dev.kvlab.harness.metrics;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what was pushed to InfluxDB and what was dropped, and says once — on the stream given, the first time
 * anything is dropped — that InfluxDB is not taking pushes; the run goes on either way. Thread-safe.
 */
public final class PushHealth {

    private final String target;
    private final PrintStream err;
    private final AtomicBoolean told = new AtomicBoolean();
    private final AtomicLong pushes = new AtomicLong(), droppedPushes = new AtomicLong();
    private final AtomicLong points = new AtomicLong(), droppedPoints = new AtomicLong();
    private volatile String firstError;

    /**
     * @param target what to call the InfluxDB in messages (its URL; never a secret)
     * @param err    where the one message goes
     */
    public PushHealth(String target, PrintStream err) {
        this.target = target;
        this.err = err;
    }

    /** A live-metrics push (one write request) succeeded. */
    public void pushed() {
        pushes.incrementAndGet();
    }

    /** A live-metrics push failed: its points are dropped. */
    public void pushDropped(String why) {
        pushes.incrementAndGet();
        droppedPushes.incrementAndGet();
        tell(why);
    }

    /** A summary point was written. */
    public void pointWritten() {
        points.incrementAndGet();
    }

    /** A summary point could not be written. */
    public void pointDropped(String why) {
        points.incrementAndGet();
        droppedPoints.incrementAndGet();
        tell(why);
    }

    /** Something else failed (e.g. creating the database); says so once like a drop, counts nothing. */
    public void failed(String why) {
        tell(why);
    }

    private void tell(String why) {
        if (told.compareAndSet(false, true)) {
            firstError = why;
            err.println("kvlab: InfluxDB at " + target + " is not taking pushes (" + why + "); the run goes on, "
                    + "dropped pushes are counted and reported at the end");
            err.flush();
        }
    }

    public long pushes() {
        return pushes.get();
    }

    public long droppedPushes() {
        return droppedPushes.get();
    }

    public long points() {
        return points.get();
    }

    public long droppedPoints() {
        return droppedPoints.get();
    }

    /** Dropped live pushes plus dropped summary points. */
    public long dropped() {
        return droppedPushes.get() + droppedPoints.get();
    }

    /** The counts, for the manifest's {@code observability} section. */
    public PushCounts counts() {
        return new PushCounts(pushes(), droppedPushes(), points(), droppedPoints(), firstError);
    }

    /** One line for the end of the run. */
    public String line() {
        return "kvlab: influx " + target + ": " + (pushes() - droppedPushes()) + " of " + pushes() + " live pushes and "
                + (points() - droppedPoints()) + " of " + points() + " summary points written; dropped " + dropped()
                + " (" + droppedPushes() + " pushes, " + droppedPoints() + " summary points)";
    }
}
