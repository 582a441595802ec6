#!/bin/bash
# One run across MPI ranks (`mpirun -np R rocesim run`, src/engine/ and net/shard.c with
# cli/dist_mpi.c) gives the serial run's bytes: fct.csv, pfc.csv,
# pfc_ports.csv, the monitors' files and summary.json less the engine's own
# lines, for 2 ranks of one thread, 2 ranks of 2 threads and 3 ranks, on
# leaf-spine, fat-tree, Clos and HPCC's fat.txt, with DCQCN, HPCC, PCN, FLB and several
# load balancers, IRN on lossy links, link and switch failures, a run stopped
# mid-way, the monitors, the PFC deadlock check (a global event whose graph
# every rank contributes to) and the watchdog. Only rank 0 writes; what
# cannot run across ranks is refused with the reason, exit 2.
# Exits 77 (skipped) when rocesim is built without MPI or mpirun is missing.
# usage: cli_ranks.sh ROCESIM_BIN
set -u
bin=$1
. "$(dirname "$0")/cli_lib.sh"
need_mpi cli_ranks "$bin"
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0 # OpenMPI's own allocations outlive MPI_Finalize
src=$(cd "$(dirname "$0")/.." && pwd)
# CI runs as root: OpenMPI refuses that without --allow-run-as-root; 3 ranks on 2 cores need --oversubscribe.
# mpi_yield_when_idle: a rank (or its threads) waiting in MPI gives its core up rather than spinning on
# it, which on 2 busy cores holds back the rank it waits for (FLB on 2 ranks x 2 threads beside other
# work: 8.2 s -> 2.8 s; on an idle machine the whole test takes the same time either way)
MPIRUN=(mpirun --oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1)
mpi() { local np=$1; shift; "${MPIRUN[@]}" -np "$np" "$bin" "$@"; }

# Under the sanitizers (make test's second pass) each case runs on 2 ranks only: that pass looks for
# memory errors in the code that moves bytes between ranks, which 2 ranks run whole; the thread and
# 3-rank combinations are the release pass's (4 and 3 processes on 2 cores, each ASan's start-up and
# shadow memory: under ASan they were most of this test's 3 minutes)
light=${ROCESIM_SANITIZED:-}
same_as_serial() { # NAME ARGS...: serial; 2 ranks; 2 ranks of 2 threads; 3 ranks (NAME-3 only if RANKS3=1)
    local name=$1
    shift
    "$bin" run --quiet "$@" --out "$tmp/$name-1" || { echo "FAIL: $name serial"; fail=$((fail + 1)); return; }
    mpi 2 run --quiet "$@" --out "$tmp/$name-2" || { echo "FAIL: $name 2 ranks"; fail=$((fail + 1)); return; }
    if [ -n "$light" ]; then
        same_outputs "$name" 2
        check grep -q '"ranks": 2,' "$tmp/$name-2/parallel.json"
        return
    fi
    mpi 2 run --quiet "$@" --set run.threads=2 --out "$tmp/$name-2t" || { echo "FAIL: $name 2 ranks x 2 threads"; fail=$((fail + 1)); return; }
    local runs="2 2t"
    if [ "${RANKS3:-0}" = 1 ]; then
        mpi 3 run --quiet "$@" --out "$tmp/$name-3" || { echo "FAIL: $name 3 ranks"; fail=$((fail + 1)); return; }
        runs="2 2t 3"
    fi
    same_outputs "$name" $runs
    check grep -q '"ranks": 2,' "$tmp/$name-2/parallel.json"
}

engine_cases 2 # tests/cli_lib.sh
# only rank 0 writes: one folder, and its parallel.json has each rank's memory and partitions
check grep -q '"peak_rss_bytes_per_rank": \[[0-9]*, [0-9]*\]' "$tmp/ls-dcqcn-2/parallel.json"
check grep -q '"partitions_per_rank": \[[1-9][0-9]*, [1-9][0-9]*\]' "$tmp/ls-dcqcn-2/parallel.json"
[ -n "$light" ] || check grep -q '"ranks": 3,' "$tmp/ls-dcqcn-3/parallel.json"
# the monitors: rank 0's, sampling every rank's ports and flows (lent to it for each sample), at
# times every rank takes from it; and with a link failure and a stop
RANKS3=1 same_as_serial ls-mon "${small_ls[@]}" --set output.queue_ports=all --set output.queue_interval=5us \
    --set output.queue_by_priority=on --set output.flows=0,1,2,5 --set output.flow_interval=5us --set output.util_ports=all \
    --set output.paused_interval=20us --set output.imbalance_interval=10us
for f in queue util flow_rate paused imbalance; do check test "$(wc -l < "$tmp/ls-mon-2/$f.csv")" -gt 20; done
check grep -q ',[1-9][0-9]*,[1-9]' "$tmp/ls-mon-2/paused.csv" # paused ports and paths seen
same_as_serial ls-mon-fail "${small_ls[@]}" --set output.queue_ports=layer:edge --set output.queue_interval=7us \
    --set output.util_ports=all --set output.util_interval=7us --set topology.fail=leaf0-spine1@100us-200us --set run.stop=250us

# the PFC deadlock check over every rank's queues: the same cycle at the same instant, exit 3 at every rank
(cd "$src" && "$bin" run scenarios/deadlock-ring.ini --quiet --out "$tmp/dl-1") 2> "$tmp/dl-1.err"
check test $? -eq 3
(cd "$src" && mpi 2 run scenarios/deadlock-ring.ini --quiet --out "$tmp/dl-2") 2> "$tmp/dl-2.err"
check test $? -ne 0 # (mpirun's own code when a rank exits non-zero)
check grep -q '^rocesim: PFC deadlock at ' "$tmp/dl-1.err"
# (mpirun's own lines after ours; on a 1-CPU machine the 2 ranks also say they take turns)
check cmp "$tmp/dl-1.err" <(sed '/^-----/,$d' "$tmp/dl-2.err" | grep -v '^rocesim: warning: run.threads = .*they take turns')
check grep -q 'Exit code: *3' "$tmp/dl-2.err"
check cmp "$tmp/dl-1/pfc.csv" "$tmp/dl-2/pfc.csv"
check cmp <(net_summary "$tmp/dl-1") <(net_summary "$tmp/dl-2")

# the watchdog (its checks read the counters of every rank): stops at the same instant, exit 4
wd=("${small_ls[@]}" --set switch.pfc=off --set topology.loss=0.9 --set run.watchdog=30us)
"$bin" run --quiet "${wd[@]}" --out "$tmp/wd-1" 2>/dev/null
check test $? -eq 4
mpi 2 run --quiet "${wd[@]}" --out "$tmp/wd-2" 2> "$tmp/wd-2.err"
check grep -q 'Exit code: *4' "$tmp/wd-2.err"
check grep -q '"watchdog": {"stopped_ns": [1-9]' "$tmp/wd-2/summary.json"
check cmp <(net_summary "$tmp/wd-1") <(net_summary "$tmp/wd-2")
check cmp "$tmp/wd-1/fct.csv" "$tmp/wd-2/fct.csv"

# the shipped example's mpirun form (scenarios/parallel-fattree.ini): the serial run's outputs
(cd "$src" && mpi 2 run scenarios/parallel-fattree.ini --quiet --set traffic.duration=50us --out "$tmp/ex-r" &&
    "$bin" run scenarios/parallel-fattree.ini --quiet --set traffic.duration=50us --set run.threads=1 --out "$tmp/ex-1") ||
    fail=$((fail + 1))
check grep -q '"ranks": 2,' "$tmp/ex-r/parallel.json"
check grep -q '"threads": 2,' "$tmp/ex-r/parallel.json"
for f in fct.csv pfc.csv pfc_ports.csv; do check cmp "$tmp/ex-1/$f" "$tmp/ex-r/$f"; done
# the threads that share rank 0's CPUs: its own 2 if mpirun bound each rank to CPUs of its own (fewer
# than nproc: Open MPI binds each of 2 ranks to one core), else both ranks' 4
cpus=$(num cpus "$tmp/ex-r/parallel.json")
check test "${cpus:-0}" -ge 1 -a "${cpus:-0}" -le "$(nproc)"
if [ "${cpus:-0}" -lt "$(nproc)" ]; then want=2; else want=4; fi
check test "$(num threads_sharing_cpus "$tmp/ex-r/parallel.json")" = $want
# unbound, each rank may run on every CPU, which both ranks' threads share (MPI_COMM_TYPE_SHARED and
# their affinities)
unbound_example() { # OUT [PREFIX...]: the example on 2 unbound ranks of 1 thread, PREFIX before mpirun
    local out=$1
    shift
    (cd "$src" && "$@" "${MPIRUN[@]}" --bind-to none -np 2 "$bin" run scenarios/parallel-fattree.ini --quiet \
        --set traffic.duration=20us --set run.threads=1 --out "$tmp/$out" 2> "$tmp/$out.err") || fail=$((fail + 1))
}
unbound_example ex-u
check test "$(num cpus "$tmp/ex-u/parallel.json")" = "$(nproc)"
check test "$(num threads_sharing_cpus "$tmp/ex-u/parallel.json")" = 2
# both bound to the same one CPU (as ranks bound to one socket share it): each counts the other's
# threads too, by their affinities, and rank 0 says they take turns
unbound_example ex-s taskset -c 0
check test "$(num cpus "$tmp/ex-s/parallel.json")" = 1
check test "$(num threads_sharing_cpus "$tmp/ex-s/parallel.json")" = 2
check grep -q "run.threads = 1 on each of the 2 ranks that share this rank's 1 CPU: 2 threads; they take turns" "$tmp/ex-s.err"
check cmp "$tmp/ex-u/fct.csv" "$tmp/ex-s/fct.csv"
# memory per rank: a rank sets up, and so holds, only its own partitions' ports (8 of the 16 pods
# each, and the core switches split between them): at most its half of the port array and a few
# pages at the seam, never another rank's; the two halves together cover every port
held=$(sed -n 's/.*"port_array_held_bytes_per_rank": \[\([0-9, ]*\)\].*/\1/p' "$tmp/ex-r/parallel.json")
all=$(num port_array_bytes "$tmp/ex-r/parallel.json")
check test -n "$held" -a -n "$all"
for h in ${held//,/ }; do check test "$h" -le $((all / 2 + 3 * 4096)); done
check test $((${held//, /+})) -ge "$all"

# SIGTERM to the ranks, as a batch scheduler's cancel sends it to every task: they stop at the same
# progress check and rank 0 writes the partial results marked interrupted (in the folder it writes
# into from set-up on). Not to mpirun: Open MPI 4.1's mpirun forwards it and then kills the ranks
# after odls_base_sigkill_timeout (1 s by default), which a run with ~10^5 flows to gather and write
# can exceed (docs/parallel.md says so), so the case would test mpirun's clock, not rocesim.
mpirun --oversubscribe --allow-run-as-root -np 2 "$bin" run --set traffic.duration=200ms --quiet --out "$tmp/killed" \
    2>/dev/null &
pid=$!
for _ in $(seq 200); do compgen -G "$tmp/killed/.rocesim-run-*" >/dev/null && break; sleep 0.1; done
sleep 1
pkill -TERM -P $pid
wait $pid
check grep -q '"interrupted": true,' "$tmp/killed/summary.json"
check grep -q '"flows_unfinished": [1-9]' "$tmp/killed/summary.json"
check test "$(wc -l < "$tmp/killed/fct.csv")" -gt 100
check test -z "$(compgen -G "$tmp/killed/.rocesim-run-*")" # nothing left half-written

# bad input: exit 2, said once (by rank 0), not once per rank
mpi 2 run --quiet --set traffic.load=7 --out "$tmp/bad" 2> "$tmp/bad.err"
check test "$(grep -c 'traffic.load: bad number' "$tmp/bad.err")" -eq 1
check grep -q 'Exit code: *2' "$tmp/bad.err"
check test ! -e "$tmp/bad/summary.json"

# what cannot run across ranks says why, exit 2
refused() { # WHAT ARGS...
    local what=$1
    shift
    mpi 2 run --quiet "${small_ls[@]}" "$@" --out "$tmp/refused" 2> "$tmp/err"
    check grep -q "2 MPI ranks: .*$what.*run it in one process" "$tmp/err"
    check grep -q 'Exit code: *2' "$tmp/err"
}
refused "run.ns3_timing" --set run.ns3_timing=on
echo "cli_ranks: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
