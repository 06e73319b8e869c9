package io.blockcache.interop;

import io.blockcache.device.BlockDevice;
import io.blockcache.nbd.NbdProtocol;
import io.blockcache.nbd.NbdTestClient;
import io.blockcache.sim.ModelOp;
import io.blockcache.sim.ReferenceModel;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * One NBD connection of the process fuzz: draws requests from its own seeded stream (writes and reads of 512 B to
 * 1 MiB, half of them unaligned to 4 KiB, FUA writes, FLUSH, WRITE_ZEROES, TRIM), sends each and waits for its reply,
 * and records everything in the shared {@link ProcessFuzzModel}, checking every read. Several workers on several
 * connections keep several requests in flight, so a {@code kill -9} lands among them.
 *
 * <p>Ends when told to stop, after {@link #OPERATIONS_MAX}, or when the connection breaks; a break is expected once
 * the server is being killed ({@code killing}), and a violation before. Thread rule: {@link #run} on one thread; the
 * counters from any.
 */
final class ProcessFuzzWorker implements Runnable {
    /** A bound on one worker's requests per incarnation of the server (the controller kills far earlier). */
    static final int OPERATIONS_MAX = 100_000;
    /** The largest request: 1 MiB, 2,048 sectors. */
    static final int REQUEST_SECTORS_MAX = 2048;
    /** 4 KiB in sectors: half the requests are aligned to it, half not. */
    private static final int PAGE_SECTORS = 8;
    private static final int SECTOR_BYTES = BlockDevice.SECTOR_BYTES;

    private final String name;
    private final NbdTestClient client;
    private final ProcessFuzzModel model;
    private final SplittableRandom random;
    private final BooleanSupplier killing;
    private final ProcessFuzzCounters counters;
    private volatile boolean stop;
    private volatile boolean waitingForReply;
    private volatile String violation;

    /**
     * @param name for messages, e.g. {@code round 3 worker 1}
     * @param killing true once the controller is about to kill the server: a broken connection is expected then
     */
    ProcessFuzzWorker(String name, NbdTestClient client, ProcessFuzzModel model, SplittableRandom random,
                      BooleanSupplier killing, ProcessFuzzCounters counters) {
        this.name = name;
        this.client = client;
        this.model = model;
        this.random = random;
        this.killing = killing;
        this.counters = counters;
    }

    /** Asks the worker to end after its current request. */
    void stop() {
        stop = true;
    }

    /** True while a request of this worker is sent and its reply not yet read. */
    boolean waitingForReply() {
        return waitingForReply;
    }

    /** The first broken rule this worker saw, or null. */
    String violation() {
        return violation;
    }

    @Override
    public void run() {
        ModelOp inFlight = null;
        try {
            for (int i = 0; i < OPERATIONS_MAX && !stop && violation == null; i++) {
                ModelOp op = draw();
                inFlight = op.mutates() ? op : null;
                violation = execute(op, name + " op " + i);
                inFlight = null;
                counters.operationDone();
            }
        } catch (IOException broken) {
            if (!killing.getAsBoolean()) {
                violation = name + ": the connection broke while serve was running: " + broken;
            }
        } finally {
            if (inFlight != null) {
                model.abandon(inFlight);
            }
        }
    }

    /** Sends one request, waits for its reply and checks it; returns a violation or null. */
    private String execute(ModelOp op, String what) throws IOException {
        if (op.kind() == ModelOp.Kind.FLUSH) {
            long atSubmit = model.flushSubmitted();
            NbdTestClient.Reply reply = call(0, NbdProtocol.CMD_FLUSH, 0, 0, null);
            if (reply.error() != 0) {
                return what + ": FLUSH failed with NBD error " + reply.error() + " " + reply.message();
            }
            model.flushAcknowledged(atSubmit);
            counters.flushDone();
            return null;
        }
        if (op.kind() == ModelOp.Kind.READ) {
            long[] lowest = model.readSubmitted(op.startSector(), op.lengthSectors());
            NbdTestClient.Reply reply = call(0, NbdProtocol.CMD_READ, op.offsetBytes(), op.lengthBytes(), null);
            if (reply.error() != 0) {
                return what + ": " + op + " failed with NBD error " + reply.error() + " " + reply.message();
            }
            String wrong = model.checkRead(op.startSector(), lowest, reply.data());
            return wrong == null ? null : what + ": " + op + ": " + wrong;
        }
        byte[] payload = op.kind() == ModelOp.Kind.WRITE ? new byte[(int) op.lengthBytes()] : null;
        ReferenceModel.Entry entry = model.submitMutation(op, payload, what);
        if (entry == null) {
            return null; // overlaps a mutation of another worker in flight: skipped, nothing sent
        }
        int command = switch (op.kind()) {
            case WRITE -> NbdProtocol.CMD_WRITE;
            case WRITE_ZEROES -> NbdProtocol.CMD_WRITE_ZEROES;
            default -> NbdProtocol.CMD_TRIM;
        };
        NbdTestClient.Reply reply = call(op.fua() ? NbdProtocol.CMD_FLAG_FUA : 0, command, op.offsetBytes(),
                op.lengthBytes(), payload);
        if (reply.error() != 0) {
            return what + ": " + op + " failed with NBD error " + reply.error() + " " + reply.message();
        }
        model.acknowledge(entry, op);
        counters.mutationDone(op);
        return null;
    }

    /** {@link NbdTestClient#call}, marked as waiting for its reply meanwhile. */
    private NbdTestClient.Reply call(int flags, int type, long offset, long length, byte[] payload)
            throws IOException {
        waitingForReply = true;
        try {
            return client.call(flags, type, offset, length, payload);
        } finally {
            waitingForReply = false;
        }
    }

    /** The next request: 40 % writes (a fifth of them FUA), 30 % reads, 10 % each FLUSH, WRITE_ZEROES, TRIM. */
    private ModelOp draw() {
        int kind = random.nextInt(100);
        if (kind < 10) {
            return new ModelOp(ModelOp.Kind.FLUSH, 0, 0, false);
        }
        int lengthSectors = 1 + random.nextInt(1 << random.nextInt(12)); // log-uniform: 1 to 2,048 sectors
        long sectors = model.sectorCount();
        long startSector = random.nextLong(sectors - lengthSectors + 1);
        if (random.nextBoolean()) {
            startSector -= startSector % PAGE_SECTORS;
            lengthSectors = Math.max(PAGE_SECTORS, lengthSectors - lengthSectors % PAGE_SECTORS);
        }
        long offsetBytes = startSector * SECTOR_BYTES;
        long lengthBytes = (long) lengthSectors * SECTOR_BYTES;
        if (kind < 50) {
            return new ModelOp(ModelOp.Kind.WRITE, offsetBytes, lengthBytes, random.nextInt(5) == 0);
        }
        if (kind < 80) {
            return new ModelOp(ModelOp.Kind.READ, offsetBytes, lengthBytes, false);
        }
        if (kind < 90) {
            return new ModelOp(ModelOp.Kind.WRITE_ZEROES, offsetBytes, lengthBytes, random.nextInt(5) == 0);
        }
        return new ModelOp(ModelOp.Kind.TRIM, offsetBytes, lengthBytes, false);
    }
}
