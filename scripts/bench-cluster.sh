#!/usr/bin/env bash
# The cost of replication (docs/SCALE.md "Replication", docs/BENCHMARKS.md "Replication"): a single serve against a
# group of three on loopback, side by side in one run, each over its own nbdkit memory export. fio's nbd engine runs
# 4 KiB random writes at iodepth 32 with a FLUSH every 32 writes, RUNS times each, alternating; then FAILOVERS leader
# kills (SIGKILL) timed to the moment another member serves. Prints a table and, last, one JSON line.
#   scripts/bench-cluster.sh [RUNS [SECONDS [FAILOVERS]]]      (defaults 3, 20, 20)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS=${1:-3}; SECONDS_PER_RUN=${2:-20}; FAILOVERS=${3:-20}
for tool in fio nbdkit python3; do command -v $tool >/dev/null || { echo "bench-cluster: needs $tool" >&2; exit 2; }; done
W=$(mktemp -d /tmp/bench-cluster.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; pkill -9 -f "$W" 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
bin/blockcache --version >/dev/null # builds the jar if needed, before anything is timed

start_nbdkit() { local p; p=$(port); nbdkit -f -i 127.0.0.1 -p "$p" memory 1G >/dev/null 2>&1 & pids+=($!); echo "$p"; }
B1=$(start_nbdkit); B2=$(start_nbdkit)
S_NBD=$(port)
bin/blockcache serve --data-dir "$W/single" --backing "default=nbd://127.0.0.1:$B1" --cache-size 1G \
  --nbd-listen "127.0.0.1:$S_NBD" --admin-listen "127.0.0.1:$(port)" > "$W/single.log" 2>&1 & pids+=($!)
SINGLE_PID=$!
PEERS=""; declare -a M_NBD M_ADMIN
for i in 0 1 2; do PEERS="$PEERS${PEERS:+,}m$i=127.0.0.1:$(port)"; M_NBD[$i]=$(port); M_ADMIN[$i]=$(port); done
start_member() {
  bin/blockcache serve --node-id "m$1" --peers "$PEERS" --data-dir "$W/m$1" --backing "default=nbd://127.0.0.1:$B2" \
    --cache-size 1G --nbd-listen "127.0.0.1:${M_NBD[$1]}" --admin-listen "127.0.0.1:${M_ADMIN[$1]}" \
    >> "$W/m$1.log" 2>&1 &
  pids+=($!); MPID[$1]=$!
}
declare -a MPID
for i in 0 1 2; do start_member $i; done
wait_for() { local deadline=$((SECONDS + 120)); until eval "$1"; do [ $SECONDS -lt $deadline ] || { echo "bench-cluster: timed out: $1" >&2; tail -5 "$W"/*.log >&2; exit 1; }; sleep 0.2; done; }
wait_for 'grep -q "^NBD:" "$W/single.log"'
leader() { for i in 0 1 2; do if kill -0 "${MPID[$i]}" 2>/dev/null && [ "$(grep -c "serving \[" "$W/m$i.log")" -gt "$(grep -c "stops serving" "$W/m$i.log")" ]; then echo $i; return; fi; done; echo ""; }
wait_for '[ -n "$(leader)" ]'
cpu_ticks() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat"))); done; echo $t; }
# The JIT compiler threads' share (C1/C2 CompilerThread): a start-up cost of each JVM, large in short runs of three.
jit_ticks() {
  local t=0 p task
  for p in "$@"; do for task in /proc/"$p"/task/*; do
    case "$(cat "$task/comm" 2>/dev/null || true)" in
      C[12]\ CompilerThre*) t=$((t + $(awk '{print $14+$15}' "$task/stat" 2>/dev/null || echo 0))) ;;
    esac
  done; done
  echo $t
}
job() {
  fio --output-format=json --name=w --ioengine=nbd --uri="$1" --rw=randwrite --bs=4k --iodepth=32 --fsync=32 \
    --size=256m --time_based --runtime="$SECONDS_PER_RUN" --ramp_time=2
}
echo "bench-cluster: $RUNS runs of ${SECONDS_PER_RUN} s each, alternating; commit $(git rev-parse --short HEAD)"
: > "$W/results.txt"
for r in $(seq 1 "$RUNS"); do
  for kind in single cluster; do
    if [ $kind = single ]; then uri="nbd://127.0.0.1:$S_NBD/default"; procs=($SINGLE_PID)
    else l=$(leader); uri="nbd://127.0.0.1:${M_NBD[$l]}/default"; procs=("${MPID[@]}"); fi
    before=$(cpu_ticks "${procs[@]}"); jit_before=$(jit_ticks "${procs[@]}")
    job "$uri" > "$W/fio.json"
    after=$(cpu_ticks "${procs[@]}"); jit_after=$(jit_ticks "${procs[@]}")
    python3 - "$kind" "$W/fio.json" "$before" "$after" "$(getconf CLK_TCK)" $((jit_after - jit_before)) \
      >> "$W/results.txt" <<'PY'
import json, sys
kind, path, before, after, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
jit = max(0, int(sys.argv[6]))  # a compiler thread that exited meanwhile took its ticks along
text = open(path).read()
j = json.loads(text[text.index("{"):])["jobs"][0]  # fio's nbd engine prints a line before the JSON
iops = j["write"]["iops"]; writes = j["write"]["total_ios"]
p99 = j["sync"]["lat_ns"]["percentile"].get("99.000000", 0) / 1e6
cpu_us = (after - before) / hz * 1e6 / max(writes, 1)
jit_us = jit / hz * 1e6 / max(writes, 1)
print(f"{kind} {iops:.0f} {p99:.2f} {cpu_us:.1f} {jit_us:.1f}")
PY
    tail -1 "$W/results.txt" | awk '{printf "  %-8s %8s IOPS  FLUSH p99 %7s ms  CPU %6s us per write (JIT %s)\n", $1, $2, $3, $4, $5}'
  done
done
: > "$W/failover.txt"
for f in $(seq 1 "$FAILOVERS"); do
  l=$(leader); [ -n "$l" ] || wait_for '[ -n "$(leader)" ]'; l=$(leader)
  for i in 0 1 2; do [ "$i" = "$l" ] || wait_for "grep -q following \"$W/m$i.log\""; done
  t0=$(date +%s%N); kill -9 "${MPID[$l]}"; wait "${MPID[$l]}" 2>/dev/null || true
  wait_for '[ -n "$(leader)" ] && [ "$(leader)" != "'"$l"'" ]'
  t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )) >> "$W/failover.txt"
  : > "$W/m$l.log"; start_member "$l"
done
python3 - "$W/results.txt" "$W/failover.txt" "$RUNS" "$SECONDS_PER_RUN" <<'PY'
import json, statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
fail = sorted(int(x) for x in open(sys.argv[2]) if x.strip())
def med(kind, col): return statistics.median(float(r[col]) for r in rows if r[0] == kind)
cols = (("iops", 1), ("flush_p99_ms", 2), ("cpu_us_per_write", 3), ("jit_cpu_us_per_write", 4))
s = {k: med("single", i) for k, i in cols}
c = {k: med("cluster", i) for k, i in cols}
out = {"runs": int(sys.argv[3]), "seconds": int(sys.argv[4]), "single": s, "cluster": c,
       "iops_ratio": round(c["iops"] / s["iops"], 2), "flush_p99_ratio": round(c["flush_p99_ms"] / s["flush_p99_ms"], 2),
       "cpu_per_write_ratio": round(c["cpu_us_per_write"] / s["cpu_us_per_write"], 2),
       "cpu_per_write_ratio_without_jit": round((c["cpu_us_per_write"] - c["jit_cpu_us_per_write"])
                                                / (s["cpu_us_per_write"] - s["jit_cpu_us_per_write"]), 2),
       "failover_ms": {"rounds": len(fail), "p50": fail[len(fail) // 2] if fail else None,
                       "max": fail[-1] if fail else None}}
print(f"median of {out['runs']}: single {s['iops']:.0f} IOPS, three replicas {c['iops']:.0f} IOPS "
      f"({out['iops_ratio']}x); FLUSH p99 {s['flush_p99_ms']:.2f} vs {c['flush_p99_ms']:.2f} ms "
      f"({out['flush_p99_ratio']}x); CPU per write {s['cpu_us_per_write']:.1f} vs {c['cpu_us_per_write']:.1f} us "
      f"({out['cpu_per_write_ratio']}x, all three members; {out['cpu_per_write_ratio_without_jit']}x without the JIT "
      f"compiler threads' {s['jit_cpu_us_per_write']:.1f} and {c['jit_cpu_us_per_write']:.1f} us)")
if fail:
    print(f"failover (kill -9 of the leader to another member serving), {len(fail)} rounds: p50 "
          f"{out['failover_ms']['p50']} ms, max {out['failover_ms']['max']} ms")
print(json.dumps(out))
PY
