/**
 * Replication groups (docs/SCALE.md "Replication"): a volume's dirty writes appended to a Raft log (Apache Ratis)
 * by the member that serves it, so that a FLUSH or FUA completes only when a quorum holds what it covers; every member
 * keeps the not-yet-clean data ({@code DirtyReplica}); a member that becomes leader replays it into a fresh cache
 * before it serves. Sees the engine only through {@code volume.Volume} and its {@code ReplicationHooks}.
 */
package io.blockcache.replication;
