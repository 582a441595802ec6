#!/bin/bash
# DCTCP 50 % against ns-3, to the nanosecond: HPCC's fat.txt, the 226 flows of
# a 50 % WebSearch file that start in the first 200 us, run to 200 us
# (docs/validation.md, Round 4b). dctcp50-fct-ns3.txt is the unmodified ns-3
# simulator's fct.txt for the full run, cut to the 145 flows that end by
# 200 us (the last at 199.6 us). Every one must end at ns-3's ns. It
# needs all of run.ns3_timing: flow starts and serialisation through ns-3's
# Seconds() (core/ns3time.h), a port busy until its TX_DONE's place has
# passed, a new flow's first packet two same-time events after its start,
# and same-ns arrivals in ns-3's order. Before these rules 32 of the 145 FCTs
# differed (and 136 starts, by 1 ns); with the start rule alone, 14 FCTs.
# usage: cli_ns3_dctcp50.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2")
. "$(dirname "$0")/cli_lib.sh"
mkdir -p "$tmp/mix"
cp "$src/tests/ns3-ties/dctcp50-config.txt" "$tmp/mix/config.txt"
cp "$src/tests/ns3-ties/dctcp50-flow.txt" "$src/tests/shared/ns3-reference/fat.txt" "$tmp/mix/"
(cd "$tmp" && "$bin" run mix/config.txt --out rs --quiet 2>/dev/null) || { echo "FAIL: run"; exit 1; }
check test "$(wc -l < "$tmp/rs/fct.txt")" -eq 145
# the same lines: addresses, ports, size, start, FCT and ideal FCT
check cmp -s <(sort "$src/tests/ns3-ties/dctcp50-fct-ns3.txt") <(sort "$tmp/rs/fct.txt")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
