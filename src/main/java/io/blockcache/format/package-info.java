/**
 * On-disk layout: superblocks, journal records, checkpoints and their checksums, one class per
 * structure with its byte layout drawn in the Javadoc; {@code docs/FORMAT.md} is the spec.
 *
 * <p>Pure encoders and decoders: depends on nothing above {@code loop}; safe on any thread.
 */
package io.blockcache.format;
