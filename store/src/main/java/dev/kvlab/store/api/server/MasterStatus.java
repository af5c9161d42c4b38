package dev.kvlab.store.api.server;

/**
 * What a master says of itself ({@code kvlab store status --master HOST:PORT}).
 *
 * @param role          {@code single} (no HA), {@code leader}, {@code standby}, or {@code starting}
 * @param name          its name in its HA cluster ({@code --name}); empty without HA
 * @param term          the leadership term (epoch) it leads or last saw; 0 without HA
 * @param leader        the name of the leader it knows of (itself when it leads), empty when none
 * @param leaderAddress that leader's control-plane address, empty when none
 * @param appliedSeq    the last oplog entry it wrote (leader) or applied (standby); 0 without HA
 * @param objects       complete objects in its metadata (a standby: in its view)
 * @param segments      mounted segments (a standby: in its view)
 */
public record MasterStatus(
        String role,
        String name,
        long term,
        String leader,
        String leaderAddress,
        long appliedSeq,
        long objects,
        long segments) {}
