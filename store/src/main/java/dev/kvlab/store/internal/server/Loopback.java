package dev.kvlab.store.internal.server;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Whether a host is this machine's loopback: the servers' rule for binding without a token. */
public final class Loopback {

    private Loopback() {}

    /** True when {@code host} resolves to loopback addresses only (an unknown host is not loopback). */
    public static boolean only(String host) {
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) if (!a.isLoopbackAddress()) return false;
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
