package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoCallback;
import io.blockcache.volume.Volume;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.support.ui.Select;
import io.blockcache.backing.BackingLocation;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;
import java.util.logging.Level;

/**
 * The dashboard in a real browser: Debian's headless Chromium, driven through chromedriver,
 * against a live {@code serve} runtime while a load thread writes and reads. Shows that the page loads without
 * console errors, that every chart draws and keeps updating, and that the numbers in its tables are those of
 * {@code /api/stats}; that the charts come from the server's history (a reload keeps them; 5 min, 1 h and 24 h
 * ranges), fit every label in their canvas and are not blank on screen; the health banner, per-device charts,
 * version, uptime and configuration. Without chromium and chromedriver the test is skipped, naming them, except
 * under CI ({@code .ci/run} installs them), where that is a failure.
 */
class DashboardBrowserTest {
    private static final String[] CHARTS = {"iops", "throughput", "dirty", "rate", "queue", "hit", "latency"};
    /** The per-device charts: the cache device and the volume's backing device, each bytes and errors. */
    private static final String[] DEVICE_CHARTS = {"c-dev-cache-io", "c-dev-cache-errors", "c-dev-default-io",
        "c-dev-default-errors"};
    /** The y-label room the page had before it measured its labels: "11.8 MiB/s" did not fit in it. */
    private static final int OLD_Y_LABEL_ROOM_PX = 52;
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** The load: 64 KiB requests, a few in flight, stopped by the test or by its own bound. */
    private static final int LOAD_BLOCK_BYTES = 64 << 10;
    private static final int LOAD_IN_FLIGHT = 4;
    private static final long LOAD_REQUESTS_MAX = 2_000_000;
    private static final long LOAD_REGION_BYTES = 32L << 20;

    @TempDir
    Path dir;
    private final StringWriter errText = new StringWriter();
    private ServeRuntime runtime;
    private ChromeDriver browser;
    private final AtomicBoolean loadStopped = new AtomicBoolean();

    @AfterEach
    void tearDown() {
        loadStopped.set(true);
        if (browser != null) {
            browser.quit();
        }
        if (runtime != null) {
            runtime.stop();
        }
    }

    @Test
    void dashboardDrawsEveryChartAndShowsTheNumbersOfTheStatsApi() throws Exception {
        // Proves the page in a browser: no console errors, 7 charts per volume that redraw on every poll, and
        // table cells equal to the stats API's numbers once the load has stopped.
        Path chromium = tool("chromium");
        Path driverBinary = tool("chromedriver");
        runtime = ServeRuntime.start(ServeSettings.resolve("--data-dir", dir.resolve("data").toString(),
                "--cache-size", "64M", "--backing-size", "256M", "--nbd-listen", "127.0.0.1:0", "--admin-listen",
                "127.0.0.1:0"),
                new PrintWriter(errText, true));
        String base = "http://127.0.0.1:" + runtime.adminAddress().getPort();
        CountDownLatch loadDone = startLoad(runtime.cacheSet().volume("default"));
        browser = startBrowser(chromium, driverBinary);
        browser.get(base + "/");

        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(page -> polls() >= 3);
        for (String chart : CHARTS) {
            WebElement canvas = browser.findElement(By.id("c-default-" + chart));
            assertThat(inkedPixels(canvas)).as("pixels drawn on chart " + chart).isGreaterThan(200);
        }
        for (String chart : DEVICE_CHARTS) {
            assertThat(inkedPixels(browser.findElement(By.id(chart)))).as("pixels drawn on " + chart)
                    .isGreaterThan(200);
        }
        Map<String, Long> drawsBefore = draws();
        String iopsBefore = image("iops");
        // Counted from here, not from a fixed number: draws() reads the charts one script call at a time, so a poll
        // may run between two of them, and on a loaded machine the checks above may outlast several polls (failed
        // once so: "redraws of queue" 6, not greater than 6). A poll draws every chart in one go, so two polls after
        // this reading redraw each chart at least once after it was read.
        long pollsBefore = polls();
        wait.until(page -> polls() >= pollsBefore + 2);
        Map<String, Long> drawsAfter = draws();
        for (String chart : CHARTS) {
            assertThat(drawsAfter.get(chart)).as("redraws of " + chart).isGreaterThan(drawsBefore.get(chart));
        }
        assertThat(image("iops")).as("the IOPS chart's picture changes under load").isNotEqualTo(iopsBefore);
        assertThat(browser.findElement(By.id("err")).getText()).isEmpty();

        loadStopped.set(true);
        assertThat(loadDone.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("load stopped").isTrue();
        // Writeback would change dirty and written-back numbers between the page's poll and ours: pause it and
        // wait until two stats answers a poll apart agree, then until the page has polled twice after that.
        put(base + "/api/knobs/writeback.default.running", "false");
        Map<?, ?> stats = stableStats(base, wait);
        long seen = polls();
        wait.until(page -> polls() >= seen + 2);
        Map<?, ?> volume = (Map<?, ?>) ((List<?>) stats.get("volumes")).get(0);
        List<String> row = tableRow("volumes", 1);
        assertThat(row.get(0)).isEqualTo("default");
        assertThat(row.get(1)).isEqualTo(volume.get("mode"));
        assertThat(row.get(2)).isEqualTo(size(number(volume, "sizeBytes")));
        assertThat(row.get(3)).isEqualTo(String.format(Locale.ROOT, "%.1f %%", 100 * number(volume, "hitRatio")));
        assertThat(row.get(4)).isEqualTo(size(number(volume, "dirtyBytes")));
        assertThat(row.get(5)).isEqualTo(size(number(volume, "cachedBytes")));
        assertThat(row.get(6)).isEqualTo(String.valueOf((long) number(volume, "bypassedSectors")));
        Map<?, ?> writeback = (Map<?, ?>) volume.get("writeback");
        List<String> wb = tableRow("writeback", 1);
        assertThat(wb.get(1)).isEqualTo("paused");
        assertThat(wb.get(4)).isEqualTo(size(number(writeback, "writtenBackSectors") * 512));
        assertThat(wb.get(5)).isEqualTo(String.valueOf((long) number(writeback, "passes")));
        assertThat(number(volume, "readHitSectors")).as("the load read cached data").isPositive();

        List<String> severe = new ArrayList<>();
        for (LogEntry entry : browser.manage().logs().get(LogType.BROWSER)) {
            if (entry.getLevel().intValue() >= Level.WARNING.intValue()) {
                severe.add(entry.getMessage());
            }
        }
        assertThat(severe).as("browser console warnings and errors").isEmpty();
        assertThat(errText.toString()).doesNotContain("Exception");
    }

    @Test
    void withAnAdminTokenThePageSendsItFromTheFragmentAndNeverPutsItInAUrl() throws Exception {
        // Proves the dashboard under --admin-token-file: opened as /#token=TOKEN it polls and draws (its requests
        // carry the header, or they would get 401), the token leaves the address bar and is never in a request URL;
        // opened without it, the page says what to do and the refusals are counted.
        Path chromium = tool("chromium");
        Path driverBinary = tool("chromedriver");
        String token = "5ecret5ecret5ecret5ecret5ecret00";
        Path tokenFile = AccessSettingsTest.tokenFile(dir, token);
        runtime = ServeRuntime.start(ServeSettings.resolve("--data-dir", dir.resolve("data").toString(),
                "--cache-size", "64M", "--backing-size", "256M", "--nbd-listen", "127.0.0.1:0", "--admin-listen",
                "127.0.0.1:0", "--admin-token-file", tokenFile.toString()),
                new PrintWriter(errText, true));
        String base = "http://127.0.0.1:" + runtime.adminAddress().getPort();
        browser = startBrowser(chromium, driverBinary);
        browser.get(base + "/#token=" + token);
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(page -> polls() >= 3);
        assertThat(browser.findElement(By.id("err")).getText()).isEmpty();
        for (String chart : CHARTS) {
            assertThat(inkedPixels(browser.findElement(By.id("c-default-" + chart)))).as("chart " + chart)
                    .isGreaterThan(200);
        }
        assertThat(browser.getCurrentUrl()).isEqualTo(base + "/").doesNotContain(token);
        Object urls = browser.executeScript(
                "return performance.getEntriesByType('resource').map(e => e.name).join(' ')");
        assertThat(String.valueOf(urls)).contains("/api/stats").doesNotContain(token);
        Map<?, ?> admin = (Map<?, ?>) fetchStats(base, token).get("admin");
        assertThat(admin.get("tokenRequired")).isEqualTo(true);
        assertThat(((Number) admin.get("unauthorizedRequests")).longValue()).as("every poll carried the token")
                .isZero();

        browser.quit();
        browser = startBrowser(chromium, driverBinary); // a new session: no sessionStorage holds the token
        browser.get(base + "/");
        wait = new WebDriverWait(browser, WAIT);
        wait.until(page -> !browser.findElement(By.id("err")).getText().isEmpty());
        assertThat(browser.findElement(By.id("err")).getText())
                .isEqualTo("this server needs the admin token: open this page as " + base + "/#token=TOKEN");
        assertThat(((Number) ((Map<?, ?>) fetchStats(base, token).get("admin")).get("unauthorizedRequests"))
                .longValue()).isPositive();
        assertThat(errText.toString()).contains("admin: 127.0.0.1: GET /api/stats refused (401): no bearer token")
                .doesNotContain(token);
    }

    @Test
    void theChartsComeFromTheServersHistoryFitTheirLabelsAndThePageShowsHealthDevicesAndVersion() throws Exception {
        // Proves the dashboard's server-kept history end to end in a browser: charts with every label inside its
        // canvas and non-blank pixels on screen; the history survives a reload; 1 h and 24 h ranges draw their own
        // axes; the read hit ratio shows a gap once nothing is read; per-device charts; version, uptime and the
        // configuration; and a health banner that names the reason when the backing file is deleted.
        Path chromium = tool("chromium");
        Path driverBinary = tool("chromedriver");
        ServeSettings settings = ServeSettings.resolve("--data-dir", dir.resolve("data").toString(),
                "--cache-size", "64M", "--backing-size", "256M", "--nbd-listen", "127.0.0.1:0", "--admin-listen",
                "127.0.0.1:0");
        runtime = ServeRuntime.start(settings, new PrintWriter(errText, true));
        String base = "http://127.0.0.1:" + runtime.adminAddress().getPort();
        CountDownLatch loadDone = startLoad(runtime.cacheSet().volume("default"));
        browser = startBrowser(chromium, driverBinary);
        browser.get(base + "/");
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.withMessage(this::pageState);
        wait.until(page -> polls() >= 2 && dataset("c-default-iops", "points") >= 6);

        List<String> charts = new ArrayList<>();
        for (String chart : CHARTS) {
            charts.add("c-default-" + chart);
        }
        charts.addAll(List.of(DEVICE_CHARTS));
        assertThat(clippedLabels(charts)).as("labels that do not fit their canvas").isEmpty();
        assertThat(widestYLabelPx("c-default-throughput")).as("the test sees labels wider than the old room")
                .isGreaterThan(OLD_Y_LABEL_ROOM_PX);
        for (String chart : charts) {
            assertThat(screenPixelsInked(chart)).as("inked pixels of " + chart + " on screen").isGreaterThan(1500);
        }
        assertThat(String.valueOf(browser.executeScript(
                "return document.getElementById('c-dev-default-io').dataset.last"))).as("the backing device's reads")
                .matches("read [0-9.]+ (KiB|MiB|GiB)/s");
        assertThat(browser.findElement(By.id("health")).getAttribute("data-state")).isEqualTo("ok");
        assertThat(browser.findElement(By.id("health")).getText()).isEqualTo("Healthy: the volume is ok");
        Map<?, ?> info = fetchJson(base + "/api/info");
        assertThat(browser.findElement(By.id("version")).getText()).isEqualTo("version " + info.get("version"))
                .doesNotContain("unknown");
        assertThat(browser.findElement(By.id("about")).getText()).matches("up 0:0[0-9]:[0-9]{2} · Java .*")
                .contains("cache 64.0 MiB (", "volume default: writeback, 256 MiB, writeback ");

        // A reload keeps the charts: the history is the server's, not the page's.
        long pointsBefore = dataset("c-default-iops", "points");
        browser.navigate().refresh();
        wait.until(page -> polls() >= 1);
        assertThat(dataset("c-default-iops", "points")).as("points drawn at the first poll after a reload")
                .isGreaterThanOrEqualTo(pointsBefore);

        // With nothing read, the hit ratio of each new interval is a gap, not the last value.
        loadStopped.set(true);
        assertThat(loadDone.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("load stopped").isTrue();
        wait.until(page -> "hit -".equals(browser.executeScript(
                "return document.getElementById('c-default-hit').dataset.last")));
        List<?> hits = (List<?>) ((Map<?, ?>) ((Map<?, ?>) fetchJson(base + "/api/history?range=5m").get("volumes"))
                .get("default")).get("readHitRatio");
        assertThat(hits.get(hits.size() - 1)).isNull();
        assertThat(hits.stream().filter(java.util.Objects::nonNull).count()).as("intervals that read").isPositive();

        // The range choice: an hour at one second, a day at one minute, kept across a reload.
        new Select(browser.findElement(By.id("range"))).selectByValue("1h");
        wait.until(page -> labelTexts("c-default-iops").contains("-60 min"));
        new Select(browser.findElement(By.id("range"))).selectByValue("24h");
        wait.until(page -> labelTexts("c-default-iops").contains("-24 h"));
        assertThat(browser.findElement(By.id("resolution")).getText()).startsWith("(a point every 1 min;");
        assertThat(dataset("c-default-iops", "points")).as("the open minute's point").isPositive();
        assertThat(clippedLabels(charts)).as("labels that do not fit their canvas, 24 h").isEmpty();
        browser.navigate().refresh();
        wait.until(page -> polls() >= 1 && labelTexts("c-default-iops").contains("-24 h"));
        assertThat(new Select(browser.findElement(By.id("range"))).getFirstSelectedOption().getAttribute("value"))
                .isEqualTo("24h");

        // The health banner names the reason.
        Files.delete(((BackingLocation.File) settings.backings().get("default")).path());
        wait.until(page -> "degraded".equals(browser.findElement(By.id("health")).getAttribute("data-state")));
        assertThat(browser.findElement(By.id("health")).getText())
                .startsWith("Needs attention — default: degraded, backing changed (")
                .contains("was deleted while open");
    }

    /** Writes and reads 64 KiB blocks over the first 32 MiB, {@link #LOAD_IN_FLIGHT} at a time, on the loop. */
    private CountDownLatch startLoad(Volume volume) {
        CountDownLatch done = new CountDownLatch(LOAD_IN_FLIGHT);
        AtomicLong issued = new AtomicLong();
        for (int slot = 0; slot < LOAD_IN_FLIGHT; slot++) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(LOAD_BLOCK_BYTES);
            Runnable[] next = new Runnable[1];
            IoCallback again = result -> runtime.loop().execute(next[0]);
            next[0] = () -> {
                long n = issued.getAndIncrement();
                if (loadStopped.get() || n >= LOAD_REQUESTS_MAX) {
                    done.countDown();
                    return;
                }
                long blocks = LOAD_REGION_BYTES / LOAD_BLOCK_BYTES;
                long offsetBytes = (n * 40503 % blocks) * LOAD_BLOCK_BYTES;
                buffer.clear();
                if (n % 3 == 0) {
                    volume.write(offsetBytes, buffer, false, again);
                } else {
                    volume.read(offsetBytes, buffer, again);
                }
            };
            runtime.loop().execute(next[0]);
        }
        return done;
    }

    private static ChromeDriver startBrowser(Path chromium, Path driverBinary) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        // --no-sandbox: tests run as root in CI, where Chromium's sandbox refuses to start.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,2000");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driverBinary.toFile())
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    /** What a timed-out wait reports: the page's error line, polls, banner and header, and its console. */
    private String pageState() {
        StringBuilder state = new StringBuilder("page error: ").append(browser.findElement(By.id("err")).getText())
                .append("; polls ").append(polls()).append("; iops points ")
                .append(dataset("c-default-iops", "points")).append("; page ").append(browser.executeScript(
                        "return ['resolution','health','about'].map(id=>document.getElementById(id).textContent)"
                        + ".join(' / ')"));
        for (LogEntry entry : browser.manage().logs().get(LogType.BROWSER)) {
            state.append("; console: ").append(entry.getMessage());
        }
        return state.toString();
    }

    /** A number the page keeps in a chart's {@code data-*} attribute. */
    private long dataset(String canvas, String key) {
        Object value = browser.executeScript(
                "const c=document.getElementById(arguments[0]);return c?Number(c.dataset[arguments[1]]||0):0",
                canvas, key);
        return ((Number) value).longValue();
    }

    /** The texts a chart drew, as it lists them in {@code data-labels}. */
    private String labelTexts(String canvas) {
        return String.valueOf(browser.executeScript("const c=document.getElementById(arguments[0]);"
                + "return c?JSON.parse(c.dataset.labels||'[]').map(l=>l.t).join('|'):''", canvas));
    }

    /**
     * Every text the charts drew that does not fit in its canvas: measured here with the canvas' own font and
     * alignment (the text's ink box from {@code measureText}), against the canvas' width and height.
     */
    private List<String> clippedLabels(List<String> canvases) {
        Object clipped = browser.executeScript("""
                const out=[];
                for(const id of arguments[0]){const c=document.getElementById(id);
                  if(!c){out.push(id+': no such chart');continue}
                  const g=document.createElement('canvas').getContext('2d');g.font=c.getContext('2d').font;
                  for(const l of JSON.parse(c.dataset.labels||'[]')){g.textAlign=l.a;const m=g.measureText(l.t);
                    const x0=l.x-m.actualBoundingBoxLeft,x1=l.x+m.actualBoundingBoxRight,
                      y0=l.y-m.actualBoundingBoxAscent,y1=l.y+m.actualBoundingBoxDescent;
                    if(x0<0||y0<0||x1>c.width||y1>c.height)out.push(id+': "'+l.t+'" at '+[x0,y0,x1,y1].join(','))}
                  if(JSON.parse(c.dataset.labels||'[]').length<6)out.push(id+': fewer labels than axes need')}
                return out""", canvases);
        List<String> out = new ArrayList<>();
        for (Object one : (List<?>) clipped) {
            out.add(String.valueOf(one));
        }
        return out;
    }

    /** The widest right-aligned (y axis) label of a chart, in pixels of its font. */
    private double widestYLabelPx(String canvas) {
        Object value = browser.executeScript("""
                const c=document.getElementById(arguments[0]),g=c.getContext('2d');
                return Math.max(...JSON.parse(c.dataset.labels).filter(l=>l.a=='right')
                  .map(l=>g.measureText(l.t).width))""", canvas);
        return ((Number) value).doubleValue();
    }

    /**
     * Pixels of the chart as the screen shows it (a screenshot of the element) that differ from the canvas'
     * background: axes, labels and lines, not a blank box.
     */
    private long screenPixelsInked(String canvas) throws java.io.IOException {
        WebElement element = browser.findElement(By.id(canvas));
        byte[] png = element.getScreenshotAs(OutputType.BYTES);
        java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(png));
        long inked = 0;
        for (int y = 2; y < image.getHeight() - 2; y++) {
            for (int x = 2; x < image.getWidth() - 2; x++) {
                int rgb = image.getRGB(x, y) & 0xffffff;
                if (rgb != 0xfcfcfc && rgb != 0xffffff) {
                    inked++;
                }
            }
        }
        return inked;
    }

    private static Map<?, ?> fetchJson(String url) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            return (Map<?, ?>) JsonReader.parse(response.body());
        } catch (java.io.IOException | InterruptedException e) {
            throw new AssertionError("GET " + url + " failed", e);
        }
    }

    private long polls() {
        Object value = browser.executeScript("return Number(document.body.dataset.polls||0)");
        return ((Number) value).longValue();
    }

    private Map<String, Long> draws() {
        Map<String, Long> draws = new java.util.HashMap<>();
        for (String chart : CHARTS) {
            Object value = browser.executeScript("return Number(document.getElementById(arguments[0]).dataset.draws)",
                    "c-default-" + chart);
            draws.put(chart, ((Number) value).longValue());
        }
        return draws;
    }

    private String image(String chart) {
        return (String) browser.executeScript("return document.getElementById(arguments[0]).toDataURL()",
                "c-default-" + chart);
    }

    /** Pixels of the canvas that are not transparent: axes, labels and lines. */
    private long inkedPixels(WebElement canvas) {
        Object value = ((JavascriptExecutor) browser).executeScript("""
                const c=arguments[0],d=c.getContext('2d').getImageData(0,0,c.width,c.height).data;
                let n=0;for(let i=3;i<d.length;i+=4){if(d[i]>0)n++}return n""", canvas);
        return ((Number) value).longValue();
    }

    /** One table row's cell texts, read in one script run: the page rebuilds its tables on every poll. */
    private List<String> tableRow(String table, int row) {
        List<String> cells = new ArrayList<>();
        Object texts = browser.executeScript(
                "return Array.from(document.getElementById(arguments[0]).rows[arguments[1]].cells, c => c.textContent)",
                table, row);
        for (Object text : (List<?>) texts) {
            cells.add(String.valueOf(text));
        }
        return cells;
    }

    /** The stats once two answers a page poll apart agree on the numbers the test compares. */
    private Map<?, ?> stableStats(String base, WebDriverWait wait) {
        Map<?, ?>[] last = new Map<?, ?>[1];
        wait.until(page -> {
            Map<?, ?> stats = fetchStats(base);
            long seen = polls();
            new WebDriverWait(browser, WAIT).until(p -> polls() > seen);
            Map<?, ?> again = fetchStats(base);
            last[0] = again;
            return compared(stats).equals(compared(again));
        });
        return last[0];
    }

    private static List<Object> compared(Map<?, ?> stats) {
        Map<?, ?> volume = (Map<?, ?>) ((List<?>) stats.get("volumes")).get(0);
        Map<?, ?> writeback = (Map<?, ?>) volume.get("writeback");
        return List.of(volume.get("hitRatio"), volume.get("dirtyBytes"), volume.get("cachedBytes"),
                volume.get("bypassedSectors"), writeback.get("writtenBackSectors"), writeback.get("passes"),
                writeback.get("running"));
    }

    private static Map<?, ?> fetchStats(String base) {
        return fetchStats(base, null);
    }

    /** {@code GET /api/stats}, with the admin token if not null. */
    private static Map<?, ?> fetchStats(String base, String token) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/api/stats"));
            if (token != null) {
                request.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> response = HttpClient.newHttpClient().send(request.build(),
                    HttpResponse.BodyHandlers.ofString());
            return (Map<?, ?>) JsonReader.parse(response.body());
        } catch (Exception e) {
            throw new AssertionError("GET /api/stats failed", e);
        }
    }

    private static void put(String url, String body) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    private static double number(Map<?, ?> object, String field) {
        return ((Number) object.get(field)).doubleValue();
    }

    /** The page's {@code size()}: binary units, up to three significant digits. */
    static String size(double bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int unit = 0;
        while (Math.abs(bytes) >= 1024 && unit < units.length - 1) {
            bytes /= 1024;
            unit++;
        }
        int decimals = unit == 0 ? 0 : bytes < 10 ? 2 : bytes < 100 ? 1 : 0;
        return String.format(Locale.ROOT, "%." + decimals + "f %s", bytes, units[unit]);
    }

    /** Finds a browser tool: fails under CI (which installs it), skips otherwise. */
    private static Path tool(String name) {
        for (String directory : (System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/bin")
                .split(File.pathSeparator)) {
            Path candidate = Path.of(directory, name);
            if (!directory.isEmpty() && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        String message = "missing tool: " + name + " (install: apt-get install chromium chromium-driver)";
        if (System.getenv("CI") != null) {
            throw new AssertionError(message + "; CI is set, so this is a failure, not a skip");
        }
        Assumptions.abort(message);
        return null;
    }
}
