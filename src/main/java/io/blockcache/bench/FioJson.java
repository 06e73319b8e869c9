package io.blockcache.bench;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the numbers {@code bench nbd} needs from fio's {@code --output-format=json} report of one job (or
 * group): {@code iops}, {@code bw_bytes}, {@code total_ios} and clat's 99th percentile of the {@code read} or
 * {@code write} section.
 *
 * <p>Deliberately not a JSON parser: it finds the section object by brace matching and the keys inside it by
 * name. fio's report is stable in these keys (fio 3.x); anything missing is an {@link IllegalArgumentException}
 * that quotes the key, never a silent zero.
 */
final class FioJson {
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
        int start = fioOutput.indexOf('{'); // the nbd engine prints "fio: connected to NBD server" first
        if (start < 0) {
            throw new IllegalArgumentException("no JSON in fio's output: " + fioOutput);
        }
        String report = fioOutput.substring(start);
        String section = object(report, workload.reads() ? "read" : "write");
        double iops = number(section, "iops");
        double bytesPerSecond = number(section, "bw_bytes");
        double p99Ns = number(object(section, "clat_ns"), "99.000000");
        long requests = (long) number(section, "total_ios");
        return new Section(iops, bytesPerSecond / (1 << 20), p99Ns / 1000.0, requests);
    }

    /** The text of the first object value of {@code "key"} in {@code text}, braces included. */
    static String object(String text, String key) {
        Matcher matcher = Pattern.compile("\"" + Pattern.quote(key) + "\"\\s*:\\s*\\{").matcher(text);
        if (!matcher.find()) {
            throw new IllegalArgumentException("fio JSON has no object \"" + key + "\"");
        }
        int open = matcher.end() - 1;
        int depth = 0;
        boolean inString = false;
        for (int i = open; i < text.length(); i++) {
            char c = text.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return text.substring(open, i + 1);
            }
        }
        throw new IllegalArgumentException("fio JSON object \"" + key + "\" is not closed");
    }

    /** The first number value of {@code "key"} in {@code text}. */
    static double number(String text, String key) {
        Matcher matcher = Pattern.compile("\"" + Pattern.quote(key) + "\"\\s*:\\s*(-?[0-9.eE+]+)").matcher(text);
        if (!matcher.find()) {
            throw new IllegalArgumentException("fio JSON has no number \"" + key + "\"");
        }
        return Double.parseDouble(matcher.group(1));
    }
}
