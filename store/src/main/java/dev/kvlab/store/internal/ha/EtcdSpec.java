package dev.kvlab.store.internal.ha;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a replicated master's etcd is and which cluster of masters in it: {@code etcd://HOST:PORT[,HOST:PORT...][/CLUSTER]}
 * (one endpoint per etcd member; the cluster name keeps several store clusters apart in one etcd, default {@code kvlab}).
 * Clients write {@code kvlab+etcd://...} for the same thing.
 */
public record EtcdSpec(List<URI> endpoints, String cluster) {

    public static final String DEFAULT_CLUSTER = "kvlab";

    public EtcdSpec {
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) throw new IllegalArgumentException("no etcd endpoint");
        if (!cluster.matches("[A-Za-z0-9._-]{1,64}"))
            throw new IllegalArgumentException("etcd cluster name '" + cluster + "' must be 1-64 of A-Z a-z 0-9 . _ -");
    }

    /** True for {@code etcd://...} and {@code kvlab+etcd://...}. */
    public static boolean is(String spec) {
        return spec != null && (spec.startsWith("etcd://") || spec.startsWith("kvlab+etcd://"));
    }

    public static EtcdSpec parse(String spec) {
        String form = "etcd://HOST:PORT[,HOST:PORT...][/CLUSTER]";
        if (!is(spec))
            throw new IllegalArgumentException("not an etcd address: '" + spec + "' (expected " + form + ")");
        String rest = spec.substring(spec.indexOf("://") + 3);
        String cluster = DEFAULT_CLUSTER;
        int slash = rest.indexOf('/');
        if (slash >= 0) {
            cluster = rest.substring(slash + 1);
            rest = rest.substring(0, slash);
            if (cluster.isEmpty()) cluster = DEFAULT_CLUSTER;
        }
        List<URI> eps = new ArrayList<>();
        for (String hp : rest.split(",")) {
            int colon = hp.lastIndexOf(':');
            int port;
            try {
                port = colon <= 0 ? -1 : Integer.parseInt(hp.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535)
                throw new IllegalArgumentException("not an etcd address: '" + spec + "' (expected " + form + ")");
            eps.add(URI.create("http://" + hp.substring(0, colon) + ":" + port));
        }
        return new EtcdSpec(eps, cluster);
    }

    /** The first endpoint's host and port ({@code HOST:PORT}), for messages and reachability checks. */
    public String first() {
        return endpoints.getFirst().getHost() + ":" + endpoints.getFirst().getPort();
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("etcd://");
        for (int i = 0; i < endpoints.size(); i++)
            b.append(i == 0 ? "" : ",")
                    .append(endpoints.get(i).getHost())
                    .append(':')
                    .append(endpoints.get(i).getPort());
        return b.append('/').append(cluster).toString();
    }
}
