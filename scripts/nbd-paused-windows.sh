#!/usr/bin/env bash
# One server's paused 4 KiB random writes in 5-s windows (docs/bench-history/nbd.md "2026-12-04: a settled page cache"): a fresh server, fio at
# QD32 over [768 MiB, 1 GiB) as bench nbd's paused row, and per window the IOPS, the server's CPU per request, the
# whole machine's busy CPU per request (/proc/stat) and what the kernel wrote out (pgpgout). Shows how much one
# server's cost varies on its own, which bench nbd's one cell per run cannot. For blockcache it also prints what
# moving GC copied in the window (/api/stats gc.movedBytes) as a share of what fio wrote (docs/GC.md "Why 35 %").
#   scripts/nbd-paused-windows.sh bc target/blockcache.jar      (blockcache, writeback paused)
#   scripts/nbd-paused-windows.sh nbdkit                         (nbdkit's file plugin)
# WINDOWS (6) sets the count; window 1 includes the JIT's warm-up.
set -euo pipefail
KIND=$1; JAR=${2:-}; D=/var/tmp/paused-windows; rm -rf $D; mkdir -p $D
J="${JAVA_HOME:+$JAVA_HOME/bin}"; [[ -n "$J" ]] || J="$(dirname "$(ls -d /usr/lib/jvm/*/bin/java | sort -V | tail -1)")"
if [ "$KIND" = bc ]; then
  SERVE="serve --cache $D/c.img --backing default=$D/b.img --cache-size 2147483648 --backing-size 2148532224
    --nbd-listen 127.0.0.1:11809 --admin-listen 127.0.0.1:11810 --mode writeback"
  JOPTS=$($J/java -cp "$JAR" io.blockcache.cli.Main $SERVE --print-jvm-options)
  $J/java $JOPTS -cp "$JAR" io.blockcache.cli.Main $SERVE > $D/serve.log 2>&1 &
  URI=nbd://127.0.0.1:11809/default
else
  truncate -s 2G $D/n.img
  nbdkit --foreground --ipaddr 127.0.0.1 --port 11809 file $D/n.img > $D/serve.log 2>&1 &
  URI=nbd://127.0.0.1:11809/
fi
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf $D' EXIT
for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/11809) 2>/dev/null && break; sleep 0.3; done
if [ "$KIND" = bc ]; then
  curl -sf -X PUT -d false http://127.0.0.1:11810/api/knobs/writeback.default.running > /dev/null
fi
busy() { head -1 /proc/stat | awk '{print $2+$3+$4+$7+$8}'; }
moved() { # bytes moving GC has copied so far (blockcache; nbdkit has none: 0)
  if [ "$KIND" = bc ]; then
    curl -sf http://127.0.0.1:11810/api/stats \
      | python3 -c 'import json, sys; print(json.load(sys.stdin)["gc"]["movedBytes"])'
  else
    echo 0
  fi
}
for w in $(seq "${WINDOWS:-6}"); do
  C0=$(awk '{print $14+$15}' /proc/$PID/stat); S0=$(busy); B0=$(awk '/^pgpgout/{print $2}' /proc/vmstat); M0=$(moved)
  fio --ioengine=nbd --name=w --rw=randwrite --bs=4k --iodepth=32 --offset=768m --size=256m --time_based \
    --runtime=5 --norandommap=1 --uri=$URI --output-format=json > $D/fio.json
  C1=$(awk '{print $14+$15}' /proc/$PID/stat); S1=$(busy); B1=$(awk '/^pgpgout/{print $2}' /proc/vmstat); M1=$(moved)
  python3 - "$D/fio.json" "$w" $((C1 - C0)) $((S1 - S0)) $((B1 - B0)) $((M1 - M0)) "$KIND" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
ios = json.loads(text[text.index('{'):])['jobs'][0]['write']['total_ios']
w, proc, busy, out_kib, moved = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
gc = f", moving GC copied {100 * moved / (ios * 4096):.1f} % of it" if sys.argv[7] == 'bc' else ""
print(f"window {w}: {ios // 5} IOPS, server {proc * 10000 / ios:.2f} us/req, machine {busy * 10000 / ios:.2f} us/req, "
      f"written out {out_kib // 1024 // 5} MB/s{gc}")
PY
done
