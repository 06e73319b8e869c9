#!/usr/bin/env bash
# 4 KiB random writes through `serve` (the launcher's JVM flags, a fresh 2 GiB cache file, writeback running unless
# WBPAUSE=1), measured as in docs/bench-history/nbd.md "2026-12-02: a log-structured cache on fresh pages": fio's nbd engine over SIZE (256m) at OFF (768m), QD32,
# RT (10) seconds, no ramp; prints IOPS, the server's CPU per request and the /api/stats counters that
# moved (bypass, throttle, writeback, GC's moved bytes and compacted buckets). PRE=1 fills the region once first;
# WARM=N writes N s more before measuring; KNOBS="volume.default.throttle_start_percent=100 ..." sets live knobs; JOPTS adds JVM flags; PROF=1 records perf.
# WARMARGS adds fio options to the WARM job (WARMARGS=--norandommap: the measured job's uniform overwrites, so a
# WARM=60 run measures the cache after its first lap, in steady state); fincore prints how much of the cache file is
# in the page cache before and after the measured job (docs/bench-history/nbd.md "2026-12-03: a machine that pages out idle memory": idle pages are paged out).
#   scripts/randwrite-serve.sh JAR        (alternate two builds, one run each, to compare them: the machine is noisy)
set -o pipefail
JAR=$1
J="${JAVA_HOME:+$JAVA_HOME/bin/java}"; [[ -n "$J" ]] || J="$(ls -d /usr/lib/jvm/*/bin/java | sort -V | tail -1)"
D=$(mktemp -d /var/tmp/exp.XXXX)
P=$((20000 + RANDOM % 10000)); A=$((P+1))
SERVE=(-cp $JAR io.blockcache.cli.Main serve --cache $D/c.img --backing default=$D/b.img --cache-size 2147483648 --backing-size 2214592512 --nbd-listen 127.0.0.1:$P --admin-listen 127.0.0.1:$A --mode writeback)
OPTS=$($J -XX:TieredStopAtLevel=1 -Xmx64m "${SERVE[@]}" --print-jvm-options 2>/dev/null)
$J $OPTS $JOPTS "${SERVE[@]}" > $D/serve.log 2>&1 &
SPID=$!
trap 'kill $SPID 2>/dev/null' EXIT # an interrupted run leaves no server behind
for i in $(seq 100); do nbdinfo --size nbd://127.0.0.1:$P/default >/dev/null 2>&1 && break; sleep 0.2; done
[ -n "$WBPAUSE" ] && curl -s -X PUT -d false http://127.0.0.1:$A/api/knobs/writeback.default.running >/dev/null
[ -n "$KNOBS" ] && for kv in $KNOBS; do curl -s -X PUT -d ${kv#*=} http://127.0.0.1:$A/api/knobs/${kv%%=*} >/dev/null; done
cpu() { awk "{print \$14+\$15}" /proc/$1/stat; }; cpus() { awk "{print \$14, \$15}" /proc/$1/stat; }
RT=${RT:-10}; QD=${QD:-32}; NJ=${NJ:-1}; SIZE=${SIZE:-256m}; OFF=${OFF:-768m}
if [ -n "$PRE" ]; then fio --name=pre --ioengine=nbd --uri=nbd://127.0.0.1:$P/default --rw=randwrite --bs=4k --iodepth=32 --offset=$OFF --size=$SIZE --output-format=terse >/dev/null 2>&1; fi
[ -n "$WARM" ] && fio --name=warm --ioengine=nbd --uri=nbd://127.0.0.1:$P/default --rw=randwrite --bs=4k --iodepth=32 --offset=$OFF --size=$SIZE --time_based --runtime=$WARM ${WARMARGS} --output-format=terse >/dev/null 2>&1
fincore $D/c.img | tail -1; curl -s http://127.0.0.1:$A/api/stats > $D/s0.json
[ -n "$PROF" ] && (perf record -F 1999 -g -p $SPID -o $D/perf.data -- sleep 8 > $D/perf.log 2>&1 &)
C0=$(cpu $SPID); U0=$(cpus $SPID)
fio --name=w --ioengine=nbd --uri=nbd://127.0.0.1:$P/default --rw=${RW:-randwrite} --bs=4k --iodepth=$QD --numjobs=$NJ --group_reporting --offset=$OFF --size=$SIZE --time_based --runtime=$RT --randrepeat=1 --norandommap=1 --output-format=json > $D/fio.json 2>&1
C1=$(cpu $SPID); U1=$(cpus $SPID); echo "utime stime before: $U0 after: $U1"
fincore $D/c.img | tail -1; curl -s http://127.0.0.1:$A/api/stats > $D/s1.json
python3 - $D $C0 $C1 <<'PY'
import json,sys
d,c0,c1=sys.argv[1],int(sys.argv[2]),int(sys.argv[3])
t=open(d+'/fio.json').read(); f=json.loads(t[t.index('{'):])
j=f['jobs'][0]; io=j['write']['total_ios']+j['read']['total_ios']
iops=j['write']['iops']+j['read']['iops']
print(f"IOPS {iops:,.0f}  cpu/req {(c1-c0)*10000/io:.1f} us  ios {io}")
PY
python3 - $D <<'PY'
import json,sys
d=sys.argv[1]
def flat(x,p=''):
    if isinstance(x,dict): return {k2:v2 for k,v in x.items() for k2,v2 in flat(v,p+'.'+k if p else k).items()}
    if isinstance(x,list): return {k2:v2 for i,v in enumerate(x) for k2,v2 in flat(v,f'{p}[{i}]').items()}
    return {p:x}
a,b=flat(json.load(open(d+'/s0.json'))),flat(json.load(open(d+'/s1.json')))
for k,v in b.items():
    if ('bypass' in k or 'writtenBack' in k or 'passes' in k or 'movedBytes' in k or 'compacted' in k) and isinstance(v,(int,float)) and a.get(k)!=v:
        print(f"{k}: {a.get(k)} -> {v}")
PY
echo "stats and logs: $D"
kill $SPID; wait $SPID 2>/dev/null
rm -f $D/c.img $D/b.img
