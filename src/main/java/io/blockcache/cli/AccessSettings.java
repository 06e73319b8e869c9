package io.blockcache.cli;

import io.blockcache.admin.AdminToken;
import io.blockcache.nbd.AddressRange;
import io.blockcache.nbd.ExportAccess;
import io.blockcache.nbd.TlsSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Who may use what (docs/OPERATIONS.md "Exposing a volume securely"): the admin API's bearer token
 * ({@code --admin-token-file FILE}, config key {@code admin-token-file}) and per-export allow-lists of client
 * address ranges ({@code --allow-addresses NAME=RANGE[,RANGE...]}, config key
 * {@code export.NAME.allow-addresses}) and PSK users ({@code --allow-psk-users NAME=USER[,USER...]},
 * {@code export.NAME.allow-psk-users}); a flag wins over the config file for the export it names
 * ({@link ConfigDefaults#perName}). Validated once here; each problem is one line naming where the list was given.
 *
 * @param adminTokenFile where the token was read, or null for no token
 * @param adminToken the token, or null
 * @param exports who may use each export, for exports with an allow-list (in name order)
 */
record AccessSettings(Path adminTokenFile, AdminToken adminToken, Map<String, ExportAccess> exports) {
    AccessSettings {
        exports = java.util.Collections.unmodifiableMap(new TreeMap<>(exports));
    }

    /**
     * Reads the token and checks the allow-lists.
     *
     * @param tokenFile the token's file, or null for none
     * @param addressLists the address ranges' text by export name
     * @param userLists the PSK users' text by export name
     * @param exportNames the exports served, which the allow-lists must name
     * @param tls the NBD TLS settings: PSK user lists need TLS-PSK, and name users of its key file
     * @throws IllegalArgumentException one line about the first problem
     */
    static AccessSettings resolve(Path tokenFile, Map<String, ConfigDefaults.Entry> addressLists,
                                  Map<String, ConfigDefaults.Entry> userLists, Set<String> exportNames,
                                  TlsSettings tls) {
        if (tokenFile != null && tokenFile.toString().isEmpty()) {
            throw new IllegalArgumentException("--" + AdminTokenFile.KEY + " is empty; name the file that holds the"
                    + " token");
        }
        AdminToken token = tokenFile == null ? null : AdminTokenFile.read(tokenFile);
        checkNames(addressLists, exportNames);
        checkNames(userLists, exportNames);
        Set<String> pskUsers = tls.credentials() == null ? null : tls.credentials().pskIdentities();
        Map<String, ExportAccess> exports = new LinkedHashMap<>();
        for (String name : exportNames) {
            List<AddressRange> ranges = addressLists.containsKey(name) ? ranges(addressLists.get(name)) : null;
            Set<String> users = userLists.containsKey(name) ? users(userLists.get(name), pskUsers) : null;
            if (ranges != null || users != null) {
                exports.put(name, new ExportAccess(ranges, users));
            }
        }
        return new AccessSettings(tokenFile, token, exports);
    }

    private static void checkNames(Map<String, ConfigDefaults.Entry> lists, Set<String> exportNames) {
        lists.forEach((name, list) -> {
            if (!exportNames.contains(name)) {
                throw new IllegalArgumentException(list.source() + ": no export is named \"" + name + "\" (exports: "
                        + exportNames + ")");
            }
        });
    }

    private static List<AddressRange> ranges(ConfigDefaults.Entry list) {
        List<AddressRange> ranges = new ArrayList<>();
        for (String item : items(list)) {
            try {
                ranges.add(AddressRange.parse(item));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(list.source() + ": " + e.getMessage());
            }
        }
        return ranges;
    }

    private static Set<String> users(ConfigDefaults.Entry list, Set<String> pskUsers) {
        if (pskUsers == null) {
            throw new IllegalArgumentException(list.source() + " needs TLS with pre-shared keys"
                    + " (--tls=require --tls-psk FILE): only a PSK session names its user");
        }
        Set<String> users = new LinkedHashSet<>();
        for (String user : items(list)) {
            if (!pskUsers.contains(user)) {
                throw new IllegalArgumentException(list.source() + ": user \"" + user + "\" is not in the --tls-psk"
                        + " file (its users: " + pskUsers + ")");
            }
            users.add(user);
        }
        return users;
    }

    private static List<String> items(ConfigDefaults.Entry list) {
        List<String> items = new ArrayList<>();
        for (String item : list.value().split(",", -1)) {
            if (item.isBlank()) {
                throw new IllegalArgumentException(list.source() + " has an empty item in \"" + list.value()
                        + "\"; give a comma-separated list, or leave it out to allow everyone");
            }
            items.add(item.strip());
        }
        return items;
    }

    /** For the operator and a reload: e.g. {@code token from /etc/t; a: addresses [10.0.0.0/8]}. */
    String summary() {
        List<String> parts = new ArrayList<>();
        parts.add(adminTokenFile == null ? "no admin token" : "admin token from " + adminTokenFile);
        exports.forEach((name, access) -> parts.add("export " + name + ": " + access.summary()));
        return String.join("; ", parts);
    }
}
