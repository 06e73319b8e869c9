package io.blockcache.device;

/**
 * What an object-store backing ({@code backing.S3Device}) has done so far, for statistics: requests by kind, their
 * failures and bytes, the chunks staged in memory, and the owner record's renewals. Counts since open; a value.
 *
 * @param puts chunk PUTs that succeeded
 * @param gets GETs that succeeded (reads of chunks, and of old chunks to complete a partly written one)
 * @param deletes chunk DELETEs that succeeded (discards of whole chunks)
 * @param failures PUTs, GETs and DELETEs that failed (after the client's own attempts and the retries)
 * @param retries requests run again after a failure that may pass (a dropped connection, a 5xx, throttling), beyond
 *     the client's own attempts
 * @param bytesPut bytes of the PUTs that succeeded
 * @param bytesGot bytes of the GETs that succeeded
 * @param stagedChunks chunks staged in memory now (written, not yet all durable)
 * @param stagedChunksMax the bound on {@code stagedChunks}
 * @param leaseRenewals renewals of the owner record that succeeded
 * @param leaseRenewalFailures renewals that could not reach the store (retried at the next period)
 * @param fenced true once another cache took the volume over: every later PUT and DELETE fails
 * @param ownership one line for people: {@code owned by ID} or why it is no longer owned
 */
public record ObjectStoreStats(long puts, long gets, long deletes, long failures, long retries, long bytesPut,
                               long bytesGot,
                               int stagedChunks, int stagedChunksMax, long leaseRenewals, long leaseRenewalFailures,
                               boolean fenced, String ownership) {
}
