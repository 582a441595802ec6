#!/bin/bash
# A reproduce table never hides an unfinished run: Ctrl-C (SIGINT) in the
# middle of `rocesim reproduce`, then `--no-run`. sweep.csv says which run was
# interrupted and which never ran; the sweep's summary line counts them; the
# table leaves them out of their cells, each short cell says "(K of N runs)",
# a line below counts the runs left out and one says how many runs a cell
# holds. The cell whose finished run sits beside an interrupted one shows the
# finished run's value alone (flows_unfinished 0, where the interrupted run's
# partial summary.json has unfinished flows).
# usage: cli_reproduce_unfinished.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"
mkdir "$tmp/exp"
# two schemes x two seeds, seeds varying fastest: the first two points are one cell;
# each run long enough (60 ms of traffic) to be caught while it runs
sed -e 's/^duration = 0.3ms/duration = 60ms/' -e 's/^traffic.load = .*/run.seed = 1, 2/' \
    "$src/tests/data/sweep-tiny.ini" >"$tmp/exp/t.ini"
cat >"$tmp/exp/t.exp" <<'X'
[experiment]
title = unfinished runs
sweep = t.ini
rows = transport.cc

[metrics]
unf = summary flows_unfinished | unfinished flows
X
ROCESIM_EXPERIMENTS=$tmp/exp "$bin" reproduce t --out "$tmp/r" --jobs 1 >"$tmp/out" 2>"$tmp/err" &
pid=$!
# wait until the first run is complete and the second is simulating, then Ctrl-C: its output files
# are open in its temporary folder (output_open, set-up's last step; a signal before it cuts the
# set-up, and such a run writes nothing, so the check below would test the machine's speed)
for _ in $(seq 1 1200); do
    n=$(ls "$tmp"/r/runs/*/summary.json 2>/dev/null | wc -l)
    [ "$n" -ge 1 ] && compgen -G "$tmp/r/runs/*/.rocesim-run-*/pfc.csv" >/dev/null && break
    sleep 0.05
done
sleep 0.2
kill -INT $pid
wait $pid
check test $? -eq 130
csv=$tmp/r/runs/sweep.csv
check test "$(grep -c ',ok,' "$csv")" -eq 1
check test "$(grep -c ',interrupted,' "$csv")" -eq 1
check test "$(grep -c ',pending,' "$csv")" -eq 2
check grep -q 'sweep: 4 runs: 1 ok (1 run now, 0 complete before), 0 failed, 1 interrupted, 2 pending (rerun the sweep to finish them)' "$tmp/err"
# the interrupted run left a partial summary.json with unfinished flows: it must not enter the table
irun=$(awk -F, '$0 ~ /,interrupted,/ { print $1 }' "$csv")
check grep -q '"interrupted": true' "$tmp/r/runs/$irun/summary.json"
check grep -Eq '"flows_unfinished": [1-9]' "$tmp/r/runs/$irun/summary.json"
ROCESIM_EXPERIMENTS=$tmp/exp "$bin" reproduce t --out "$tmp/r" --no-run >"$tmp/out2" 2>&1
check test $? -eq 0
t=$tmp/r/table.md
check grep -q '^| dcqcn | 0 (1 of 2 runs) |' "$t"
check grep -q '^| hpcc | - (0 of 2 runs) |' "$t"
check grep -q '^3 of 4 runs are not finished (interrupted, failed or not run yet) and are left out' "$t"
check grep -q '^Each cell: 2 runs (seeds) of its point' "$t"
check grep -q '(1 of 2 runs)' "$tmp/out2"
# finished: every cell whole, no marks
ROCESIM_EXPERIMENTS=$tmp/exp "$bin" reproduce t --out "$tmp/r" --jobs 2 >"$tmp/out3" 2>"$tmp/err3"
check test $? -eq 0
check grep -q 'sweep: 4 runs: 4 ok (3 run now, 1 complete before), 0 failed, 0 interrupted, 0 pending ->' "$tmp/err3"
check grep -q '^| dcqcn | 0 |' "$t"
check test "$(grep -c 'of 2 runs\|not finished' "$t")" -eq 0
echo "cli_reproduce_unfinished: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
