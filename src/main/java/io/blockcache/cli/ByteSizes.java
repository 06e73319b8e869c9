package io.blockcache.cli;

import java.util.Locale;

/** Sizes on the command line: {@code 4096}, {@code 64K}, {@code 64M}, {@code 1G}, {@code 8GiB}, {@code 2T}. */
final class ByteSizes {
    private ByteSizes() {
    }

    /**
     * Parses a size in bytes; the suffixes K, M, G, T (with an optional {@code iB} or {@code B}) are binary.
     *
     * @throws IllegalArgumentException saying what is accepted
     */
    static long parse(String text) {
        String s = text.strip().toUpperCase(Locale.ROOT);
        if (s.endsWith("IB")) {
            s = s.substring(0, s.length() - 2);
        } else if (s.endsWith("B")) {
            s = s.substring(0, s.length() - 1);
        }
        int shift = 0;
        if (!s.isEmpty()) {
            switch (s.charAt(s.length() - 1)) {
                case 'K' -> shift = 10;
                case 'M' -> shift = 20;
                case 'G' -> shift = 30;
                case 'T' -> shift = 40;
                default -> shift = 0;
            }
        }
        if (shift != 0) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            long number = Long.parseLong(s.strip());
            if (number <= 0 || number > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return number << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("\"" + text + "\" is not a size: use a positive number of bytes with"
                    + " an optional binary suffix K, M, G or T (e.g. 64M, 1G, 8GiB)");
        }
    }
}
