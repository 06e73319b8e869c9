package io.blockcache.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** CIDR ranges for the exports' allow-lists: parsing, matching, and one-line errors for bad syntax. */
class AddressRangeTest {
    private static InetAddress ip(String literal) throws Exception {
        return InetAddress.getByName(literal);
    }

    @Test
    void ipv4AndIpv6RangesMatchExactlyTheirPrefix() throws Exception {
        // Proves the prefix arithmetic at both edges of each range, a single address, /0, and that IPv4 and IPv6
        // ranges never match each other's addresses.
        AddressRange ten = AddressRange.parse("10.0.0.0/8");
        assertThat(ten.contains(ip("10.0.0.0"))).isTrue();
        assertThat(ten.contains(ip("10.255.255.255"))).isTrue();
        assertThat(ten.contains(ip("11.0.0.0"))).isFalse();
        assertThat(ten.contains(ip("9.255.255.255"))).isFalse();
        AddressRange odd = AddressRange.parse("192.168.4.0/22");
        assertThat(odd.contains(ip("192.168.7.255"))).isTrue();
        assertThat(odd.contains(ip("192.168.8.0"))).isFalse();
        assertThat(odd.contains(ip("192.168.3.255"))).isFalse();
        AddressRange one = AddressRange.parse("192.0.2.7");
        assertThat(one.prefixBits()).isEqualTo(32);
        assertThat(one.contains(ip("192.0.2.7"))).isTrue();
        assertThat(one.contains(ip("192.0.2.6"))).isFalse();
        assertThat(AddressRange.parse("0.0.0.0/0").contains(ip("203.0.113.9"))).isTrue();
        assertThat(AddressRange.parse("0.0.0.0/0").contains(ip("::1"))).isFalse();

        AddressRange loop6 = AddressRange.parse("::1/128");
        assertThat(loop6.contains(ip("::1"))).isTrue();
        assertThat(loop6.contains(ip("::2"))).isFalse();
        assertThat(loop6.contains(ip("127.0.0.1"))).isFalse();
        AddressRange doc = AddressRange.parse("2001:db8::/32");
        assertThat(doc.contains(ip("2001:db8:ffff::1"))).isTrue();
        assertThat(doc.contains(ip("2001:db9::"))).isFalse();
        AddressRange nibble = AddressRange.parse("fd00:0:0:10::/60");
        assertThat(nibble.contains(ip("fd00:0:0:1f::1"))).isTrue();
        assertThat(nibble.contains(ip("fd00:0:0:20::"))).isFalse();
        // An IPv4 client on a dual-stack socket: the JDK hands us its IPv4 address, which IPv4 ranges match.
        assertThat(AddressRange.parse("127.0.0.0/8").contains(ip("::ffff:127.0.0.1"))).isTrue();
    }

    @Test
    void rangesPrintInCanonicalForm() {
        // Proves what the operator sees (banner, reload lines): RFC 5952 "::" compression, prefix always shown.
        assertThat(AddressRange.parse(" 10.0.0.0/8 ")).hasToString("10.0.0.0/8");
        assertThat(AddressRange.parse("::1")).hasToString("::1/128");
        assertThat(AddressRange.parse("2001:0db8:0000:0000::/32")).hasToString("2001:db8::/32");
        assertThat(AddressRange.parse("fe80::/10")).hasToString("fe80::/10");
        assertThat(AddressRange.parse("0:0:0:0:0:0:0:0/0")).hasToString("::/0");
        assertThat(AddressRange.parse("2001:db8:0:1:0:0:0:0/64")).hasToString("2001:db8:0:1::/64");
        assertThat(AddressRange.parse("10.0.0.0/8")).isEqualTo(AddressRange.parse("10.0.0.0/8"));
    }

    @Test
    void badSyntaxIsAOneLineErrorQuotingTheText() {
        // Proves every malformed range is refused, with no name lookup, in one line that quotes it and says why.
        Map<String, String> cases = Map.ofEntries(
                Map.entry("", "not an IPv4 or IPv6 address"),
                Map.entry("localhost", "no host names"),
                Map.entry("example.com/24", "no host names"),
                Map.entry("10.0.0/8", "not an IPv4 or IPv6 address"),
                Map.entry("256.0.0.0/8", "not a valid IPv4 address"),
                Map.entry("10.0.0.0/33", "must be 0..32"),
                Map.entry("10.0.0.0/", "must be 0..32"),
                Map.entry("10.0.0.0/-1", "must be 0..32"),
                Map.entry("10.0.0.0/8/8", "must be 0..32"),
                Map.entry("10.0.0.1/8", "did you mean 10.0.0.0/8?"),
                Map.entry("::1/129", "must be 0..128"),
                Map.entry("2001:db8::1/32", "did you mean 2001:db8::/32?"),
                Map.entry("fe80::1%eth0", "not an IPv4 or IPv6 address"),
                Map.entry("[::1]/128", "not an IPv4 or IPv6 address"),
                Map.entry("1:2:3:4:5:6:7:8:9", "not a valid IPv6 address"),
                Map.entry("::ffff:10.0.0.0/104", "IPv4-mapped"));
        cases.forEach((text, why) -> assertThatThrownBy(() -> AddressRange.parse(text)).as(text)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("address range \"" + text + "\": ").hasMessageContaining(why)
                .message().doesNotContain("\n"));
    }

    @Test
    void anExportAllowsAClientOnlyIfBothListsDo() throws Exception {
        // Proves ExportAccess: the address list, then the PSK user list (a client without a PSK identity fails it).
        ExportAccess both = new ExportAccess(List.of(AddressRange.parse("127.0.0.0/8")), Set.of("alice"));
        assertThat(both.refusal(ip("127.0.0.1"), "alice")).isNull();
        assertThat(both.refusal(ip("127.0.0.1"), "bob")).isEqualTo(ExportAccess.Refusal.PSK_USER);
        assertThat(both.refusal(ip("127.0.0.1"), null)).isEqualTo(ExportAccess.Refusal.PSK_USER);
        assertThat(both.refusal(ip("10.0.0.1"), "alice")).isEqualTo(ExportAccess.Refusal.ADDRESS);
        assertThat(ExportAccess.OPEN.refusal(ip("10.0.0.1"), null)).isNull();
        assertThat(both.summary()).isEqualTo("addresses [127.0.0.0/8], PSK users [alice]");
        assertThatThrownBy(() -> new ExportAccess(List.of(), null)).hasMessageContaining("at least one range");
    }
}
