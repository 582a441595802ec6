#!/usr/bin/env bash
# bench/parallel/tiebreak/tiebreak.sh: what a partition-independent tie-break
# does to rocesim's outputs (docs/parallel.md, "The tie-break").
#
#   bench/parallel/tiebreak/tiebreak.sh [SCRATCH]     (default /tmp/rocesim-tiebreak)
#
# Copies the committed tree (git archive HEAD) to SCRATCH three times with
# src/core/eventq.{c,h} replaced by this folder's binary heap, builds rocesim
# with TB_VARIANT 0 (insertion order: must reproduce every golden output),
# 1 (time, push time, kind, id) and 2 (time, kind, id), and runs the golden
# tests (cli_determinism, cli_golden_lb) against each.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
scratch=${1:-/tmp/rocesim-tiebreak}
for v in 0 1 2; do
    d=$scratch/v$v
    rm -rf "$d" && mkdir -p "$d"
    git -C "$root" archive HEAD | tar -x -C "$d"
    cp "$here/eventq.c" "$here/eventq.h" "$d/src/core/"
    cmake -S "$d" -B "$d/build" -DCMAKE_BUILD_TYPE=Release -DROCESIM_TESTS=OFF -DCMAKE_C_FLAGS="-DTB_VARIANT=$v" \
        >/dev/null && make -C "$d/build" -j2 rocesim >/dev/null 2>&1 || { echo "variant $v: build failed"; exit 1; }
    echo "== variant $v"
    bash "$root/tests/cli_determinism.sh" "$d/build/rocesim" 2>&1 | tail -1
    bash "$root/tests/cli_golden_lb.sh" "$d/build/rocesim" 2>&1 | tail -1
done
