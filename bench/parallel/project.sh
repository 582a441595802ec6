#!/usr/bin/env bash
# bench/parallel/project.sh: measure what the scaling model needs and print
# its projection (bench/README.md, "Parallel run: a projection").
#
#   bench/parallel/project.sh LABEL INI "PARTITIONS..." [--set KEY=VALUE ...]
#
# Runs INI once with the report off under GNU time (serial CPU seconds), once
# stopped at 1 ps (the set-up's CPU seconds; the rest over the events is the
# cost per event), then once per partition count with output.partition_report
# = on (run.partitions = that count; 0 = auto), and prints model.py's table
# rows for 2, 16 and 64 threads with the barrier and message costs in
# $BARRIER_NS (default 200, times log2 T) or $BARRIER_FLAT_NS, and
# $MESSAGE_NS (default 20). With $RANKS (e.g. "2x1,4x16": ranks x threads) it
# also prints model.py's rows across MPI ranks, priced by $MPI_US (default 0.5)
# and $RANK_MESSAGE_NS (default 35; bench/parallel/mpicosts.c measures both).
# The binary is ${ROCESIM:-build/rocesim}; outputs go to
# ${WORK:-/tmp/rocesim-parallel}/LABEL-*.
set -eu
label=$1 ini=$2 parts=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
bin=${ROCESIM:-build/rocesim}
work=${WORK:-/tmp/rocesim-parallel}
mkdir -p "$work"
/usr/bin/time -f "%U %S %M" -o "$work/$label.time" "$bin" run "$ini" "$@" --quiet --out "$work/$label-off" >/dev/null
read -r u s rss <"$work/$label.time"
cpu=$(python3 -c "print($u + $s)")
# set-up alone (topology, routes, flows, writing the outputs): a run stopped at 1 ps
/usr/bin/time -f "%U %S" -o "$work/$label.setup" "$bin" run "$ini" "$@" --set run.stop=1ps --quiet \
    --out "$work/$label-setup" >/dev/null 2>&1
read -r u s <"$work/$label.setup"
setup=$(python3 -c "print(round($u + $s, 3))")
echo "$label: serial CPU $cpu s (set-up $setup s), peak RSS $((rss / 1024)) MB, $(grep -o '"events": [0-9]*' "$work/$label-off/summary.json")" >&2
bar=(--barrier-ns "${BARRIER_NS:-200}")
[ -n "${BARRIER_FLAT_NS:-}" ] && bar=(--barrier-flat-ns "$BARRIER_FLAT_NS")
for p in $parts; do
    "$bin" run "$ini" "$@" --set output.partition_report=on --set run.partitions="$p" --quiet \
        --out "$work/$label-p$p" >/dev/null
    python3 "$here/model.py" "$work/$label-p$p/partition.json" "$cpu" --setup "$setup" "${bar[@]}" \
        --message-ns "${MESSAGE_NS:-20}" --label "$label"
    if [ -n "${RANKS:-}" ]; then
        python3 "$here/model.py" "$work/$label-p$p/partition.json" "$cpu" --setup "$setup" "${bar[@]}" \
            --message-ns "${MESSAGE_NS:-20}" --label "$label" --ranks "$RANKS" --mpi-us "${MPI_US:-0.5}" \
            --rank-message-ns "${RANK_MESSAGE_NS:-35}"
    fi
done
