#!/usr/bin/env bash
# Two blockcache builds side by side (docs/BENCHMARKS.md, NBD): both serve at once; each gets 256 MiB at offset
# 256 MiB filled with FILL_BS random writes (bypass off), drained; then 5 s fio runs (RW, 4 KiB, QD32) alternate
# A, B, A, B ... and print IOPS and server CPU per request (/proc/PID/stat utime+stime, in 1/100 us).
#   scripts/nbd-ab.sh JAR_A JAR_B FILL_BS [ROUNDS]     e.g. scripts/nbd-ab.sh base.jar target/blockcache.jar 64k 3
# Environment: RW=randread|randwrite (default randread), FILLPORTS="" to skip the fills, JOPTS_A / JOPTS_B extra
# JVM flags per server, DIR for the files (default /var/tmp/nbd-ab). Needs fio, curl and a JDK >= 21.
set -euo pipefail
JA=$1; JB=$2; BS=$3; ROUNDS=${4:-3}; FILLPORTS=${FILLPORTS-11809 11819}; D=${DIR:-/var/tmp/nbd-ab}; mkdir -p $D; rm -f $D/*.img
J="${JAVA_HOME:+$JAVA_HOME/bin/java}"; [[ -n "$J" ]] || J="$(ls -d /usr/lib/jvm/*/bin/java | sort -V | tail -1)"
start() { # name jar port
  $J -XX:+UseZGC $4 -cp $2 io.blockcache.cli.Main serve --cache $D/$1-c.img --backing default=$D/$1-b.img \
    --cache-size 2147483648 --backing-size 2148532224 --nbd-listen 127.0.0.1:$3 --admin-listen 127.0.0.1:$(($3+1)) \
    --mode writeback > $D/$1.log 2>&1 &
  echo $!
}
PA=$(start A $JA 11809 "${JOPTS_A:-}"); PB=$(start B $JB 11819 "${JOPTS_B:-}")
trap 'kill $PA $PB 2>/dev/null' EXIT # an interrupted run leaves no server behind
for p in 11809 11819; do for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/$p) 2>/dev/null && break; sleep 0.3; done; done
for p in $FILLPORTS; do
  a=$((p+1))
  curl -s -X PUT -d 0 http://127.0.0.1:$a/api/knobs/volume.default.sequential_cutoff_bytes >/dev/null
  curl -s -X PUT -d 0 http://127.0.0.1:$a/api/knobs/volume.default.congested_write_threshold_us >/dev/null
  curl -s -X PUT -d 0 http://127.0.0.1:$a/api/knobs/volume.default.congested_read_threshold_us >/dev/null
  fio --ioengine=nbd --name=fill --rw=randwrite --bs=$BS --iodepth=32 --offset=256m --size=256m --uri=nbd://127.0.0.1:$p/default --output-format=terse >/dev/null
  curl -s -X POST http://127.0.0.1:$a/api/volumes/default/drain >/dev/null
  sleep 1
  for i in $(seq 600); do curl -s http://127.0.0.1:$a/api/stats | grep -q '"state":"done"' && break; sleep 0.5; done
done
run() { # tag pid port
  T0=$(awk '{print $14+$15}' /proc/$2/stat)
  fio --ioengine=nbd --name=r --rw=${RW:-randread} --bs=4k --iodepth=32 --offset=256m --size=256m --time_based=1 --runtime=5 --norandommap=1 --randrepeat=0 --uri=nbd://127.0.0.1:$3/default --output-format=json > $D/r.json
  T1=$(awk '{print $14+$15}' /proc/$2/stat)
  IOS=$(grep '"total_ios"' $D/r.json | tr -dc '0-9\n' | sort -n | tail -1)
  IOPS=$((IOS/5))
  echo "$1 iops=${IOPS%.*} cpu_us_per_req=$(( (T1-T0)*10000000/IOS/10 )) load=$(cut -d' ' -f1 /proc/loadavg)"
}
run A-warm $PA 11809 >/dev/null; run B-warm $PB 11819 >/dev/null
for r in $(seq $ROUNDS); do run A $PA 11809; run B $PB 11819; done
for p in 11810 11820; do curl -s http://127.0.0.1:$p/api/stats | grep -o '"\(readHitSectors\|readMissSectors\|checksumErrors\|bypassedSectors\|completedReadSectors\)":[0-9]*' | tr '\n' ' '; echo; done
kill $PA $PB; wait || true
