package dev.kvlab.store.redis;

import dev.kvlab.store.KvBackends;
import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.testkit.KvBackendCompatibilityKit;
import dev.kvlab.store.testkit.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The compatibility kit against a real redis-server through {@code redis://}. */
class RedisCompatibilityTest extends KvBackendCompatibilityKit {

    static RedisServerProcess redis;

    @BeforeAll
    static void start() {
        redis = RedisServerProcess.start();
    }

    @AfterAll
    static void stop() {
        if (redis != null) redis.close();
    }

    @Override
    protected KvBackend open(BackendOptions options) {
        return KvBackends.discover().open(redis.uri(), options);
    }
}
