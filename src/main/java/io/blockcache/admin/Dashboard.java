package io.blockcache.admin;

import io.blockcache.json.JsonWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The dashboard page of {@code GET /} ({@code dashboard.html} beside this class): a health banner with each volume's
 * state and reason ({@link VolumeHealth}), the version, uptime and a configuration summary ({@code /api/info}), a
 * time-range choice (5 min, 1 h, 24 h, kept in the browser's local storage), and line charts on {@code <canvas>} (no
 * library, so nothing external to load) drawn from the server's history ({@code /api/history}, {@link
 * MetricHistory}), so a reload keeps them: per volume requests per second, read and write throughput, dirty data
 * (with the time to clean at the current writeback rate), writeback rate (measured and the PI rate), backing queue
 * depth, the read hit ratio of each interval (a gap where nothing was read) and the latency of each interval (mean,
 * p50, p99 from the histograms); per device (the cache device and each backing) bytes read and written and errors.
 * Then tables of the numbers from {@code /api/stats}, polled every second. Each chart measures its labels before
 * drawing, so the plot starts right of the widest y label and no text is cut; it lists what it drew in {@code
 * data-labels}, counts its draws in {@code data-draws}, and the page counts its polls in {@code body[data-polls]},
 * so a browser test can check the labels and wait for an update instead of sleeping ({@code DashboardBrowserTest}).
 *
 * <p>The script reads each metric by its Prometheus name through a table generated from {@link Metrics#ALL} (the
 * metric's key in its {@code /api/stats} object and the factor to its base unit), so the page spells no metric's
 * JSON key and converts no sectors itself; a name the catalogue lacks stops the poll with an error on the page.
 *
 * <p>With an admin token ({@link AdminGuard}) the operator opens {@code http://HOST:PORT/#token=TOKEN}: the
 * fragment never leaves the browser (no request line, no server or proxy log holds it), the script keeps the token
 * in the tab's {@code sessionStorage}, clears it from the address bar and sends it as {@code Authorization: Bearer}.
 */
final class Dashboard {
    private Dashboard() {
    }

    /** The page; self-contained, no external resources (the admin API is often reached through a tunnel). */
    static final String HTML = page();

    /** Where the generated metric table goes in the page. */
    private static final String METRICS_MARK = "/*METRICS*/";

    private static String page() {
        JsonWriter json = new JsonWriter().beginObject();
        for (MetricDescriptor<?> metric : Metrics.ALL) {
            json.name(metric.name()).beginObject().name("p").beginObject();
            for (MetricDescriptor.Series<?> series : metric.series()) {
                json.field(series.labelValue() == null ? "" : series.labelValue(), series.jsonPath());
            }
            json.endObject().field("f", metric.jsonUnit().convert(1, metric.seriesUnit().base())).endObject();
        }
        return template().replace(METRICS_MARK, json.endObject().toString());
    }

    /** The page with its script, kept as a resource of its own: HTML and JavaScript read better outside Java. */
    private static String template() {
        try (InputStream in = Dashboard.class.getResourceAsStream("dashboard.html")) {
            if (in == null) {
                throw new IllegalStateException("dashboard.html is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("reading dashboard.html from the jar", e);
        }
    }
}
