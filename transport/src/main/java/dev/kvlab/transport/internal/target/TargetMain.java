package dev.kvlab.transport.internal.target;

import dev.kvlab.transport.Transports;
import dev.kvlab.transport.api.LinkSpec;
import dev.kvlab.transport.api.Segment;
import dev.kvlab.transport.api.TransferEngine;
import dev.kvlab.transport.api.TransportConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The target side of a transfer in its own JVM (started by {@link dev.kvlab.transport.api.TargetProcess}):
 * creates an engine, registers one segment, touches every page of it, prints {@code READY <handle>} and serves
 * until its standard input closes (so it never outlives the process that started it). The auth token, if any,
 * comes from the environment variable {@value #TOKEN_ENV}, never from the command line.
 */
public final class TargetMain {

    public static final String TOKEN_ENV = "KVLAB_TRANSPORT_AUTH_TOKEN";

    private TargetMain() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--option")) {
                String kv = args[i + 1];
                int eq = kv.indexOf('=');
                options.put(kv.substring(0, eq), kv.substring(eq + 1));
            } else {
                a.put(args[i], args[i + 1]);
            }
        }
        TransportConfig config = TransportConfig.defaults()
                .withSliceSize(Long.parseLong(a.get("--slice-size")))
                .withConnectionsPerPeer(Integer.parseInt(a.get("--connections")))
                .withBindHost(a.get("--bind"))
                .withTimeout(Duration.ofNanos(Long.parseLong(a.get("--timeout-ns"))))
                .withMaxFrameBytes(Integer.parseInt(a.get("--max-frame")))
                .withShmDirectory(Path.of(a.get("--shm-dir")))
                .withLink(a.containsKey("--link") ? LinkSpec.parse(a.get("--link")) : null)
                .withAuthToken(System.getenv(TOKEN_ENV))
                .withOptions(options);
        long bytes = Long.parseLong(a.get("--segment-bytes"));
        try (TransferEngine engine = Transports.discover().create(a.get("--transport"), config);
                Segment segment = engine.registerSegment(a.getOrDefault("--segment-name", "target"), bytes)) {
            segment.memory().fill((byte) 0x5a); // every page exists before the first transfer
            System.out.println("READY " + segment.handle().toUri());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.strip().equals("exit")) break;
            }
        }
        System.exit(0);
    }
}
