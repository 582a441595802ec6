#!/bin/bash
# rocesim plot: figures from a tiny sweep and from run folders with monitors,
# as PNG and SVG; and a clear error when gnuplot is missing.
# Exits 77 (skipped) without gnuplot.  usage: cli_plot.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"
# without gnuplot on PATH: exit 2 and a message naming the package
env PATH=/nonexistent "$bin" plot "$tmp" >/dev/null 2>"$tmp/err"
check test $? -eq 2
check grep -q 'gnuplot not found.*gnuplot-nox' "$tmp/err"
if ! command -v gnuplot >/dev/null; then
    echo "cli_plot: SKIPPED: no gnuplot (Debian gnuplot-nox)"
    exit 77
fi
"$bin" sweep "$src/tests/data/sweep-tiny.ini" --quiet --out "$tmp/s" || check false sweep
mon=(--set output.queue_ports=layer:edge --set output.util_ports=layer:edge --set output.paused_interval=10us)
"$bin" run "$src/tests/data/sweep-tiny.ini" --quiet "${mon[@]}" --out "$tmp/dcqcn" || check false run dcqcn
"$bin" run "$src/tests/data/sweep-tiny.ini" --quiet "${mon[@]}" --set transport.cc=hpcc --out "$tmp/hpcc" || check false run hpcc
"$bin" plot "$tmp/s" "$tmp/dcqcn" "$tmp/hpcc" --out "$tmp/fig" >"$tmp/out" 2>&1
check test $? -eq 0
for f in afct_vs_load p99_slowdown_vs_load pause_frames_vs_load slowdown_vs_size fct_cdf pfc_by_layer \
         queue_over_time util_over_time paused_ports_over_time; do
    check test "$(head -c 4 "$tmp/fig/$f.png" | od -An -c | tr -d ' ')" = '211PNG'
    check test "$(stat -c %s "$tmp/fig/$f.png")" -gt 5000
    check grep -q '<svg' "$tmp/fig/$f.svg"
done
# the legend names the schemes, the axes say their units
check grep -q 'cc=hpcc' "$tmp/fig/afct_vs_load.svg"
check grep -q 'AFCT (us)' "$tmp/fig/afct_vs_load.svg"
check grep -q 'queue (KB)' "$tmp/fig/queue_over_time.svg"
# the plotted numbers are the table's: AFCT of dcqcn at load 0.3
want=$(grep '^cc=dcqcn_load=0.3,' "$tmp/s/sweep.csv" | cut -d, -f7)
check awk -v w="$want" '$2 == "0.3" && $3 + 0 == w + 0 { ok = 1 } END { exit !ok }' "$tmp/fig/data/afct_vs_x.dat"
check grep -q '^10 figures' "$tmp/out"
# a collective run: its iteration times (collective.csv's time_ns, in us)
printf '[topology]\nleaves = 2\nspines = 1\nhosts_per_leaf = 2\n[traffic]\npattern = collective\nsize = 40KB\niterations = 3\n' >"$tmp/coll.ini"
"$bin" run "$tmp/coll.ini" --quiet --out "$tmp/coll" || check false run collective
"$bin" plot "$tmp/coll" --out "$tmp/figc" >/dev/null 2>&1
check test $? -eq 0
check grep -q '<svg' "$tmp/figc/collective_iterations.svg"
check grep -q 'coll: traffic' "$tmp/figc/collective_iterations.svg"
want=$(awk -F, 'NR == 3 { printf "%.3f", $9 / 1000 }' "$tmp/coll/collective.csv")
check awk -v w="$want" '$1 == 1 && $2 == w { ok = 1 } END { exit !ok }' "$tmp/figc/data/collective_0.dat"
# a folder without fct.csv: the report reader's message, exit 2
mkdir "$tmp/empty"
"$bin" plot "$tmp/empty" --out "$tmp/fig2" >/dev/null 2>"$tmp/err"
check test $? -eq 2
check grep -q "$tmp/empty/fct.csv: cannot open" "$tmp/err"
echo "cli_plot: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
