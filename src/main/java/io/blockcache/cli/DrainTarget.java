package io.blockcache.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The options every {@code drain} command shares: which volume, and where the server's admin API is. */
final class DrainTarget {
    @Option(names = "--volume", paramLabel = "NAME", description = "Only this volume (default: every volume).")
    String volume;

    @Mixin
    AdminOption admin;

    /** The volume asked for, or every volume the server has. */
    List<String> volumes(AdminClient client) throws AdminClient.Unreachable {
        if (volume != null) {
            return List.of(volume);
        }
        List<String> names = new ArrayList<>();
        for (Map<?, ?> item : stats(client)) {
            names.add(String.valueOf(item.get("name")));
        }
        return names;
    }

    /** The {@code volumes} array of {@code /api/stats}. */
    static List<Map<?, ?>> stats(AdminClient client) throws AdminClient.Unreachable {
        AdminClient.Response response = client.get("/api/stats");
        if (response.status() != 200) {
            throw new AdminClient.Unreachable("reading /api/stats failed: " + AdminClient.errorMessage(response));
        }
        List<Map<?, ?>> volumes = new ArrayList<>();
        for (Object item : (List<?>) ((Map<?, ?>) JsonReader.parse(response.body())).get("volumes")) {
            volumes.add((Map<?, ?>) item);
        }
        return volumes;
    }

    /** The drain path of {@code name}, URL-encoded. */
    static String path(String name) {
        return "/api/volumes/" + GetCommand.encode(name) + "/drain";
    }
}
