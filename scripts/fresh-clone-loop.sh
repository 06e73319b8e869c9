#!/usr/bin/env bash
# A suite that never flakes (docs/TESTING.md "Keeping the suite green"): the README's test command from fresh clones, two at a
# time, each building and testing while the other runs beside it. Clones REPO's HEAD for every run (so a loop spans
# the commits that land meanwhile), keeps each run's log in OUT, and the surefire reports of a red one; stops after 20
# green in a row, or when no new pair may start (STOP_AT, epoch seconds). Results: OUT/results.txt, a line per run.
#   STOP_AT=$(date -d '+3 hours' +%s) scripts/fresh-clone-loop.sh REPO OUT
set -u
REPO=${1:?repository to clone}; OUT=${2:?directory for logs}; STOP_AT=${STOP_AT:?epoch seconds}
mkdir -p "$OUT"; R=$OUT/results.txt; n=1; streak=0
one() { # $1 = run number; returns the test command's exit code
  local d=$OUT/run$1 rc c t0 t1 l0 l1 tests
  rm -rf "$d"; git clone -q "$REPO" "$d" || return 1
  c=$(git -C "$d" rev-parse --short HEAD); t0=$(date +%s); l0=$(cut -d' ' -f1 /proc/loadavg)
  (cd "$d" && ./mvnw -B test > "$OUT/log$1.txt" 2>&1); rc=$?
  t1=$(date +%s); l1=$(cut -d' ' -f1 /proc/loadavg)
  tests=$(grep -E "Tests run: [0-9]+, Failures" "$OUT/log$1.txt" | tail -1)
  [ $rc -eq 0 ] || cp -r "$d/target/surefire-reports" "$OUT/red$1" 2>/dev/null
  echo "run $1 commit $c rc $rc $((t1-t0))s load $l0->$l1 | $tests" > "$R.part$1"
  rm -rf "$d"; return $rc
}
while [ "$(date +%s)" -lt "$STOP_AT" ] && [ $streak -lt 20 ]; do
  a=$n; b=$((n+1)); n=$((n+2))
  one $a & pa=$!; one $b & pb=$!
  wait $pa; ra=$?; wait $pb; rb=$?
  for x in $a:$ra $b:$rb; do
    i=${x%%:*}; r=${x##*:}
    if [ "$r" -eq 0 ]; then streak=$((streak+1)); else streak=0; fi
    echo "$(cat "$R.part$i") streak $streak" >> "$R"; rm -f "$R.part$i"
  done
done
