package dev.kvlab.harness.openai.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Scrapes the engines' Prometheus counters on a thread of its own every {@code period} while a measured phase runs,
 * so the cell's loop reads the latest scrape at each interval without waiting for an HTTP call. A failed scrape
 * keeps the previous one (the figures stay as they were; the phase's end is scraped again by the cell).
 */
final class EngineScraper implements AutoCloseable {

    private final AtomicReference<PromMetrics> latest;
    private final Thread thread;
    private volatile boolean stopped;

    EngineScraper(Supplier<PromMetrics> scrape, PromMetrics first, Duration period) {
        this.latest = new AtomicReference<>(first);
        this.thread = Thread.ofPlatform().name("kvlab-engine-metrics").daemon().start(() -> {
            while (!stopped) {
                try {
                    Thread.sleep(period);
                } catch (InterruptedException e) {
                    return;
                }
                try {
                    latest.set(scrape.get());
                } catch (RuntimeException e) {
                    // an engine that did not answer this once: the previous scrape stands
                }
            }
        });
    }

    /** The latest scrape (any thread). */
    PromMetrics latest() {
        return latest.get();
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
    }
}
