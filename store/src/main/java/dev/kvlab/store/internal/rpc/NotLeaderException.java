package dev.kvlab.store.internal.rpc;

/**
 * The master called is not the leader of its replicated cluster (a standby, one still taking over, or an old leader
 * fenced off after losing its lease): it serves no object call. Clients that follow the leader through etcd ask there
 * who leads now; a client pinned to this master fails the call cleanly (a miss, a put not stored).
 */
public final class NotLeaderException extends MasterUnavailableException {
    private static final long serialVersionUID = 1L;

    public NotLeaderException(String message) {
        super(message, null);
    }
}
