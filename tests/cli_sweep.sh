#!/bin/bash
# rocesim sweep on a tiny 2 x 2 grid: the table, that a swept run is the run
# `rocesim run --set` gives, resume after broken runs, --shard, and input
# errors in [sweep] (file:line, exit 2).
# usage: cli_sweep.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
grid=$src/tests/data/sweep-tiny.ini
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
check() { if "$@"; then ok; else bad "$*"; fi; }
# The table without its last column (wall_s), rows sorted.
strip() { sed 's/,[^,]*$//' "$@" | sort; }

"$bin" sweep "$grid" --jobs 2 --out "$tmp/s" 2>"$tmp/err1" || { cat "$tmp/err1"; bad "sweep exit code"; }
csv=$tmp/s/sweep.csv
check test "$(wc -l < "$csv")" -eq 5
check test "$(grep -c ',ok,' "$csv")" -eq 4
check grep -q '^run,transport.cc,traffic.load,status,flows,finished,afct_us,' "$csv"
check grep -q '^cc=hpcc_load=0.5,hpcc,0.5,ok,' "$csv"
check grep -q '^cc=dcqcn_load=0.3,dcqcn,0.3,ok,' "$csv"
# the saved scenario is the resolved one, and it is what ran: the same fct.csv as run --set
d="$tmp/s/cc=hpcc_load=0.5"
check grep -q '^cc = hpcc' "$d/scenario.ini"
check grep -q '^load = 0.5' "$d/scenario.ini"
check grep -q '^; \[sweep\]' "$d/scenario.ini"
"$bin" run "$grid" --quiet --set transport.cc=hpcc --set traffic.load=0.5 --out "$tmp/direct" || bad "direct run"
check cmp -s "$d/fct.csv" "$tmp/direct/fct.csv"
# more load, more flows: the rows are not copies of each other
f3=$(grep '^cc=dcqcn_load=0.3' "$csv" | cut -d, -f6)
f5=$(grep '^cc=dcqcn_load=0.5' "$csv" | cut -d, -f6)
check test "$f5" -gt "$f3"

# Resume: break two runs (summary.json cut short, summary.json gone); a rerun
# redoes those two only and the table is the same.
keep1="$tmp/s/cc=dcqcn_load=0.3" keep2="$tmp/s/cc=hpcc_load=0.3"
m1=$(stat -c %y "$keep1/summary.json") m2=$(stat -c %y "$keep2/fct.csv")
head -c 40 "$tmp/s/cc=dcqcn_load=0.5/summary.json" > "$tmp/cut" && mv "$tmp/cut" "$tmp/s/cc=dcqcn_load=0.5/summary.json"
rm "$tmp/s/cc=hpcc_load=0.5/summary.json"
cp "$csv" "$tmp/first.csv"
"$bin" sweep "$grid" --jobs 2 --out "$tmp/s" 2>"$tmp/err2" || bad "resumed sweep exit code"
check grep -q '4 here (2 complete already)' "$tmp/err2"
check test "$(grep -c '\] .* ok ' "$tmp/err2")" -eq 2
check test "$m1" = "$(stat -c %y "$keep1/summary.json")"
check test "$m2" = "$(stat -c %y "$keep2/fct.csv")"
check grep -q '"flows_completed"' "$tmp/s/cc=hpcc_load=0.5/summary.json"
check test "$(strip "$tmp/first.csv")" = "$(strip "$csv")"
# nothing left to do: nothing runs
"$bin" sweep "$grid" --out "$tmp/s" 2>"$tmp/err3" || bad "third sweep exit code"
check grep -q '4 here (4 complete already)' "$tmp/err3"

# Shards: their union is the whole table.
"$bin" sweep "$grid" --jobs 1 --shard 0/2 --out "$tmp/sh" 2>/dev/null || bad "shard 0"
"$bin" sweep "$grid" --jobs 1 --shard 1/2 --out "$tmp/sh" 2>/dev/null || bad "shard 1"
check test "$(grep -vc '^run,' "$tmp/sh/sweep.shard-0-of-2.csv")" -eq 2
check test "$(cat "$tmp/sh"/sweep.shard-*-of-2.csv | grep -v '^run,' | strip)" = "$(grep -v '^run,' "$csv" | strip)"

# Input errors: file:line and exit 2, before anything runs.
expect_err() { # NAME PREFIX SWEEP_LINE
    printf '[traffic]\nduration = 0.1ms\n[sweep]\n%s\n' "$3" > "$tmp/bad.ini"
    "$bin" sweep "$tmp/bad.ini" --out "$tmp/badout" >/dev/null 2>"$tmp/err"
    code=$?
    if [ $code -eq 2 ] && grep -q "^$tmp/bad.ini:4: $2" "$tmp/err"; then ok; else
        bad "$1: exit $code, stderr: $(cat "$tmp/err")"; fi
}
expect_err "unknown key" "unknown key 'nosuch' in \[transport\]" "transport.nosuch = 1, 2"
expect_err "unknown section" "unknown section \[nosuch\]" "nosuch.key = 1, 2"
expect_err "not section.key" "\[sweep\] key 'load' is not section.key" "load = 0.3, 0.4"
expect_err "bad value" "unknown congestion control 'nosuch'" "transport.cc = dcqcn, nosuch"
expect_err "bad range" "\[sweep\] traffic.load: range LO:HI:STEP with HI < LO" "traffic.load = 0.8:0.3:0.1"
expect_err "bad int range" "\[sweep\] run.seed: a range LO..HI needs two whole numbers" "run.seed = 1..x"
expect_err "empty item" "\[sweep\] transport.cc: empty value" "transport.cc = dcqcn,,hpcc"
"$bin" sweep "$grid" --shard 2/2 >/dev/null 2>&1; check test $? -eq 2
"$bin" sweep "$grid" --jobs 0 >/dev/null 2>&1; check test $? -eq 2
# nothing to sweep: an INI file without [sweep], or an ns-3 config
printf '[traffic]\nduration = 0.1ms\n' > "$tmp/nosweep.ini"
"$bin" sweep "$tmp/nosweep.ini" --out "$tmp/ns" >/dev/null 2>"$tmp/err"
check test $? -eq 2
check grep -q "^$tmp/nosweep.ini: no \[sweep\] section" "$tmp/err"
# a point that is invalid as a whole (kmin > kmax) is an input error too
printf '[traffic]\nduration = 0.1ms\n[switch]\nkmax = 100KB\n[sweep]\nswitch.kmin = 50KB, 200KB\n' > "$tmp/combo.ini"
"$bin" sweep "$tmp/combo.ini" --out "$tmp/combo" >/dev/null 2>"$tmp/err"
check test $? -eq 2
check grep -q "^$tmp/combo.ini:6: \[sweep\] point kmin=200KB: switch.kmin (200KB) > switch.kmax" "$tmp/err"
check test ! -e "$tmp/combo/sweep.csv"

# [cc.NAME] keys in a sweep whose points switch schemes: no warning when some
# point uses them (not one per point that does not); one warning, naming the
# key, when no point does
{ sed '/^\[sweep\]/,$d' "$src/tests/data/sweep-tiny.ini"; printf '[cc.dcqcn]\nprofile = paper\n[sweep]\ntransport.cc = dcqcn, hpcc\n'; } >"$tmp/uk.ini"
"$bin" sweep "$tmp/uk.ini" --out "$tmp/uk" --quiet >/dev/null 2>"$tmp/err"
check test $? -eq 0
check test "$(grep -c 'warning' "$tmp/err")" -eq 0
sed -i 's/^transport.cc = dcqcn, hpcc/transport.cc = timely, hpcc/' "$tmp/uk.ini"
"$bin" sweep "$tmp/uk.ini" --out "$tmp/uk2" --quiet >/dev/null 2>"$tmp/err"
check test $? -eq 0
check test "$(grep -c 'warning' "$tmp/err")" -eq 1
check grep -q 'warning: .*scenario.ini:[0-9]*: cc.dcqcn.profile is set, but none of the 2 points run here uses it' "$tmp/err"

# a sweep over collectives: sweep.csv has each run's iteration time (mean, p99)
# and busbw, the mean of collective.csv's iterations, as summary.json states them;
# a sweep without collectives leaves those columns empty
printf '[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n[traffic]\npattern = collective\nsize = 200KB\niterations = 3\n[sweep]\nlb.scheme = ecmp, spray\n' >"$tmp/coll.ini"
"$bin" sweep "$tmp/coll.ini" --quiet --out "$tmp/coll" >/dev/null 2>&1
check test $? -eq 0
check grep -q ',sim_ms,iter_us,iter_p99_us,busbw_GBps,wall_s$' "$tmp/coll/sweep.csv"
for sch in ecmp spray; do
    row=$(grep "^scheme=$sch," "$tmp/coll/sweep.csv")
    js=$tmp/coll/scheme=$sch/summary.json
    mean=$(grep -o '"iteration_us": {"mean": [0-9.]*' "$js" | grep -o '[0-9.]*$')
    bus=$(grep -o '"busbw_GBps": [0-9.]*' "$js" | head -1 | grep -o '[0-9.]*$')
    check test "$(awk -F, '{ print $(NF-3) }' <<<"$row")" = "$mean"
    check test "$(awk -F, '{ print $(NF-1) }' <<<"$row")" = "$bus"
done
check test "$(awk -F, 'NR > 1 { print $(NF-3) $(NF-2) $(NF-1) }' "$tmp/s/sweep.csv" | sort -u)" = ""

echo "cli_sweep: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
