package io.blockcache.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.blockcache.device.BlockDevice;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.json.JsonWriter;
import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.loop.LoopCalls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The admin HTTP API of one cache set, on the JDK's {@link com.sun.net.httpserver.HttpServer}:
 * <ul>
 *   <li>{@code GET /api/stats}: JSON ({@link StatsJson});</li>
 *   <li>{@code GET /metrics}: Prometheus text format 0.0.4 ({@link PrometheusText});</li>
 *   <li>{@code GET /api/knobs}, {@code GET /api/knobs/{name}}, {@code PUT /api/knobs/{name}} (body = value):
 *       {@link KnobApi};</li>
 *   <li>{@code POST /api/volumes/{name}/drain}: starts a drain job — every dirty extent of the volume written
 *       back now, optionally under {@code rateMaxBytesPerSecond} and by {@code deadlineSeconds} (query string or
 *       JSON body) — and answers 202 at once, 422 with the rate needed for a deadline that cannot be met
 *       ({@link Drains});</li>
 *   <li>{@code POST /api/volumes/{name}/drain/pause}, {@code .../resume}, {@code .../cancel}; {@code GET
 *       /api/volumes/{name}/drain}: the job's state, bytes left, rate, ETA and deadline (also in {@code /api/stats}
 *       under the volume's {@code writeback.drain}). Every change is saved through the {@link DrainJobStore}
 *       before the answer;</li>
 *   <li>{@code POST /api/volumes/{name}/prefetch?offset=&length=&rate=}: starts a warm-up of the range (the whole
 *       volume by default) and answers 202; {@code GET} the same path: its progress; {@code POST
 *       .../prefetch/cancel} stops it ({@link Prefetches});</li>
 *   <li>{@code GET /api/history?range=5m|1h|24h}: the dashboard's series as kept by the server, a sample a second
 *       for an hour and a minute's for a day ({@link HistoryJson}, {@link MetricHistory});</li>
 *   <li>{@code GET /api/info}: version, uptime, a configuration summary ({@link ServerInfo});</li>
 *   <li>{@code GET /}: the dashboard page, which draws {@code /api/history} and polls {@code /api/stats}
 *       ({@link Dashboard}).</li>
 * </ul>
 * Every read or change of engine state hops to the cache set's loop with {@link LoopCalls}; HTTP threads never
 * touch engine objects. If the loop does not answer within {@value #LOOP_ANSWER_MS_MAX} ms the request gets
 * 503. Where it binds is the caller's choice; the CLI allows loopback only unless told otherwise. With a bearer
 * token ({@link AdminGuard}, on the endpoint) every request but the dashboard page needs it.
 *
 * <p>Thread rule: construct, {@link #start} and {@link #close} from any thread except the loop's.
 */
public final class AdminServer implements AutoCloseable {
    /** How long a request waits for the loop: far above a healthy loop's latency, short enough for a human. */
    static final long LOOP_ANSWER_MS_MAX = 5_000;
    /** Largest request body accepted (a knob value); anything longer is not a knob value. */
    static final int REQUEST_BODY_BYTES_MAX = 4096;
    private static final String VOLUMES_PREFIX = "/api/volumes/";
    /** A replication group member's state ({@link #clusterStatus}). */
    public static final String CLUSTER_PATH = "/api/cluster";
    /** Hands the lead to another member ({@link ClusterControl#transferLeader}). */
    public static final String TRANSFER_PATH = CLUSTER_PATH + "/transfer-leader";
    private volatile ClusterControl cluster;
    private static final String DRAIN_SUFFIX = "/drain";
    private static final String PREFETCH_SUFFIX = "/prefetch";
    private static final java.util.Set<String> DRAIN_ACTIONS = java.util.Set.of("pause", "resume", "cancel");
    /** How long an answer waits for the drain-job file: a few fsyncs on a healthy disk. */
    static final Duration DRAIN_SAVE_WAIT = Duration.ofSeconds(10);

    private final InetSocketAddress bindAddress;
    private final CacheSet set;
    private final BlockDevice cacheDevice;
    /** The backing devices now, for their counters: volumes come and go ({@link VolumeControl}). */
    private volatile List<BackingSpec> backings;
    private final KnobApi knobs;
    private final Drains drains;
    private final VolumeApi volumeApi;
    private volatile VolumeControl volumeControl;
    private final Prefetches prefetches;
    private final DrainJobWriter drainWriter;
    /** The NBD server's counters, set by whoever runs one beside this API (null: none). */
    private volatile Supplier<NbdSnapshot> nbdCounters;
    private volatile Supplier<List<io.blockcache.device.FileSpace>> fileSpaces;
    private AdminEndpoint endpoint;
    private volatile Reloader reloader;
    /** Samples the stats once a second for {@code /api/history}, from {@link #start} to {@link #close}. */
    private final HistoryRecorder history;
    /** When this server was made, for the uptime {@code /api/info} shows: the serving's, not the JVM's. */
    private final long createdNs = System.nanoTime();

    /**
     * @param bindAddress where to listen; port 0 picks a free port (see {@link #address()})
     * @param cacheDevice the set's cache device, for its counters
     * @param backings the backing devices the set was opened with, in volume order, for their counters
     */
    public AdminServer(InetSocketAddress bindAddress, CacheSet set, BlockDevice cacheDevice,
                       List<BackingSpec> backings) {
        this(bindAddress, set, cacheDevice, backings, null, EventSink.NONE);
    }

    /**
     * @param drainJobs where drain jobs are saved for the next start, or null for nowhere
     * @param log told when a drain job ends ({@code drain.done}, {@code drain.failed}, {@code drain.cancelled}; from
     *     the loop thread) and when saving the jobs fails ({@code drain.save_failed}; from the writer thread)
     */
    public AdminServer(InetSocketAddress bindAddress, CacheSet set, BlockDevice cacheDevice,
                       List<BackingSpec> backings, DrainJobStore drainJobs, EventSink log) {
        this.bindAddress = bindAddress;
        this.set = set;
        this.cacheDevice = cacheDevice;
        this.backings = List.copyOf(backings);
        // kept up to date by setBackings when volumes are added or removed
        this.knobs = new KnobApi(set.knobs());
        this.drainWriter = new DrainJobWriter(drainJobs, line -> log.log(EventName.DRAIN_SAVE_FAILED, line));
        this.drains = new Drains(set, drainWriter, System::currentTimeMillis, log);
        this.prefetches = new Prefetches(set);
        this.volumeApi = new VolumeApi(set, () -> volumeControl, this::onLoop);
        this.history = new HistoryRecorder(() -> onLoop(() -> StatsCollector.collect(set, cacheDevice,
                this.backings, drains)), System::currentTimeMillis);
    }

    /**
     * Takes up the drain jobs saved before a restart (running ones run again, paused ones stay paused) and returns
     * a line per job for the log. Call before {@link #start}, from a thread other than the loop's.
     */
    public List<String> restoreDrains(List<DrainJobRecord> saved) {
        return onLoop(() -> drains.restore(saved));
    }

    /** The backing devices after a volume was added or removed, in volume order. */
    public void setBackings(List<BackingSpec> now) {
        backings = List.copyOf(now);
    }

    /** Serves the changes of {@code /api/volumes} with {@code control}; without one they answer 404. */
    public void setVolumeControl(VolumeControl control) {
        volumeControl = control;
    }

    /** Serves {@code POST /api/reload} with {@code reloader}; without one the endpoint answers 404. */
    public void setReloader(Reloader newReloader) {
        reloader = newReloader;
    }

    /** Binds and starts serving. */
    public void start() throws IOException {
        if (endpoint != null) {
            throw new IllegalStateException("admin server already started");
        }
        endpoint = AdminEndpoint.bind(bindAddress, this::handle);
        history.start();
    }

    /**
     * Starts serving on an endpoint that is already listening (the one that answered during recovery,
     * {@link RecoveryAdmin}): from now on its requests come here, and {@link #close} closes it.
     */
    public void start(AdminEndpoint listening) {
        if (endpoint != null) {
            throw new IllegalStateException("admin server already started");
        }
        endpoint = listening;
        endpoint.answerWith(this::handle);
        history.start();
    }

    /** The bound address (with the real port when 0 was asked). */
    public InetSocketAddress address() {
        if (endpoint == null) {
            throw new IllegalStateException("admin server not started");
        }
        return endpoint.address();
    }

    /** Stops listening and ends the worker threads; requests being answered get at most one second. */
    @Override
    public void close() {
        if (endpoint == null) {
            return;
        }
        history.close();
        endpoint.close();
        drainWriter.close();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            if (path.equals("/api/stats")) {
                requireGet(exchange, method, () -> StatsJson.render(snapshot()), "application/json");
            } else if (path.equals("/api/history")) {
                history(exchange, method);
            } else if (path.equals("/api/info")) {
                requireGet(exchange, method, () -> ServerInfo.render(snapshot(), cacheDevice.sizeBytes(), history,
                        java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - createdNs)),
                        "application/json");
            } else if (path.equals("/metrics")) {
                requireGet(exchange, method, () -> PrometheusText.render(snapshot()), PrometheusText.CONTENT_TYPE);
            } else if (path.equals("/api/knobs") || path.equals("/api/knobs/")) {
                requireGet(exchange, method, () -> onLoop(knobs::list).json(), "application/json");
            } else if (path.startsWith("/api/knobs/")) {
                knob(exchange, method, path.substring("/api/knobs/".length()));
            } else if (path.startsWith(VOLUMES_PREFIX) && (path.endsWith(PREFETCH_SUFFIX)
                    || path.endsWith(PREFETCH_SUFFIX + "/cancel"))) {
                prefetch(exchange, method, path.substring(VOLUMES_PREFIX.length()));
            } else if (path.startsWith(VOLUMES_PREFIX) && path.lastIndexOf(DRAIN_SUFFIX) > VOLUMES_PREFIX.length()) {
                int at = path.lastIndexOf(DRAIN_SUFFIX);
                String volume = path.substring(VOLUMES_PREFIX.length(), at);
                String rest = path.substring(at + DRAIN_SUFFIX.length());
                if (rest.isEmpty()) {
                    drain(exchange, method, volume);
                } else if (rest.startsWith("/") && DRAIN_ACTIONS.contains(rest.substring(1))) {
                    drainAction(exchange, method, volume, rest.substring(1));
                } else {
                    sendJson(exchange, 404, error("no such drain action: " + rest + " (pause, resume or cancel)"));
                }
            } else if (VolumeApi.handles(path)) {
                volumeApi.handle(exchange, path, method);
            } else if (path.equals(CLUSTER_PATH) || path.equals(TRANSFER_PATH)) {
                ClusterControl control = cluster;
                if (control == null) {
                    sendJson(exchange, 404, error("this server is not a member of a replication group"
                            + " (serve --node-id, --peers; docs/SCALE.md)"));
                } else if (path.equals(CLUSTER_PATH)) {
                    requireGet(exchange, method, control::statusJson, "application/json");
                } else {
                    transferLeader(exchange, method, control);
                }
            } else if (path.equals("/api/reload")) {
                reload(exchange, method);
            } else if (path.equals("/") || path.equals("/index.html")) {
                requireGet(exchange, method, () -> Dashboard.HTML, "text/html; charset=utf-8");
            } else {
                sendJson(exchange, 404, error("no such endpoint: " + path + " (try /api/stats, /metrics, /api/knobs,"
                        + " /api/history, /api/info, /api/volumes/NAME/drain, /api/cluster, /api/reload or /)"));
            }
        } catch (Unavailable e) {
            sendJson(exchange, 503, error(e.getMessage()));
        } finally {
            exchange.close();
        }
    }

    private void history(HttpExchange exchange, String method) throws IOException {
        long rangeSeconds;
        try {
            rangeSeconds = HistoryJson.rangeSeconds(exchange.getRequestURI().getRawQuery());
        } catch (IllegalArgumentException bad) {
            sendJson(exchange, 400, error(bad.getMessage()));
            return;
        }
        requireGet(exchange, method, () -> HistoryJson.render(history.history(), rangeSeconds,
                history.endSecond()), "application/json");
    }

    private void reload(HttpExchange exchange, String method) throws IOException {
        Reloader current = reloader;
        if (!method.equals("POST")) {
            sendJson(exchange, 405, error(method + " is not allowed on a reload; use POST"));
        } else if (current == null) {
            sendJson(exchange, 404, error("nothing to reload: this server was started without a configuration file"));
        } else {
            try {
                JsonWriter json = new JsonWriter().beginObject().name("changes").beginArray();
                current.reload().forEach(json::value);
                sendJson(exchange, 200, json.endArray().endObject().toString());
            } catch (IllegalArgumentException refused) {
                sendJson(exchange, 400, error(refused.getMessage()));
            }
        }
    }

    private void knob(HttpExchange exchange, String method, String name) throws IOException {
        KnobApi.Answer answer;
        if (method.equals("GET")) {
            answer = onLoop(() -> knobs.get(name));
        } else if (method.equals("PUT")) {
            String value = readBody(exchange);
            if (value == null) {
                sendJson(exchange, 413, error("a knob value is at most " + REQUEST_BODY_BYTES_MAX + " bytes"));
                return;
            }
            answer = onLoop(() -> knobs.set(name, value));
        } else {
            exchange.getResponseHeaders().set("Allow", "GET, PUT");
            sendJson(exchange, 405, error(method + " is not allowed on a knob; use GET or PUT"));
            return;
        }
        sendJson(exchange, answer.status(), answer.json());
    }

    private void drain(HttpExchange exchange, String method, String volume) throws IOException {
        if (method.equals("GET") || method.equals("HEAD")) {
            KnobApi.Answer answer = onLoop(() -> drains.status(volume));
            sendJson(exchange, answer.status(), answer.json());
            return;
        }
        if (!method.equals("POST")) {
            exchange.getResponseHeaders().set("Allow", "GET, POST");
            sendJson(exchange, 405, error(method + " is not allowed on a drain; use POST to start one, GET to look"));
            return;
        }
        String body = readBody(exchange);
        DrainRequest request;
        try {
            if (body == null) {
                throw new IllegalArgumentException("a drain request is at most " + REQUEST_BODY_BYTES_MAX + " bytes");
            }
            request = DrainRequest.parse(exchange.getRequestURI().getRawQuery(), body);
        } catch (IllegalArgumentException bad) {
            sendJson(exchange, 400, error(bad.getMessage()));
            return;
        }
        sendSaved(exchange, onLoop(() -> drains.start(volume, request)));
    }

    private void drainAction(HttpExchange exchange, String method, String volume, String action) throws IOException {
        if (!method.equals("POST")) {
            exchange.getResponseHeaders().set("Allow", "POST");
            sendJson(exchange, 405, error(method + " is not allowed on a drain " + action + "; use POST"));
            return;
        }
        sendSaved(exchange, onLoop(() -> drains.control(volume, action)));
    }

    /** {@code rest} is {@code NAME/prefetch} or {@code NAME/prefetch/cancel}. */
    private void prefetch(HttpExchange exchange, String method, String rest) throws IOException {
        boolean cancel = rest.endsWith("/cancel");
        String volume = rest.substring(0, rest.lastIndexOf(PREFETCH_SUFFIX + (cancel ? "/cancel" : "")));
        if (!cancel && (method.equals("GET") || method.equals("HEAD"))) {
            KnobApi.Answer answer = onLoop(() -> prefetches.status(volume));
            sendJson(exchange, answer.status(), answer.json());
            return;
        }
        if (!method.equals("POST")) {
            exchange.getResponseHeaders().set("Allow", cancel ? "POST" : "GET, POST");
            sendJson(exchange, 405, error(method + " is not allowed here; use POST" + (cancel ? "" : " to start a"
                    + " prefetch, GET to look")));
            return;
        }
        if (cancel) {
            KnobApi.Answer answer = onLoop(() -> prefetches.cancel(volume));
            sendJson(exchange, answer.status(), answer.json());
            return;
        }
        Prefetches.Request request;
        try {
            request = Prefetches.Request.parse(exchange.getRequestURI().getRawQuery());
        } catch (IllegalArgumentException bad) {
            sendJson(exchange, 400, error(bad.getMessage()));
            return;
        }
        ByteBuffer buffer = ByteBuffer.allocateDirect(Prefetches.CHUNK_BYTES); // here: the loop allocates nothing
        KnobApi.Answer answer = onLoop(() -> prefetches.start(volume, request, buffer));
        sendJson(exchange, answer.status(), answer.json());
    }

    /** Answers once the drain jobs the request changed are saved, so an answer seen survives a crash. */
    private void sendSaved(HttpExchange exchange, KnobApi.Answer answer) throws IOException {
        try {
            if (!drainWriter.awaitSaved(DRAIN_SAVE_WAIT)) {
                sendJson(exchange, 503, error("the drain job changed but could not be saved within "
                        + DRAIN_SAVE_WAIT.toSeconds() + " s; a restart may not know it"));
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted while saving the drain jobs");
        }
        sendJson(exchange, answer.status(), answer.json());
    }

    private StatsSnapshot snapshot() {
        StatsSnapshot snapshot = onLoop(() -> StatsCollector.collect(set, cacheDevice, backings, drains));
        snapshot = snapshot.withAdmin(endpoint.counters());
        Supplier<List<io.blockcache.device.FileSpace>> files = fileSpaces;
        snapshot = files == null ? snapshot : snapshot.withFiles(files.get()); // file I/O: here, not on the loop
        Supplier<NbdSnapshot> nbd = nbdCounters;
        return nbd == null ? snapshot : snapshot.withNbd(nbd.get()); // atomics: read here, not on the loop
    }

    /**
     * Adds the local files' space (sparse bytes beyond the free space) to {@code /api/stats} and {@code /metrics};
     * {@code measure} is called on an HTTP thread for every request. Any thread.
     */
    public void fileSpaces(Supplier<List<io.blockcache.device.FileSpace>> measure) {
        this.fileSpaces = measure;
    }

    /**
     * Adds the NBD server's counters to {@code /api/stats} and {@code /metrics}; {@code counters} is called on an
     * HTTP thread for every request. Any thread.
     */
    public void nbdCounters(Supplier<NbdSnapshot> counters) {
        this.nbdCounters = counters;
    }

    /** Answers {@code /api/cluster} and its actions through {@code control}: a member of a replication group. */
    public void cluster(ClusterControl control) {
        this.cluster = control;
    }

    /** {@code POST /api/cluster/transfer-leader?to=ID}: 200 once the lead moved, 409 with the reason if not. */
    private static void transferLeader(HttpExchange exchange, String method, ClusterControl control)
            throws IOException {
        if (!method.equals("POST")) {
            sendJson(exchange, 405, error("use POST " + TRANSFER_PATH + "?to=ID"));
            return;
        }
        String query = exchange.getRequestURI().getRawQuery();
        String to = query != null && query.startsWith("to=")
                ? java.net.URLDecoder.decode(query.substring(3), StandardCharsets.UTF_8) : "";
        if (to.isEmpty()) {
            sendJson(exchange, 400, error("name the member to hand the lead to: POST " + TRANSFER_PATH + "?to=ID"));
            return;
        }
        String problem = control.transferLeader(to);
        if (problem != null) {
            sendJson(exchange, 409, error("cannot hand the lead to " + to + ": " + problem));
            return;
        }
        sendJson(exchange, 200, new JsonWriter().beginObject().name("leader").value(to).endObject().toString());
    }

    /**
     * What a member of a replication group that does not serve answers on its admin port: {@code GET /api/cluster}
     * from {@code control}, and 503 naming the leader ({@code leader} says who it is, or null) on every other path.
     */
    public static HttpHandler following(ClusterControl control, Supplier<String> leader) {
        return exchange -> {
            try {
                String path = exchange.getRequestURI().getPath();
                if (path.equals(CLUSTER_PATH) && exchange.getRequestMethod().equals("GET")) {
                    sendJson(exchange, 200, control.statusJson());
                } else {
                    String who = leader.get();
                    sendJson(exchange, 503, error("this member of a replication group does not serve: "
                            + (who == null ? "no leader is elected yet" : "member " + who + " serves the volumes")
                            + "; GET " + CLUSTER_PATH + " says more"));
                }
            } finally {
                exchange.close();
            }
        };
    }

    private <T> T onLoop(Supplier<T> task) {
        try {
            return LoopCalls.<T>await(set.loop(), done -> done.accept(task.get()),
                    Duration.ofMillis(LOOP_ANSWER_MS_MAX));
        } catch (LoopCalls.NoAnswer e) {
            throw new Unavailable(e.getMessage());
        }
    }

    private static void requireGet(HttpExchange exchange, String method, Supplier<String> body, String contentType)
            throws IOException {
        if (!method.equals("GET") && !method.equals("HEAD")) {
            exchange.getResponseHeaders().set("Allow", "GET");
            sendJson(exchange, 405, error(method + " is not allowed here; use GET"));
            return;
        }
        send(exchange, 200, body.get(), contentType);
    }

    /** The body as UTF-8 text, or null if it is longer than {@link #REQUEST_BODY_BYTES_MAX}. */
    private static String readBody(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] bytes = in.readNBytes(REQUEST_BODY_BYTES_MAX + 1);
            return bytes.length > REQUEST_BODY_BYTES_MAX ? null : new String(bytes, StandardCharsets.UTF_8);
        }
    }

    static String error(String message) {
        return new JsonWriter().beginObject().field("error", message).endObject().toString();
    }

    static void sendJson(HttpExchange exchange, int status, String json) throws IOException {
        send(exchange, status, json, "application/json");
    }

    static void send(HttpExchange exchange, int status, String body, String contentType) throws IOException {
        byte[] bytes = (body + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** The loop could not answer; becomes a 503. */
    private static final class Unavailable extends RuntimeException {
        Unavailable(String message) {
            super(message);
        }
    }
}
