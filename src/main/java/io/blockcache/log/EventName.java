package io.blockcache.log;

import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Every event the server logs, once: its stable name (what {@code event=NAME} or {@code "event":"NAME"} carries, and
 * scripts and alerts match), the levels it is logged at (the usual one first) and the fields it carries. The table in
 * docs/OPERATIONS.md "Logs" lists the same rows with what the operator does about each; {@code EventNameDocsTest}
 * keeps the two equal and every name here in use. A name is lower case words joined by dots: the area first, then
 * what happened.
 */
public enum EventName {
    // serve: the process
    SERVE_START_FAILED("serve.start_failed", Level.ERROR),
    SERVE_MEMORY_LOW("serve.memory_low", Level.WARNING),
    SERVE_STOPPING("serve.stopping", Level.INFO),
    SERVE_STOPPED("serve.stopped", Level.INFO, Level.ERROR, "clean"),
    SERVE_STOP_PROBLEM("serve.stop_problem", Level.WARNING, Level.ERROR, ""),
    SERVE_FAIL_STOP("serve.fail_stop", Level.ERROR),
    SYSTEMD_NOTIFY_FAILED("systemd.notify_failed", Level.WARNING),
    FILES_SPACE_LOW("files.space_low", Level.WARNING),
    ADMIN_EXPOSED("admin.exposed", Level.WARNING, "address"),
    ADMIN_REFUSED("admin.refused", Level.WARNING),
    // the cache's files and volumes
    HOST_FORMAT("host.format", Level.INFO, "path"),
    HOST_FORMAT_PROGRESS("host.format.progress", Level.INFO),
    HOST_FILE_CREATED("host.file.created", Level.INFO, "path bytes"),
    HOST_CACHE_GROWN("host.cache.grown", Level.INFO, "path bytes"),
    HOST_CACHE_SIZE_IGNORED("host.cache_size.ignored", Level.WARNING, "path"),
    HOST_VOLUME_ATTACHED("host.volume.attached", Level.INFO, "volume backing"),
    HOST_VOLUME_ADDED("host.volume.added", Level.INFO, "volume"),
    HOST_VOLUME_REMOVED("host.volume.removed", Level.INFO, "volume"),
    HOST_VOLUME_DETACH_FAILED("host.volume.detach_failed", Level.ERROR, "volume reason"),
    HOST_DAMAGE_MAP_DELETED("host.damage_map.deleted", Level.INFO, "path"),
    HOST_UNDO_FAILED("host.undo_failed", Level.WARNING),
    HOST_CLOSE_FAILED("host.close_failed", Level.WARNING),
    DEVICE_DEGRADED("device.degraded", Level.WARNING, "role volume"),
    DEVICE_LOCK_LOST("device.lock_lost", Level.WARNING),
    BACKING_S3_CREATED("backing.s3.created", Level.INFO),
    BACKING_S3_TAKEN_OVER("backing.s3.taken_over", Level.WARNING),
    // drain jobs
    DRAIN_DONE("drain.done", Level.INFO, "volume bytes seconds"),
    DRAIN_FAILED("drain.failed", Level.ERROR, "volume bytes seconds reason"),
    DRAIN_CANCELLED("drain.cancelled", Level.INFO, "volume bytes seconds"),
    DRAIN_RESTORED("drain.restored", Level.INFO),
    DRAIN_SAVE_FAILED("drain.save_failed", Level.WARNING),
    // pinned ranges
    PIN_RESTORED("pin.restored", Level.INFO),
    PIN_DROPPED("pin.dropped", Level.WARNING),
    // writeback
    WRITEBACK_ERROR("writeback.error", Level.WARNING, "volume errors"),
    // the NBD server
    NBD_CONNECT("nbd.connect", Level.INFO, "peer export tls"),
    NBD_DISCONNECT("nbd.disconnect", Level.INFO, "peer export seconds"),
    NBD_REFUSED("nbd.refused", Level.WARNING, "peer"),
    NBD_HANDSHAKE_FAILED("nbd.handshake.failed", Level.WARNING, "peer"),
    NBD_PROTOCOL_ERROR("nbd.protocol_error", Level.WARNING, "peer"),
    NBD_TLS_FAILED("nbd.tls.failed", Level.WARNING, "peer"),
    NBD_TLS_REFUSED("nbd.tls.refused", Level.WARNING, "peer"),
    NBD_TLS_REQUIRED("nbd.tls.required", Level.WARNING, "peer"),
    NBD_EXPORT_REFUSED("nbd.export.refused", Level.WARNING, "peer"),
    NBD_EXPORT_REMOVED("nbd.export.removed", Level.INFO, "export clients"),
    NBD_REQUEST_REFUSED("nbd.request.refused", Level.WARNING, "peer"),
    NBD_TIMEOUT("nbd.timeout", Level.WARNING, "peer"),
    NBD_OUT_OF_MEMORY("nbd.out_of_memory", Level.WARNING, "peer"),
    NBD_SUPPRESSED("nbd.suppressed", Level.WARNING, "suppressed"),
    // a replication group's member (serve --node-id --peers)
    CLUSTER_STARTED("cluster.started", Level.INFO, "node"),
    CLUSTER_FOLLOWING("cluster.following", Level.INFO, "leader"),
    CLUSTER_LEADING("cluster.leading", Level.INFO, "term bytes"),
    CLUSTER_SERVING("cluster.serving", Level.INFO, "term"),
    CLUSTER_STOPPED_SERVING("cluster.stopped_serving", Level.INFO, "reason"),
    CLUSTER_PROBLEM("cluster.problem", Level.WARNING),
    // libraries that log through SLF4J (Ratis, the AWS SDK): their warnings and errors
    LIB_WARNING("lib.warning", Level.WARNING, "logger exception"),
    LIB_ERROR("lib.error", Level.ERROR, "logger exception"),
    // the log itself
    LOG_SUPPRESSED("log.suppressed", Level.WARNING, "of suppressed"),
    LOG_DROPPED("log.dropped", Level.WARNING, "dropped");

    private final String id;
    private final Set<Level> levels;
    private final Level level;
    private final List<String> fields;

    EventName(String id, Level level) {
        this(id, level, level, "");
    }

    EventName(String id, Level level, String fields) {
        this(id, level, level, fields);
    }

    EventName(String id, Level level, Level otherLevel, String fields) {
        if (!id.matches("[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+")) {
            throw new IllegalArgumentException("an event name is lower case words joined by dots: " + id);
        }
        this.id = id;
        this.level = level;
        this.levels = Collections.unmodifiableSet(EnumSet.of(level, otherLevel));
        this.fields = fields.isEmpty() ? List.of() : List.of(fields.split(" "));
    }

    /** The stable name, e.g. {@code drain.done}. */
    public String id() {
        return id;
    }

    /** The usual level. */
    public Level level() {
        return level;
    }

    /** Every level it is logged at. */
    public Set<Level> levels() {
        return levels;
    }

    /** The keys of its fields, in the order they are written. */
    public List<String> fields() {
        return fields;
    }
}
