package io.blockcache.device;

import io.blockcache.loop.EventLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link BlockDevice} on a file through a {@link FileChannel}, with a fixed
 * pool of platform I/O threads so that {@link FileDeviceOptions#queueDepth()} requests reach the kernel at
 * once: the loop queues a request, an I/O thread performs the blocking positional call, and the outcome
 * is handed back with {@link EventLoop#execute}. Small transfers on a buffered device that has shown itself
 * fast (the page cache serves it) are performed on the loop thread instead, which saves the two thread hand-offs
 * that cost more than the transfer; {@link InlineIoPolicy} decides, and keeps a device that turns slow off the
 * loop. Either way the callback runs later on the loop, never inside the submitting call. Inline writes to adjacent
 * offsets in one loop turn (a log-structured cache's appends) are held in a {@link WritePlug} and written with one
 * call when the turn's tasks run; a flush, a FUA write or a request overlapping them writes them first.
 *
 * <p>Semantics: flush is {@code force(false)}. FUA is a write followed by {@code force(false)}, because
 * Java offers no per-write FUA; that also makes every earlier completed write durable, which is more than
 * asked, never less. Discard succeeds without changing data (the JDK cannot punch holes; the contract
 * allows old contents). A read of a sparse region, or past the end of a shorter file, yields zeroes.
 * Channel errors complete as {@link IoStatus#IO_ERROR} (or {@link IoStatus#NO_SPACE} for "No space left
 * on device") with a message naming the op, offset, length and path.
 *
 * <p>Thread rule: submit and close on the owning loop's thread (checked). The loop's {@code execute}
 * must be safe from foreign threads, as {@link io.blockcache.loop.RealLoop}'s is; a simulated loop is not.
 * {@link #close()} blocks the loop until the I/O threads have stopped. Counters: any thread.
 */
public final class FileDevice implements BlockDevice {
    /** Requests queued for the I/O threads at most; the engine caps its own in-flight I/O far below this. */
    static final int QUEUED_REQUESTS_MAX = 65_536;
    /** How long close() waits for an I/O thread once the channel is closed: a stuck kernel call is fatal. */
    private static final long THREAD_STOP_NS_MAX = TimeUnit.SECONDS.toNanos(30);
    /** Tells an I/O thread to exit; never completed. */
    private static final FileRequest STOP = new FileRequest(DeviceOp.FLUSH, 0, 0, 0, null, false, result -> { }, 0);

    private final EventLoop loop;
    private final FileChannel channel;
    private final String path;
    /** Changed only by {@link #grow}. */
    private volatile long sizeBytes;
    private final FileDeviceOptions options;
    private final DeviceCounters counters = new DeviceCounters();
    /** The request every inline transfer uses in turn (loop thread only; see {@link FileRequest}). */
    private final FileRequest inlineRequest = new FileRequest(DeviceOp.FLUSH, 0, 0, 0, null, false, result -> { }, 0);
    private final LinkedBlockingQueue<FileRequest> queue = new LinkedBlockingQueue<>(QUEUED_REQUESTS_MAX);
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger executing = new AtomicInteger();
    private final AtomicInteger executingMax = new AtomicInteger();
    private final CompletionBatcher completions;
    private final InlineIoPolicy inlinePolicy;
    /** The loop thread's own channel calls (small transfers on a fast device, see {@link InlineIoPolicy}). */
    private final ChannelIo loopIo;
    /** Adjacent inline writes of this loop turn, written together when its tasks run (see {@link WritePlug}). */
    private final HeldWrites held;
    private volatile boolean closed;
    /** What changed under the file since it was opened ({@link FileWatch}), or null if not watched. */
    private volatile FileWatch watch;
    /** True if a change found fences the device ({@link #fenceWhenChanged}). */
    private volatile boolean fenceWhenChanged;
    /** The last change {@link #checkPresence} found, or null. */
    private volatile String changeFound;
    /** Why writes, flushes and discards are refused, or null: the file changed under a fenced device. */
    private volatile String fenced;

    /**
     * Opens an existing file as a device of the file's size; see {@link FileDeviceFiles#open}.
     *
     * @throws IOException if the file cannot be opened or its size is not a multiple of the logical block
     * @throws UnsupportedOperationException if O_DIRECT was asked for and the file system refuses it
     */
    public static FileDevice open(EventLoop loop, Path path, FileDeviceOptions options) throws IOException {
        FileDeviceFiles.Opened opened = FileDeviceFiles.open(path, options);
        FileWatch watch;
        try {
            watch = FileWatch.start(path, opened.channel(), opened.sizeBytes());
        } catch (IOException | UnsupportedOperationException e) {
            watch = null; // no unix attribute view here, or the path vanished already: the device runs unwatched
        }
        FileDevice device = new FileDevice(loop, opened.channel(), path.toString(), opened.sizeBytes(), options,
                opened.alignmentBytes());
        device.watch = watch;
        return device;
    }

    /**
     * Creates a new sparse file of {@code sizeBytes} (refusing to overwrite an existing one) and opens it.
     *
     * @throws IOException if the file exists or cannot be created
     * @throws UnsupportedOperationException if O_DIRECT was asked for and the file system refuses it
     */
    public static FileDevice create(EventLoop loop, Path path, long sizeBytes, FileDeviceOptions options)
            throws IOException {
        RequestChecks.checkGeometry(sizeBytes, options.logicalBlockBytes());
        FileDeviceFiles.createSparse(path, sizeBytes);
        return open(loop, path, options);
    }

    /**
     * Wraps an open channel; tests use it to put a channel of their own under the device.
     *
     * @param path a name for messages
     * @param alignmentBytes buffer address alignment for O_DIRECT (a power of two); unused without it
     */
    FileDevice(EventLoop loop, FileChannel channel, String path, long sizeBytes, FileDeviceOptions options,
            int alignmentBytes) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.channel = Objects.requireNonNull(channel, "channel");
        this.path = Objects.requireNonNull(path, "path");
        this.options = Objects.requireNonNull(options, "options");
        RequestChecks.checkGeometry(sizeBytes, options.logicalBlockBytes());
        if (Integer.bitCount(alignmentBytes) != 1) {
            throw new IllegalArgumentException("alignmentBytes must be a power of two: " + alignmentBytes);
        }
        this.sizeBytes = sizeBytes;
        this.completions = new CompletionBatcher(loop);
        this.inlinePolicy = new InlineIoPolicy(options.direct());
        this.loopIo = new ChannelIo(channel, options.direct(), alignmentBytes);
        this.held = new HeldWrites(loop, this::writeHeld, counters, completions);
        for (int i = 0; i < options.queueDepth(); i++) {
            ChannelIo io = new ChannelIo(channel, options.direct(), alignmentBytes);
            Thread thread = new Thread(() -> serve(io), "file-device-io-" + i + " " + path);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
    }

    /**
     * Extends the file to {@code newSizeBytes} (sparse; a multiple of the logical block, larger than now) and takes
     * requests up to it: a backing file grown for {@code blockcache volume resize}. Blocking (one {@code ftruncate}
     * and an fsync); any thread but the loop's, before the engine is told.
     *
     * @throws IOException if the file cannot be extended
     */
    public void grow(long newSizeBytes) throws IOException {
        if (newSizeBytes <= sizeBytes || newSizeBytes % options.logicalBlockBytes() != 0) {
            throw new IllegalArgumentException("a file device grows to a larger whole number of logical blocks: "
                    + newSizeBytes + " bytes, now " + sizeBytes);
        }
        try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(path, "rw")) {
            file.setLength(newSizeBytes);
            file.getFD().sync();
        }
        sizeBytes = newSizeBytes;
    }

    @Override
    public long sizeBytes() {
        return sizeBytes;
    }

    @Override
    public int logicalBlockBytes() {
        return options.logicalBlockBytes();
    }

    @Override
    public DeviceCounters counters() {
        return counters;
    }

    /** The options this device was opened with. */
    public FileDeviceOptions options() {
        return options;
    }

    /** Requests inside a channel call right now; any thread. */
    public int executing() {
        return executing.get();
    }

    /** The most requests ever inside channel calls at once: the queue depth the kernel really saw. */
    public int executingMax() {
        return executingMax.get();
    }

    /** Transfers performed on the loop thread itself so far (see {@link InlineIoPolicy}); any thread. */
    public long inlineCalls() {
        return inlinePolicy.inlineCalls();
    }

    /** Channel calls that wrote two or more adjacent inline writes at once ({@link WritePlug}); any thread. */
    public long plugsJoined() {
        return held.plugsJoined();
    }

    /** The writes those calls carried; any thread. */
    public long plugWritesJoined() {
        return held.writesJoined();
    }

    /** Writes held in the plug right now, waiting for the turn to end; loop thread (tests). */
    int heldWrites() {
        return held.count();
    }

    /** Completions that could not be delivered because the loop had already stopped; any thread. */
    public long completionsDropped() {
        return completions.dropped();
    }

    /**
     * Checks whether the open file is still the one at its path ({@link FileWatch#check}): null if so, or not
     * watched; else why not, in one line that starts with "file PATH". Once a change is found, a device told to
     * {@link #fenceWhenChanged} refuses every later write, flush and discard. Blocking (a few {@code stat} calls):
     * any thread but the loop's.
     */
    /**
     * Takes this device's file lock again if this process lost it ({@link FileLocks#keepHeld}); null if it holds it,
     * else one line for the log. Blocking (reads {@code /proc/locks}); any thread but the loop's.
     */
    public String keepLock() {
        return options.readOnly() ? null : FileLocks.keepHeld(java.nio.file.Path.of(path));
    }

    @Override
    public String checkPresence() {
        FileWatch current = watch;
        String change = current == null ? null : current.check();
        if (change != null && fenceWhenChanged && fenced == null) {
            fenced = change;
        }
        if (change != null) {
            changeFound = change;
        }
        return change;
    }

    /**
     * What the last {@link #checkPresence} found changed under the file, or null if nothing (yet): a volatile read,
     * so the loop may call it (stats). Any thread.
     */
    public String changeFound() {
        return changeFound;
    }

    /**
     * From now on, a change {@link #checkPresence} finds also fences the device: every later write, write of
     * zeroes, flush and discard fails with {@link IoStatus#IO_ERROR} naming the change, reads still work. For a
     * backing file: writes into a deleted file would be lost at the stop, and a flush that succeeded there would
     * let writeback mark dirty data clean. Any thread.
     */
    public void fenceWhenChanged() {
        fenceWhenChanged = true;
    }

    /** Why this device refuses writes, flushes and discards, or null if it does not; any thread. */
    public String fenced() {
        return fenced;
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        submit(DeviceOp.READ, offsetBytes, dst.remaining(), dst, false, callback);
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        submit(DeviceOp.WRITE, offsetBytes, src.remaining(), src, fua, callback);
    }

    @Override
    public void flush(IoCallback callback) {
        submit(DeviceOp.FLUSH, 0, 0, null, false, callback);
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        submit(DeviceOp.DISCARD, offsetBytes, lengthBytes, null, false, callback);
    }

    private void submit(DeviceOp op, long offsetBytes, long lengthBytes, ByteBuffer buffer, boolean fua,
            IoCallback callback) {
        Objects.requireNonNull(callback, "callback");
        checkThread();
        IoResult rejected = closed
                ? IoResult.error(IoStatus.CLOSED, describe(op, offsetBytes, lengthBytes) + ": device is closed")
                : options.readOnly() && op != DeviceOp.READ
                ? IoResult.error(IoStatus.IO_ERROR, describe(op, offsetBytes, lengthBytes) + ": " + path
                        + " is open read-only")
                : fenced != null && op != DeviceOp.READ ? fencedResult(op, offsetBytes, lengthBytes)
                : RequestChecks.check(op, offsetBytes, lengthBytes, sizeBytes, options.logicalBlockBytes(), path);
        long countedBytes = rejected == null ? lengthBytes : 0;
        long submittedNs = loop.nowNs();
        counters.onSubmit(op, countedBytes, submittedNs);
        if (rejected == null) {
            held.beforeRequest(op, offsetBytes, lengthBytes, fua);
        }
        if (rejected == null && op != DeviceOp.DISCARD && inlinePolicy.inline(op, lengthBytes, fua, submittedNs)) {
            if (op == DeviceOp.WRITE && HeldWrites.holds(lengthBytes)) {
                held.hold(offsetBytes, buffer, callback, submittedNs);
                return;
            }
            inlineRequest.reuse(op, offsetBytes, lengthBytes, countedBytes, buffer, fua, callback, submittedNs);
            performInline(inlineRequest);
            return;
        }
        FileRequest request = new FileRequest(op, offsetBytes, lengthBytes, countedBytes, buffer, fua, callback,
                submittedNs);
        if (rejected != null || op == DeviceOp.DISCARD) {
            // Nothing for an I/O thread to do: complete through the loop so the caller is never re-entered.
            request.cancel();
            finish(request, rejected == null ? IoResult.OK : rejected);
            return;
        }
        if (!queue.offer(request)) {
            throw new IllegalStateException("more than " + QUEUED_REQUESTS_MAX + " requests queued on " + path
                    + ": the caller must bound its in-flight I/O");
        }
    }

    /**
     * Performs a small transfer on the loop thread: the channel call now, the callback later through the
     * completion batcher like any other, so the caller is never re-entered.
     */
    private void performInline(FileRequest request) {
        request.begin();
        long startNs = System.nanoTime();
        IoResult result = execute(loopIo, request);
        inlinePolicy.recordInline(System.nanoTime() - startNs, request.submittedNs);
        request.end();
        finish(request, result);
        request.forget();
    }

    /** Writes the held writes' bytes with one channel call on the loop thread ({@link HeldWrites}). */
    private IoResult writeHeld(long offsetBytes, ByteBuffer data, int writes, long firstSubmittedNs) {
        inlineRequest.reuse(DeviceOp.WRITE, offsetBytes, data.remaining(), data.remaining(), data, false,
                result -> { }, firstSubmittedNs);
        inlineRequest.begin();
        long startNs = System.nanoTime();
        IoResult result = execute(loopIo, inlineRequest);
        inlinePolicy.recordInline((System.nanoTime() - startNs) / writes, firstSubmittedNs, writes);
        inlineRequest.end();
        inlineRequest.forget();
        return result;
    }

    /** The body of one I/O thread: take, claim, perform, hand back; until told to stop. */
    private void serve(ChannelIo io) {
        while (true) {
            FileRequest request;
            try {
                request = queue.take();
            } catch (InterruptedException e) {
                return; // Only close() could interrupt us, and it does not; leaving is the safe answer.
            }
            if (request == STOP) {
                return;
            }
            if (!request.begin()) {
                continue; // close() cancelled it and delivered CLOSED.
            }
            long startNs = System.nanoTime();
            // A request queued before the fence went up must not reach the changed file either.
            IoResult result = closed ? closedResult(request)
                    : fenced != null && request.op != DeviceOp.READ
                    ? fencedResult(request.op, request.offsetBytes, request.lengthBytes) : execute(io, request);
            inlinePolicy.recordThreaded(request.op, request.lengthBytes, request.fua, System.nanoTime() - startNs);
            if (!request.end()) {
                throw new IllegalStateException("request finished twice: " + describe(request));
            }
            finish(request, result);
        }
    }

    private IoResult execute(ChannelIo io, FileRequest request) {
        int now = executing.incrementAndGet();
        executingMax.accumulateAndGet(now, Math::max);
        try {
            io.perform(request);
            return IoResult.OK;
        } catch (ClosedChannelException e) {
            return closed ? closedResult(request) : ioError(request, e);
        } catch (IOException e) {
            return ioError(request, e);
        } catch (RuntimeException e) {
            // A bug, not an operating error: stop the owning loop with it (fail-stop), and fail the request.
            String what = describe(request); // now: the loop's inline request is reused by the time the task runs
            loop.execute(() -> {
                throw new IllegalStateException("I/O thread failed on " + what, e);
            });
            return IoResult.error(IoStatus.IO_ERROR, describe(request) + ": internal error " + e);
        } finally {
            executing.decrementAndGet();
        }
    }

    /** Counts the completion and delivers it on the loop (batched with others that complete meanwhile). */
    private void finish(FileRequest request, IoResult result) {
        long nowNs = loop.nowNs();
        counters.onComplete(request.op, request.countedBytes, nowNs - request.submittedNs, result, nowNs);
        completions.deliver(request.callback, result);
    }

    /**
     * Stops the device: queued requests complete with {@link IoStatus#CLOSED}; requests inside the channel
     * finish with their real outcome or, if closing the channel cut them off, CLOSED. Then the I/O threads
     * end and the channel is closed. Idempotent. Blocks the loop thread until the I/O threads are gone.
     *
     * @throws IllegalStateException if an I/O thread does not stop within 30 s (a stuck kernel call)
     */
    @Override
    public void close() {
        checkThread();
        if (closed) {
            return;
        }
        closed = true;
        held.cutOff((offsetBytes, lengthBytes) -> describe(DeviceOp.WRITE, offsetBytes, lengthBytes));
        List<FileRequest> queued = new ArrayList<>();
        queue.drainTo(queued);
        for (FileRequest request : queued) {
            if (request.cancel()) {
                finish(request, closedResult(request));
            }
        }
        threads.forEach(thread -> queue.add(STOP));
        closeChannel();
        joinThreads();
    }

    private void closeChannel() {
        try {
            channel.close();
        } catch (IOException e) {
            // Every request is already answered; a failing close loses nothing we promised. Say so loudly.
            throw new IllegalStateException("closing " + path + " failed", e);
        }
    }

    private void joinThreads() {
        long deadlineNs = System.nanoTime() + THREAD_STOP_NS_MAX;
        boolean interrupted = false;
        for (Thread thread : threads) {
            while (thread.isAlive()) {
                long leftNs = deadlineNs - System.nanoTime();
                if (leftNs <= 0) {
                    throw new IllegalStateException("I/O thread " + thread.getName() + " did not stop");
                }
                try {
                    thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNs)));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Returns true once every I/O thread has ended (after {@link #close()}); any thread. */
    public boolean threadsStopped() {
        return threads.stream().noneMatch(Thread::isAlive);
    }

    private IoResult closedResult(FileRequest request) {
        return IoResult.error(IoStatus.CLOSED, describe(request) + ": device is closed");
    }

    private IoResult fencedResult(DeviceOp op, long offsetBytes, long lengthBytes) {
        return IoResult.error(IoStatus.IO_ERROR, describe(op, offsetBytes, lengthBytes) + ": refused, the " + fenced);
    }

    private IoResult ioError(FileRequest request, IOException e) {
        String cause = String.valueOf(e.getMessage());
        IoStatus status = cause.contains("No space left") ? IoStatus.NO_SPACE : IoStatus.IO_ERROR;
        return IoResult.error(status, describe(request) + ": " + e);
    }

    private String describe(FileRequest request) {
        return describe(request.op, request.offsetBytes, request.lengthBytes);
    }

    private String describe(DeviceOp op, long offsetBytes, long lengthBytes) {
        return RequestChecks.describe(op, offsetBytes, lengthBytes, path);
    }

    private void checkThread() {
        if (!loop.inLoop()) {
            throw new IllegalStateException("FileDevice " + path + " used from thread "
                    + Thread.currentThread().getName() + ", not its owning loop's thread");
        }
    }
}
