package io.blockcache.backing;

import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.loop.EventLoop;
import java.io.IOException;
import java.time.InstantSource;
import java.util.UUID;

/**
 * Opens an {@code s3://} volume as an {@link S3Device}, checking everything before writing anything: the bucket
 * (exists, credentials allowed), the volume metadata (present and ours, or created when asked), and ownership
 * ({@link S3Lease}). A wrong endpoint, bucket or credentials, a missing or foreign volume, or a volume another cache
 * owns is an {@link IOException} with one line, and nothing was written.
 *
 * <p>Blocking: start-up only, never on a loop thread.
 */
public final class S3Backing {
    private S3Backing() {
    }

    /**
     * What to do when the prefix holds no volume yet.
     *
     * @param sizeBytes the new volume's size, or 0 to refuse a prefix without a volume
     * @param volumeUuid the new volume's identity (the caller draws it: the backing package has no randomness)
     * @param headerBytes a new volume must be larger than this: the backing header the cache will write into it
     */
    public record Create(long sizeBytes, UUID volumeUuid, long headerBytes) {
        /** Refuse a prefix without a volume. */
        public static final Create NEVER = new Create(0, new UUID(0, 0), 0);
    }

    /**
     * Decides, before anything is written (the owner record included), whether an existing volume may be opened:
     * a new cache must not overwrite the backing header of another cache set unless told to.
     */
    public interface AttachGuard {
        /** Opens every existing volume. */
        AttachGuard NONE = new AttachGuard() {
            @Override
            public int headBytes() {
                return 0;
            }

            @Override
            public String refusal(byte[] head, boolean takingOver) {
                return null;
            }
        };

        /** How many bytes of the volume's start {@link #refusal} needs; 0 to skip the check (no GET). */
        int headBytes();

        /**
         * @param head the first {@link #headBytes()} bytes of the volume (zeros where no chunk was written)
         * @param takingOver true when another cache's owner record is there and {@code --take-over} was given (without
         *     it the guard is not asked: the owner record refuses the volume, naming its owner)
         * @return null to go on, else the one-line refusal
         */
        String refusal(byte[] head, boolean takingOver);
    }

    /**
     * Opens the volume at {@code uri}.
     *
     * @param clock the wall clock for the owner record's times
     * @param log told one line when a volume is created or taken over
     * @throws IOException with one line naming the volume
     */
    public static S3Device open(EventLoop loop, S3Uri uri, S3Options options, Create create, InstantSource clock,
                                EventSink log) throws IOException {
        return open(loop, uri, options, create, AttachGuard.NONE, clock, log);
    }

    /**
     * As {@link #open(EventLoop, S3Uri, S3Options, Create, InstantSource, EventSink)}, asking {@code guard} about an
     * existing volume before the owner record is taken.
     */
    public static S3Device open(EventLoop loop, S3Uri uri, S3Options options, Create create, AttachGuard guard,
                                InstantSource clock, EventSink log) throws IOException {
        return open(loop, S3Store.open(uri, options), uri, options, create, guard, clock, log);
    }

    /** As {@link #open(EventLoop, S3Uri, S3Options, Create, InstantSource, EventSink)}, on {@code store}. */
    static S3Device open(EventLoop loop, S3Store store, S3Uri uri, S3Options options, Create create,
                         InstantSource clock, EventSink log) throws IOException {
        return open(loop, store, uri, options, create, AttachGuard.NONE, clock, log);
    }

    /** As {@link #open(EventLoop, S3Uri, S3Options, Create, AttachGuard, InstantSource, EventSink)}, on a store. */
    static S3Device open(EventLoop loop, S3Store store, S3Uri uri, S3Options options, Create create,
                         AttachGuard guard, InstantSource clock, EventSink log) throws IOException {
        try {
            store.checkBucket();
            S3Store.Found found = store.get(S3Volume.OBJECT_NAME);
            S3Volume volume = found == null ? null : S3Volume.decode(found.body(), store.where());
            if (volume == null && create.sizeBytes() == 0) {
                throw new IOException(store.where() + " holds no blockcache volume (no object "
                        + uri.key(S3Volume.OBJECT_NAME) + "); create one with a new cache and --backing-size SIZE");
            }
            S3Volume wanted = volume != null ? volume : newVolume(store, create);
            if (volume != null) {
                checkGuard(store, volume, options, guard);
            }
            S3Lease lease = S3Lease.acquire(store, options.ownerId(), options.takeOver(), clock, log);
            if (volume == null) {
                if (store.putIf(S3Volume.OBJECT_NAME, wanted.encode(), null) == null && !ours(store, wanted)) {
                    throw new IOException(store.where() + ": another cache created a volume here at the same time");
                }
                log.log(EventName.BACKING_S3_CREATED, "created the S3 volume " + store.where() + " ("
                        + wanted.sizeBytes() + " bytes, chunks of " + wanted.chunkBytes() + " bytes)");
            }
            S3Device device = new S3Device(loop, store, wanted, lease, S3Device.IO_THREADS_DEFAULT,
                    options.retryTimeMs());
            if (volume == null) {
                device.markVolumeCreated();
            }
            lease.startRenewing(device::fence);
            return device;
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /**
     * Takes back what {@link #open} wrote, for a start refused after it (another backing store refused, the cache file
     * could not be created) and before anything was written through {@code device}: deletes the volume object if the
     * open created it, and the owner record if the open created it; a record taken back or taken over stays. Call it
     * off the loop thread (blocking), then close the device on its loop.
     *
     * @throws IOException with one line if the store refused a DELETE (the objects may remain)
     */
    public static void withdraw(S3Device device) throws IOException {
        if (device.lease() != null) {
            device.lease().withdraw();
        }
        if (device.volumeCreated()) {
            device.store().delete(S3Volume.OBJECT_NAME);
        }
    }

    /**
     * True if the volume object is the one we meant to create: the SDK retries a PUT whose reply was lost (seen under
     * load: "Error writing request body to server"), and the retry of a conditional PUT that had succeeded meets its
     * own object (412). The new volume's identity is random, so equal bytes mean our own write.
     */
    private static boolean ours(S3Store store, S3Volume wanted) throws IOException {
        S3Store.Found found = store.get(S3Volume.OBJECT_NAME);
        return found != null && java.util.Arrays.equals(found.body(), wanted.encode());
    }

    /** Asks {@code guard} about the volume's first bytes; refuses with its line. */
    private static void checkGuard(S3Store store, S3Volume volume, S3Options options, AttachGuard guard)
            throws IOException {
        int headBytes = (int) Math.min(guard.headBytes(), volume.chunkLengthBytes(0));
        if (headBytes <= 0) {
            return;
        }
        S3Store.Found owner = store.get(S3Lease.OBJECT_NAME);
        boolean another = owner != null && !S3Lease.Holder.parse(owner.body()).owner().equals(options.ownerId());
        if (another && !options.takeOver()) {
            return; // the owner record refuses it, naming the owner: the more useful line
        }
        byte[] head = new byte[headBytes];
        store.getRange(S3Volume.chunkName(0), 0, headBytes, head, 0);
        String refusal = guard.refusal(head, another);
        if (refusal != null) {
            throw new IOException(refusal);
        }
    }

    private static S3Volume newVolume(S3Store store, Create create) throws IOException {
        if (create.sizeBytes() <= create.headerBytes()) {
            throw new IOException(store.where() + ": a new volume of " + create.sizeBytes() + " bytes is too small, it"
                    + " needs more than its " + create.headerBytes() + "-byte header (--backing-size)");
        }
        try {
            return new S3Volume(create.sizeBytes(), S3Volume.CHUNK_BYTES_DEFAULT, create.volumeUuid());
        } catch (IllegalArgumentException e) {
            throw new IOException(store.where() + ": " + e.getMessage());
        }
    }
}
