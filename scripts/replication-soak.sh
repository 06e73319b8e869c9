#!/usr/bin/env bash
# The replication fuzz as a soak (docs/TESTING.md "Replication"): seed after seed of interop.ReplicationFuzz (three
# serve members over one nbdkit export, the leader killed with SIGKILL at random moments, sometimes with its data
# directory deleted, the reference model's checks on each new leader) for MINUTES (default 30) or until KILLS leader
# kills (default 200), then a summary line "replication soak result: ...". Builds the test classes once and runs a
# copy of them, so that building in this tree meanwhile does not change the code under test. Exit 0 only with no
# violation.
#   nice -n 19 scripts/replication-soak.sh [MINUTES [KILLS [FIRST_SEED [ROUNDS_PER_SEED]]]] > soak.txt 2>&1 &
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MINUTES=${1:-30}; KILLS=${2:-200}; FIRST_SEED=${3:-$(( $(date +%s) % 1000000000 ))}; ROUNDS=${4:-20}
J=""
for d in ${JAVA_HOME:-} /usr/lib/jvm/*; do # a JDK >= 21, as .ci/run picks it
  if [ -x "$d/bin/java" ] && "$d/bin/java" -XshowSettings:properties -version 2>&1 \
       | grep -Eq 'java\.specification\.version = (2[1-9]|[3-9][0-9])'; then J="$d/bin/java"; break; fi
done
[ -n "$J" ] || { echo "replication-soak: no JDK >= 21 in JAVA_HOME or /usr/lib/jvm" >&2; exit 2; }
command -v nbdkit >/dev/null || { echo "replication-soak: needs nbdkit (apt-get install nbdkit)" >&2; exit 2; }
W=$(mktemp -d /tmp/replication-soak.XXXXXX)
trap 'rm -rf "$W"' EXIT
./mvnw -B -q test-compile dependency:build-classpath -Dmdep.outputFile="$W/deps.txt" -Dmdep.includeScope=test \
  -Dmdep.excludeArtifactIds=s3proxy >&2
cp -r target/classes "$W/classes"; cp -r target/test-classes "$W/test-classes"
echo "replication-soak: commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with changes)'), $J"
"$J" -Xmx1g -cp "$W/test-classes:$W/classes:$(cat "$W/deps.txt")" io.blockcache.interop.ReplicationSoak \
  "$MINUTES" "$KILLS" "$FIRST_SEED" "$ROUNDS" # not exec: the trap deletes the copy after
