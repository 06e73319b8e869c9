package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The wake-up rule of {@link IoThreadQueue}, with real threads that take requests and hold them until the test
 * lets them go: a fast device defers a request to a busy thread and wakes nobody; a stall wakes a thread per
 * queued request; a slow device wakes one per request; and no request is left with every thread parked.
 */
class IoThreadQueueTest {
    private static final long WAIT_NS_MAX = TimeUnit.SECONDS.toNanos(10);

    private final IoThreadQueue queue = new IoThreadQueue(64);
    private final LinkedBlockingQueue<FileRequest> taken = new LinkedBlockingQueue<>();
    private final List<Thread> workers = new ArrayList<>();
    /** One permit lets one worker finish the request it holds and take the next. */
    private final Semaphore finish = new Semaphore(0);

    @AfterEach
    void stopWorkers() throws InterruptedException {
        queue.offerToAll(STOP, workers.size());
        finish.release(1_000);
        for (Thread worker : workers) {
            worker.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NS_MAX));
            assertThat(worker.isAlive()).as("worker stopped").isFalse();
        }
    }

    @Test
    void aFastDeviceDefersARequestToABusyThreadAndWakesNobody() throws Exception {
        startParkedWorkers(2);
        assertThat(queue.offer(request(1), true)).isEqualTo(IoThreadQueue.Offer.QUEUED);
        assertThat(nextTaken()).isEqualTo(1);
        long wakeups = queue.wakeupsTotal();

        assertThat(queue.offer(request(2), true)).as("a thread is busy").isEqualTo(IoThreadQueue.Offer.DEFERRED);
        assertThat(queue.offer(request(3), true)).as("a stall check is already due")
                .isEqualTo(IoThreadQueue.Offer.QUEUED);
        assertThat(queue.wakeupsTotal()).as("no thread woken for a busy one's next requests").isEqualTo(wakeups);

        finish.release(2);
        assertThat(nextTaken()).isEqualTo(2);
        assertThat(nextTaken()).isEqualTo(3);
        assertThat(queue.wakeupsTotal()).as("the busy thread took them without a wake-up").isEqualTo(wakeups);
        assertThat(queue.wakeIfStalled()).as("the queue moved and is empty").isFalse();
        assertThat(queue.wakeupsTotal()).isEqualTo(wakeups);
    }

    @Test
    void aStalledQueueWakesAThreadForEveryQueuedRequest() throws Exception {
        startParkedWorkers(3);
        queue.offer(request(1), true);
        assertThat(nextTaken()).isEqualTo(1); // and held: the stuck request
        assertThat(queue.offer(request(2), true)).isEqualTo(IoThreadQueue.Offer.DEFERRED);
        queue.offer(request(3), true);
        long wakeups = queue.wakeupsTotal();

        assertThat(queue.wakeIfStalled()).as("requests still queued when it looked").isTrue();
        assertThat(queue.wakeupsTotal()).as("one wake-up per queued request").isEqualTo(wakeups + 2);
        List<Integer> rescued = List.of(nextTaken(), nextTaken());
        assertThat(rescued).containsExactlyInAnyOrder(2, 3);
        assertThat(queue.wakeIfStalled()).as("nothing queued any more").isFalse();
    }

    @Test
    void aSlowDeviceWakesAThreadForEveryRequest() throws Exception {
        startParkedWorkers(3);
        for (int i = 1; i <= 3; i++) {
            assertThat(queue.offer(request(i), false)).isEqualTo(IoThreadQueue.Offer.QUEUED);
        }
        assertThat(queue.wakeupsTotal()).isEqualTo(3);
        List<Integer> inside = List.of(nextTaken(), nextTaken(), nextTaken());
        assertThat(inside).as("all three inside at once, none finished").containsExactlyInAnyOrder(1, 2, 3);
    }

    @Test
    void aFullQueueRefuses() {
        IoThreadQueue small = new IoThreadQueue(2);
        assertThat(small.offer(request(1), true)).isEqualTo(IoThreadQueue.Offer.QUEUED);
        assertThat(small.offer(request(2), true)).isEqualTo(IoThreadQueue.Offer.QUEUED);
        assertThat(small.offer(request(3), true)).isEqualTo(IoThreadQueue.Offer.REFUSED);
    }

    private static final FileRequest STOP = request(-1);

    private static FileRequest request(int id) {
        return new FileRequest(DeviceOp.READ, id * 4096L, 4096, 4096, null, false, result -> { }, 0);
    }

    private int nextTaken() throws InterruptedException {
        FileRequest request = taken.poll(WAIT_NS_MAX, TimeUnit.NANOSECONDS);
        assertThat(request).as("a worker took a request in time").isNotNull();
        return (int) (request.offsetBytes / 4096);
    }

    /** Starts {@code count} workers and waits until all are parked in {@link IoThreadQueue#take}. */
    private void startParkedWorkers(int count) {
        for (int i = 0; i < count; i++) {
            Thread worker = Thread.ofPlatform().daemon().name("io-queue-test-" + i).start(this::work);
            workers.add(worker);
        }
        awaitTrue(() -> workers.stream().allMatch(w -> w.getState() == Thread.State.WAITING), "workers parked");
    }

    private void work() {
        boolean finishedOne = false;
        try {
            while (true) {
                FileRequest request = queue.take(finishedOne);
                finishedOne = true;
                if (request == STOP) {
                    return;
                }
                taken.add(request);
                finish.acquire();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        long deadlineNs = System.nanoTime() + WAIT_NS_MAX;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadlineNs);
            LockSupport.parkNanos(1_000_000);
        }
    }
}
