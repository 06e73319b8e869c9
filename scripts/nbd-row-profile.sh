#!/usr/bin/env bash
# Where the CPU of each bench nbd row goes (docs/bench-history/nbd.md "2026-12-04: allocation-free misses"): blockcache serve (with the JVM flags
# bin/blockcache gives it) and nbdkit-file side by side, regions prepared like `bench nbd --quick` (a quarter of each),
# then each row for RT seconds (default 8) per server with `perf record -g` on the server; prints IOPS, server CPU per
# request and the samples by category (scripts/perf-categories.py), in µs per request. Needs fio, nbdkit, perf, curl.
#   scripts/nbd-row-profile.sh target/blockcache.jar
set -euo pipefail
JAR=$1; RT=${RT:-8}; D=/var/tmp/prof; rm -rf $D; mkdir -p $D
J="${JAVA_HOME:+$JAVA_HOME/bin/java}"; [[ -n "$J" ]] || J="$(ls -d /usr/lib/jvm/*/bin/java | sort -V | tail -1)"
SERVE="serve --cache $D/c.img --backing default=$D/b.img --cache-size 2147483648 --backing-size 2148532224 --nbd-listen 127.0.0.1:11809 --admin-listen 127.0.0.1:11810 --mode writeback"
JOPTS=$($J -cp $JAR io.blockcache.cli.Main $SERVE --print-jvm-options)
$J $JOPTS -cp $JAR io.blockcache.cli.Main $SERVE > $D/s.log 2>&1 &
PID=$!
truncate -s 2g $D/k.img
nbdkit --foreground --exit-with-parent --ipaddr 127.0.0.1 --port 11819 file $D/k.img & KP=$!
trap 'kill $PID $KP 2>/dev/null' EXIT
for p in 11809 11819; do for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/$p) 2>/dev/null && break; sleep 0.3; done; done
A=http://127.0.0.1:11810/api
drain() { curl -s -X POST $A/volumes/default/drain >/dev/null; sleep 1; for i in $(seq 600); do curl -s $A/stats | grep -q '"state":"done"' && break; sleep 0.5; done; }
knobs() { for k in sequential_cutoff_bytes congested_read_threshold_us congested_write_threshold_us; do curl -s -X PUT -d $1 $A/knobs/volume.default.$k >/dev/null; done; }
for p in 11809 11819; do fio --ioengine=nbd --name=f --rw=write --bs=1m --iodepth=32 --offset=1g --size=256m --uri=nbd://127.0.0.1:$p/default --output-format=terse >/dev/null; done
drain
for r in "0 4k" "256m 64k" "512m 1m"; do set -- $r
  knobs 0
  for p in 11809 11819; do fio --ioengine=nbd --name=f --rw=randwrite --bs=$2 --iodepth=32 --offset=$1 --size=64m --uri=nbd://127.0.0.1:$p/default --output-format=terse >/dev/null; done
  curl -s -X PUT -d 4194304 $A/knobs/volume.default.sequential_cutoff_bytes >/dev/null
  curl -s -X PUT -d 2000 $A/knobs/volume.default.congested_read_threshold_us >/dev/null
  curl -s -X PUT -d 20000 $A/knobs/volume.default.congested_write_threshold_us >/dev/null
  drain
done
row() { # name rw bs offset size jobs qd
  for x in "bc $PID 11809" "kit $KP 11819"; do set -- $x "${@}"; srv=$1; pid=$2; port=$3; shift 3
    [ "$1" = randwrite4k-wbpaused ] && [ $srv = bc ] && curl -s -X PUT -d false $A/knobs/writeback.default.running >/dev/null
    perf record -F 499 -g -p $pid -o $D/$1-$srv.data -- sleep $((RT-2)) >/dev/null 2>&1 &
    PP=$!
    T0=$(awk '{print $14+$15}' /proc/$pid/stat)
    fio --ioengine=nbd --name=r --rw=$2 --bs=$3 --iodepth=$7 --numjobs=$6 --group_reporting=1 --offset=$4 --size=$5 --time_based=1 --runtime=$RT --norandommap=1 --randrepeat=0 --uri=nbd://127.0.0.1:$port/default --output-format=json > $D/r.json
    T1=$(awk '{print $14+$15}' /proc/$pid/stat)
    wait $PP || true
    IOS=$(python3 -c "
import json;t=open('$D/r.json').read();j=json.loads(t[t.index('{'):])['jobs'][0];print(j['read']['total_ios']+j['write']['total_ios'])")
    US=$(python3 -c "print(round(($T1-$T0)*10000/$IOS,2))")
    echo "== $1 $srv iops=$((IOS/RT)) cpu_us_per_req=$US"
    perf script -i $D/$1-$srv.data 2>/dev/null > $D/ps.txt; python3 "$(dirname "$0")/perf-categories.py" $D/ps.txt $US | head -12
    [ "$1" = randwrite4k-wbpaused ] && [ $srv = bc ] && { curl -s -X PUT -d true $A/knobs/writeback.default.running >/dev/null; drain; }
    set -- "$@"
  done
}
row randread4k-miss randread 4k 1g 256m 1 32
row randread4k-hit4k randread 4k 0 64m 1 32
row randread4k-hit64k randread 4k 256m 64m 1 32
row randread4k-hit1m randread 4k 512m 64m 1 32
row randread4k-4x8 randread 4k 0 64m 4 8
row randwrite4k randwrite 4k 768m 256m 1 32
row randwrite4k-wbpaused randwrite 4k 768m 256m 1 32
row seqwrite1m write 1m 768m 256m 1 32
row randwrite4k-4x8 randwrite 4k 768m 256m 4 8
