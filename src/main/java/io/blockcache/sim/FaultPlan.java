package io.blockcache.sim;

import io.blockcache.device.DeviceOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Which faults a {@link FaultyDevice} injects; immutable and validated. Requests are numbered from 1 in
 * submission order over all kinds.
 *
 * @param failFirstRequestNumber first request number to fail by count (0: no count fault)
 * @param failRequestCount how many consecutive requests to fail from there
 * @param failProbability chance that any request fails, drawn from the device's seeded {@code Prng}
 * @param regions requests of a kind that overlap a byte range always fail
 * @param spikeProbability chance that a request that does not fail completes late
 * @param spikeDelayNs how late, in nanoseconds
 */
public record FaultPlan(long failFirstRequestNumber, long failRequestCount, double failProbability,
        List<RegionFault> regions, double spikeProbability, long spikeDelayNs) {

    /** Requests of kind {@code op} overlapping {@code [offsetBytes, offsetBytes + lengthBytes)} fail. */
    public record RegionFault(DeviceOp op, long offsetBytes, long lengthBytes) {
        /** Validates the region. */
        public RegionFault {
            Objects.requireNonNull(op, "op");
            if (offsetBytes < 0 || lengthBytes <= 0) {
                throw new IllegalArgumentException("bad region [" + offsetBytes + ", +" + lengthBytes + ")");
            }
        }

        boolean matches(DeviceOp requestOp, long requestOffsetBytes, long requestLengthBytes) {
            return requestOp == op && requestOffsetBytes < offsetBytes + lengthBytes
                    && offsetBytes < requestOffsetBytes + Math.max(1, requestLengthBytes);
        }
    }

    /** Validates every value. */
    public FaultPlan {
        regions = List.copyOf(regions);
        if (failFirstRequestNumber < 0 || failRequestCount < 0) {
            throw new IllegalArgumentException("count faults must be >= 0");
        }
        if (!(failProbability >= 0 && failProbability <= 1) || !(spikeProbability >= 0 && spikeProbability <= 1)) {
            throw new IllegalArgumentException("probabilities must be in [0, 1]");
        }
        if (spikeDelayNs < 0) {
            throw new IllegalArgumentException("spikeDelayNs must be >= 0: " + spikeDelayNs);
        }
    }

    /** No faults at all. */
    public static FaultPlan none() {
        return new FaultPlan(0, 0, 0, List.of(), 0, 0);
    }

    /** Returns a copy that fails requests number {@code first} to {@code first + count - 1}. */
    public FaultPlan withFailedRequests(long first, long count) {
        return new FaultPlan(first, count, failProbability, regions, spikeProbability, spikeDelayNs);
    }

    /** Returns a copy that fails each request with {@code probability}. */
    public FaultPlan withFailProbability(double probability) {
        return new FaultPlan(failFirstRequestNumber, failRequestCount, probability, regions, spikeProbability,
                spikeDelayNs);
    }

    /** Returns a copy that also fails requests of {@code op} overlapping the range. */
    public FaultPlan withRegion(DeviceOp op, long offsetBytes, long lengthBytes) {
        List<RegionFault> more = new ArrayList<>(regions);
        more.add(new RegionFault(op, offsetBytes, lengthBytes));
        return new FaultPlan(failFirstRequestNumber, failRequestCount, failProbability, more, spikeProbability,
                spikeDelayNs);
    }

    /** Returns a copy that delays a request by {@code delayNs} with {@code probability}. */
    public FaultPlan withLatencySpikes(double probability, long delayNs) {
        return new FaultPlan(failFirstRequestNumber, failRequestCount, failProbability, regions, probability,
                delayNs);
    }
}
