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
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * Who may use what (issue 12, docs/OPERATIONS.md "Exposing a volume securely"): the admin API's bearer token
 * ({@code --admin-token-file FILE}, config key {@code admin-token-file}) and per-export allow-lists of client
 * address ranges ({@code --allow-addresses NAME=RANGE[,RANGE...]}, config key
 * {@code export.NAME.allow-addresses}) and PSK users ({@code --allow-psk-users NAME=USER[,USER...]},
 * {@code export.NAME.allow-psk-users}). A flag wins over the config file for the export it names. Validated once
 * here; each problem is one line.
 *
 * @param adminTokenFile where the token was read, or null for no token
 * @param adminToken the token, or null
 * @param exports who may use each export, for exports with an allow-list (in name order)
 */
record AccessSettings(Path adminTokenFile, AdminToken adminToken, Map<String, ExportAccess> exports) {
    static final String EXPORT_PREFIX = "export.";
    static final String ALLOW_ADDRESSES = "allow-addresses";
    static final String ALLOW_PSK_USERS = "allow-psk-users";
    /** The per-export config keys' suffixes. */
    static final List<String> EXPORT_KEYS = List.of(ALLOW_ADDRESSES, ALLOW_PSK_USERS);

    /**
     * The flags as given; null or empty where not given.
     *
     * @param adminTokenFile {@code --admin-token-file}
     * @param allowAddresses each {@code --allow-addresses NAME=RANGES}
     * @param allowPskUsers each {@code --allow-psk-users NAME=USERS}
     */
    record Flags(String adminTokenFile, List<String> allowAddresses, List<String> allowPskUsers) {
        static final Flags NONE = new Flags(null, List.of(), List.of());

        Flags {
            allowAddresses = allowAddresses == null ? List.of() : List.copyOf(allowAddresses);
            allowPskUsers = allowPskUsers == null ? List.of() : List.copyOf(allowPskUsers);
        }
    }

    AccessSettings {
        exports = java.util.Collections.unmodifiableMap(new TreeMap<>(exports));
    }

    /** True if {@code key} is a per-export key this class reads ({@code export.NAME.allow-...}). */
    static boolean isExportKey(String key) {
        return key.startsWith(EXPORT_PREFIX);
    }

    /**
     * Resolves the token and the allow-lists.
     *
     * @param exportNames the exports served, which the allow-lists must name
     * @param tls the NBD TLS settings: PSK user lists need TLS-PSK, and name users of its key file
     * @throws IllegalArgumentException one line about the first problem
     */
    static AccessSettings resolve(Flags flags, Properties config, Set<String> exportNames, TlsSettings tls) {
        String tokenFile = flags.adminTokenFile() != null ? flags.adminTokenFile().strip()
                : config.getProperty(AdminTokenFile.KEY) != null ? config.getProperty(AdminTokenFile.KEY).strip()
                : null;
        Path tokenPath = tokenFile == null || tokenFile.isEmpty() ? null : Path.of(tokenFile);
        if (tokenFile != null && tokenPath == null) {
            throw new IllegalArgumentException("--" + AdminTokenFile.KEY + " is empty; name the file that holds the"
                    + " token");
        }
        AdminToken token = tokenPath == null ? null : AdminTokenFile.read(tokenPath);
        Map<String, String> addressLists = lists(config, ALLOW_ADDRESSES, flags.allowAddresses(), exportNames);
        Map<String, String> userLists = lists(config, ALLOW_PSK_USERS, flags.allowPskUsers(), exportNames);
        Set<String> pskUsers = tls.credentials() == null ? null : tls.credentials().pskIdentities();
        Map<String, ExportAccess> exports = new LinkedHashMap<>();
        for (String name : exportNames) {
            List<AddressRange> ranges = addressLists.containsKey(name) ? ranges(name, addressLists.get(name)) : null;
            Set<String> users = userLists.containsKey(name) ? users(name, userLists.get(name), pskUsers) : null;
            if (ranges != null || users != null) {
                exports.put(name, new ExportAccess(ranges, users));
            }
        }
        return new AccessSettings(tokenPath, token, exports);
    }

    /**
     * One kind of list by export: the config's {@code export.NAME.KIND} keys, then the flags' {@code NAME=LIST}
     * over them. Unknown keys, unknown exports and malformed flags are refused.
     */
    private static Map<String, String> lists(Properties config, String kind, List<String> flags,
                                             Set<String> exportNames) {
        Map<String, String> lists = new TreeMap<>();
        for (String key : new java.util.TreeSet<>(config.stringPropertyNames())) {
            if (!isExportKey(key)) {
                continue;
            }
            int dot = key.lastIndexOf('.');
            String name = dot > EXPORT_PREFIX.length() ? key.substring(EXPORT_PREFIX.length(), dot) : "";
            String suffix = key.substring(dot + 1);
            if (name.isEmpty() || !EXPORT_KEYS.contains(suffix)) {
                throw new IllegalArgumentException("unknown key \"" + key + "\"; per-export keys are "
                        + EXPORT_PREFIX + "NAME." + ALLOW_ADDRESSES + " and " + EXPORT_PREFIX + "NAME."
                        + ALLOW_PSK_USERS);
            }
            if (suffix.equals(kind)) {
                lists.put(known(name, key, exportNames), config.getProperty(key).strip());
            }
        }
        for (String flag : flags) {
            int equals = flag.indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("--" + kind + " must be NAME=" + (kind.equals(ALLOW_ADDRESSES)
                        ? "RANGE[,RANGE...], e.g. default=127.0.0.0/8,::1/128" : "USER[,USER...], e.g. default=alice")
                        + "; got \"" + flag + "\"");
            }
            String name = flag.substring(0, equals).strip();
            lists.put(known(name, "--" + kind + " " + flag, exportNames), flag.substring(equals + 1).strip());
        }
        return lists;
    }

    private static String known(String name, String where, Set<String> exportNames) {
        if (!exportNames.contains(name)) {
            throw new IllegalArgumentException(where + ": no export is named \"" + name + "\" (exports: "
                    + exportNames + ")");
        }
        return name;
    }

    private static List<AddressRange> ranges(String export, String text) {
        List<AddressRange> ranges = new ArrayList<>();
        for (String item : items(export, ALLOW_ADDRESSES, text)) {
            try {
                ranges.add(AddressRange.parse(item));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(EXPORT_PREFIX + export + "." + ALLOW_ADDRESSES + ": "
                        + e.getMessage());
            }
        }
        return ranges;
    }

    private static Set<String> users(String export, String text, Set<String> pskUsers) {
        String key = EXPORT_PREFIX + export + "." + ALLOW_PSK_USERS;
        if (pskUsers == null) {
            throw new IllegalArgumentException(key + " needs TLS with pre-shared keys (--tls=require --tls-psk"
                    + " FILE): only a PSK session names its user");
        }
        Set<String> users = new LinkedHashSet<>();
        for (String user : items(export, ALLOW_PSK_USERS, text)) {
            if (!pskUsers.contains(user)) {
                throw new IllegalArgumentException(key + ": user \"" + user + "\" is not in the --tls-psk file"
                        + " (its users: " + pskUsers + ")");
            }
            users.add(user);
        }
        return users;
    }

    private static List<String> items(String export, String kind, String text) {
        List<String> items = new ArrayList<>();
        for (String item : text.split(",", -1)) {
            if (item.isBlank()) {
                throw new IllegalArgumentException(EXPORT_PREFIX + export + "." + kind + " has an empty item in \""
                        + text + "\"; give a comma-separated list, or leave the key out to allow everyone");
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
