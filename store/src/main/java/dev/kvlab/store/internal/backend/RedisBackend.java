package dev.kvlab.store.internal.backend;

import dev.kvlab.store.api.BackendOptions;
import dev.kvlab.store.api.GetResult;
import dev.kvlab.store.api.GetStatus;
import dev.kvlab.store.api.KeyRules;
import dev.kvlab.store.api.KeyedPayload;
import dev.kvlab.store.api.KvBackend;
import dev.kvlab.store.api.PutStatus;
import dev.kvlab.store.api.RemoveStatus;
import dev.kvlab.store.api.ReplicateConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

/**
 * Redis/Valkey behind {@link KvBackend}, for side-by-side runs. Each value is stored with a 4-byte CRC32C
 * trailer so that a get is checked like the bundled store's (checksum always, the key's content in verify
 * mode); a put is {@code SET NX} (an existing key is a no-op success). Keys are {@code tenant/key}.
 */
final class RedisBackend implements KvBackend {

    private static final ValueLayout.OfInt CRC = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final String name;
    private final JedisPool pool;
    private final String prefix;
    private final boolean verify;
    private final Arena buffers = Arena.ofShared();

    RedisBackend(String name, String host, int port, BackendOptions options) {
        this.name = name;
        this.prefix = KeyRules.checkTenant(options.tenant()) + "/";
        this.verify = options.verifyContent();
        JedisPoolConfig pc = new JedisPoolConfig();
        pc.setMaxTotal(256);
        pc.setMaxIdle(256);
        pc.setJmxEnabled(false);
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, options.timeout().toMillis());
        this.pool = new JedisPool(pc, host, port, timeoutMs);
        try (Jedis j = pool.getResource()) {
            j.ping();
        } catch (JedisException e) {
            pool.close();
            throw new IllegalStateException("cannot reach redis at " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String copySemantics() {
        return "GET: server memory -> kernel socket -> client heap byte[] (RESP) -> caller's buffer (one extra copy), then one CRC32C pass"
                + (verify ? " and one content pass" : "") + "; PUT: caller's buffer -> heap byte[] -> socket -> server";
    }

    @Override
    public MemorySegment allocateBuffer(long bytes) {
        return buffers.allocate(bytes, 4096);
    }

    private byte[] key(String k) {
        return (prefix + KeyRules.checkKey(k)).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] encode(MemorySegment value) {
        long n = value.byteSize();
        if (n <= 0 || n > Integer.MAX_VALUE - 8)
            throw new IllegalArgumentException("value size " + n + " is not supported by the redis backend");
        byte[] out = new byte[(int) n + 4];
        MemorySegment o = MemorySegment.ofArray(out);
        MemorySegment.copy(value, 0, o, 0, n);
        CRC32C c = new CRC32C();
        c.update(out, 0, (int) n);
        o.set(CRC, n, (int) c.getValue());
        return out;
    }

    private GetResult decode(String key, byte[] v, MemorySegment dst) {
        if (v == null) return GetResult.miss();
        if (v.length < 5) return GetResult.failed(GetStatus.CHECKSUM_MISMATCH, "value too short to carry a checksum");
        int n = v.length - 4;
        if (n > dst.byteSize())
            return GetResult.failed(GetStatus.ERROR, "buffer of " + dst.byteSize() + " bytes is too small for " + n);
        CRC32C c = new CRC32C();
        c.update(v, 0, n);
        if ((int) c.getValue() != MemorySegment.ofArray(v).get(CRC, n))
            return GetResult.failed(GetStatus.CHECKSUM_MISMATCH, "CRC32C mismatch");
        MemorySegment.copy(MemorySegment.ofArray(v), 0, dst, 0, n);
        if (verify && !KeyedPayload.matches(key, dst, 0, n))
            return GetResult.failed(GetStatus.CONTENT_MISMATCH, "content is not the key's");
        return GetResult.hit(n);
    }

    private static GetResult failure(JedisException e) {
        return GetResult.failed(
                e instanceof JedisConnectionException ? GetStatus.TIMEOUT : GetStatus.ERROR, e.getMessage());
    }

    @Override
    public PutStatus put(String key, MemorySegment value, ReplicateConfig config) {
        byte[] k = key(key);
        byte[] v = encode(value);
        try (Jedis j = pool.getResource()) {
            return j.set(k, v, SetParams.setParams().nx()) != null ? PutStatus.OK : PutStatus.EXISTS;
        } catch (JedisException e) {
            return PutStatus.FAILED;
        }
    }

    @Override
    public GetResult getInto(String key, MemorySegment dst) {
        byte[] k = key(key);
        byte[] v;
        try (Jedis j = pool.getResource()) {
            v = j.get(k);
        } catch (JedisException e) {
            return failure(e);
        }
        return decode(key, v, dst);
    }

    @Override
    public List<PutStatus> batchPut(List<String> keys, List<MemorySegment> values, ReplicateConfig config) {
        if (keys.size() != values.size())
            throw new IllegalArgumentException(keys.size() + " keys but " + values.size() + " values");
        List<byte[]> ks = new ArrayList<>(keys.size());
        for (String k : keys) ks.add(key(k));
        PutStatus[] out = new PutStatus[keys.size()];
        try (Jedis j = pool.getResource()) {
            Pipeline p = j.pipelined();
            List<Response<String>> rs = new ArrayList<>(keys.size());
            for (int i = 0; i < ks.size(); i++)
                rs.add(p.set(
                        ks.get(i), encode(values.get(i)), SetParams.setParams().nx()));
            p.sync();
            for (int i = 0; i < out.length; i++) out[i] = rs.get(i).get() != null ? PutStatus.OK : PutStatus.EXISTS;
        } catch (JedisException e) {
            Arrays.fill(out, PutStatus.FAILED);
        }
        return Arrays.asList(out);
    }

    @Override
    public List<GetResult> batchGetInto(List<String> keys, List<MemorySegment> dsts) {
        if (keys.size() != dsts.size())
            throw new IllegalArgumentException(keys.size() + " keys but " + dsts.size() + " buffers");
        if (keys.isEmpty()) return List.of();
        byte[][] ks = new byte[keys.size()][];
        for (int i = 0; i < ks.length; i++) ks[i] = key(keys.get(i));
        List<byte[]> vs;
        try (Jedis j = pool.getResource()) {
            vs = j.mget(ks);
        } catch (JedisException e) {
            GetResult[] f = new GetResult[keys.size()];
            Arrays.fill(f, failure(e));
            return Arrays.asList(f);
        }
        List<GetResult> out = new ArrayList<>(keys.size());
        for (int i = 0; i < ks.length; i++) out.add(decode(keys.get(i), vs.get(i), dsts.get(i)));
        return out;
    }

    @Override
    public boolean exists(String key) {
        byte[] k = key(key);
        try (Jedis j = pool.getResource()) {
            return j.exists(k);
        } catch (JedisException e) {
            return false;
        }
    }

    @Override
    public boolean[] batchExists(List<String> keys) {
        boolean[] out = new boolean[keys.size()];
        if (keys.isEmpty()) return out;
        List<byte[]> ks = new ArrayList<>(keys.size());
        for (String k : keys) ks.add(key(k));
        try (Jedis j = pool.getResource()) {
            Pipeline p = j.pipelined();
            List<Response<Boolean>> rs = new ArrayList<>(ks.size());
            for (byte[] k : ks) rs.add(p.exists(k));
            p.sync();
            for (int i = 0; i < out.length; i++) out[i] = rs.get(i).get();
        } catch (JedisException e) {
            return new boolean[keys.size()];
        }
        return out;
    }

    @Override
    public RemoveStatus remove(String key) {
        byte[] k = key(key);
        try (Jedis j = pool.getResource()) {
            return j.del(k) > 0 ? RemoveStatus.REMOVED : RemoveStatus.NOT_FOUND;
        }
    }

    @Override
    public void close() {
        pool.close();
        buffers.close();
    }
}
