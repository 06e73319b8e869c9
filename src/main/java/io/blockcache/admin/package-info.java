/**
 * The admin HTTP API on localhost: stats as JSON, Prometheus metrics, live knobs, drain jobs (saved through a
 * {@code DrainJobStore} by one writer thread, never the loop), the dashboard; an optional bearer token in front of
 * all of it but the dashboard page ({@link io.blockcache.admin.AdminGuard}; docs/OPERATIONS.md §10); every client
 * bounded in time and number ({@link io.blockcache.admin.AdminLimits}, {@link io.blockcache.admin.AdminEndpoint}).
 *
 * <p>Each metric is one {@link io.blockcache.admin.MetricDescriptor} in the catalogue
 * {@link io.blockcache.admin.Metrics}: {@code /metrics}, {@code /api/stats}, {@code blockcache stats} and the
 * dashboard all read it from there.
 *
 * <p>The dashboard's history ({@link io.blockcache.admin.MetricHistory}) is sampled once a second by a thread of its
 * own ({@link io.blockcache.admin.HistoryRecorder}) from the snapshot {@code /api/stats} takes; at most about 5 MiB.
 *
 * <p>Talks to volumes only through their public API.
 */
package io.blockcache.admin;
