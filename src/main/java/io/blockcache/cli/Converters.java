package io.blockcache.cli;

import io.blockcache.backing.BackingLocation;
import io.blockcache.backing.BackingUris;
import io.blockcache.backing.S3Options;
import io.blockcache.host.DamageMapPlacement;
import io.blockcache.nbd.TlsMode;
import io.blockcache.volume.CacheMode;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The picocli converters of every command, each kind defined once here and named in {@code @Option(converter = ...)}
 * by every command that takes it ({@code serve}, {@code format}, {@code check}, {@code salvage}). A value from the
 * command line and one from the config file ({@link ConfigDefaults}) go through the same converter, so both are
 * checked alike; a refusal says what is wrong and shows the value, and {@link OptionErrors} puts the option (or
 * the config file and key) in front.
 *
 * <p>Converters are instantiated whenever a command line is built, for every command: they hold no state and load
 * nothing until {@code convert} runs (a client command's start-up stays small).
 */
final class Converters {
    private Converters() {
    }

    /** A size with a binary unit: {@code 1G}, {@code 512M}, {@code 128K}, {@code 4096} ({@link ByteSizes}). */
    static final class Size implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return ByteSizes.parse(value);
        }
    }

    /** A positive duration: {@code 90} (seconds), {@code 45s}, {@code 30m}, {@code 1h30m} ({@link Durations}). */
    static final class PositiveDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return Duration.ofSeconds(Durations.parseSeconds(value));
        }
    }

    /** A duration as {@link PositiveDuration}, or {@code 0} / {@code off} for "never" ({@link Duration#ZERO}). */
    static final class DurationOrOff implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String text = value.strip();
            if (text.equals("0") || text.equalsIgnoreCase("off")) {
                return Duration.ZERO;
            }
            return Duration.ofSeconds(Durations.parseSeconds(text));
        }
    }

    /**
     * A duration from 1 s to 24 h: a client's request timeout or retry window. Shorter would cut off a healthy
     * server's slow flush; longer is "never" in practice, and a server that never answers must not hold writeback
     * for ever.
     */
    static final class SecondToDay implements ITypeConverter<Duration> {
        static final long SECONDS_MIN = 1;
        static final long SECONDS_MAX = 86_400;

        @Override
        public Duration convert(String value) {
            long seconds = Durations.parseSeconds(value);
            if (seconds < SECONDS_MIN || seconds > SECONDS_MAX) {
                throw new TypeConversionException("must be from 1s to 24h, got \"" + value.strip() + "\"");
            }
            return Duration.ofSeconds(seconds);
        }
    }

    /** {@code true} or {@code false}, any case: a switch must not read {@code yes} or {@code 1} as anything. */
    static final class Switch implements ITypeConverter<Boolean> {
        @Override
        public Boolean convert(String value) {
            return switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new TypeConversionException("must be true or false; got \"" + value.strip() + "\"");
            };
        }
    }

    /** {@code HOST:PORT} ({@code [v6]:PORT} for IPv6), port 0 for any free port ({@link ListenAddress}). */
    static final class HostPort implements ITypeConverter<InetSocketAddress> {
        @Override
        public InetSocketAddress convert(String value) {
            return ListenAddress.parse(value.strip());
        }
    }

    /** An S3 endpoint URL ({@link S3Options#endpoint}). */
    static final class Endpoint implements ITypeConverter<URI> {
        @Override
        public URI convert(String value) {
            return S3Options.endpoint(value);
        }
    }

    /** A backing store's URI: a file or block device, an NBD export or an S3 volume ({@link BackingUris}). */
    static final class Backing implements ITypeConverter<BackingLocation> {
        @Override
        public BackingLocation convert(String value) {
            return BackingUris.parse(value.strip());
        }
    }

    /**
     * {@code NAME=URI}: an export name and its backing store, a file or block device ({@code PATH} or
     * {@code file:PATH}), an NBD export ({@code nbd://HOST[:PORT]/EXPORT}) or an S3 volume ({@link BackingUris}).
     */
    static final class NamedBacking implements ITypeConverter<Named<BackingLocation>> {
        @Override
        public Named<BackingLocation> convert(String value) {
            int equals = value.indexOf('=');
            if (equals <= 0 || equals == value.length() - 1) {
                throw new TypeConversionException("must be NAME=URI, e.g. default=./data/backing.img or"
                        + " default=nbd://host:10809/export; got \"" + value + "\"");
            }
            String name = value.substring(0, equals).strip();
            return new Named<>(name, new Backing().convert(value.substring(equals + 1)));
        }
    }

    /** {@code NAME=FILE}, or {@code FILE} alone named by its file name: a volume's backing file offline. */
    static final class NamedFile implements ITypeConverter<Named<Path>> {
        @Override
        public Named<Path> convert(String value) {
            int equals = value.indexOf('=');
            String file = equals < 0 ? value : value.substring(equals + 1);
            String name = equals < 0 ? fileName(file) : value.substring(0, equals);
            if (name.isEmpty() || file.isEmpty()) {
                throw new TypeConversionException("must be NAME=FILE or FILE, got \"" + value + "\"");
            }
            if (file.contains("://")) {
                throw new TypeConversionException("takes files only, not nbd:// or s3:// URIs; got \"" + value + "\"");
            }
            return new Named<>(name, Path.of(file));
        }

        private static String fileName(String file) {
            Path name = file.isEmpty() ? null : Path.of(file).getFileName();
            return name == null ? "" : name.toString();
        }
    }

    /** {@code writeback}, {@code writethrough}, {@code writearound} or {@code none}. */
    static final class CacheModes extends Choice<CacheMode> {
        CacheModes() {
            super(CacheMode.class);
        }
    }

    /** {@code off}, {@code on} or {@code require}. */
    static final class TlsModes extends Choice<TlsMode> {
        TlsModes() {
            super(TlsMode.class);
        }
    }

    /** {@code off}, {@code backing} or {@code file}. */
    static final class DamageMaps extends Choice<DamageMapPlacement> {
        DamageMaps() {
            super(DamageMapPlacement.class);
        }
    }

    /** One of an enum's constants, written in lower case (any case accepted); a refusal lists them. */
    abstract static class Choice<E extends Enum<E>> implements ITypeConverter<E> {
        private final Class<E> type;

        Choice(Class<E> type) {
            this.type = type;
        }

        @Override
        public E convert(String value) {
            try {
                return Enum.valueOf(type, value.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("must be one of " + Arrays.stream(type.getEnumConstants())
                        .map(c -> c.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining(", "))
                        + "; got \"" + value + "\"");
            }
        }
    }
}
