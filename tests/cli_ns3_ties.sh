#!/bin/bash
# Same-ns event order against ns-3, to the nanosecond: the first 21 flows of
# a 30 % WebSearch file on HPCC's fat.txt under DCTCP (docs/validation.md,
# round 4), the flow file ns-3 read (rocesim starts them where ns-3 does). ns-3 orders same-time events by
# when it scheduled them, and schedules a packet's arrival when its
# transmission starts; rocesim under run.ns3_timing gives the transmission's
# end and arrival that place (eventq.h tickets). Without it, flow 202->81
# ends 4 ns late (two of its packets and one of 159->69 reach a core switch
# in the same ns through two ports). Until serialisation times took ns-3's
# Seconds() truncation (a whole-ns time loses 1 ns), 168->128 ended 1 ns late.
# tests/ns3-ties/fct-ns3.txt is the
# unmodified ns-3 simulator's output for this config.
# usage: cli_ns3_ties.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2")
. "$(dirname "$0")/cli_lib.sh"
mkdir -p "$tmp/mix"
cp "$src/tests/ns3-ties/config.txt" "$src/tests/ns3-ties/flow.txt" "$src/tests/shared/ns3-reference/fat.txt" "$tmp/mix/"
(cd "$tmp" && "$bin" run mix/config.txt --out rs --quiet 2>/dev/null) || { echo "FAIL: run"; exit 1; }
# per flow (matched by addresses and ports): rocesim's FCT minus ns-3's, in ns
diffs=$(awk 'NR == FNR { f[$1" "$2" "$3" "$4] = $7; next } ($1" "$2" "$3" "$4) in f { print $1"->"$2, $7 - f[$1" "$2" "$3" "$4] }' \
    "$src/tests/ns3-ties/fct-ns3.txt" "$tmp/rs/fct.txt")
check test "$(echo "$diffs" | wc -l)" -eq 21
check test "$(echo "$diffs" | awk '$2 == 0' | wc -l)" -eq 21            # all 21 at ns-3's exact ns
check grep -qx '0b00ca01->0b005101 0' <<< "$diffs"                        # 202->81, the traced flow
check grep -qx '0b00a801->0b008001 0' <<< "$diffs"                        # 168->128: its 925 B last packet takes 73 ns, not 74 (ns3time.h)
# every flow starts at ns-3's ns (its Seconds() of the file's double, mostly 1 ns early)
check test "$(awk 'NR == FNR { f[$1" "$2" "$3" "$4] = $6; next } $6 == f[$1" "$2" "$3" "$4]' \
    "$src/tests/ns3-ties/fct-ns3.txt" "$tmp/rs/fct.txt" | wc -l)" -eq 21
# every flow starts at ns-3's ns (its Seconds() of the file's double, mostly 1 ns early)
check test "$(awk 'NR == FNR { f[$1" "$2" "$3" "$4] = $6; next } $6 == f[$1" "$2" "$3" "$4]' \
    "$src/tests/ns3-ties/fct-ns3.txt" "$tmp/rs/fct.txt" | wc -l)" -eq 21
# with ns-3 timing off (exact picoseconds) the order is rocesim's own: not ns-exact
(cd "$tmp" && "$bin" run mix/config.txt --out ps --quiet --set run.ns3_timing=off 2>/dev/null) || { echo "FAIL: run ps"; exit 1; }
check test "$(awk 'NR == FNR { f[$1" "$2" "$3" "$4] = $7; next } $7 == f[$1" "$2" "$3" "$4]' \
    "$src/tests/ns3-ties/fct-ns3.txt" "$tmp/ps/fct.txt" | wc -l)" -lt 20
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
