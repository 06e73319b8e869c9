package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import io.blockcache.loop.Prng;
import io.blockcache.nbd.NbdTestClient.Reply;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The reused request objects of a connection the loop serves ({@link RequestPool}) never mix two requests:
 * seeded batches of 32 pipelined requests of every kind a connection sees in steady state and on its error paths
 * (aligned and unaligned READ and WRITE, FUA, zero-length READ, FLUSH, out-of-range READ and WRITE refused before
 * they reach the volume), each checked against a model by its handle, so an object given back too early or a
 * reply header, data window or sector writer left over from its previous request shows up as a wrong reply.
 */
class RequestReuseTest {
    private static final int BLOCK_BYTES = 4096;
    /** Blocks of the model region; each batch touches distinct blocks, so its requests never overlap. */
    private static final int BLOCKS = 256;
    private static final int BATCH = 32;
    private static final int BATCHES = 150;

    @Test
    void pipelinedRequestsOfEveryKindGetTheirOwnReplies() throws Exception {
        // Proves every reply matches its own request (handle, error, data) across thousands of reuses.
        try (NbdFixture fixture = new NbdFixture()) {
            run(fixture, false, 20261203L);
            run(fixture, true, 20261204L);
        }
    }

    private static void run(NbdFixture fixture, boolean structured, long seed) throws Exception {
        Prng prng = new Prng(seed);
        byte[] model = new byte[BLOCKS * BLOCK_BYTES];
        try (NbdTestClient client = fixture.client().go("default", structured)) {
            check(client.write(0, model, 0) == 0, seed, -1, "the first fill failed");
            for (int batch = 0; batch < BATCHES; batch++) {
                Map<Long, Expected> expected = new HashMap<>();
                int[] blocks = distinctBlocks(prng);
                for (int i = 0; i < BATCH; i++) {
                    Expected request = send(client, prng, model, blocks[i]);
                    expected.put(request.handle, request);
                }
                for (int i = 0; i < BATCH; i++) {
                    Reply reply = client.readReply();
                    Expected request = expected.remove(reply.handle());
                    check(request != null, seed, batch, "a reply for handle " + reply.handle() + " not in flight");
                    check(reply.error() == request.error, seed, batch, request.what + ": error " + reply.error()
                            + ", expected " + request.error);
                    check(Arrays.equals(reply.data(), request.data), seed, batch, request.what
                            + ": wrong data (" + reply.data().length + " bytes)");
                }
            }
            client.disconnect();
        }
    }

    /** What one request must get back. */
    private record Expected(long handle, String what, int error, byte[] data) {
    }

    /** Sends one request of a kind the seed picks, on its own block, and updates the model for writes. */
    private static Expected send(NbdTestClient client, Prng prng, byte[] model, int block) throws Exception {
        long blockOffset = (long) block * BLOCK_BYTES;
        byte[] none = new byte[0];
        switch (prng.nextInt(8)) {
            case 0, 1 -> {
                byte[] data = Arrays.copyOfRange(model, (int) blockOffset, (int) blockOffset + BLOCK_BYTES);
                return new Expected(client.send(0, CMD_READ, blockOffset, BLOCK_BYTES, null), "READ " + block, 0,
                        data);
            }
            case 2 -> {
                int from = prng.nextInt(BLOCK_BYTES - 1);
                int length = 1 + prng.nextInt(BLOCK_BYTES - from);
                byte[] data = Arrays.copyOfRange(model, (int) blockOffset + from, (int) blockOffset + from + length);
                return new Expected(client.send(0, CMD_READ, blockOffset + from, length, null),
                        "unaligned READ " + block, 0, data);
            }
            case 3, 4 -> {
                byte[] data = new byte[BLOCK_BYTES];
                prng.nextBytes(data);
                System.arraycopy(data, 0, model, (int) blockOffset, BLOCK_BYTES);
                int flags = prng.chance(0.25) ? CMD_FLAG_FUA : 0;
                return new Expected(client.send(flags, CMD_WRITE, blockOffset, BLOCK_BYTES, data), "WRITE " + block,
                        0, none);
            }
            case 5 -> {
                int from = prng.nextInt(BLOCK_BYTES - 1);
                byte[] data = new byte[1 + prng.nextInt(BLOCK_BYTES - from)];
                prng.nextBytes(data);
                System.arraycopy(data, 0, model, (int) blockOffset + from, data.length);
                return new Expected(client.send(0, CMD_WRITE, blockOffset + from, data.length, data),
                        "unaligned WRITE " + block, 0, none);
            }
            case 6 -> {
                boolean write = prng.chance(0.5);
                long beyond = client.sizeBytes;
                return write
                        ? new Expected(client.send(0, CMD_WRITE, beyond, BLOCK_BYTES, new byte[BLOCK_BYTES]),
                                "WRITE beyond the end", ENOSPC, none)
                        : new Expected(client.send(0, CMD_READ, beyond, BLOCK_BYTES, null), "READ beyond the end",
                                EINVAL, none);
            }
            default -> {
                return prng.chance(0.5)
                        ? new Expected(client.send(0, CMD_FLUSH, 0, 0, null), "FLUSH", 0, none)
                        : new Expected(client.send(0, CMD_READ, blockOffset, 0, null), "READ of 0 bytes", 0, none);
            }
        }
    }

    /** {@link #BATCH} distinct blocks of the region, in a seeded order. */
    private static int[] distinctBlocks(Prng prng) {
        int[] all = new int[BLOCKS];
        for (int i = 0; i < BLOCKS; i++) {
            all[i] = i;
        }
        for (int i = 0; i < BATCH; i++) {
            int j = i + prng.nextInt(BLOCKS - i);
            int swap = all[i];
            all[i] = all[j];
            all[j] = swap;
        }
        return Arrays.copyOf(all, BATCH);
    }

    private static void check(boolean condition, long seed, int batch, String what) {
        if (!condition) {
            throw new AssertionError("seed " + seed + ", batch " + batch + ": " + what);
        }
    }
}
