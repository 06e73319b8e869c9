#!/usr/bin/env bash
# The process fuzz as a soak (docs/TESTING.md "Process fuzz"): seed after seed of interop.ProcessFuzz (real serve
# processes, kill -9 at random moments, the reference model's checks, the backing file after a final drain) for
# MINUTES (default 60), then a summary line "process fuzz soak result: ... seeds, ... rounds (kills), ... operations,
# ... violations". Builds the test classes once and runs a copy of them, so that building in this tree meanwhile
# does not change the code under test. Exit code 0 only with no violation.
#   nice -n 19 scripts/process-fuzz-soak.sh [MINUTES [FIRST_SEED [ROUNDS_PER_SEED]]] > soak.txt 2>&1 &
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MINUTES=${1:-60}; FIRST_SEED=${2:-$(( $(date +%s) % 1000000000 ))}; ROUNDS=${3:-20}
J=""
for d in ${JAVA_HOME:-} /usr/lib/jvm/*; do # a JDK >= 21, as .ci/run picks it
  if [ -x "$d/bin/java" ] && "$d/bin/java" -XshowSettings:properties -version 2>&1 \
       | grep -Eq 'java\.specification\.version = (2[1-9]|[3-9][0-9])'; then J="$d/bin/java"; break; fi
done
[ -n "$J" ] || { echo "process-fuzz-soak: no JDK >= 21 in JAVA_HOME or /usr/lib/jvm" >&2; exit 2; }
W=$(mktemp -d /tmp/process-fuzz-soak.XXXXXX)
trap 'rm -rf "$W"' EXIT
# S3Proxy stays off the class path, as in surefire: it bundles its own Jetty and logging.
./mvnw -B -q test-compile dependency:build-classpath -Dmdep.outputFile="$W/deps.txt" -Dmdep.includeScope=test \
  -Dmdep.excludeArtifactIds=s3proxy >&2
cp -r target/classes "$W/classes"; cp -r target/test-classes "$W/test-classes"
echo "process-fuzz-soak: commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with changes)'), $J"
"$J" -Xmx1g -cp "$W/test-classes:$W/classes:$(cat "$W/deps.txt")" io.blockcache.interop.ProcessFuzzSoak \
  "$MINUTES" "$FIRST_SEED" "$ROUNDS" # not exec: the trap deletes the copy after
