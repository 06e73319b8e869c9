package io.blockcache.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code NAME=VALUE} option's value ({@code --backing default=/srv/disk.img}): the name, and the value converted by
 * the option's converter ({@link Converters.NamedBacking}, {@link Converters.NamedFile}).
 *
 * @param name an export or volume name, never empty
 * @param value the converted value
 */
record Named<T>(String name, T value) {
    /**
     * The values by name, in the order given.
     *
     * @param what what the names are, for the message ({@code export name})
     * @throws IllegalArgumentException naming each name given twice
     */
    static <T> Map<String, T> byName(List<Named<T>> items, String what) {
        Map<String, T> byName = new LinkedHashMap<>();
        List<String> twice = new java.util.ArrayList<>();
        for (Named<T> item : items) {
            if (byName.put(item.name(), item.value()) != null) {
                twice.add(what + " \"" + item.name() + "\" is given twice");
            }
        }
        if (!twice.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", twice));
        }
        return byName;
    }
}
