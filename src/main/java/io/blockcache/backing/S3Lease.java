package io.blockcache.backing;

import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The ownership record of an {@code s3://} volume, the object {@code prefix/owner} (docs/SCALE.md): which cache
 * holds the volume's dirty data and may write to it. Taken with a conditional PUT ({@code If-None-Match: *} when
 * there is none, {@code If-Match: ETAG} to replace one), so of two caches racing for a free volume exactly one
 * wins; renewed every {@link #RENEW_PERIOD} with {@code If-Match} on the entity tag it last wrote, so a renewal
 * that fails with 412 means another cache took the volume over, and this one stops writing to it ({@code onLost}).
 *
 * <p>There is no expiry: a record that is no longer renewed is never taken silently, because the dead owner's cache
 * device may hold dirty data that only it has. Taking it is a decision ({@code --take-over}). The same owner
 * (the same cache file on the same host, reopening after a crash or restart) takes its own record back at once.
 *
 * <p>Object text, {@code key=value} lines: {@code owner} (host and cache file), {@code host}, {@code pid},
 * {@code acquired} and {@code renewed} (ISO-8601 UTC, from the clock the caller gives).
 *
 * <p>Threads: {@link #acquire} blocks (start-up); renewals run on one daemon thread of their own.
 */
public final class S3Lease {
    /** The object's name under the prefix. */
    public static final String OBJECT_NAME = "owner";
    /** How often the owner renews the record: often enough that "last renewed" tells a live node from a dead one. */
    public static final Duration RENEW_PERIOD = Duration.ofSeconds(30);
    /** Attempts at taking the record when conditional PUTs keep losing races (each loss means a record changed). */
    static final int ACQUIRE_ATTEMPTS_MAX = 3;

    private final S3Store store;
    private final String ownerId;
    private final InstantSource clock;
    private final String acquired;
    /**
     * True if {@link #acquire} created the record (there was none; also when its create's reply was lost), false if
     * it took back or took over one.
     */
    private final boolean created;
    private volatile String etag;
    private volatile String lostTo;
    private final AtomicLong renewals = new AtomicLong();
    private final AtomicLong renewalFailures = new AtomicLong();
    private ScheduledExecutorService renewer;

    private S3Lease(S3Store store, String ownerId, InstantSource clock, String acquired, String etag,
                    boolean created) {
        this.store = store;
        this.created = created;
        this.ownerId = ownerId;
        this.clock = clock;
        this.acquired = acquired;
        this.etag = etag;
    }

    /** Who holds a volume, as read from its record. */
    record Holder(String owner, String host, String pid, String renewed) {
        static Holder parse(byte[] body) throws IOException {
            Properties properties = new Properties();
            properties.load(new StringReader(new String(body, StandardCharsets.UTF_8)));
            return new Holder(properties.getProperty("owner", "?"), properties.getProperty("host", "?"),
                    properties.getProperty("pid", "?"), properties.getProperty("renewed", "?"));
        }

        String describe() {
            return owner + " (pid " + pid + ", last renewed " + renewed + ")";
        }
    }

    /**
     * Takes the volume for {@code ownerId}: creates the record, takes back our own, or with {@code takeOver}
     * replaces another owner's.
     *
     * @param log told one line when another owner's record is replaced
     * @throws IOException with one line naming the owner when another cache owns the volume and {@code takeOver} is
     *     false, or when the store fails
     */
    static S3Lease acquire(S3Store store, String ownerId, boolean takeOver, InstantSource clock, EventSink log)
            throws IOException {
        String now = clock.instant().toString();
        boolean triedToCreate = false;
        for (int attempt = 1; attempt <= ACQUIRE_ATTEMPTS_MAX; attempt++) {
            S3Store.Found found = store.get(OBJECT_NAME);
            if (found != null && triedToCreate) {
                // Perhaps our own create: the SDK retries a PUT whose reply was lost, and the retry meets the first
                // attempt's object (412); a CI run under load left a withdrawn volume's record behind, which only
                // this explains. The body names this process and this acquire's instant, so equal bytes mean our
                // write; taking it as "taken back" would make withdraw() leave it behind.
                S3Lease ours = new S3Lease(store, ownerId, clock, now, found.etag(), true);
                if (Arrays.equals(found.body(), ours.body(now))) {
                    return ours;
                }
            }
            Holder holder = found == null ? null : Holder.parse(found.body());
            if (holder != null && !holder.owner().equals(ownerId) && !takeOver) {
                throw new IOException(store.where() + " is owned by " + holder.describe() + "; its cache may hold "
                        + "dirty data of this volume. Stop that cache, or use --take-over for a deliberate failover"
                        + " (docs/SCALE.md)");
            }
            S3Lease lease = new S3Lease(store, ownerId, clock, now, null, found == null);
            String newTag = store.putIf(OBJECT_NAME, lease.body(now), found == null ? null : found.etag());
            triedToCreate |= found == null;
            if (newTag != null) {
                if (holder != null && !holder.owner().equals(ownerId)) {
                    log.log(EventName.BACKING_S3_TAKEN_OVER, "took over " + store.where() + " from "
                            + holder.describe());
                }
                lease.etag = newTag;
                return lease;
            }
        }
        throw new IOException(store.where() + ": the owner record kept changing while taking it ("
                + ACQUIRE_ATTEMPTS_MAX + " attempts); another cache is starting on this volume");
    }

    /**
     * Renews the record every {@link #RENEW_PERIOD} on a thread of its own; when a renewal finds another owner,
     * calls {@code onLost} once with a one-line reason and stops. A renewal that fails for another reason (the
     * store is unreachable) is retried at the next period.
     */
    synchronized void startRenewing(Consumer<String> onLost) {
        if (renewer != null) {
            return;
        }
        renewer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "blockcache-s3-lease");
            thread.setDaemon(true);
            return thread;
        });
        long periodMs = RENEW_PERIOD.toMillis();
        renewer.scheduleWithFixedDelay(() -> {
            if (lostTo == null && !renew()) {
                onLost.accept(lostTo);
                stopRenewing();
            }
        }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /** Stops renewing (the record stays: the cache still holds the volume's dirty data, if any). */
    synchronized void stopRenewing() {
        if (renewer != null) {
            renewer.shutdownNow();
        }
    }

    /**
     * Renews the record once.
     *
     * @return false once another cache owns the volume ({@link #lostTo()} says who); true otherwise, also when the
     *     store could not be reached (the record still names us)
     */
    boolean renew() {
        try {
            String newTag = store.putIf(OBJECT_NAME, body(clock.instant().toString()), etag);
            if (newTag != null) {
                etag = newTag;
                renewals.incrementAndGet();
                return true;
            }
            S3Store.Found found = store.get(OBJECT_NAME);
            if (found != null && etag.equals(found.etag())) {
                return true; // 409: a concurrent conditional request, not a take-over; the record is still ours
            }
            if (found != null && Holder.parse(found.body()).owner().equals(ownerId)) {
                // Our own renewal: the SDK retried a PUT whose reply was lost, and the retry met the first attempt.
                etag = found.etag();
                renewals.incrementAndGet();
                return true;
            }
            String holder = found == null ? "nobody (the record was deleted)" : Holder.parse(found.body()).describe();
            lostTo = store.where() + ": ownership was taken over by " + holder + "; this cache no longer writes to it";
            return false;
        } catch (IOException unreachable) {
            renewalFailures.incrementAndGet();
            return true;
        }
    }

    /**
     * Stops renewing and, if {@link #acquire} created the record, deletes it again: for a start that failed before the
     * volume was used, so that it leaves no owner behind. A record taken back or taken over stays (it was there
     * before). Blocking.
     */
    void withdraw() throws IOException {
        stopRenewing();
        if (created) {
            store.delete(OBJECT_NAME);
        }
    }

    /** Why the volume is no longer ours, or null while it is. */
    public String lostTo() {
        return lostTo;
    }

    /** Renewals that rewrote the record; any thread. */
    public long renewals() {
        return renewals.get();
    }

    /** Renewals that could not reach the store (retried at the next period); any thread. */
    public long renewalFailures() {
        return renewalFailures.get();
    }

    /** Who this lease is for. */
    public String ownerId() {
        return ownerId;
    }

    private byte[] body(String renewed) {
        String host = ownerId.contains(":") ? ownerId.substring(0, ownerId.indexOf(':')) : ownerId;
        return ("owner=" + ownerId + "\nhost=" + host + "\npid=" + ProcessHandle.current().pid() + "\nacquired="
                + acquired + "\nrenewed=" + renewed + "\n").getBytes(StandardCharsets.UTF_8);
    }
}
