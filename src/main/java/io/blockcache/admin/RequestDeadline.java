package io.blockcache.admin;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One admin request's clock. The request may take {@link AdminLimits#requestReadTime} from its first byte to its
 * last, then {@link AdminLimits#answerTime} to be answered; when a bound passes, the watchdog thread cuts the
 * request off: it answers 408 if the headers are in and nobody has started an answer, then interrupts the request's
 * worker thread. Interrupting a thread blocked on a socket channel closes the channel (the contract of
 * {@link java.nio.channels.InterruptibleChannel}), and that is the only way to end a blocking read that the JDK's
 * server has no timeout for; the worker thread serves this one request and ends, so the interrupt reaches nothing
 * else.
 *
 * <p>The phase decides who may write the answer: the worker claims it with {@link #claimAnswer} (reading → answering)
 * and the watchdog with the move to expired; only the one whose compare-and-set wins writes.
 *
 * <p>Thread rule: {@link #headersRead}, {@link #claimAnswer}, {@link #finish} on the request's worker thread; the
 * timer's work on the watchdog thread.
 */
final class RequestDeadline {
    /** Where the request is; moves only forward. */
    enum Phase { READING_HEADERS, READING_BODY, ANSWERING, DONE, EXPIRED }

    private final Thread worker;
    private final ScheduledExecutorService watchdog;
    private final AdminLimits limits;
    private final AtomicLong timeouts;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.READING_HEADERS);
    private volatile HttpExchange exchange;
    private volatile ScheduledFuture<?> timer;

    /**
     * @param worker the thread that reads and answers this request
     * @param timeouts counts requests this deadline cut off
     */
    RequestDeadline(Thread worker, ScheduledExecutorService watchdog, AdminLimits limits, AtomicLong timeouts) {
        this.worker = worker;
        this.watchdog = watchdog;
        this.limits = limits;
        this.timeouts = timeouts;
    }

    /** Starts the read clock: call when the request's first byte has arrived, before reading it. */
    void start() {
        timer = watchdog.schedule(() -> expire(false), limits.requestReadTime().toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * The request line and headers are in; the body is next.
     *
     * @throws IOException if the request was already cut off (the connection is closed)
     */
    void headersRead(HttpExchange headersIn) throws IOException {
        exchange = headersIn;
        if (!phase.compareAndSet(Phase.READING_HEADERS, Phase.READING_BODY)) {
            throw cutOff();
        }
    }

    /**
     * The worker will write the answer (the whole request is read, or it is refused unread): stops the read clock
     * and starts the answer clock.
     *
     * @return false if the watchdog cut the request off first; then the worker must not touch the exchange
     */
    boolean claimAnswer() {
        if (!phase.compareAndSet(Phase.READING_BODY, Phase.ANSWERING)) {
            return false;
        }
        timer.cancel(false);
        timer = watchdog.schedule(() -> expire(true), limits.answerTime().toNanos(), TimeUnit.NANOSECONDS);
        return true;
    }

    /** True once the watchdog cut the request off. */
    boolean expired() {
        return phase.get() == Phase.EXPIRED;
    }

    /** The exception a worker throws to have the JDK's server close the connection of a request cut off. */
    IOException cutOff() {
        return new IOException("admin request cut off after " + limits.requestReadTime().toMillis() + " ms reading or "
                + limits.answerTime().toMillis() + " ms answering");
    }

    /** The request is over, however it ended: stops the clock. */
    void finish() {
        ScheduledFuture<?> current = timer;
        if (current != null) {
            current.cancel(false);
        }
        phase.updateAndGet(now -> now == Phase.EXPIRED ? now : Phase.DONE);
    }

    /** On the watchdog thread: a bound passed. A read timer that fires after the answer began does nothing. */
    private void expire(boolean answerTimer) {
        Phase now = phase.get();
        boolean armed = answerTimer ? now == Phase.ANSWERING
                : now == Phase.READING_HEADERS || now == Phase.READING_BODY;
        if (!armed || !phase.compareAndSet(now, Phase.EXPIRED)) {
            return;
        }
        timeouts.incrementAndGet();
        if (now == Phase.READING_BODY) {
            answerTimedOut(exchange);
        }
        worker.interrupt();
    }

    /**
     * 408 with {@code Connection: close}, written from the watchdog while the worker waits for body bytes. The
     * answer is a few hundred bytes into a socket the server has written nothing to, so the write does not block;
     * the stream is flushed, never closed (closing would first read the rest of the body, which is what never
     * comes). A HEAD request gets no answer: the JDK's server would end it by reading that body too.
     */
    private void answerTimedOut(HttpExchange timedOut) {
        if (timedOut.getRequestMethod().equals("HEAD")) {
            return;
        }
        String json = AdminServer.error("the request took longer than " + limits.requestReadTime().toMillis()
                + " ms to arrive (headers and body); the connection is closed");
        byte[] body = (json + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            timedOut.getResponseHeaders().set("Content-Type", "application/json");
            timedOut.getResponseHeaders().set("Connection", "close");
            timedOut.sendResponseHeaders(408, body.length);
            OutputStream out = timedOut.getResponseBody();
            out.write(body);
            out.flush();
        } catch (IOException e) {
            // The client is gone or not reading: the interrupt that follows closes the connection all the same.
        }
    }
}
