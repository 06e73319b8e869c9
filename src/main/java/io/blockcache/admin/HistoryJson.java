package io.blockcache.admin;

import io.blockcache.json.JsonWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JSON of {@code GET /api/history?range=5m|1h|24h} (or seconds: {@code range=600}): one array per series of
 * {@link HistorySampler}, oldest first, a value every {@code stepSeconds} from {@code firstEpochSeconds}, null where
 * none (no sample, or a ratio of nothing). Per volume it adds {@code readHitRatio} (0 to 1), derived per point from
 * the read hit and miss rates, so that a minute's ratio weighs each second by what it read. Also says the history's
 * memory now and at most ({@link MetricHistory#MEMORY_BYTES_MAX}).
 *
 * <p>Thread rule: any thread.
 */
final class HistoryJson {
    static final String READ_HIT_RATIO = "readHitRatio";
    /** Above this, a value is written as a whole number: a byte rate needs no decimals, and the answer is shorter. */
    private static final double WHOLE_ABOVE = 100;

    private HistoryJson() {
    }

    /**
     * The range in seconds from the query string's {@code range} (default 5 minutes): a number with an optional
     * unit {@code s}, {@code m} or {@code h}.
     *
     * @throws IllegalArgumentException if it is no such thing or outside [1 s, 24 h]
     */
    static long rangeSeconds(String rawQuery) {
        String range = "5m";
        if (rawQuery != null) {
            for (String part : rawQuery.split("&")) {
                if (part.startsWith("range=")) {
                    range = part.substring("range=".length());
                }
            }
        }
        if (!range.matches("[0-9]{1,6}[smh]?")) {
            throw new IllegalArgumentException("range is a number of seconds, or with a unit: 5m, 1h, 24h: " + range);
        }
        char unit = range.charAt(range.length() - 1);
        long factor = unit == 'h' ? 3600 : unit == 'm' ? 60 : 1;
        long seconds = Long.parseLong(Character.isDigit(unit) ? range : range.substring(0, range.length() - 1))
                * factor;
        if (seconds < 1 || seconds > MetricHistory.RANGE_SECONDS_MAX) {
            throw new IllegalArgumentException("range is 1 s to " + MetricHistory.RANGE_SECONDS_MAX / 3600 + " h: "
                    + range);
        }
        return seconds;
    }

    /** The last {@code rangeSeconds} of {@code history}, up to {@code endSecond} or its newest sample. */
    static String render(MetricHistory history, long rangeSeconds, long endSecond) {
        MetricHistory.Window window = history.window(rangeSeconds, endSecond);
        Map<String, Map<String, double[]>> volumes = new LinkedHashMap<>();
        Map<String, Map<String, double[]>> devices = new LinkedHashMap<>();
        for (Map.Entry<String, double[]> entry : window.values().entrySet()) {
            String name = entry.getKey();
            int first = name.indexOf('/');
            int last = name.lastIndexOf('/');
            Map<String, Map<String, double[]>> group = name.startsWith("volume/") ? volumes : devices;
            group.computeIfAbsent(name.substring(first + 1, last), key -> new LinkedHashMap<>())
                    .put(name.substring(last + 1), entry.getValue());
        }
        for (Map<String, double[]> volume : volumes.values()) {
            double[] hits = volume.get(HistorySampler.READ_HIT_BYTES);
            double[] misses = volume.get(HistorySampler.READ_MISS_BYTES);
            if (hits != null && misses != null) {
                double[] ratio = new double[window.points()];
                for (int i = 0; i < ratio.length; i++) {
                    double read = hits[i] + misses[i];
                    ratio[i] = read > 0 ? hits[i] / read : Double.NaN; // nothing read: a gap, NaN stays NaN
                }
                volume.put(READ_HIT_RATIO, ratio);
            }
        }
        JsonWriter json = new JsonWriter().beginObject()
                .field("rangeSeconds", rangeSeconds)
                .field("stepSeconds", window.stepSeconds())
                .field("firstEpochSeconds", window.firstSecond())
                .field("points", window.points())
                .field("memoryBytes", history.memoryBytes())
                .field("memoryBytesMax", MetricHistory.MEMORY_BYTES_MAX);
        group(json.name("volumes"), volumes);
        group(json.name("devices"), devices);
        return json.endObject().toString();
    }

    private static void group(JsonWriter json, Map<String, Map<String, double[]>> group) {
        json.beginObject();
        for (Map.Entry<String, Map<String, double[]>> one : group.entrySet()) {
            json.name(one.getKey()).beginObject();
            for (Map.Entry<String, double[]> series : one.getValue().entrySet()) {
                json.name(series.getKey()).beginArray();
                for (double value : series.getValue()) {
                    if (Double.isFinite(value) && Math.abs(value) >= WHOLE_ABOVE) {
                        json.value(Math.round(value));
                    } else {
                        json.value(Double.isFinite(value) ? Math.round(value * 1000) / 1000.0 : value);
                    }
                }
                json.endArray();
            }
            json.endObject();
        }
        json.endObject();
    }
}
