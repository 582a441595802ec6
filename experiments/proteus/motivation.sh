#!/bin/sh
# Proteus sec. II-B (Figs. 2-4): the victim flow f1 under each balancer in
# scenarios/proteus-motivation.ini. Run from the repository root:
#   experiments/proteus/motivation.sh [OUT_DIR] [SCHEMES...]
# Prints per scheme: f1's FCT, its out-of-order packets, whether PFC held it,
# the bytes L1 sent on Path1 (via C1) and Path2 (via C2) while f1 ran, PAUSE
# frames received by L1's uplinks (P1/L1 to C1, P2/L1 to C2) and by C2's and
# C1's ports toward L3 (P4/C2 in the paper), and all PAUSE frames. util.csv
# (L1's ports every 100 us) holds the per-path throughput over time (Fig. 2c).
set -eu
out=${1:-results/proteus-motivation}
shift || true
schemes=${*:-ecmp letflow conga drill proteus}
bin=${ROCESIM:-build/rocesim}
printf '%-8s %9s %6s %7s %10s %10s %8s %8s %8s %8s %7s\n' scheme f1_fct_ms f1_ooo paused path1_MB path2_MB \
    P1/L1 P2/L1 'C1->L3' 'C2->L3' pauses
for s in $schemes; do
    d="$out/$s"
    nice -n 10 "$bin" run scenarios/proteus-motivation.ini --set lb.scheme="$s" --set transport.reorder=buffer \
        --set output.util_ports=26:* --set output.util_interval=100us --out "$d" --quiet
    fin=$(awk -F, 'NR == 2 { print $6 }' "$d/fct.csv")
    awk -F, -v s="$s" -v fin="$fin" '
        FILENAME ~ /fct.csv$/ && FNR == 2 { fct = $7 / 1e6; ooo = $12; pz = $10 }
        FILENAME ~ /util.csv$/ && FNR > 1 && $1 <= fin + 100000 && $2 == 26 && $3 == 2 { b1 += $4 * 40e9 * 100e-6 / 8 }
        FILENAME ~ /util.csv$/ && FNR > 1 && $1 <= fin + 100000 && $2 == 26 && $3 == 3 { b2 += $4 * 40e9 * 100e-6 / 8 }
        FILENAME ~ /pfc.csv$/ && FNR > 1 && $6 == "pause" {
            all++
            if ($2 == 26 && $3 == 2) l1p1++
            if ($2 == 26 && $3 == 3) l1p2++
            if ($2 == 29 && $5 == 27) c1++
            if ($2 == 30 && $5 == 27) c2++
        }
        END { printf "%-8s %9.3f %6d %7d %10.1f %10.1f %8d %8d %8d %8d %7d\n", s, fct, ooo, pz, b1 / 1e6, b2 / 1e6,
              l1p1, l1p2, c1, c2, all }' "$d/fct.csv" "$d/util.csv" "$d/pfc.csv"
done
