/**
 * The operator's log as data: every event's stable name, its level and fields in one table ({@link EventName}), an
 * event ({@link LogEvent}), and where events go ({@link EventSink}). Depends on no other blockcache package, so the
 * packages that notice what the operator must hear of ({@code nbd}, {@code host}, {@code backing}, {@code admin})
 * name their events themselves, while only {@code cli} decides how a line looks and where it is written (text or
 * JSON on stderr, the journal's priority, the flood limit: {@code cli.EventLog}; docs/OPERATIONS.md "Logs").
 *
 * <p>Thread rule: the types here are immutable; an {@link EventSink} takes events from any thread and never blocks.
 */
package io.blockcache.log;
