package io.blockcache.nbd;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * A range of client addresses in CIDR notation (RFC 4632 §3.1 for IPv4, RFC 4291 §2.3 for IPv6):
 * {@code 10.0.0.0/8}, {@code 192.0.2.7} (one address, /32), {@code ::1/128}, {@code 2001:db8::/32}. Parsed without
 * any name lookup; a host name, a zone id, a prefix out of range or host bits set below the prefix are refused
 * with one line naming the text. An IPv4 client that reaches a dual-stack socket is seen as its IPv4 address (the
 * JDK maps {@code ::ffff:a.b.c.d} back), so IPv4 ranges match it. Immutable: any thread.
 */
public final class AddressRange {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]+");
    private static final int IPV4_BITS = 32;
    private static final int IPV6_BITS = 128;

    private final byte[] network;
    private final int prefixBits;
    private final String text;

    private AddressRange(byte[] network, int prefixBits, String text) {
        this.network = network;
        this.prefixBits = prefixBits;
        this.text = text;
    }

    /**
     * Parses one range.
     *
     * @throws IllegalArgumentException one line quoting {@code text} and saying what is wrong with it
     */
    public static AddressRange parse(String text) {
        String range = text.strip();
        int slash = range.indexOf('/');
        String address = slash < 0 ? range : range.substring(0, slash);
        boolean v6 = address.contains(":");
        if (!(v6 ? IPV6.matcher(address).matches() : IPV4.matcher(address).matches())) {
            throw bad(text, "not an IPv4 or IPv6 address (no host names: a range is written like 10.0.0.0/8 or"
                    + " fd00::/8)");
        }
        byte[] bytes;
        try {
            InetAddress parsed = InetAddress.getByName(address); // a literal: no lookup (checked above)
            if (v6 != (parsed instanceof Inet6Address)) {
                throw bad(text, "an IPv4-mapped IPv6 address; write the IPv4 range itself, e.g. 192.0.2.0/24");
            }
            bytes = parsed.getAddress();
        } catch (UnknownHostException e) {
            throw bad(text, "not a valid " + (v6 ? "IPv6" : "IPv4") + " address");
        }
        int bitsMax = bytes.length * Byte.SIZE;
        int prefix = bitsMax;
        if (slash >= 0) {
            String digits = range.substring(slash + 1);
            if (!digits.matches("\\d{1,3}") || Integer.parseInt(digits) > bitsMax) {
                throw bad(text, "the prefix length after / must be 0.." + bitsMax);
            }
            prefix = Integer.parseInt(digits);
        }
        byte[] masked = mask(bytes, prefix);
        if (!Arrays.equals(masked, bytes)) {
            throw bad(text, "bits are set after the first " + prefix + "; did you mean " + format(masked, prefix)
                    + "?");
        }
        return new AddressRange(masked, prefix, format(masked, prefix));
    }

    /** True if {@code address} lies in this range (an IPv4 range never holds an IPv6 address, nor the reverse). */
    public boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        return bytes.length == network.length && Arrays.equals(mask(bytes, prefixBits), network);
    }

    /** The prefix length in bits. */
    public int prefixBits() {
        return prefixBits;
    }

    /** The range in canonical CIDR form, e.g. {@code 10.0.0.0/8}, {@code ::1/128}. */
    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AddressRange range && range.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    private static byte[] mask(byte[] bytes, int prefix) {
        byte[] masked = bytes.clone();
        for (int i = 0; i < masked.length; i++) {
            int bitsKept = Math.min(Byte.SIZE, Math.max(0, prefix - i * Byte.SIZE));
            masked[i] &= (byte) (0xff << (Byte.SIZE - bitsKept));
        }
        return masked;
    }

    private static String format(byte[] bytes, int prefix) {
        try {
            InetAddress address = InetAddress.getByAddress(bytes);
            String host = address.getHostAddress();
            if (address instanceof Inet6Address) {
                host = compress(host);
            } else if (!(address instanceof Inet4Address)) {
                throw new IllegalStateException("neither IPv4 nor IPv6: " + host);
            }
            return host + "/" + prefix;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an address of " + bytes.length + " bytes", e);
        }
    }

    /** RFC 5952 §4.2.3: the longest run of two or more zero groups becomes "::" (the JDK prints every group). */
    private static String compress(String full) {
        String[] groups = full.split(":");
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < groups.length; ) {
            int j = i;
            while (j < groups.length && groups[j].equals("0")) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        if (bestStart < 0) {
            return full;
        }
        String head = String.join(":", Arrays.copyOfRange(groups, 0, bestStart));
        String tail = String.join(":", Arrays.copyOfRange(groups, bestStart + bestLength, groups.length));
        return head + "::" + tail;
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("address range \"" + text + "\": " + why);
    }
}
