# shellcheck shell=bash
# bench/lib.sh: shell functions shared by bench/run and bench/vs-ns3.
# Sourced, not run. Each function reports through its return status and the
# variables it names; none exits.

# Where the repository is, from this file's place in it.
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# fat_web30_layout DIR BIN [ARG...]: lays out DIR as the ns-3 HPCC simulator
# expects for the fat-web30 job, since ns-3 configs name files relative to the
# current folder: DIR/mix/fat.txt and DIR/mix/trace.txt (copied from
# tests/shared/ns3-reference/), DIR/config.txt, DIR/config-hpcc.txt and
# DIR/flows.ini (from bench/fat-web30/), and DIR/mix/flow.txt, written in DIR
# by `BIN flows flows.ini ARG...` (ARG: --set options, e.g. a shorter
# traffic.duration). On failure returns 1 with the reason in LAYOUT_ERROR.
# shellcheck disable=SC2034 # LAYOUT_ERROR is for the caller
fat_web30_layout() {
    local d=$1 bin=$2 ref=$BENCH_ROOT/tests/shared/ns3-reference src=$BENCH_ROOT/bench/fat-web30
    shift 2
    LAYOUT_ERROR=
    mkdir -p "$d/mix" || { LAYOUT_ERROR="cannot make $d/mix"; return 1; }
    if ! cp "$ref/fat.txt" "$ref/trace.txt" "$d/mix/" ||
        ! cp "$src/config.txt" "$src/config-hpcc.txt" "$src/flows.ini" "$d/"; then
        LAYOUT_ERROR="cannot copy the fat-web30 files"
        return 1
    fi
    if ! (cd "$d" && "$bin" flows flows.ini "$@" >mix/flow.txt 2>flows.err); then
        LAYOUT_ERROR="rocesim flows: $(tail -n 1 "$d/flows.err")"
        return 1
    fi
}

# json_num FILE KEY: a number from summary.json ("key": value)
json_num() {
    sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\([-0-9.eE+]*\).*/\1/p" "$1" | head -n 1
}

# stats: reads numbers, prints "median min max" (or "- - -")
stats() {
    sort -g | awk '
        { v[NR] = $1 }
        END {
            if (!NR) { print "- - -"; exit }
            m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            print m, v[1], v[NR]
        }'
}

# machine_line: "N CPUs, model, memory, kernel" for a result's header
machine_line() {
    local cpu mem
    cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
    [[ -n $cpu ]] || cpu=$(uname -m)
    mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
    echo "$(nproc) CPUs, $cpu, ${mem:-memory unknown}, $(uname -sr)"
}
