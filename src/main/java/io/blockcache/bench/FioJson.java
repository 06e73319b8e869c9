package io.blockcache.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads the numbers {@code bench nbd} needs from fio's {@code --output-format=json} report of one job (or
 * group): {@code iops}, {@code bw_bytes}, {@code total_ios} and clat's 99th percentile of the {@code read} or
 * {@code write} section of the first job. Parsed with Jackson; anything missing is an
 * {@link IllegalArgumentException} that names the key, never a silent zero.
 */
final class FioJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private FioJson() {
    }

    /**
     * What fio measured in one section.
     *
     * @param iops         requests per second over the measured runtime (ramp excluded)
     * @param mibPerSecond payload MiB per second
     * @param p99Us        99th percentile completion latency, microseconds
     * @param requests     requests completed in the measured runtime ({@code total_ios})
     */
    record Section(double iops, double mibPerSecond, double p99Us, long requests) {
    }

    /** The measured numbers of the section {@code read} ({@code reads}) or {@code write} of the first job. */
    static Section parse(String fioOutput, NbdWorkload workload) {
        return parse(fioOutput, workload.reads());
    }

    /** The measured numbers of the section {@code read} (if {@code reads}) or {@code write} of the first job. */
    static Section parse(String fioOutput, boolean reads) {
        int start = fioOutput.indexOf('{'); // the nbd engine prints "fio: connected to NBD server" first
        if (start < 0) {
            throw new IllegalArgumentException("no JSON in fio's output: " + fioOutput);
        }
        JsonNode report;
        try {
            report = MAPPER.readTree(fioOutput.substring(start));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("fio's output is not valid JSON: " + e.getOriginalMessage(), e);
        }
        JsonNode section = child(child(report, "jobs").path(0), reads ? "read" : "write");
        double iops = number(section, "iops");
        double bytesPerSecond = number(section, "bw_bytes");
        double p99Ns = number(child(child(section, "clat_ns"), "percentile"), "99.000000");
        long requests = (long) number(section, "total_ios");
        return new Section(iops, bytesPerSecond / (1 << 20), p99Ns / 1000.0, requests);
    }

    private static JsonNode child(JsonNode node, String key) {
        JsonNode child = node.path(key);
        if (child.isMissingNode() || child.isNull()) {
            throw new IllegalArgumentException("fio JSON has no \"" + key + "\"");
        }
        return child;
    }

    private static double number(JsonNode node, String key) {
        JsonNode value = child(node, key);
        if (!value.isNumber()) {
            throw new IllegalArgumentException("fio JSON \"" + key + "\" is not a number: " + value);
        }
        return value.asDouble();
    }
}
