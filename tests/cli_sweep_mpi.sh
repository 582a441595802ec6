#!/bin/bash
# `mpirun -np 2 rocesim sweep` shares the points between two ranks and
# gathers the same sweep.csv on rank 0 as a serial sweep (wall time aside).
# Exits 77 (skipped) when rocesim is built without MPI or mpirun is missing.
# usage: cli_sweep_mpi.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
grid=$src/tests/data/sweep-tiny.ini
. "$(dirname "$0")/cli_lib.sh"
need_mpi cli_sweep_mpi "$bin"
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0 # OpenMPI's own allocations outlive MPI_Finalize
strip() { sed 's/,[^,]*$//' "$@"; } # without wall_s

"$bin" sweep "$grid" --jobs 1 --out "$tmp/serial" 2>/dev/null || check false serial sweep
# CI runs as root: OpenMPI refuses that without --allow-run-as-root
mpirun --oversubscribe --allow-run-as-root -np 2 "$bin" sweep "$grid" --out "$tmp/mpi" 2>"$tmp/err"
check test $? -eq 0
check test -s "$tmp/mpi/sweep.csv"
check test "$(strip "$tmp/serial/sweep.csv")" = "$(strip "$tmp/mpi/sweep.csv")"
# each rank ran two of the four points, once
check test "$(grep -c '^sweep: \[2/2\] .* ok' "$tmp/err")" -eq 2
check test "$(grep -c '^sweep: \[3/' "$tmp/err")" -eq 0
echo "cli_sweep_mpi: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
