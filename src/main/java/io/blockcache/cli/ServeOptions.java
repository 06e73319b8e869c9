package io.blockcache.cli;

import io.blockcache.backing.BackingLocation;
import io.blockcache.host.DamageMapPlacement;
import io.blockcache.nbd.TlsMode;
import io.blockcache.volume.CacheMode;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options of {@code serve}, typed by their converters ({@link Converters}). Each is a flag and, at its long name
 * without the dashes, a config-file key ({@link ConfigDefaults}: flag, then file, then the {@code defaultValue}
 * here), unless {@link ConfigKey} says otherwise. Adding an option is one field here, and its use in
 * {@link ServeSettings}; {@code ServeOptionsTest} checks that the config file takes it.
 *
 * <p>Null means "not given, no default": for values whose default follows from another option ({@code --cache} from
 * {@code --data-dir}) or from the machine ({@code --nbd-buffer-max}); {@link ServeSettings} derives those.
 */
final class ServeOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = "data",
            description = "Where the default files live (default: ${DEFAULT-VALUE}, in the working directory).")
    Path dataDir;

    @Option(names = "--cache", paramLabel = "FILE", description = "Cache device file (default: DIR/cache.img).")
    Path cache;

    @Option(names = "--backing", paramLabel = "NAME=URI", split = ",", converter = Converters.NamedBacking.class,
            description = "Export name and its backing store: a file or block device (PATH or file:PATH), an NBD"
                    + " export (nbd://HOST[:PORT]/EXPORT) or an S3 volume (s3://BUCKET/PREFIX, created with"
                    + " --backing-size when the cache is new); repeatable, or a comma-separated list (default:"
                    + " default=DIR/backing.img).")
    List<Named<BackingLocation>> backings;

    @Option(names = "--cache-size", paramLabel = "SIZE", defaultValue = "1G", converter = Converters.Size.class,
            description = "Size of a new cache file (default: ${DEFAULT-VALUE}); given for an existing, smaller cache,"
                    + " it grows the cache at start (never shrinks it).")
    long cacheSizeBytes;

    @Option(names = "--backing-size", paramLabel = "SIZE", defaultValue = "8G", converter = Converters.Size.class,
            description = "Size of the export of a new backing file or S3 volume (default: ${DEFAULT-VALUE}); the file"
                    + " is created sparse, 1 MiB larger for its header.")
    long backingSizeBytes;

    @Option(names = "--nbd-listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:10809",
            converter = Converters.HostPort.class, description = "NBD address (default: ${DEFAULT-VALUE}).")
    InetSocketAddress nbdListen;

    @Option(names = "--admin-listen", paramLabel = "HOST:PORT", defaultValue = AdminClient.ADDRESS_DEFAULT,
            converter = Converters.HostPort.class, description = "Admin API address (default: ${DEFAULT-VALUE}).")
    InetSocketAddress adminListen;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "writeback", converter = Converters.CacheModes.class,
            description = "Initial cache mode: writeback, writethrough, writearound or none (default:"
                    + " ${DEFAULT-VALUE}).")
    CacheMode mode;

    @Option(names = "--log-format", paramLabel = "text|json", defaultValue = "text",
            converter = LogFormat.Converter.class,
            description = "How events are written on stderr: text (the message, then [event=NAME level=LEVEL"
                    + " KEY=VALUE...]) or json (one object a line); default: ${DEFAULT-VALUE}.")
    LogFormat logFormat;

    @Option(names = ConfigDefaults.OPTION, paramLabel = "FILE",
            description = "Properties file with the long flags' names as keys, plus knob.NAME=VALUE lines; a flag"
                    + " wins over the file.")
    Path config;

    @Option(names = "--nbd-handshake-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = Converters.PositiveDuration.class,
            description = "Close NBD connections that have not finished the handshake by then (default:"
                    + " ${DEFAULT-VALUE}).")
    Duration nbdHandshakeTimeout;

    @Option(names = "--nbd-idle-timeout", paramLabel = "DURATION", defaultValue = "off",
            converter = Converters.DurationOrOff.class,
            description = "Close NBD connections idle this long; 0 or off: never (default: ${DEFAULT-VALUE}).")
    Duration nbdIdleTimeout;

    @Option(names = "--nbd-reply-timeout", paramLabel = "DURATION", defaultValue = "60s",
            converter = Converters.DurationOrOff.class,
            description = "Close NBD connections whose client has not read a reply for this long; 0: never"
                    + " (default: ${DEFAULT-VALUE}).")
    Duration nbdReplyTimeout;

    @Option(names = "--nbd-keepalive", paramLabel = "DURATION", defaultValue = "60s",
            converter = Converters.DurationOrOff.class,
            description = "TCP keepalive: first probe after this idle time; 0: off (default: ${DEFAULT-VALUE}).")
    Duration nbdKeepalive;

    @Option(names = "--nbd-connections-max", paramLabel = "N", defaultValue = "256",
            description = "NBD connections served at once (default: ${DEFAULT-VALUE}).")
    int nbdConnectionsMax;

    @Option(names = "--nbd-connections-per-address-max", paramLabel = "N", defaultValue = "64",
            description = "NBD connections served at once from one client address (default: ${DEFAULT-VALUE}).")
    int nbdConnectionsPerAddressMax;

    @Option(names = "--nbd-buffer-max", paramLabel = "SIZE", converter = Converters.Size.class,
            description = "Direct memory for NBD request and reply buffers over all connections; requests wait"
                    + " for it (default: 256M, less if the JVM's direct memory is smaller).")
    Long nbdBufferMaxBytes;

    @Option(names = "--allow-remote", converter = Converters.Switch.class,
            description = "Allow non-loopback listen addresses; needs --tls=require and --admin-token-file (or"
                    + " --insecure).")
    boolean allowRemote;

    @Option(names = "--admin-token-file", paramLabel = "FILE",
            description = "The admin API's bearer token (one line, mode 600); every /api and /metrics request must"
                    + " send 'Authorization: Bearer TOKEN'.")
    Path adminTokenFile;

    @ConfigKey("export.NAME.allow-addresses")
    @Option(names = "--allow-addresses", paramLabel = "NAME=RANGE[,RANGE...]",
            description = "Serve export NAME only to clients in these address ranges (CIDR, e.g."
                    + " default=10.0.0.0/8,::1/128); repeatable; config key export.NAME.allow-addresses.")
    Map<String, String> allowAddresses;

    @ConfigKey("export.NAME.allow-psk-users")
    @Option(names = "--allow-psk-users", paramLabel = "NAME=USER[,USER...]",
            description = "Serve export NAME only to these PSK users (with --tls-psk); repeatable; config key"
                    + " export.NAME.allow-psk-users.")
    Map<String, String> allowPskUsers;

    @Option(names = "--s3-endpoint", paramLabel = "URL", converter = Converters.Endpoint.class,
            description = "The S3 endpoint for s3:// backings, e.g. http://127.0.0.1:9000 (MinIO, S3Proxy, Ceph RGW;"
                    + " path-style requests); default: AWS, with the AWS default region and credential chains.")
    URI s3Endpoint;

    @Option(names = "--s3-retry-time", paramLabel = "DURATION", defaultValue = "120s",
            converter = Converters.SecondToDay.class,
            description = "How long failed S3 requests of s3:// backings are retried before a flush reports the error"
                    + " (1s to 24h; default: ${DEFAULT-VALUE}).")
    Duration s3RetryTime;

    @Option(names = "--nbd-backing-timeout", paramLabel = "DURATION", defaultValue = "60s",
            converter = Converters.SecondToDay.class,
            description = "How long the client of nbd:// backings waits for a reply before it gives the connection up,"
                    + " reconnects and replays (1s to 24h; default: ${DEFAULT-VALUE}).")
    Duration nbdBackingTimeout;

    @Option(names = "--take-over", converter = Converters.Switch.class,
            description = "Take s3:// volumes that another cache owns: a deliberate failover (docs/SCALE.md).")
    boolean takeOver;

    // A flag only, never a config key: kept in a config file it would overwrite a backing header at every start
    // with a new cache, long after the one occasion someone meant it.
    @ConfigKey(ConfigKey.NONE)
    @Option(names = "--force",
            description = "With a new cache, overwrite backing stores that already hold blockcache metadata (a backing"
                    + " header of another cache set); without it they are refused.")
    boolean force;

    @ConfigKey(ConfigKey.NONE)
    @Option(names = "--print-jvm-options", hidden = true,
            description = "Print the JVM flags bin/blockcache runs this serve with (JvmSizing) and exit.")
    boolean printJvmOptions;

    @Option(names = "--tls", paramLabel = "off|on|require", defaultValue = "off", converter = Converters.TlsModes.class,
            description = "NBD over TLS (NBD_OPT_STARTTLS): off, on (clients choose) or require (default:"
                    + " ${DEFAULT-VALUE}).")
    TlsMode tls;

    @Option(names = "--tls-certificates", paramLabel = "DIR",
            description = "X.509 credentials: DIR/server-cert.pem, DIR/server-key.pem (and DIR/ca-cert.pem).")
    Path tlsCertificates;

    @Option(names = "--tls-psk", paramLabel = "FILE",
            description = "Pre-shared keys: FILE of username:hexkey lines (as psktool writes).")
    Path tlsPsk;

    @Option(names = "--tls-verify-peer", converter = Converters.Switch.class,
            description = "Require client certificates that chain to DIR/ca-cert.pem (with --tls-certificates).")
    boolean tlsVerifyPeer;

    @Option(names = "--damage-map", paramLabel = "off|backing|file", defaultValue = "file",
            converter = Converters.DamageMaps.class,
            description = "Where each backing's damage map lives: off, backing (on the device; survives the node, but "
                    + "writes into new regions fail while it is away) or file (DIR/damage-map-NAME.img; default).")
    DamageMapPlacement damageMap;

    @Option(names = "--node-id", paramLabel = "ID",
            description = "This node's id in its replication group (with --peers; docs/SCALE.md \"Replication\").")
    String nodeId;

    @Option(names = "--peers", paramLabel = "ID=HOST:PORT,...",
            description = "Every member of the replication group (3 or 5) and its replication port, this node"
                    + " included. The leader serves the volumes; the others keep their dirty data.")
    String peers;

    @Option(names = "--insecure", converter = Converters.Switch.class,
            description = "Serve a non-loopback address without --tls=require or an admin token (a trusted network"
                    + " only).")
    boolean insecure;

    /** The config file's reader for this parse. */
    ConfigDefaults configDefaults() {
        return (ConfigDefaults) spec.defaultValueProvider();
    }

    /**
     * Parses {@code serve}'s arguments as {@code blockcache serve} does, config file included: for a reload, which
     * parses the same arguments again to read the file anew, and for tests.
     *
     * @throws IllegalArgumentException with the one-line message {@code serve} would print
     */
    static ServeOptions parse(List<String> args) {
        CommandLine line = new CommandLine(new ServeCommand());
        try {
            line.parseArgs(args.toArray(String[]::new));
        } catch (ParameterException e) {
            throw new IllegalArgumentException(OptionErrors.message(e), e);
        }
        return ((ServeCommand) line.getCommand()).options;
    }
}
