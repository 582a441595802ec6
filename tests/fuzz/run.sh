#!/bin/sh
# Seed corpora and runs of the libFuzzer harnesses (tests/fuzz/fuzz_*.c).
#   run.sh seeds NAME              the seed files/dirs of harness NAME
#   run.sh replay BIN NAME         replay seeds + regressions through BIN (ctest)
#   run.sh fuzz BUILD SECS [NAME..] fuzz each harness SECS seconds, one core;
#                                  new inputs go to BUILD/corpus/NAME, crashes
#                                  to BUILD/findings/NAME (copy them to
#                                  tests/fuzz/regress/NAME once fixed)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
all="ini ns3 set topo flow cdf simai"

seeds() {
    case $1 in
    ini) echo "$src/scenarios" ; ls "$src"/tests/data/*.ini ;;
    ns3) echo "$src/tests/shared/ns3-reference/config.txt $src/tests/data/bad_ns3.txt" ;;
    set) echo "$here/seeds/set" ;;
    topo) echo "$src/tests/shared/ns3-reference/topology.txt $src/tests/shared/ns3-reference/fat.txt" ; ls "$src"/tests/data/topo_*.txt ;;
    flow) echo "$src/tests/shared/ns3-reference/flow.txt $src/tests/data/flow_to_switch.txt" ;;
    cdf) echo "$src/tests/shared/workloads $src/tests/shared/workloads/ns3-format" ;;
    simai) echo "$src/tests/data/simai" ;;
    *) echo "run.sh: unknown harness '$1' (known: $all)" >&2; exit 2 ;;
    esac
}

case ${1:-} in
seeds) seeds "$2" ;;
replay)
    # shellcheck disable=SC2046
    exec "$2" $(seeds "$3") "$here/regress/$3" ;;
fuzz)
    build=$2 secs=$3
    shift 3
    [ $# -gt 0 ] || set -- $all
    for h in "$@"; do
        corpus="$build/corpus/$h" seeddir="$build/seeds/$h" found="$build/findings/$h"
        mkdir -p "$corpus" "$seeddir" "$found"
        # libFuzzer takes corpus directories: gather the seed files into one.
        for s in $(seeds "$h") "$here/regress/$h"; do
            if [ -d "$s" ]; then
                find "$s" -maxdepth 1 -type f ! -name '.*' -exec cp {} "$seeddir/" \;
            else
                cp "$s" "$seeddir/"
            fi
        done
        echo "fuzz: $h for ${secs}s" >&2
        # -timeout=60: shared CI machines can stall a process for seconds.
        # -close_fd_mask=2: the parsers' warnings would drown the log;
        # libFuzzer and the sanitizers keep their own copy of stderr.
        "$build/fuzz_$h" "$corpus" "$seeddir" -max_total_time="$secs" \
            -close_fd_mask=2 -max_len=8192 -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$found/" 2>&1 | grep -E '^(stat::|INFO: seed|Done|==|SUMMARY|.*ERROR|fuzz contract)' || true
        if [ -n "$(find "$found" -type f -name '*-*' | head -1)" ]; then
            echo "fuzz: $h: findings in $found" >&2
            exit 1
        fi
    done ;;
*) echo "usage: run.sh seeds NAME | replay BIN NAME | fuzz BUILD SECS [NAME...]" >&2; exit 2 ;;
esac
