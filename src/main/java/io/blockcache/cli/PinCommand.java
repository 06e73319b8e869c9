package io.blockcache.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache pin NAME RANGE} and {@code blockcache pin list NAME} (docs/CACHING.md "Pinning"): asks a running
 * server to keep a volume's byte range in the cache ({@code POST /api/volumes/NAME/pins?offset=&length=}) — its data
 * is never evicted and its read misses are always filled — or lists the pins ({@code GET}). RANGE is
 * {@code OFFSET+LENGTH} in sizes such as {@code 1G+64M}, whole 512-byte sectors. Prints the volume's pins after the
 * change. Exit codes: 0 done; 1 refused (unknown volume, a bad range, over the cap of half the cache) or the server
 * could not be reached, with one line saying why.
 */
@Command(name = "pin", mixinStandardHelpOptions = true, subcommands = PinCommand.ListPins.class,
        description = "Keep a volume's byte range in the cache: never evicted, read misses always filled.")
final class PinCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;
    @Mixin
    private AdminOption admin;
    // Optional to picocli so that "pin list NAME" parses as the subcommand; call() requires both.
    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "The volume (its export name).")
    private String volume;
    @Parameters(index = "1", arity = "0..1", paramLabel = "RANGE",
            description = "OFFSET+LENGTH, e.g. 0+64M or 1G+512K; whole 512-byte sectors.")
    private String range;
    @Option(names = "--json", description = "Print the server's JSON answer.")
    private boolean json;

    @Override
    public Integer call() {
        if (volume == null || range == null) {
            return KnobOutput.fail(spec, "pin", "give NAME and RANGE (pin NAME OFFSET+LENGTH), or pin list NAME");
        }
        return change(spec, admin, "pin", "POST", volume, range, json);
    }

    /** {@code pin list NAME [--json]}. */
    @Command(name = "list", description = "List a volume's pinned ranges, its pinned bytes and the cap.",
            mixinStandardHelpOptions = true)
    static final class ListPins implements Callable<Integer> {
        @Spec
        private CommandSpec spec;
        @Mixin
        private AdminOption admin;
        @Parameters(index = "0", paramLabel = "NAME", description = "The volume (its export name).")
        private String volume;
        @Option(names = "--json", description = "Print the server's JSON answer.")
        private boolean json;

        @Override
        public Integer call() {
            try {
                AdminClient.Response answer = admin.client().get(path(volume));
                if (answer.status() != 200) {
                    return KnobOutput.fail(spec, "pin list", AdminClient.errorMessage(answer));
                }
                print(spec, answer.body(), json);
                return 0;
            } catch (AdminClient.Unreachable e) {
                return KnobOutput.fail(spec, "pin list", e.getMessage());
            }
        }
    }

    /** Pins ({@code POST}) or unpins ({@code DELETE}) {@code range} of {@code volume} and prints the pins after. */
    static int change(CommandSpec spec, AdminOption admin, String verb, String method, String volume, String range,
                      boolean json) {
        String query;
        try {
            long[] parsed = parseRange(range);
            query = "?offset=" + parsed[0] + "&length=" + parsed[1];
        } catch (IllegalArgumentException bad) {
            return KnobOutput.fail(spec, verb, bad.getMessage());
        }
        try {
            AdminClient.Response answer = method.equals("POST") ? admin.client().post(path(volume) + query)
                    : admin.client().delete(path(volume) + query);
            if (answer.status() != 200) {
                return KnobOutput.fail(spec, verb, AdminClient.errorMessage(answer));
            }
            print(spec, answer.body(), json);
            return 0;
        } catch (AdminClient.Unreachable e) {
            return KnobOutput.fail(spec, verb, e.getMessage());
        }
    }

    /** {@code OFFSET+LENGTH} as {offset, length} in bytes; the offset may be 0, the length not. */
    static long[] parseRange(String text) {
        int plus = text.indexOf('+');
        if (plus <= 0 || plus == text.length() - 1) {
            throw new IllegalArgumentException("range \"" + text + "\" is not OFFSET+LENGTH (e.g. 0+64M, 1G+512K)");
        }
        String offsetText = text.substring(0, plus).strip();
        long offset = offsetText.equals("0") ? 0 : ByteSizes.parse(offsetText); // the size parser refuses 0
        return new long[] {offset, ByteSizes.parse(text.substring(plus + 1))};
    }

    private static String path(String volume) {
        return "/api/volumes/" + GetCommand.encode(volume) + "/pins";
    }

    /** The answer as it came ({@code json}) or as lines: the totals, then one {@code OFFSET+LENGTH} per range. */
    private static void print(CommandSpec spec, String body, boolean json) {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(body.strip());
        } else {
            Map<?, ?> answer = (Map<?, ?>) JsonReader.parse(body);
            long pinned = ((Number) answer.get("pinnedBytes")).longValue();
            long all = ((Number) answer.get("allVolumesPinnedBytes")).longValue();
            long cap = ((Number) answer.get("capBytes")).longValue();
            out.println(answer.get("volume") + ": " + pinned + " bytes pinned (" + ByteSizes.human(pinned)
                    + "); all volumes " + all + " of the cap of " + cap + " bytes");
            for (Object range : (List<?>) answer.get("ranges")) {
                Map<?, ?> r = (Map<?, ?>) range;
                out.println("  " + StatsTable.integerText(r.get("offsetBytes")) + "+"
                        + StatsTable.integerText(r.get("lengthBytes")));
            }
        }
        out.flush();
    }
}
