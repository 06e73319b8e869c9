#!/usr/bin/env bash
# Profiles blockcache serve under one fio job (docs/BENCHMARKS.md, NBD): JFR with 1 ms execution samples during
# 8 s of RW (randread after a drained 256 MiB 4 KiB fill, or randwrite), 4 KiB at QD32; prints IOPS and server CPU
# per request (in 1/10 us); the recording is DIR/TAG.jfr (read it with `jfr print --events jdk.ExecutionSample`).
#   scripts/nbd-profile.sh JAR TAG randread|randwrite
set -euo pipefail
JAR=$1; TAG=$2; RW=$3; D=${DIR:-/var/tmp/nbd-profile}; mkdir -p $D; rm -f $D/*.img
J="$(dirname "${JAVA_HOME:+$JAVA_HOME/bin/java}")"; [[ "$J" != . ]] || J="$(dirname "$(ls -d /usr/lib/jvm/*/bin/java | sort -V | tail -1)")"
cat > $D/p.jfc <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="jdk.ExecutionSample"><setting name="enabled">true</setting><setting name="period">1 ms</setting></event>
  <event name="jdk.NativeMethodSample"><setting name="enabled">true</setting><setting name="period">5 ms</setting></event>
  <event name="jdk.ThreadAllocationStatistics"><setting name="enabled">true</setting><setting name="period">1 s</setting></event>
  <event name="jdk.ObjectAllocationSample"><setting name="enabled">true</setting><setting name="throttle">300/s</setting><setting name="stackTrace">true</setting></event>
</configuration>
X
$J/java -XX:+UseZGC -cp $JAR io.blockcache.cli.Main serve --cache $D/c.img --backing default=$D/b.img --cache-size 2147483648 --backing-size 2148532224 \
  --nbd-listen 127.0.0.1:11809 --admin-listen 127.0.0.1:11810 --mode writeback > $D/$TAG.log 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null' EXIT # an interrupted run leaves no server behind
for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/11809) 2>/dev/null && break; sleep 0.3; done
if [ $RW = randread ]; then
  curl -s -X PUT -d 0 http://127.0.0.1:11810/api/knobs/volume.default.congested_read_threshold_us >/dev/null
  curl -s -X PUT -d 0 http://127.0.0.1:11810/api/knobs/volume.default.congested_write_threshold_us >/dev/null
  fio --ioengine=nbd --name=fill --rw=randwrite --bs=4k --iodepth=32 --size=256m --uri=nbd://127.0.0.1:11809/default --output-format=terse >/dev/null
  curl -s -X POST http://127.0.0.1:11810/api/volumes/default/drain >/dev/null; sleep 1
  for i in $(seq 600); do curl -s http://127.0.0.1:11810/api/stats | grep -q '"state":"done"' && break; sleep 0.5; done
fi
fio --ioengine=nbd --name=warm --rw=$RW --bs=4k --iodepth=32 --size=256m --time_based=1 --runtime=3 --norandommap=1 --uri=nbd://127.0.0.1:11809/default --output-format=terse >/dev/null
$J/jcmd $PID JFR.start name=p settings=$D/p.jfc duration=8s filename=$D/$TAG.jfr >/dev/null
T0=$(awk '{print $14+$15}' /proc/$PID/stat)
fio --ioengine=nbd --name=r --rw=$RW --bs=4k --iodepth=32 --size=256m --time_based=1 --runtime=8 --norandommap=1 --uri=nbd://127.0.0.1:11809/default --output-format=json > $D/$TAG.fio.json
T1=$(awk '{print $14+$15}' /proc/$PID/stat)
IOS=$(grep '"total_ios"' $D/$TAG.fio.json | tr -dc '0-9\n' | sort -n | tail -1)
echo "$TAG: ios=$IOS iops=$((IOS/8)) cpu_us_per_req=$(( (T1-T0)*10000*10/IOS ))e-1"
sleep 1; kill $PID; wait $PID || true
