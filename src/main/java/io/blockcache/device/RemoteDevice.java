package io.blockcache.device;

/**
 * A block device reached over the network (the NBD client, {@code backing.NbdDevice}), seen from outside for
 * statistics: whether it is connected, how often it had to reconnect, and what it would write again after a
 * reconnect. Requests in flight are its {@link DeviceCounters#inFlight()}. Every method: any thread.
 */
public interface RemoteDevice {
    /** True while connected to the server; false while it is away (reconnecting) or after close. */
    boolean connected();

    /** One line for people: {@code connected (4 connections)}, {@code away: WHY (reconnecting)} or {@code closed}. */
    String state();

    /** Times the connection broke (every connection dropped at once). */
    long breaks();

    /** Times the client reconnected after a break. */
    long reconnects();

    /** Requests that waited longer than the client's request timeout; each broke its connection (then reconnect). */
    long requestTimeouts();

    /** Bytes of the replay log: acknowledged writes no acknowledged flush covers yet, written again on reconnect. */
    long replayLogBytes();
}
