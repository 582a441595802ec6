# Sourced by the tests/cli_*.sh scripts after `set -u`: a temporary folder
# removed on exit ($tmp), and check CMD... counting passes and failures; the
# script ends with `echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]`.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if "$@"; then pass=$((pass + 1)); else echo "FAIL: $*"; fail=$((fail + 1)); fi; }
# check_empty MESSAGE LIST: a pass if LIST is empty, else a failure printing MESSAGE and LIST.
check_empty() { if [ -z "$2" ]; then pass=$((pass + 1)); else echo "FAIL: $1"; echo "$2"; fail=$((fail + 1)); fi; }
# net_summary DIR: DIR/summary.json without the lines that describe the engine rather than the
# network (command line, wall time, rates, RSS, events run, the pool's peak, the run section with
# run.threads), for comparing a parallel run with the serial one.
net_summary() {
    grep -v -e '"command_line"' -e '"wall_seconds"' -e '"events_per_second"' -e '"packet_hops_per_second"' \
        -e '"peak_rss_bytes"' -e '"events"' -e '"peak_packets_in_flight"' -e '"run": {' "$1/summary.json"
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
