#!/bin/bash
# A parallel run (run.threads > 1: src/engine/ with net/shard.c) gives the serial run's bytes:
# fct.csv, pfc.csv, pfc_ports.csv, the monitors' files and summary.json less
# what describes the engine rather than the network (wall time, rates, RSS,
# events run, the pool's peak, the command line and run.threads itself), for
# 2 and 4 threads (more threads than cores is fine), on leaf-spine, fat-tree,
# Clos and HPCC's fat.txt, with DCQCN, HPCC, PCN, FLB and several load balancers. Each
# case is checked to exercise what it claims (flows finished, PAUSEs sent,
# packets crossing partitions); runs that must stay serial are refused with
# the reason, exit 2.
# usage: cli_parallel.sh ROCESIM_BIN
set -u
bin=$1
. "$(dirname "$0")/cli_lib.sh"

same_as_serial() { # NAME ARGS...: threads 1, 2 and 4 give the same outputs
    local name=$1
    shift
    for t in 1 2 4; do
        "$bin" run --quiet "$@" --set run.threads=$t --out "$tmp/$name-$t" || { echo "FAIL: $name threads=$t"; fail=$((fail + 1)); return; }
    done
    same_outputs "$name" 2 4
}

engine_cases "2 4" # tests/cli_lib.sh
# monitors and the watchdog are global events between windows: their files match too
same_as_serial ls-mon "${small_ls[@]}" --set output.queue_ports=all --set output.queue_interval=5us \
    --set output.flows=0,1,2 --set output.flow_interval=5us --set output.util_ports=all --set output.paused_interval=20us
check test -s "$tmp/ls-mon-2/queue.csv"
fat=(--set topology.type=fattree --set topology.k=4 --set switch.buffer=1MB --set traffic.load=0.5 --set traffic.duration=300us)
# lossy, DCQCN with go-back-N
same_as_serial ft-lossy "${fat[@]}" --set switch.pfc=off --set switch.buffer=300KB
check grep -q '"packets_dropped": [1-9]' "$tmp/ft-lossy-2/summary.json"
# lopsided traffic between partitions (24 hosts to one, one ACK per 64 packets): a packet sent to a
# partition of this process changes hands, so packets gather where they are freed; pools give back
# what they do not use, so what they allocate stays near the packets in flight at once (2,332 here)
# rather than those delivered (~190 k: 139,264 allocated when nothing was given back)
same_as_serial lopsided --set topology.type=leafspine --set topology.leaves=4 --set topology.spines=2 \
    --set topology.hosts_per_leaf=8 --set traffic.pattern=incast --set traffic.receiver=0 --set traffic.fan_in=24 \
    --set traffic.size=8MB --set switch.buffer=1MB --set transport.ack_interval=64
check test "$(num pool_packets "$tmp/lopsided-2/parallel.json")" -le 65536
check test "$(num pool_packets "$tmp/lopsided-4/parallel.json")" -le 65536

# the PFC deadlock check is a global event: the same cycle, found at the same
# instant, exit 3, with 2 and 4 threads
src=$(cd "$(dirname "$0")/.." && pwd)
for t in 1 2 4; do
    (cd "$src" && "$bin" run scenarios/deadlock-ring.ini --quiet --set run.threads=$t --out "$tmp/dl-$t") 2> "$tmp/dl-$t.err"
    check test $? -eq 3
done
check grep -q '^rocesim: PFC deadlock at ' "$tmp/dl-1.err"
for t in 2 4; do
    check cmp "$tmp/dl-1.err" <(grep -v '^rocesim: warning: run.threads' "$tmp/dl-$t.err")
    check cmp "$tmp/dl-1/pfc.csv" "$tmp/dl-$t/pfc.csv"
    check cmp "$tmp/dl-1/fct.csv" "$tmp/dl-$t/fct.csv"
done
check grep -q '"partitions": 5' "$tmp/dl-2/parallel.json"
if [ "$(nproc)" -lt 4 ]; then # more threads than CPUs: said, and still the same bytes
    check grep -q "^rocesim: warning: run.threads = 4: more threads than the $(nproc) CPU" "$tmp/dl-4.err"
fi

# sweeps: a serial sweep's runs are complete for the same sweep on 2 threads (run.threads
# changes how, not what), and a point's run.threads divides the default parallelism
mkdir -p "$tmp/t1" "$tmp/t2" # the same file name: run.name is the file's
cp "$src/tests/data/sweep-tiny.ini" "$tmp/t1/grid.ini"
cp "$src/tests/data/sweep-tiny.ini" "$tmp/t2/grid.ini"
printf '\n[run]\nthreads = 2\n' >> "$tmp/t2/grid.ini"
"$bin" sweep "$tmp/t1/grid.ini" --out "$tmp/sweep" 2> "$tmp/sw1.err" || fail=$((fail + 1))
"$bin" sweep "$tmp/t2/grid.ini" --out "$tmp/sweep" 2> "$tmp/sw2.err" || fail=$((fail + 1))
check grep -q '(4 complete already)' "$tmp/sw2.err"
"$bin" sweep "$tmp/t2/grid.ini" --out "$tmp/sweep2" 2> "$tmp/sw3.err" || fail=$((fail + 1))
jobs=$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))
check grep -q "(0 complete already), $jobs at a time" "$tmp/sw3.err"
# ...but with output.partition_report on, run.partitions shapes partition.csv: a change reruns
mkdir -p "$tmp/t3"
cp "$src/tests/data/sweep-tiny.ini" "$tmp/t3/grid.ini"
printf '\n[output]\npartition_report = on\n' >> "$tmp/t3/grid.ini"
"$bin" sweep "$tmp/t3/grid.ini" --out "$tmp/sweep3" --quiet || fail=$((fail + 1))
printf '\n[run]\npartitions = 1\n' >> "$tmp/t3/grid.ini"
"$bin" sweep "$tmp/t3/grid.ini" --out "$tmp/sweep3" 2> "$tmp/sw4.err" || fail=$((fail + 1))
check grep -q 'run.partitions 0 -> 1; rerunning it' "$tmp/sw4.err"
check grep -q ',wall_s$' "$tmp/sweep/sweep.csv" # the last column, the only one that may differ
check cmp <(sed 's/,[^,]*$//' "$tmp/sweep/sweep.csv") <(sed 's/,[^,]*$//' "$tmp/sweep2/sweep.csv")

# the shipped example runs on its two threads, over the 16 pods, with the serial run's outputs
(cd "$src" && "$bin" run scenarios/parallel-fattree.ini --quiet --set traffic.duration=50us --out "$tmp/ex-2" &&
    "$bin" run scenarios/parallel-fattree.ini --quiet --set traffic.duration=50us --set run.threads=1 --out "$tmp/ex-1") ||
    fail=$((fail + 1))
check grep -q '"threads": 2,' "$tmp/ex-2/parallel.json"
check grep -q '"partitions": 16,' "$tmp/ex-2/parallel.json"
check cmp "$tmp/ex-1/fct.csv" "$tmp/ex-2/fct.csv"
check test ! -e "$tmp/ex-1/parallel.json"
# the CPUs it may run on (its affinity, as nproc counts them) and the threads that share them
check test "$(num cpus "$tmp/ex-2/parallel.json")" = "$(nproc)"
check test "$(num threads_sharing_cpus "$tmp/ex-2/parallel.json")" = 2
# bound to one CPU (as mpirun binds a rank): its two threads take turns, the run says so and
# how to give it more, and parallel.json counts 2 threads on 1 CPU; the outputs are the same
if [ "$(nproc)" -ge 2 ]; then
    (cd "$src" && taskset -c 0 "$bin" run scenarios/parallel-fattree.ini --quiet --set traffic.duration=50us \
        --out "$tmp/ex-b" 2> "$tmp/ex-b.err") || fail=$((fail + 1))
    check grep -q "run.threads = 2: more threads than the 1 CPU this process may run on (its affinity" "$tmp/ex-b.err"
    check test "$(num cpus "$tmp/ex-b/parallel.json")" = 1
    check test "$(num threads_sharing_cpus "$tmp/ex-b/parallel.json")" = 2
    check cmp "$tmp/ex-1/fct.csv" "$tmp/ex-b/fct.csv"
fi
# a serial rerun into the parallel run's folder leaves no stale parallel.json beside its files
(cd "$src" && "$bin" run scenarios/parallel-fattree.ini --quiet --set traffic.duration=50us --set run.threads=1 \
    --out "$tmp/ex-2") || fail=$((fail + 1))
check test ! -e "$tmp/ex-2/parallel.json"

# what must stay serial says why, exit 2
refused() { # WHAT ARGS...
    local what=$1
    shift
    "$bin" run --quiet "${small_ls[@]}" "$@" --set run.threads=2 --out "$tmp/refused" 2> "$tmp/err"
    check test $? -eq 2
    check grep -q "run.threads = 2: .*$what" "$tmp/err"
}
refused "run.ns3_timing" --set run.ns3_timing=on
refused "output.partition_report" --set output.partition_report=on
# a GPU server split between partitions with an NVSwitch of no delay: no window (net/nvswitch.c)
"$bin" run --quiet --set topology.type=rail --set topology.servers=2 --set topology.gpus_per_server=2 \
    --set topology.nvlink_delay=0 --set traffic.pattern=collective --set traffic.placement=rail --set traffic.size=64KB \
    --set run.threads=2 --out "$tmp/refused" 2> "$tmp/err"
check test $? -eq 2
check grep -q "run.threads = 2: GPU servers are split between partitions .* topology.nvlink_delay = 0" "$tmp/err"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
