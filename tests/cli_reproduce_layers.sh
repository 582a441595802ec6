#!/bin/bash
# rocesim reproduce metric kinds that PCN's Fig. 14 (pcn-fig14) reads: a key
# inside one of summary.json's objects (summary pfc_pause_frames_by_layer.edge,
# pfc_pause_rate_by_layer.core) and the mean FCT (fct_avg MAXSIZE), on a small
# Clos pod with receiver-driven incasts (traffic.incast_ratio) and PFC alone,
# so that every layer pauses: the layers add up to summary.json's total, the
# rate is the count per second of the run, and the means equal fct.csv's;
# fct_pct P MAXSIZE SOURCE takes only that generator's flows (fct.csv's
# source column: the [traffic] flows, or [traffic.inc]'s incast).
# usage: cli_reproduce_layers.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"
export ROCESIM_WORKLOADS=$src/workloads
mkdir "$tmp/exp"
cat > "$tmp/exp/layers.ini" <<'INI'
[run]
stop = 2ms
[topology]
type = clos
pods = 2
edges_per_pod = 2
aggs_per_pod = 2
cores = 2
oversubscription = 1
host_link = 10Gbps
fabric_link = 40Gbps
link_delay = 1us
[switch]
buffer = 4MB
pfc_threshold = 64KB
[transport]
cc = none
[traffic]
cdf = pcn_w1
load = 0.6
incast_ratio = 1-15
duration = 1ms
[traffic.inc]
pattern = incast
fan_in = 6
size = 30KB
start = 100us
[sweep]
transport.cc = none, dcqcn
INI
cat > "$tmp/exp/layers.exp" <<'EXP'
[experiment]
title = layers
sweep = layers.ini
quick = layers.ini
rows = transport.cc
figures = none
[metrics]
total = summary pfc_pause_frames | total
edge = summary pfc_pause_frames_by_layer.edge | edge
agg = summary pfc_pause_frames_by_layer.agg | agg
core = summary pfc_pause_frames_by_layer.core | core
core_rate = summary pfc_pause_rate_by_layer.core | core/s
nope = summary pfc_pause_rate_by_layer.nope | nope
mean = fct_avg inf | mean
small = fct_avg 10KB | small
bg = fct_pct 100 inf traffic | bg
inc = fct_pct 100 inf traffic.inc | inc
none = fct_pct 100 inf traffic.none | none
EXP
ROCESIM_EXPERIMENTS=$tmp/exp "$bin" reproduce layers --quick --out "$tmp/r" > /dev/null 2>"$tmp/err"
check test $? -eq 0
t=$tmp/r/table.md
# | row | total | edge | agg | core | core/s | nope | mean | small | paper |
for row in none dcqcn; do
    line=$(grep "^| $row |" "$t")
    check test -n "$line"
    IFS='|' read -r _ _ total edge agg core rate nope mean small bg inc none _ <<< "$line"
    check awk -v t="$total" -v a="$edge" -v b="$agg" -v c="$core" 'BEGIN { exit !(a > 0 && b > 0 && a + b + c == t) }'
    check test "$(echo $nope)" = "-" # a key the object does not have is no number
    d=$tmp/r/runs/cc=$row
    # the rate per second of the run (2 ms): count x 500, printed whole
    check awk -v c="$core" -v r="$rate" 'BEGIN { exit !(r == c * 500) }'
    # fct.csv: size_bytes is column 4, fct_ns column 7 (empty if unfinished)
    for max in inf 10000; do
        want=$(awk -F, -v m=$max 'NR > 1 && $7 != "" && (m == "inf" || $4 <= m) { s += $7 / 1000; n++ } END { printf "%.6f", s / n }' "$d/fct.csv")
        got=$([ $max = inf ] && echo $mean || echo $small)
        check awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(d <= 0.5 && d >= -0.5) }'
    done
    # the largest FCT (us) of each source's finished flows (the column named source)
    for s in traffic traffic.inc; do
        want=$(awk -F, -v s=$s 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "source") c = i; next }
            $7 != "" && $c == s && $7 / 1000 > m { m = $7 / 1000 } END { print m }' "$d/fct.csv")
        got=$([ $s = traffic ] && echo $bg || echo $inc)
        check awk -v g="$got" -v w="$want" 'BEGIN { exit !(w > 0 && g / w < 1.01 && g / w > 0.99) }'
    done
    check awk -v b="$bg" -v i="$inc" 'BEGIN { exit !(b != i) }'
    check test "$(echo $none)" = "-" # no flow of that source: no number
done
echo "cli_reproduce_layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
