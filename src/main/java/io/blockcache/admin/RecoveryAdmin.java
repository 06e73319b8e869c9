package io.blockcache.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.blockcache.engine.RecoveryProgress;
import io.blockcache.json.JsonWriter;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.LoopCalls;
import java.io.IOException;
import java.time.Duration;

/**
 * What the admin API answers while the cache set is still being opened: {@code GET /api/stats} gives
 * {@code {"recovery": {...}}} (phase, work done in it, extents replayed, slices) read on the loop — so an answer is
 * also the proof that recovery leaves the loop free between its slices — {@code GET /} gives the dashboard, which
 * shows that progress until the cache serves, and every other path answers 503 with the phase, since nothing else
 * exists yet (docs/ARCHITECTURE.md §4.6).
 *
 * <p>Thread rule: requests run on the endpoint's worker threads and hop to the loop with {@link LoopCalls}.
 */
public final class RecoveryAdmin implements HttpHandler {
    private final EventLoop loop;
    private final RecoveryProgress progress;

    /** Answers from {@code progress}, which {@code loop} owns. */
    public RecoveryAdmin(EventLoop loop, RecoveryProgress progress) {
        this.loop = loop;
        this.progress = progress;
    }

    /**
     * What the API answers before the cache set's files are open (serve binds its ports first, so that a port in
     * use is refused before anything is created): 503 with that reason on every path.
     */
    public static HttpHandler opening() {
        return exchange -> {
            try {
                AdminServer.sendJson(exchange, 503, AdminServer.error("serve is opening the cache and backing files;"
                        + " the API answers once they are open"));
            } finally {
                exchange.close();
            }
        };
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try {
            String json;
            try {
                json = LoopCalls.<String>await(loop, done -> done.accept(render(progress)),
                        Duration.ofMillis(AdminServer.LOOP_ANSWER_MS_MAX));
            } catch (LoopCalls.NoAnswer e) {
                AdminServer.sendJson(exchange, 503, AdminServer.error(e.getMessage()));
                return;
            }
            String path = exchange.getRequestURI().getPath();
            boolean get = exchange.getRequestMethod().equals("GET");
            if (path.equals("/") && get) {
                AdminServer.send(exchange, 200, Dashboard.HTML, "text/html; charset=utf-8");
            } else if (path.equals("/api/stats") && get) {
                AdminServer.sendJson(exchange, 200, json);
            } else {
                AdminServer.sendJson(exchange, 503, AdminServer.error("the cache set is still being opened (" + json
                        + "); only GET /api/stats and the dashboard answer until it serves"));
            }
        } finally {
            exchange.close();
        }
    }

    /** {@code {"recovery": {...}}}; on the loop thread. */
    static String render(RecoveryProgress progress) {
        JsonWriter json = new JsonWriter().beginObject().name("recovery");
        field(json, progress);
        return json.endObject().toString();
    }

    /** Writes the recovery object's value (an object) at the writer's current position. */
    static void field(JsonWriter json, RecoveryProgress progress) {
        json.beginObject()
                .field("phase", progress.phase().jsonName())
                .field("unitsDone", progress.unitsDone())
                .field("unitsTotal", progress.unitsTotal())
                .field("extentsDone", progress.extentsReplayed())
                .field("extentsTotal", progress.extentsTotal())
                .field("slices", progress.slices())
                .field("sliceUnitsPeak", progress.sliceUnitsPeak())
                .field("sliceNsMax", progress.sliceNsMax());
        if (progress.failure() != null) {
            json.field("failure", progress.failure());
        }
        json.endObject();
    }
}
