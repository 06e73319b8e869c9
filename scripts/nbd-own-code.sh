#!/usr/bin/env bash
# Where blockcache's own CPU goes in one bench nbd row, method by method (docs/bench-history/nbd.md "2026-12-04: a third set on the final code"): perf
# cannot see inside the JIT's inlining, async-profiler can. Starts `serve` (the launcher's JVM flags, a fresh 2 GiB
# cache) with async-profiler's agent (tools.profiler:async-profiler from Maven Central, fetched once to /var/tmp),
# writes WARM (8) s of 4 KiB random writes over 256 MiB at QD32 with writeback paused, then profiles RT (10) s more
# (cpu samples every 200 us) and prints the loop thread's time per request by innermost own method, by kernel entry,
# and inclusive (scripts/own-code.py). RW=randread profiles reads of the same region instead.
#   scripts/nbd-own-code.sh target/blockcache.jar
set -euo pipefail
JAR=$1; RT=${RT:-10}; WARM=${WARM:-8}; RW=${RW:-randwrite}; D=/var/tmp/own-code; rm -rf $D; mkdir -p $D
J="${JAVA_HOME:+$JAVA_HOME/bin}"; [[ -n "$J" ]] || J="$(dirname "$(ls -d /usr/lib/jvm/*/bin/java | sort -V | tail -1)")"
AP=/var/tmp/async-profiler-4.2/linux-x64/libasyncProfiler.so
if [ ! -f $AP ]; then
  curl -sf -o /var/tmp/ap.jar \
    https://repo1.maven.org/maven2/tools/profiler/async-profiler/4.2/async-profiler-4.2-linux-x64.jar
  (cd /var/tmp && unzip -o -q ap.jar linux-x64/libasyncProfiler.so -d async-profiler-4.2)
fi
SERVE="serve --cache $D/c.img --backing default=$D/b.img --cache-size 2147483648 --backing-size 2148532224
  --nbd-listen 127.0.0.1:11809 --admin-listen 127.0.0.1:11810 --mode writeback"
JOPTS=$($J/java -cp $JAR io.blockcache.cli.Main $SERVE --print-jvm-options)
$J/java $JOPTS -agentpath:$AP -cp $JAR io.blockcache.cli.Main $SERVE > $D/serve.log 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null' EXIT
for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/11809) 2>/dev/null && break; sleep 0.3; done
curl -s -X PUT -d false http://127.0.0.1:11810/api/knobs/writeback.default.running >/dev/null
job() { fio --ioengine=nbd --name=j --rw=$1 --bs=4k --iodepth=32 --offset=768m --size=256m --time_based --runtime=$2 \
  --norandommap=1 --uri=nbd://127.0.0.1:11809/default --output-format=json > $D/fio.json; }
job randwrite $WARM
# jcmd splits arguments at commas unless they are quoted inside the argument.
$J/jcmd $PID JVMTI.agent_load $AP '"start,event=cpu,interval=200us"' > /dev/null
C0=$(awk '{print $14+$15}' /proc/$PID/stat)
job $RW $RT
C1=$(awk '{print $14+$15}' /proc/$PID/stat)
$J/jcmd $PID JVMTI.agent_load $AP "'stop,file=$D/out.collapsed,collapsed,ann'" > /dev/null
IOS=$(python3 -c "import json;t=open('$D/fio.json').read();j=json.loads(t[t.index('{'):])['jobs'][0]
print(j['read']['total_ios']+j['write']['total_ios'])")
US=$(python3 -c "print(round(($C1-$C0)*10000/$IOS,2))")
echo "$RW: $((IOS/RT)) IOPS, server CPU $US us per request; profile $D/out.collapsed"
python3 "$(dirname "$0")/own-code.py" $D/out.collapsed $US
