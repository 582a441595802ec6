# Sourced by the tests/cli_*.sh scripts after `set -u`: a temporary folder
# removed on exit ($tmp), and check CMD... counting passes and failures; the
# script ends with `echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]`.
tmp=$(mktemp -d)
# the binary as an absolute path (make test-tsan passes build-tsan/rocesim, and a case may cd)
if [ -n "${bin:-}" ] && [ "${bin#/}" = "$bin" ] && [ -x "$bin" ]; then bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin"); fi
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if "$@"; then pass=$((pass + 1)); else echo "FAIL: $*"; fail=$((fail + 1)); fi; }
# check_empty MESSAGE LIST: a pass if LIST is empty, else a failure printing MESSAGE and LIST.
check_empty() { if [ -z "$2" ]; then pass=$((pass + 1)); else echo "FAIL: $1"; echo "$2"; fail=$((fail + 1)); fi; }
# net_summary DIR: DIR/summary.json without the lines that describe the engine rather than the
# network (command line, wall time, rates, RSS, set-up figures, events run, the pool's peak, the run section with
# run.threads), for comparing a parallel run with the serial one.
net_summary() {
    grep -v -e '"command_line"' -e '"wall_seconds"' -e '"events_per_second"' -e '"packet_hops_per_second"' \
        -e '"peak_rss_bytes"' -e '"events"' -e '"peak_packets_in_flight"' -e '"setup"' -e '"run": {' "$1/summary.json"
}
# same_outputs NAME S...: the serial run $tmp/NAME-1 has flows, and each parallel run $tmp/NAME-S
# wrote the same CSV files and summary.json (less the engine's lines).
same_outputs() {
    local name=$1 s f
    shift
    check test "$(wc -l < "$tmp/$name-1/fct.csv")" -gt 10
    for s in "$@"; do
        for f in "$tmp/$name-1"/*.csv; do
            check cmp "$f" "$tmp/$name-$s/$(basename "$f")"
        done
        if diff <(net_summary "$tmp/$name-1") <(net_summary "$tmp/$name-$s"); then
            pass=$((pass + 1))
        else
            echo "FAIL: $name: summary.json differs ($s)"
            fail=$((fail + 1))
        fi
    done
}
# need_mpi NAME BIN: exit 77 (ctest's skip) unless BIN is built with MPI and mpirun is there.
need_mpi() {
    if ! "$2" list | grep -q 'MPI  *built in'; then
        echo "$1: SKIPPED: rocesim is built without MPI (install libopenmpi-dev, rerun cmake)"
        exit 77
    fi
    if ! command -v mpirun >/dev/null; then
        echo "$1: SKIPPED: no mpirun (Debian openmpi-bin)"
        exit 77
    fi
}
# num KEY FILE: the first number after "KEY": in FILE.
num() { grep -o "\"$1\": [0-9]*" "$2" | head -1 | grep -o '[0-9]*$'; }

# The cases every parallel engine must run as the serial run does (threads: cli_parallel.sh; MPI
# ranks: cli_ranks.sh), each through the calling script's `same_as_serial NAME ARGS...` (which
# writes $tmp/NAME-1 serially and $tmp/NAME-S for its parallel runs S; those marked RANKS3=1 the
# ranks' script also runs at 3 ranks), with what each must show. engine_cases SUFFIXES then checks,
# for each S in SUFFIXES, that the engine ran the serial run's windows and sent as messages exactly
# the packets and PFC frames its partition report counts over cut links (fat.txt by ToR).
small_ls=(--set topology.type=leafspine --set topology.leaves=4 --set topology.spines=2 --set topology.hosts_per_leaf=8
          --set switch.buffer=1MB --set traffic.load=0.6 --set traffic.duration=300us)
engine_cases() {
    local shared s
    shared=$(cd "$(dirname "${BASH_SOURCE[0]}")/shared" && pwd)
    # DCQCN, ECMP, lossless: PAUSEs on a small buffer (frames received in every partition, merged into pfc.csv)
    RANKS3=1 same_as_serial ls-dcqcn "${small_ls[@]}"
    check grep -q '"pfc_pause_frames": [1-9]' "$tmp/ls-dcqcn-2/summary.json"
    check test "$(wc -l < "$tmp/ls-dcqcn-1/pfc.csv")" -gt 10
    check grep -q '"flows_unfinished": 0,' "$tmp/ls-dcqcn-2/summary.json"
    # stopped mid-run (run.stop): what is still on the wires and in queues, packets sent to another
    # partition in the last window among them, is the serial run's (packets_left_in_network)
    same_as_serial ls-stop "${small_ls[@]}" --set run.stop=120us
    check grep -q '"packets_left_in_network": [1-9]' "$tmp/ls-stop-2/summary.json"
    check grep -q '"flows_unfinished": [1-9]' "$tmp/ls-stop-2/summary.json"
    # HPCC with its window, on the same fabric
    same_as_serial ls-hpcc "${small_ls[@]}" --set transport.cc=hpcc --set transport.window=bdp --set transport.var_win=on
    # link failures, recoveries, flaps and slowdowns are global events: each end changed where it
    # runs, the routes and path sets shared anew, a failed link's packets lost where they are held
    RANKS3=1 same_as_serial ls-fail "${small_ls[@]}" --set topology.fail=leaf0-spine1@100us-200us,leaf2-spine0@150us \
        --set "topology.flap=leaf1-spine1@50us-250us:every=40us" --set "topology.slow=leaf3-spine0:25Gbps@50us-200us"
    check grep -q '"packets_lost_link": [1-9]' "$tmp/ls-fail-2/summary.json"
    check grep -q '"link_changes": 1[0-9],' "$tmp/ls-fail-2/summary.json"

    # PCN (issue 39): the NP's counters and its CNP period are the receiver's, its end the receiver's own
    # evidence (the period in which it came to hold the whole message), so a CNP sent after the sender
    # completed is sent on threads and ranks too, and the run waits for it
    RANKS3=1 same_as_serial pcn "${small_ls[@]}" --set transport.cc=pcn --set switch.ecn=on
    check grep -q '"cnps": [1-9]' "$tmp/pcn-2/summary.json"
    check grep -q '"flows_unfinished": 0,' "$tmp/pcn-2/summary.json"

    # FLB (issue 39): rerouting and isolation at the source edge, each congestion point's flow table its
    # own port's, CNMs control packets across cut links; with DCQCN and with its minimal rate control
    # (pause and resume on CNMs), on a leaf-spine and on a fat-tree (isolating upward paths)
    RANKS3=1 same_as_serial flb "${small_ls[@]}" --set lb.scheme=flb
    check grep -q '"control_packets": [1-9]' "$tmp/flb-2/summary.json"
    same_as_serial flb-rc "${small_ls[@]}" --set lb.scheme=flb --set transport.cc=flbrc
    check grep -q '"control_packets": [1-9]' "$tmp/flb-rc-2/summary.json"

    # a collective (issue 37): each step released where its data arrived (FLOW_DEP_RECV), each QP's next
    # message where its predecessor left (FLOW_DEP_QP), each iteration after the rank's own last step
    # plus a compute gap: every release at the host that runs the released flow, in its partition
    RANKS3=1 same_as_serial coll --set topology.type=leafspine --set topology.leaves=4 --set topology.spines=2 \
        --set topology.hosts_per_leaf=4 --set traffic.pattern=collective --set traffic.collective=ring_allreduce \
        --set traffic.size=256KB --set traffic.chunks=2 --set traffic.channels=2 --set traffic.iterations=2 \
        --set traffic.compute_gap=3us --set traffic.placement=spread
    check grep -q '"flows_unfinished": 0,' "$tmp/coll-2/summary.json"
    check grep -q '"busbw_GBps": [1-9]' "$tmp/coll-2/summary.json"
    # GPU servers on a rail fabric (issue 37): GPU i of each server on rail i's leaf, so every
    # server is split over the partitions (one leaf each) and every NVSwitch transfer's other end
    # is elsewhere: its receiver's stages and its completion cross as messages (net/nvswitch.c).
    # The hierarchical all-reduce (reduce-scatter over NVLink, rings per rail, all-gather over
    # NVLink) and NCCL's rail-aligned rings (NVLink hops inside each server between rail hops)
    local rail=(--set topology.type=rail --set topology.servers=4 --set topology.gpus_per_server=4
                --set topology.spines=2 --set traffic.pattern=collective --set traffic.collective=ring_allreduce
                --set traffic.size=256KB --set traffic.placement=rail --set traffic.channels=2
                --set traffic.iterations=2 --set traffic.compute_gap=3us)
    RANKS3=1 same_as_serial rail-hier "${rail[@]}" --set traffic.hierarchy=server
    same_as_serial rail-ring "${rail[@]}" --set traffic.hierarchy=rail --set traffic.chunks=2
    for c in rail-hier rail-ring; do
        check grep -q '"flows_unfinished": 0,' "$tmp/$c-2/summary.json"
        check test "$(awk -F, 'NR > 1 && int($2 / 4) == int($3 / 4)' "$tmp/$c-1/fct.csv" | wc -l)" -gt 100 # over NVLink
        check grep -q '"partitions": 4,' "$tmp/$c-2/parallel.json"
    done
    # flow 1 (host0) is released 20 us after flow 0 (host0) completes, past its own 10 us start; it
    # must not hold back the start of flows due before that (hosts 4-15, other partitions): flow 2
    # starts at 15 us, done in ~10 us, in the serial run as on threads and ranks
    printf '12\n0 1 3 100 10000 0\n0 2 3 100 10000 0.00001 0+0.00002\n8 12 3 100 10000 0.000015\n9 13 3 100 10000 0.000015\n10 14 3 100 10000 0.000016\n11 15 3 100 10000 0.000016\n12 8 3 100 10000 0.000017\n13 9 3 100 10000 0.000017\n14 10 3 100 10000 0.000018\n15 11 3 100 10000 0.000018\n4 8 3 100 10000 0.000019\n5 9 3 100 10000 0.000019\n' > "$tmp/dep.txt"
    same_as_serial dep --set topology.type=leafspine --set topology.leaves=4 --set topology.spines=2 \
        --set topology.hosts_per_leaf=4 --set traffic.pattern=file --set traffic.file="$tmp/dep.txt"
    check awk -F, '$1 == 1 { s1 = $5 } $1 == 2 { f2 = $7 } END { exit !(s1 > 20000 && f2 < 12000) }' "$tmp/dep-1/fct.csv"
    # a release between two hosts of one leaf, so of one partition: flow 1 (host1) after flow 0 (host0)
    # completes (host0 and host1: one leaf), flow 2 (host3) after flow 1 reached it, beside traffic elsewhere
    printf '12\n0 2 3 100 20000 0\n1 3 3 100 10000 0 0\n3 1 3 100 10000 0 1r\n8 12 3 100 30000 0\n9 13 3 100 30000 0\n10 14 3 100 30000 0.000001\n11 15 3 100 30000 0.000001\n12 8 3 100 30000 0.000002\n13 9 3 100 30000 0.000002\n4 8 3 100 30000 0.000003\n5 9 3 100 30000 0.000003\n6 0 3 100 30000 0.000004\n' > "$tmp/dep-leaf.txt"
    same_as_serial dep-leaf --set topology.type=leafspine --set topology.leaves=4 --set topology.spines=2 \
        --set topology.hosts_per_leaf=4 --set traffic.pattern=file --set traffic.file="$tmp/dep-leaf.txt"
    check awk -F, '$1 == 0 { f0 = $6 } $1 == 1 { s1 = $5 } END { exit !(s1 >= f0 && f0 > 0) }' "$tmp/dep-leaf-2/fct.csv"

    local fat=(--set topology.type=fattree --set topology.k=4 --set switch.buffer=1MB --set traffic.load=0.5
               --set traffic.duration=300us)
    same_as_serial ft-letflow "${fat[@]}" --set lb.scheme=letflow
    same_as_serial ft-conga-hpcc "${fat[@]}" --set lb.scheme=conga --set transport.cc=hpcc --set transport.window=bdp
    same_as_serial ft-drill "${fat[@]}" --set lb.scheme=drill --set run.partitions=8
    # FLB+RC on the fat-tree: CNMs from edge, aggregation and core ports, each naming its congestion
    # point; the source edge releases a flow when the last point holding it congested releases it
    same_as_serial ft-flb-rc "${fat[@]}" --set lb.scheme=flb --set transport.cc=flbrc
    check grep -q '"control_packets": [1-9]' "$tmp/ft-flb-rc-2/summary.json"
    same_as_serial ft-conweave-fail "${fat[@]}" --set lb.scheme=conweave --set topology.switch_fail=agg0.0@60us-200us,core3@100us
    check grep -q '"packets_lost_link": [1-9]' "$tmp/ft-conweave-fail-2/summary.json"
    # lossy IRN on lossy links: the receiver's bitmap is its own partition's (and process's) when
    # the sender runs elsewhere
    same_as_serial ft-irn "${fat[@]}" --set switch.pfc=off --set switch.buffer=300KB --set transport.recovery=irn \
        --set topology.loss=0.001
    check grep -q '"packets_corrupted": [1-9]' "$tmp/ft-irn-2/summary.json"
    same_as_serial clos --set topology.type=clos --set topology.pods=2 --set switch.buffer=1MB --set traffic.load=0.5 \
        --set traffic.duration=200us --set lb.scheme=spray
    local fattxt=(--set topology.type=file --set topology.file="$shared/ns3-reference/fat.txt" --set traffic.load=0.3
                  --set traffic.duration=50us --set switch.buffer=4MB)
    same_as_serial fattxt "${fattxt[@]}"

    # an ns-3 configuration (HPCC's fat.txt, hpcc30's flows, to 200 us) with run.ns3_timing = off: that
    # mode's serial bytes, and ns-3's fct.txt in completion order (flows finish in any partition: merged
    # by event key after each window)
    mkdir -p "$tmp/mix"
    cp "$shared/../ns3-ties/hpcc30-config.txt" "$tmp/mix/config.txt"
    cp "$shared/../ns3-ties/hpcc30-flow.txt" "$shared/ns3-reference/fat.txt" "$tmp/mix/"
    pushd "$tmp" > /dev/null || return
    same_as_serial ns3 mix/config.txt --set run.ns3_timing=off --set run.stop=200us
    popd > /dev/null || return
    check test "$(wc -l < "$tmp/ns3-1/fct.txt")" -gt 50
    for s in $1; do check cmp "$tmp/ns3-1/fct.txt" "$tmp/ns3-$s/fct.txt"; done

    "$bin" run --quiet "${fattxt[@]}" --set output.partition_report=on --out "$tmp/rep" || fail=$((fail + 1))
    check grep -q '"cut_packets": [1-9]' "$tmp/rep/partition.json"
    for s in $1; do
        check test "$(num windows "$tmp/rep/partition.json")" = "$(num windows "$tmp/fattxt-$s/parallel.json")"
        check test "$(( $(num cut_packets "$tmp/rep/partition.json") + $(num cut_pfc "$tmp/rep/partition.json") ))" = \
            "$(num messages "$tmp/fattxt-$s/parallel.json")"
    done
}
