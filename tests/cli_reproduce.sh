#!/bin/bash
# rocesim reproduce: --list names the shipped experiments; pcn-fig2 --quick
# (five runs of PCN's burst scenario, seconds) writes its table with the
# paper's text beside ours and its figures, and shows PCN's point: no PAUSE
# reaches the innocent F0's sender, which keeps most of the link during the
# bursts, while with PFC alone F0's sender is paused and F0 starves. Then
# pcn-fig10 (PCN's rate law in a run) and the [sweep] variants it uses.
# usage: cli_reproduce.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"
export ROCESIM_EXPERIMENTS=$src/experiments
"$bin" reproduce --list > "$tmp/list"
check grep -q '^    pcn-fig2 ' "$tmp/list"
check grep -q '^    pbfs-fig5 ' "$tmp/list"
"$bin" reproduce no-such-figure >/dev/null 2>"$tmp/err"
check test $? -eq 2
check grep -q "no experiment 'no-such-figure'" "$tmp/err"

"$bin" reproduce pcn-fig2 --quick --out "$tmp/r" > "$tmp/out" 2>"$tmp/err"
check test $? -eq 0
t=$tmp/r/table.md
check test -s "$t"
check grep -q '| PFC only |.*| tree from S1 reaches H0 and H1, lasts 3.1 ms' "$t"
# columns: pauses, H0/H1 paused (ms), S0 paused (ms), F0 Gbps, F1 Gbps, recovery (ms)
col() { awk -F'|' -v r="$1" -v c="$2" '$2 == " " r " " { gsub(/ /, "", $c); print $c }' "$t"; }
check awk -v v="$(col 'PFC only' 4)" 'BEGIN { exit !(v > 1) }'   # the congestion tree reaches H0/H1
check awk -v v="$(col 'PCN' 4)" 'BEGIN { exit !(v == 0) }'       # PCN: no PAUSE reaches them
check awk -v v="$(col 'PFC only' 6)" 'BEGIN { exit !(v < 10) }'  # F0 starves under PFC alone
check awk -v v="$(col 'PCN' 6)" 'BEGIN { exit !(v > 30) }'       # and takes the spare bandwidth with PCN
check awk -v v="$(col 'PCN' 7)" 'BEGIN { exit !(v < 5) }'        # while F1 is held near its receiving rate
if command -v gnuplot >/dev/null; then
    for f in pcn-fig2 flow_rate_over_time pfc_by_layer paused_ports_over_time; do
        check test "$(head -c 4 "$tmp/r/figures/$f.png" | od -An -c | tr -d ' ')" = '211PNG'
    done
else
    echo "cli_reproduce: figures not checked: no gnuplot"
fi
# pcn-fig10 --quick (two runs, a fraction of a second): F0's sender rate,
# sampled once per CNP period, follows PCN's RP law exactly after its last cut
# and is back at 95 % of line within the ~15 unmarked CNPs the paper states;
# its two rows are [sweep] variants (two keys each).
"$bin" reproduce pcn-fig10 --quick --out "$tmp/p10" > /dev/null 2>"$tmp/err10"
check test $? -eq 0
t=$tmp/p10/table.md
for r in '40 Gbps' '100 Gbps'; do
    check awk -v v="$(col "$r" 4)" 'BEGIN { exit !(v == 0) }'            # no deviation from the law
    check awk -v v="$(col "$r" 6)" 'BEGIN { exit !(v >= 5 && v <= 15) }' # periods to 95 %
done
check test -d "$tmp/p10/runs/variant=g100"
if command -v gnuplot >/dev/null; then # the rate law drawn from rate_gbps
    check test "$(head -c 4 "$tmp/p10/figures/send_rate_over_time.png" | od -An -c | tr -d ' ')" = '211PNG'
fi
check grep -q '^host_link = 100Gbps' "$tmp/p10/runs/variant=g100/scenario.ini"
# a variant named in [sweep] needs its [variant.NAME] section
printf '[transport]\ncc = dcqcn\n[sweep]\nvariant = a, b\n[variant.a]\ntransport.cc = hpcc\n' > "$tmp/v.ini"
"$bin" sweep "$tmp/v.ini" --out "$tmp/v" > /dev/null 2>"$tmp/errv"
check test $? -eq 2
check grep -q "v.ini:4: \[sweep\] variant 'b' has no \[variant.b\] section" "$tmp/errv"
printf '[sweep]\nvariant = a\n[variant.a]\ntransport.nope = 1\n' > "$tmp/v2.ini"
"$bin" sweep "$tmp/v2.ini" --out "$tmp/v2" > /dev/null 2>"$tmp/errv2"
check test $? -eq 2
# a rerun resumes: nothing is simulated again
"$bin" reproduce pcn-fig2 --quick --out "$tmp/r" > /dev/null 2>"$tmp/err2"
check grep -q '5 here (5 complete already)' "$tmp/err2"
check grep -q '^    pcn-fig21 ' "$tmp/list"

# Deadlock counting (pcn-fig21's metrics) on the ring that deadlocks in about
# a millisecond: a run stopped on a deadlock (exit 3) is a result for the
# sweep, "sum deadlocked" counts those runs, "sum runs" all of them; with the
# detector off (timeout 0) the ring runs to run.stop and counts as none.
mkdir "$tmp/exp"
sed -e "s|^file = .*|file = $src/scenarios/deadlock-ring.topo|" -e 's|^stop = .*|stop = 3ms|' \
    "$src/scenarios/deadlock-ring.ini" > "$tmp/exp/ring.ini"
printf '\n[sweep]\nrun.deadlock_timeout = 1ms, 0\nrun.seed = 1..2\n' >> "$tmp/exp/ring.ini"
cat > "$tmp/exp/ring.exp" <<'EXP'
[experiment]
title = ring
sweep = ring.ini
quick = ring.ini
rows = run.deadlock_timeout
figures = none
[metrics]
runs = sum runs | runs
deadlocks = sum deadlocked | deadlocked runs
at = deadlock_ms | at (ms)
[paper]
1ms = every run deadlocks
EXP
ROCESIM_EXPERIMENTS=$tmp/exp "$bin" reproduce ring --quick --out "$tmp/ring" > "$tmp/ring.out" 2>"$tmp/ring.err"
check test $? -eq 0
check grep -q '4 runs: 4 ok (4 run now, 0 complete before), 0 failed, 0 interrupted, 0 pending' "$tmp/ring.err"
check grep -q '^| 1ms | 2 | 2 | 1.0[0-9]* | every run deadlocks |$' "$tmp/ring/table.md"
check grep -q '^| 0 | 2 | 0 | - |  |$' "$tmp/ring/table.md"
# FLB's metric kinds on a dumbbell (40 Gbps hosts, a 10 Gbps link between the
# switches, 1 MB buffers): a lone 1 MB flow, whose goodput
# (bytes over first start to last finish) times its AFCT is exactly its 8e6
# bits; 8 such flows into one receiver take the 10 Gbps link as well; the
# PAUSE rate of a non-Poisson run is its frames per second of simulated time.
cat > "$tmp/exp/m.ini" <<'INI'
[topology]
type = dumbbell
senders = 8
receivers = 1
host_link = 40Gbps
fabric_link = 10Gbps
[switch]
buffer = 1MB
[transport]
cc = none
[traffic]
pattern = burst
senders = 0
receiver = 8
count = 1
size = 1MB
[sweep]
traffic.senders = 0, 0-7
INI
cat > "$tmp/exp/m.exp" <<'EXP'
[experiment]
title = metrics
sweep = m.ini
quick = m.ini
rows = traffic.senders
figures = none
[metrics]
g = goodput | goodput
a = fct_avg inf | afct
p = pause_rate all | prate
q = per pfc_pause_frames sim_time_ns 1e9 | per s
EXP
ROCESIM_EXPERIMENTS=$tmp/exp "$bin" reproduce m --quick --out "$tmp/m" > /dev/null 2>"$tmp/m.err"
check test $? -eq 0
mcol() { awk -F'|' -v r="$1" -v c="$2" '$2 == " " r " " { gsub(/ /, "", $c); print $c }' "$tmp/m/table.md"; }
check awk -v g="$(mcol 0 3)" -v a="$(mcol 0 4)" 'BEGIN { exit !(g > 8 && g < 10 && g * a > 7950 && g * a < 8050) }'
for r in 0 0-7; do # the 40 -> 10 Gbps step pauses even a lone flow (no CC)
    check awk -v p="$(mcol $r 5)" -v q="$(mcol $r 6)" 'BEGIN { exit !(p > 0 && p == q) }'
done
check awk -v g="$(mcol 0-7 3)" 'BEGIN { exit !(g > 8 && g < 10) }' # 8 MB through the 10 Gbps link

# FLB's four experiments are listed, and each sweep file (full and quick)
# passes the scenario checks (a run of its base values cut at 1 ns) and has
# every variant section; a second variant key (variant_NAME) crosses bundles.
for n in flb-fig2 flb-fig14 flb-fig16 flb-fig17; do
    check grep -q "^    $n " "$tmp/list"
    for f in "$src/experiments/$n.ini" "$src/experiments/$n-quick.ini"; do
        check "$bin" run "$f" --set run.stop=1ns --quiet --out "$tmp/flbchk" 2>>"$tmp/flbchk.err"
    done
done
printf '[topology]\ntype = dumbbell\nsenders = 1\nreceivers = 1\n[flow.a]\nsrc = 0\ndst = 1\nsize = 10KB\n' > "$tmp/v3.ini"
printf '[sweep]\nvariant = p, q\nvariant_s = s1, s2\n[variant.p]\ntransport.cc = none\n[variant.q]\ntransport.cc = dcqcn\n' >> "$tmp/v3.ini"
printf '[variant.s1]\nflow.a.size = 1KB\n[variant.s2]\nflow.a.size = 2KB\n' >> "$tmp/v3.ini"
"$bin" sweep "$tmp/v3.ini" --out "$tmp/v3" --jobs 1 > /dev/null 2>"$tmp/errv3"
check test $? -eq 0
check grep -q '^cc = dcqcn' "$tmp/v3/variant=q_variant_s=s2/scenario.ini"
check grep -q '^size = 2KB' "$tmp/v3/variant=q_variant_s=s2/scenario.ini"
check grep -q '^size = 1KB' "$tmp/v3/variant=p_variant_s=s1/scenario.ini"
echo "cli_reproduce: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
