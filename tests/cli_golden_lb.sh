#!/bin/bash
# Golden outputs of four load balancers (beside cli_determinism.sh's DCQCN
# and HPCC with ECMP): CONGA, Proteus, ConWeave and FLB on a small 4x4 leaf-spine
# (16 hosts, 500 us of web-search traffic at load 0.8, DCQCN), each compared
# byte for byte with tests/golden/lb-NAME-{fct,pfc}.csv and its summary.json
# lb_stats line with lb-NAME-stats.txt. CONGA runs with a 5 us flowlet
# timeout so that flows change paths. A change that means to move a scheme's
# results (a model fix) regenerates that scheme's files and says so in its
# commit (tests/golden/README.md):
#   ROCESIM_UPDATE_GOLDEN=proteus tests/cli_golden_lb.sh build/rocesim   (one scheme)
#   ROCESIM_UPDATE_GOLDEN=1 tests/cli_golden_lb.sh build/rocesim         (all four)
# usage: cli_golden_lb.sh ROCESIM_BIN
set -u
bin=$1
. "$(dirname "$0")/cli_lib.sh"
golden=$(dirname "$0")/golden
args=(--quiet --set topology.leaves=4 --set topology.spines=4 --set topology.hosts_per_leaf=4
      --set switch.buffer=2MB --set traffic.duration=500us --set traffic.load=0.8)
update=${ROCESIM_UPDATE_GOLDEN:-0}
for lb in conga proteus conweave flb; do
    extra=()
    [ $lb = conga ] && extra=(--set lb.conga.flowlet_timeout=5us)
    "$bin" run "${args[@]}" --set lb.scheme=$lb "${extra[@]}" --out "$tmp/$lb" || { echo "FAIL: run $lb"; exit 1; }
    grep '"lb_stats"' "$tmp/$lb/summary.json" > "$tmp/$lb/stats.txt"
    check test "$(wc -l < "$tmp/$lb/fct.csv")" -gt 40
    if [ "$update" = 1 ] || [ "$update" = $lb ]; then
        cp "$tmp/$lb/fct.csv" "$golden/lb-$lb-fct.csv"
        cp "$tmp/$lb/pfc.csv" "$golden/lb-$lb-pfc.csv"
        cp "$tmp/$lb/stats.txt" "$golden/lb-$lb-stats.txt"
        echo "golden outputs of $lb regenerated in $golden"
    fi
    check cmp "$golden/lb-$lb-fct.csv" "$tmp/$lb/fct.csv"
    check cmp "$golden/lb-$lb-pfc.csv" "$tmp/$lb/pfc.csv"
    check cmp "$golden/lb-$lb-stats.txt" "$tmp/$lb/stats.txt"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
