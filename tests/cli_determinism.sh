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
# A busy port's transmission end and a NIC's wake-up are not events (net/port.c: a node's own
# catch-up runs them in their events' order; bench/README.md Appendix O). The partition report
# counts every event, so its run keeps them all as events: the same bytes (summary.json less the
# engine's lines and the output section), and the lazy run at most 1.1 events per packet hop
# against about 1.5 (a TX_DONE behind most sent packets)
"$bin" run "${args[@]}" --set output.partition_report=on --out "$tmp/e" || { echo "FAIL: run e"; exit 1; }
for f in fct.csv pfc.csv pfc_ports.csv; do check cmp "$tmp/a/$f" "$tmp/e/$f"; done
check diff <(net_summary "$tmp/a" | grep -v '"output": {') <(net_summary "$tmp/e" | grep -v '"output": {')
per_hop() { awk -F'[:,]' '/"events":/ { e = $2 } /"packet_hops":/ { h = $2 } END { printf "%.3f", e / h }' "$1/summary.json"; }
check awk -v a="$(per_hop "$tmp/a")" -v e="$(per_hop "$tmp/e")" 'BEGIN { exit !(a <= 1.1 && e >= 1.4) }'
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
