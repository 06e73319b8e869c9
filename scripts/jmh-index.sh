#!/usr/bin/env bash
# Runs the extent-index benchmarks with the test classpath (JMH is a test-scope dependency).
#   scripts/jmh-index.sh            JMH throughput (short iterations; pass JMH options after "--")
#   scripts/jmh-index.sh memory [N] heap bytes per extent for N extents (default 2,000,000)
# Needs a JDK >= 21: uses $JAVA_HOME if set, else the newest under /usr/lib/jvm.
set -euo pipefail
cd "$(dirname "$0")/.."
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/java}"
if [[ -z "$JAVA" ]]; then
  JAVA="$(ls -d /usr/lib/jvm/*/bin/java | sort -V | tail -1)"
fi
./mvnw -q -B test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
CP="target/test-classes:target/classes:$(cat target/test-classpath.txt)"
if [[ "${1:-}" == "memory" ]]; then
  exec "$JAVA" -Xmx2g -XX:+UseParallelGC -cp "$CP" io.blockcache.index.IndexMemoryMeasurement "${2:-2000000}"
fi
[[ "${1:-}" == "--" ]] && shift
exec "$JAVA" -cp "$CP" org.openjdk.jmh.Main 'io.blockcache.index.IndexBenchmark' \
  -f 1 -wi 2 -w 2s -i 3 -r 2s -jvmArgs '-Xmx2g' "$@"
