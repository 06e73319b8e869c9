#!/usr/bin/env bash
# Per-thread CPU and sleeps of blockcache serve under one fio job (docs/bench-history/nbd.md "Fewer hand-offs"): JAR, RW =
# randread (after a drained 256 MiB fill with FILL_BS writes, default 4k; NOFILL=1 SIZE=2g for misses) or randwrite (WBPAUSE=1 pauses
# writeback), optional JVM flags. Prints IOPS, CPU us per request, and per thread group user/sys us and voluntary context
# switches ("sleeps") per request; "rest" is threads that ended with the connection (its reader and writer).
#   scripts/nbd-threads.sh JAR randread|randwrite [JOPTS]
set -euo pipefail
JAR=$1; RW=$2; JOPTS=${3:-}; D=${DIR:-/var/tmp/nbd-threads}; rm -rf $D; mkdir -p $D
J="${JAVA_HOME:+$JAVA_HOME/bin/java}"; [[ -n "$J" ]] || J="$(ls -d /usr/lib/jvm/*/bin/java | sort -V | tail -1)"
$J -XX:+UseZGC $JOPTS -cp $JAR io.blockcache.cli.Main serve --cache $D/c.img --backing default=$D/b.img --cache-size 2147483648 --backing-size 2148532224 \
  --nbd-listen 127.0.0.1:11909 --admin-listen 127.0.0.1:11910 --mode writeback > $D/log 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null' EXIT # an interrupted run leaves no server behind
for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/11909) 2>/dev/null && break; sleep 0.3; done
if [ $RW = randread ] && [ -z "${NOFILL:-}" ]; then
  for k in congested_read_threshold_us congested_write_threshold_us sequential_cutoff_bytes; do curl -s -X PUT -d 0 http://127.0.0.1:11910/api/knobs/volume.default.$k >/dev/null; done
  fio --ioengine=nbd --name=fill --rw=randwrite --bs=${FILL_BS:-4k} --iodepth=32 --size=256m --uri=nbd://127.0.0.1:11909/default --output-format=terse >/dev/null
  curl -s -X POST http://127.0.0.1:11910/api/volumes/default/drain >/dev/null; sleep 1
  for i in $(seq 600); do curl -s http://127.0.0.1:11910/api/stats | grep -q '"state":"done"' && break; sleep 0.5; done
fi
[ -n "${WBPAUSE:-}" ] && curl -s -X PUT -d false http://127.0.0.1:11910/api/knobs/writeback.default.running >/dev/null
fio --ioengine=nbd --name=warm --rw=$RW --bs=4k --iodepth=32 --size=256m --time_based=1 --runtime=2 --norandommap=1 --uri=nbd://127.0.0.1:11909/default --output-format=terse >/dev/null
snap() { for t in /proc/$PID/task/*; do n=$(tr " " "_" < $t/comm); s=($(sed 's/.*) //' $t/stat)); echo "$n ${s[11]} ${s[12]} $(awk '/^voluntary_ctxt/{print $2}' $t/status)"; done | awk '{g=$1; sub(/-[0-9]+$/,"",g); sub(/[0-9]+$/,"",g); u[g]+=$2; s[g]+=$3; v[g]+=$4} END{for(g in u) print g, u[g], s[g], v[g]}' | sort; }
snap > $D/s0; T0=$(awk '{print $14+$15}' /proc/$PID/stat)
fio --ioengine=nbd --name=r --rw=$RW --bs=${BS:-4k} --iodepth=32 --size=${SIZE:-256m} --time_based=1 --runtime=${RT:-6} --norandommap=1 --uri=nbd://127.0.0.1:11909/default --output-format=json > $D/fio.json
T1=$(awk '{print $14+$15}' /proc/$PID/stat); snap > $D/s1
IOS=$(grep '"total_ios"' $D/fio.json | tr -dc '0-9\n' | sort -n | tail -1)
echo "ios=$IOS iops=$((IOS/${RT:-6})) cpu_us_per_req=$(( (T1-T0)*100000/IOS ))e-1 load=$(cut -d' ' -f1 /proc/loadavg)"
join -a 2 -e 0 -o 0,1.2,1.3,1.4,2.2,2.3,2.4 $D/s0 $D/s1 | awk -v ios=$IOS '{du=$5-$2; ds=$6-$3; dv=$7-$4; if (du+ds>0) printf "  %-28s user %6.2f sys %6.2f us/req  sleeps %5.2f /req\n", $1, du*10000/ios, ds*10000/ios, dv/ios; t+=du+ds} END {printf "  %-28s %6.2f us/req (ended threads: the connection reader and writer)\n", "rest", (tot-t)*10000/ios}' tot=$((T1-T0))
kill $PID; wait $PID || true
