#!/bin/bash
# HPCC 30 % against ns-3, to the nanosecond: HPCC's fat.txt, the 383 flows of
# a 30 % WebSearch file that start in the first 500 us, run to 500 us
# (docs/validation.md, Round 4b). hpcc30-fct-ns3.txt is the unmodified ns-3
# simulator's fct.txt for the full run, cut to the 281 flows that end by
# 500 us. Every one must end at ns-3's ns. Besides the rules of
# cli_ns3_dctcp50.sh it needs HPCC's rate update to divide by tau as ns-3
# does, tau_ns * 1e-9 (src/cc/hpcc.c): with tau_ps * 1e-12, which differs in
# the last bit, 67 of the 281 FCTs differed.
# usage: cli_ns3_hpcc30.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2")
. "$(dirname "$0")/cli_lib.sh"
mkdir -p "$tmp/mix"
cp "$src/tests/ns3-ties/hpcc30-config.txt" "$tmp/mix/config.txt"
cp "$src/tests/ns3-ties/hpcc30-flow.txt" "$src/tests/shared/ns3-reference/fat.txt" "$tmp/mix/"
(cd "$tmp" && "$bin" run mix/config.txt --out rs --quiet 2>/dev/null) || { echo "FAIL: run"; exit 1; }
check test "$(wc -l < "$tmp/rs/fct.txt")" -eq 281
check cmp -s <(sort "$src/tests/ns3-ties/hpcc30-fct-ns3.txt") <(sort "$tmp/rs/fct.txt")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
