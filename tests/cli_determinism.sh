#!/bin/bash
# Same inputs and seed => byte-identical fct.csv and pfc.csv; another seed differs.
# And the same as the committed golden outputs in tests/golden/: an
# optimisation must not change a single result. A change that means to
# (a model fix) regenerates them on purpose, and says so in its commit:
#   ROCESIM_UPDATE_GOLDEN=1 tests/cli_determinism.sh build/rocesim
# usage: cli_determinism.sh ROCESIM_BIN
set -u
bin=$1
. "$(dirname "$0")/cli_lib.sh"
args=(--quiet --set topology.leaves=2 --set topology.spines=2 --set topology.hosts_per_leaf=8
      --set switch.buffer=2MB --set traffic.duration=500us)
"$bin" run "${args[@]}" --out "$tmp/a" || { echo "FAIL: run a"; exit 1; }
"$bin" run "${args[@]}" --out "$tmp/b" || { echo "FAIL: run b"; exit 1; }
"$bin" run "${args[@]}" --set run.seed=2 --out "$tmp/c" || { echo "FAIL: run c"; exit 1; }
check cmp -s "$tmp/a/fct.csv" "$tmp/b/fct.csv"
check cmp -s "$tmp/a/pfc.csv" "$tmp/b/pfc.csv"
check test "$(wc -l < "$tmp/a/fct.csv")" -gt 20
check grep -q '"packets_dropped": 0,' "$tmp/a/summary.json"
check grep -q '"packets_left_in_network": 0,' "$tmp/a/summary.json"
# rocesim report reads the run back; two runs side by side
check grep -q '^  AFCT (us) ' <("$bin" report "$tmp/a")
check grep -q '^  flows  *[0-9][0-9]*  *[0-9][0-9]*$' <("$bin" report "$tmp/a" "$tmp/c")
if cmp -s "$tmp/a/fct.csv" "$tmp/c/fct.csv"; then echo "FAIL: seed 2 gave the same flows"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
# golden outputs: DCQCN (with its PFC log) and HPCC on the same traffic
golden=$(dirname "$0")/golden
"$bin" run "${args[@]}" --set transport.cc=hpcc --set transport.window=bdp --set transport.var_win=on \
    --out "$tmp/h" || { echo "FAIL: run h"; exit 1; }
if [ "${ROCESIM_UPDATE_GOLDEN:-0}" = 1 ]; then
    mkdir -p "$golden"
    cp "$tmp/a/fct.csv" "$golden/dcqcn-fct.csv"
    cp "$tmp/a/pfc.csv" "$golden/dcqcn-pfc.csv"
    cp "$tmp/h/fct.csv" "$golden/hpcc-fct.csv"
    echo "golden outputs regenerated in $golden"
fi
check cmp "$golden/dcqcn-fct.csv" "$tmp/a/fct.csv"
check cmp "$golden/dcqcn-pfc.csv" "$tmp/a/pfc.csv"
check cmp "$golden/hpcc-fct.csv" "$tmp/h/fct.csv"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
