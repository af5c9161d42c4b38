package dev.kvlab.harness.core.internal.engine;

import java.util.ArrayDeque;

/**
 * Write-back admission, the same for both clocks: one lane per instance, a FIFO bounded by
 * {@code store.write_back_queue_blocks} (blocks that do not fit are dropped and counted) of which at most
 * {@code store.write_back_concurrency} write-backs are in flight. Loop thread only; the {@link Writer} says when a
 * write-back it started is over by running the {@code done} it was given on the loop thread.
 */
public final class WriteBackLanes {

    /** Starts one write-back of blocks {@code [from, to)} of {@code s}; false when nothing needed writing (done is not run then). */
    @FunctionalInterface
    public interface Writer {
        boolean start(Seq s, int from, int to, Instance in, Runnable done);
    }

    private record Job(Seq s, int from, int to, Instance in) {}

    private static final class Lane {
        final ArrayDeque<Job> queue = new ArrayDeque<>();
        int inFlight;
        long queuedBlocks;
    }

    private final Lane[] lanes;
    private final int concurrency;
    private final long queueBlocks;
    private final RemoteCounters counters;
    private final Writer writer;

    public WriteBackLanes(int instances, int concurrency, long queueBlocks, RemoteCounters counters, Writer writer) {
        this.lanes = new Lane[instances];
        for (int i = 0; i < instances; i++) lanes[i] = new Lane();
        this.concurrency = concurrency;
        this.queueBlocks = queueBlocks;
        this.counters = counters;
        this.writer = writer;
    }

    /** Queues the write-back of blocks {@code [from, to)} of {@code s} on its instance's lane, or drops it when the lane is full. */
    public void offer(Seq s, int from, int to) {
        Instance in = s.instance;
        Lane lane = lanes[in.index];
        int n = to - from;
        if (lane.queuedBlocks + n > queueBlocks) {
            counters.dropped(n);
            return;
        }
        lane.queue.addLast(new Job(s, from, to, in));
        lane.queuedBlocks += n;
        pump(lane);
    }

    private void pump(Lane lane) {
        while (lane.inFlight < concurrency && !lane.queue.isEmpty()) {
            Job j = lane.queue.pollFirst();
            lane.queuedBlocks -= j.to() - j.from();
            lane.inFlight++;
            if (!writer.start(j.s(), j.from(), j.to(), j.in(), () -> {
                lane.inFlight--;
                pump(lane);
            })) lane.inFlight--;
        }
    }

    /** Write-backs queued or in flight on every lane. */
    public boolean idle() {
        for (Lane l : lanes) if (l.inFlight > 0 || !l.queue.isEmpty()) return false;
        return true;
    }
}
