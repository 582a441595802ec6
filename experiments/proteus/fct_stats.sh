#!/bin/sh
# fct_stats.sh RUN_DIR [MTU]: the numbers of Proteus's Figs. 10-12 from one
# run's fct.csv (columns: README "fct.csv"). Prints, on one line:
#   flows  AFCT_us  p99_FCT_us  p99_slowdown(<=100KB)  hol_blocked_%  reordered_pkts_%
# HoL-blocked flow: victim = 1 (a packet of it waited through a PAUSE in a
# switch egress queue and it never joined a congestion port: README). Reordered
# packets: sum of ooo (data packets that arrived beyond the next expected
# byte) over all data packets, ceil(size / MTU) per flow (MTU default 1000).
# Percentiles by nearest rank, as `rocesim report`.
set -eu
dir=$1
mtu=${2:-1000}
f="$dir/fct.csv"
n=$(awk -F, 'NR > 1' "$f" | wc -l)
p99() { sort -g | awk -v p=0.99 '{ a[NR] = $1 } END { if (!NR) { print "-"; exit } r = int(p * NR + 0.999999); if (r < 1) r = 1; print a[r] }'; }
afct=$(awk -F, 'NR > 1 { s += $7; n++ } END { printf "%.1f", s / n / 1000 }' "$f")
p99fct=$(awk -F, 'NR > 1 { print $7 / 1000 }' "$f" | p99)
p99sd=$(awk -F, 'NR > 1 && $4 <= 100000 { print $9 }' "$f" | p99)
hol=$(awk -F, 'NR > 1 { b += $11; n++ } END { printf "%.1f", 100 * b / n }' "$f")
ro=$(awk -F, -v m="$mtu" 'NR > 1 { o += $12; k += int(($4 + m - 1) / m) } END { printf "%.3f", 100 * o / k }' "$f")
echo "$n $afct $p99fct $p99sd $hol $ro"
