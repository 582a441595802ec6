#!/bin/bash
# A parallel run (run.threads > 1, net/par.c) gives the serial run's bytes:
# fct.csv, pfc.csv, pfc_ports.csv, the monitors' files and summary.json less
# what describes the engine rather than the network (wall time, rates, RSS,
# events run, the pool's peak, the command line and run.threads itself), for
# 2 and 4 threads (more threads than cores is fine), on leaf-spine, fat-tree,
# Clos and HPCC's fat.txt, with DCQCN, HPCC and several load balancers. Each
# case is checked to exercise what it claims (flows finished, PAUSEs sent,
# packets crossing partitions); runs that must stay serial are refused with
# the reason, exit 2.
# usage: cli_parallel.sh ROCESIM_BIN
set -u
bin=$1
. "$(dirname "$0")/cli_lib.sh"
shared=$(cd "$(dirname "$0")/shared" && pwd)

same_as_serial() { # NAME ARGS...: threads 1, 2 and 4 give the same outputs
    local name=$1
    shift
    for t in 1 2 4; do
        "$bin" run --quiet "$@" --set run.threads=$t --out "$tmp/$name-$t" || { echo "FAIL: $name threads=$t"; fail=$((fail + 1)); return; }
    done
    check test "$(wc -l < "$tmp/$name-1/fct.csv")" -gt 10
    for t in 2 4; do
        for f in "$tmp/$name-1"/*.csv; do
            check cmp "$f" "$tmp/$name-$t/$(basename "$f")"
        done
        if diff <(net_summary "$tmp/$name-1") <(net_summary "$tmp/$name-$t"); then
            pass=$((pass + 1))
        else
            echo "FAIL: $name: summary.json differs with run.threads=$t"
            fail=$((fail + 1))
        fi
    done
}

small_ls=(--set topology.type=leafspine --set topology.leaves=4 --set topology.spines=2 --set topology.hosts_per_leaf=8
          --set switch.buffer=1MB --set traffic.load=0.6 --set traffic.duration=300us)
# DCQCN, ECMP, lossless: PAUSEs on a small buffer
same_as_serial ls-dcqcn "${small_ls[@]}"
check grep -q '"pfc_pause_frames": [1-9]' "$tmp/ls-dcqcn-2/summary.json"
check test "$(wc -l < "$tmp/ls-dcqcn-1/pfc.csv")" -gt 10
check grep -q '"flows_unfinished": 0,' "$tmp/ls-dcqcn-2/summary.json"
# stopped mid-run (run.stop): what is still on the wires, packets sent to another partition
# in the last window among them, is the serial run's (packets_left_in_network)
same_as_serial ls-stop "${small_ls[@]}" --set run.stop=120us
check grep -q '"packets_left_in_network": [1-9]' "$tmp/ls-stop-2/summary.json"
# HPCC with its window, on the same fabric
same_as_serial ls-hpcc "${small_ls[@]}" --set transport.cc=hpcc --set transport.window=bdp --set transport.var_win=on
# monitors and the watchdog are global events between windows: their files match too
same_as_serial ls-mon "${small_ls[@]}" --set output.queue_ports=all --set output.queue_interval=5us \
    --set output.flows=0,1,2 --set output.flow_interval=5us --set output.util_ports=all --set output.paused_interval=20us
check test -s "$tmp/ls-mon-2/queue.csv"

# link failures, recoveries, flaps and slowdowns are global events: each end
# changed by its own partition, the routes and path sets shared anew
same_as_serial ls-fail "${small_ls[@]}" --set topology.fail=leaf0-spine1@100us-200us,leaf2-spine0@150us \
    --set "topology.flap=leaf1-spine1@50us-250us:every=40us" --set "topology.slow=leaf3-spine0:25Gbps@50us-200us"
check grep -q '"packets_lost_link": [1-9]' "$tmp/ls-fail-2/summary.json"
check grep -q '"link_changes": 1[0-9],' "$tmp/ls-fail-2/summary.json"

fat=(--set topology.type=fattree --set topology.k=4 --set switch.buffer=1MB --set traffic.load=0.5 --set traffic.duration=300us)
same_as_serial ft-letflow "${fat[@]}" --set lb.scheme=letflow
same_as_serial ft-conga-hpcc "${fat[@]}" --set lb.scheme=conga --set transport.cc=hpcc --set transport.window=bdp
same_as_serial ft-conweave-fail "${fat[@]}" --set lb.scheme=conweave --set topology.switch_fail=agg0.0@60us-200us,core3@100us
check grep -q '"packets_lost_link": [1-9]' "$tmp/ft-conweave-fail-2/summary.json"
same_as_serial ft-drill "${fat[@]}" --set lb.scheme=drill --set run.partitions=8
# lossy, DCQCN with go-back-N
same_as_serial ft-lossy "${fat[@]}" --set switch.pfc=off --set switch.buffer=300KB
check grep -q '"packets_dropped": [1-9]' "$tmp/ft-lossy-2/summary.json"

# lossy IRN on lossy links: the receiver's bitmap, freed by the sender at completion, is last
# touched before the receiver's final ACK crosses a window
same_as_serial ft-irn "${fat[@]}" --set switch.pfc=off --set switch.buffer=300KB --set transport.recovery=irn \
    --set topology.loss=0.001
check grep -q '"packets_corrupted": [1-9]' "$tmp/ft-irn-2/summary.json"

same_as_serial clos --set topology.type=clos --set topology.pods=2 --set switch.buffer=1MB --set traffic.load=0.5 \
    --set traffic.duration=200us --set lb.scheme=spray

same_as_serial fattxt --set topology.type=file --set topology.file="$shared/ns3-reference/fat.txt" \
    --set traffic.load=0.3 --set traffic.duration=50us --set switch.buffer=4MB

# the partitions really ran apart: fat.txt by ToR has cut links, the serial
# run's report counts the packets that crossed them, and the parallel run
# sent them as messages
"$bin" run --quiet --set topology.type=file --set topology.file="$shared/ns3-reference/fat.txt" --set traffic.load=0.3 \
    --set traffic.duration=50us --set output.partition_report=on --out "$tmp/rep" || fail=$((fail + 1))
check grep -q '"cut_packets": [1-9]' "$tmp/rep/partition.json"
# the engine ran the report's windows and sent exactly the packets and PFC frames it counted
num() { grep -o "\"$1\": [0-9]*" "$2" | head -1 | grep -o '[0-9]*$'; }
for t in 2 4; do
    check test "$(num windows "$tmp/rep/partition.json")" = "$(num windows "$tmp/fattxt-$t/parallel.json")"
    check test "$(( $(num cut_packets "$tmp/rep/partition.json") + $(num cut_pfc "$tmp/rep/partition.json") ))" = \
        "$(num messages "$tmp/fattxt-$t/parallel.json")"
done

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
if [ "$(nproc)" -lt 4 ]; then # more threads than cores: said, and still the same bytes
    check grep -q '^rocesim: warning: run.threads = 4: more threads than the [0-9]* cores online' "$tmp/dl-4.err"
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
refused "PCN" --set transport.cc=pcn
refused "run.ns3_timing" --set run.ns3_timing=on
refused "output.partition_report" --set output.partition_report=on
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
