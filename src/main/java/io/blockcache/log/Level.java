package io.blockcache.log;

import java.util.Locale;

/**
 * An event's priority, as journald and syslog know them (sd-daemon(3): SD_ERR, SD_WARNING, SD_INFO). Error: the
 * operator must act (a refused start, a fail-stop, a drain that failed). Warning: something went wrong that the
 * server survives (a refused client, a device that changed under the cache). Info: everything else.
 */
public enum Level {
    ERROR, WARNING, INFO;

    /** The level's name in a log line: {@code error}, {@code warning}, {@code info}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
