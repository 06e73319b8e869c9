package io.blockcache.volume;

import io.blockcache.device.IoCallback;
import java.nio.ByteBuffer;

/**
 * What the volume tells a replication layer that copies its dirty data to other nodes (docs/SCALE.md,
 * "Replication"). The volume calls each method on the loop thread when a request is submitted, before anything of it
 * happens, so that the order of the calls is the order in which the engine lets overlapping requests win.
 *
 * <p>Each request method returns the callback the volume completes instead of {@code done}: the replication layer
 * learns when the engine finished the request and, for a FLUSH or a FUA request, completes {@code done} only once
 * everything the request covers is also durable on a quorum of nodes.
 */
public interface ReplicationHooks {
    /** A write of {@code data} (not consumed: copy it now) at {@code startSector}. */
    IoCallback writing(long startSector, ByteBuffer data, boolean fua, IoCallback done);

    /** A write-zeroes of {@code [startSector, + lengthSectors)}. */
    IoCallback zeroing(long startSector, long lengthSectors, boolean fua, IoCallback done);

    /** A trim of {@code [startSector, + lengthSectors)}: its content is undefined afterwards. */
    IoCallback trimming(long startSector, long lengthSectors, IoCallback done);

    /** A FLUSH: {@code done} must wait until every request submitted before it is durable on a quorum. */
    IoCallback flushing(IoCallback done);

    /**
     * Writeback marked {@code [startSector, + lengthSectors)} clean: that data, exactly as the index held it, is on
     * the backing device and the device was flushed.
     */
    void cleaned(long startSector, int lengthSectors);
}
