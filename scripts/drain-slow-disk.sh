#!/usr/bin/env bash
# How long a drain takes over a disk that answers one request at a time in 4 ms (docs/bench-history/writeback.md
# "2026-12-02: a modern pass waits for room for all of it"): serve over nbdkit memory + noparallel + delay, fio 4 KiB random writes
# over 16 MiB at iodepth 16 for RT seconds (default 5), then a drain; prints its seconds and writeback's passes.
#   scripts/drain-slow-disk.sh JAR
set -uo pipefail
JAR=$1; D=${DIR:-/var/tmp/drain-slow-disk}; rm -rf $D; mkdir -p $D
J="${JAVA_HOME:+$JAVA_HOME/bin/java}"; [[ -n "$J" ]] || J="$(ls -d /usr/lib/jvm/*/bin/java | sort -V | tail -1)"
nbdkit --foreground --exit-with-parent --ipaddr 127.0.0.1 --port 12001 --filter=noparallel --filter=delay \
  memory 256M serialize=all-requests delay-read=4ms delay-write=4ms & NB=$!
$J -cp $JAR io.blockcache.cli.Main serve --data-dir $D/dd --cache $D/c.img --backing default=nbd://127.0.0.1:12001/ \
  --cache-size 268435456 --nbd-listen 127.0.0.1:11909 --admin-listen 127.0.0.1:11910 --mode writeback > $D/log 2>&1 &
PID=$!
trap 'kill $PID $NB 2>/dev/null' EXIT # an interrupted run leaves no server behind
for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/11909) 2>/dev/null && break; sleep 0.3; done
fio --ioengine=nbd --name=w --rw=randwrite --bs=4k --iodepth=16 --size=16m --time_based=1 --runtime=${RT:-5} \
  --uri=nbd://127.0.0.1:11909/default --output-format=terse > /dev/null
curl -s http://127.0.0.1:11910/api/stats > $D/before.json
T0=$(date +%s.%N)
curl -s -X POST http://127.0.0.1:11910/api/volumes/default/drain > /dev/null
for i in $(seq 1200); do
  curl -s http://127.0.0.1:11910/api/volumes/default/drain | grep -q '"state":"done"' && break; sleep 0.1
done
T1=$(date +%s.%N)
curl -s http://127.0.0.1:11910/api/stats > $D/after.json
python3 - "$D" "$T0" "$T1" <<'PY'
import json, sys
d, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
a = json.load(open(d + '/before.json'))['volumes'][0]['writeback']
b = json.load(open(d + '/after.json'))['volumes'][0]['writeback']
print("drain %.2f s, %d passes, %d sectors written back, %s dirty bytes left" % (
    t1 - t0, b['passes'] - a['passes'], b['writtenBackSectors'] - a['writtenBackSectors'], b['dirtyBytes']))
PY
kill $PID $NB; wait 2>/dev/null
