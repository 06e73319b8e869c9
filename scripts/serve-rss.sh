#!/usr/bin/env bash
# Resident memory of `serve` under load (docs/BENCHMARKS.md "Process memory"): starts bin/blockcache serve
# with a 2 GiB cache on fresh files, runs fio's nbd engine (4 KiB random writes, QD32, one connection) for SECONDS
# and samples VmRSS of /proc/PID/status every 0.5 s; prints idle RSS, the samples, the peak (VmHWM), heap and GC
# figures, fio's IOPS and the server's CPU time per request (steadier than IOPS on a shared machine).
#   scripts/serve-rss.sh [SECONDS]        e.g. BLOCKCACHE_JAVA_OPTS=-XX:+UseZGC scripts/serve-rss.sh 20
# Environment: DIR for the files (default /var/tmp/serve-rss; each run in its own subdirectory), PORT (default
# 12809; admin on PORT+1), LAUNCHER (default bin/blockcache of this checkout; an installed copy does not rebuild
# when the sources change during a series). Needs fio with the nbd engine.
set -euo pipefail
SECONDS_RUN=${1:-20}; D=${DIR:-/var/tmp/serve-rss}/run-$$; P=${PORT:-12809}
L=${LAUNCHER:-$(cd "$(dirname "$0")/.." && pwd)/bin/blockcache}
mkdir -p "$D"
"$L" serve --cache "$D/cache.img" --backing "default=$D/backing.img" --cache-size 2G --backing-size 4G \
  --nbd-listen 127.0.0.1:$P --admin-listen 127.0.0.1:$((P+1)) > "$D/serve.log" 2>&1 &
LP=$!
trap 'kill $LP 2>/dev/null' EXIT # an interrupted run leaves no server behind
for _ in $(seq 200); do (echo > /dev/tcp/127.0.0.1/$P) 2>/dev/null && break; sleep 0.3; done
JP=$(pgrep -P $LP java || echo $LP)  # the launcher execs java, so usually the same PID
rss() { awk '/^VmRSS/ {print int($2/1024)}' /proc/$JP/status; }
echo "idle RSS MiB: $(rss)   JVM: $(tr '\0' ' ' < /proc/$JP/cmdline | grep -o -- ' -X[^ ]*' | tr -d '\n')"
fio --ioengine=nbd --name=rss --rw=randwrite --bs=4k --iodepth=32 --size=1g --time_based=1 --runtime=$SECONDS_RUN \
  --norandommap=1 --randrepeat=0 --uri=nbd://127.0.0.1:$P/default --output-format=json > "$D/fio.json" &
FP=$!
T0=$(awk '{print $14+$15}' /proc/$JP/stat)
samples=""
while kill -0 $FP 2>/dev/null; do samples="$samples $(rss)"; sleep 0.5; done
wait $FP
T1=$(awk '{print $14+$15}' /proc/$JP/stat)
IOS=$(grep '"total_ios"' "$D/fio.json" | tr -dc '0-9\n' | sort -n | tail -1)
echo "RSS MiB every 0.5 s:$samples"
echo "peak RSS MiB (VmHWM): $(awk '/^VmHWM/ {print int($2/1024)}' /proc/$JP/status)"
J="$(dirname "$(readlink -f /proc/$JP/exe)")/jcmd"
[ -x "$J" ] && echo "heap after the run: $("$J" $JP GC.heap_info 2>/dev/null | grep -m1 -o 'total.*used [0-9]*K')"
S="$(dirname "$J")/jstat"
[ -x "$S" ] && echo "GC: $("$S" -gcutil $JP | awk 'NR==1 {for (i = 1; i <= NF; i++) c[$i] = i} NR==2 {
  print "young " $c["YGC"] " (" $c["YGCT"] " s), full " $c["FGC"] ", concurrent " $c["CGC"] ", total " $c["GCT"] " s"}')"
echo "fio write IOPS: $(grep -m1 '"iops"' <(sed -n '/"write"/,/}/p' "$D/fio.json") | tr -dc '0-9.');" \
  "server CPU per request: $(( (T1 - T0) * 10000000 / IOS / 1000 )) us (utime+stime, clock ticks of 10 ms)"
kill $LP; wait $LP || true
rm -rf "$D" &  # deleting 6 GiB of written sparse files can take a minute on a busy disk: not in the next run's way
