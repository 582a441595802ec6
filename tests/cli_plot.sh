#!/bin/bash
# rocesim plot, report --html and reproduce figures: PNG and SVG from a tiny
# sweep with two seeds, from run folders with monitors and PFC, and from a
# tiny experiment; for each figure kind, assertions on the gnuplot script it
# writes (legend labels, one style per series, error bars over seeds, fitted
# ranges, µs, --no-title) and on figures left out when all zero; a clear
# error when gnuplot is missing.
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
png_ok() { # a real PNG and an SVG beside it
    test "$(head -c 4 "$1.png" | od -An -c | tr -d ' ')" = '211PNG' && test "$(stat -c %s "$1.png")" -gt 5000 &&
        grep -q '<svg' "$1.svg"
}
# the tiny 2 x 2 sweep, with two seeds per point
{ cat "$src/tests/data/sweep-tiny.ini"; echo "run.seed = 1, 2"; } >"$tmp/seeds.ini"
"$bin" sweep "$tmp/seeds.ini" --quiet --out "$tmp/s" >/dev/null || check false sweep
"$bin" plot "$tmp/s" --out "$tmp/fs" >"$tmp/out" 2>"$tmp/err"
check test $? -eq 0
for f in afct_vs_load p99_slowdown_vs_load slowdown_vs_size_load_0.3 slowdown_vs_size_load_0.5; do
    check png_ok "$tmp/fs/$f"
done
gp=$tmp/fs/afct_vs_load.gp
# metric vs x: the legend is the scheme's name, not a folder fragment; seeds
# averaged with min-max error bars; a dash pattern and point type per series;
# µs; x range fitted around 0.3..0.5; y from 0
check grep -q "t 'dcqcn'" "$gp"
check grep -q "t 'hpcc'" "$gp"
check test "$(grep -c "cc=" "$gp")" -eq 0
# error bars solid (dt 1) in the series' colour, the line with its own dash pattern and points
check grep -q "u (\$1-[0-9.]*):3:4:5 w yerrorbars lw 1.5 lc rgb '#0072B2' dt 1 ps 0 notitle" "$gp"
check grep -q "u (\$1-[0-9.]*):3 w lp lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 1.1 t 'dcqcn'" "$gp"
check grep -q "u (\$1+[0-9.]*):6:7:8 w yerrorbars lw 1.5 lc rgb '#D55E00' dt 1 ps 0 notitle" "$gp"
check grep -q "u (\$1+[0-9.]*):6 w lp .*dt 2 pt 5.*t 'hpcc'" "$gp"
# paper-ready: a PDF beside the PNG and SVG, text at 10 pt on a 4.8 in canvas
check test "$(head -c 4 "$tmp/fs/afct_vs_load.pdf")" = '%PDF'
check grep -q "set terminal pdfcairo size 4.80in,3.[0-9]*in font 'DejaVu Sans,10'" "$gp"
check grep -q "set ylabel 'average FCT (µs)'" "$gp"
check grep -q "mean of 2 seeds, bars: min-max" "$gp"
check grep -q "set key below" "$gp"
check grep -Eq "set xrange \[0\.29[0-9]*:0\.51[0-9]*\]" "$gp"
check grep -Eq "set yrange \[0:[0-9.]+\]" "$gp"
# the plotted numbers are the table's: AFCT of dcqcn at load 0.3, mean of the seeds
want=$(awk -F, '$2 == "dcqcn" && $3 == "0.3" { s += $8; n++ } END { printf "%.3f", s / n }' "$tmp/s/sweep.csv")
check awk -v w="$want" '$2 == "0.3" && ($3 - w < 0.01 && w - $3 < 0.01) { ok = 1 } END { exit !ok }' "$tmp/fs/data/afct_vs_x.dat"
# all PAUSE frame counts are 0 in this sweep: that figure is left out, and said so
check test ! -e "$tmp/fs/pause_frames_vs_load.png"
check grep -q 'pause_frames_vs_load: every value is 0, figure left out' "$tmp/err"
# slowdown by size of a sweep: a figure per load, one line per scheme, log x fitted to the sizes
gp=$tmp/fs/slowdown_vs_size_load_0.3.gp
check grep -q "at load = 0.3" "$gp"
check grep -q "set logscale x" "$gp"
check grep -Eq "set xrange \[[0-9.]+:[0-9.]+\]" "$gp"
check grep -q "index 1 u 1:5:6:7 w yerrorbars .*dt 1 ps 0 notitle" "$gp"
check grep -q "index 1 u 1:5 w lp .*dt 2 pt 5.*t 'hpcc'" "$gp"
# log axes: a labelled tick per decade from the decade below the data, minor ticks between
check grep -Eq "set xtics (0\.1|1|10|100), 10 format '%g'" "$gp"
check grep -q "set mxtics 10" "$gp"
# more than 8 lines (3 schemes x 3 workloads): a panel per workload, a line per scheme, one legend
sed -e 's/^transport.cc = dcqcn, hpcc/transport.cc = dcqcn, hpcc, timely\ntraffic.cdf = web_search, fb_hadoop, data_mining/' \
    -e 's/^duration = 0.3ms/duration = 1ms/' \
    "$src/tests/data/sweep-tiny.ini" >"$tmp/many.ini"
"$bin" sweep "$tmp/many.ini" --quiet --out "$tmp/m" >/dev/null || check false sweep many
"$bin" plot "$tmp/m" --out "$tmp/fm" >/dev/null 2>&1
check test $? -eq 0
check png_ok "$tmp/fm/afct_vs_load"
gp=$tmp/fm/afct_vs_load.gp
check grep -q "set multiplot layout 2,2 margins" "$gp"
check grep -q "set title 'cdf = data_mining'" "$gp"
check grep -q "index 2 u 1:9 w lp.*dt 3 pt 9.*t 'timely'" "$gp"
check test "$(grep -c 'set key at screen' "$gp")" -eq 3 # one legend, in PDF, PNG and SVG
# a panel whose values are all 0 beside one that is not (PAUSEs under one
# workload only): the figure is drawn, the zero panel gets a range gnuplot
# accepts ([0:0] made gnuplot fail on the whole figure)
mkdir -p "$tmp/mz"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pause_frames") c = i; print; next }
    /cdf=fb_hadoop/ { $c = 10 + NR } { print }' "$tmp/m/sweep.csv" >"$tmp/mz/sweep.csv"
"$bin" plot "$tmp/mz/sweep.csv" --out "$tmp/fz" >/dev/null 2>"$tmp/errz"
check test $? -eq 0
check png_ok "$tmp/fz/pause_frames_vs_load"
check test "$(grep -c 'set yrange \[0:0\]' "$tmp/fz/pause_frames_vs_load.gp")" -eq 0
check grep -Eq 'set yrange \[0:0\.5[0-9]*\]' "$tmp/fz/pause_frames_vs_load.gp"
# --no-title: no figure titles
"$bin" plot "$tmp/s" --no-title --out "$tmp/fn" >/dev/null 2>&1
check test $? -eq 0
check test "$(grep -c '^set title' "$tmp/fn/afct_vs_load.gp")" -eq 0
check test "$(grep -c 'multiplot title' "$tmp/fn/slowdown_vs_size_load_0.3.gp")" -eq 0
check png_ok "$tmp/fn/afct_vs_load"

# run folders: two schemes x two seeds, with monitors and PFC (a 400 KB buffer at load 0.8)
mon=(--set output.queue_ports=layer:edge --set output.util_ports=layer:edge --set output.paused_interval=10us
     --set switch.buffer=400KB --set traffic.load=0.8)
for cc in dcqcn hpcc; do
    for seed in 1 2; do
        "$bin" run "$src/tests/data/sweep-tiny.ini" --quiet "${mon[@]}" --set transport.cc=$cc --set run.seed=$seed \
            --out "$tmp/$cc$seed" || check false run $cc $seed
    done
done
"$bin" plot "$tmp/dcqcn1" "$tmp/dcqcn2" "$tmp/hpcc1" "$tmp/hpcc2" --out "$tmp/fr" >"$tmp/out" 2>&1
check test $? -eq 0
for f in slowdown_vs_size fct_cdf pfc_by_layer queue_over_time util_over_time paused_ports_over_time; do
    check png_ok "$tmp/fr/$f"
done
# labels from the setting that differs (transport.cc), the seeds pooled into one series
gp=$tmp/fr/fct_cdf.gp
check grep -q "t 'dcqcn'" "$gp"
check grep -q "t 'hpcc'" "$gp"
check test "$(grep -c " t '" "$gp")" -eq 6 # two series, PDF, PNG and SVG
check grep -q "flows of 2 seeds pooled" "$gp"
check grep -q "set xlabel 'FCT (µs)'" "$gp"
check grep -q "w l lw 2 lc rgb '#D55E00' dt 2 t 'hpcc'" "$gp"
check grep -Eq "set xrange \[[0-9.]+:[0-9.]+\]" "$gp"
# slowdown by size of runs: p50 and p99 panels, min-max bars of the seeds, one legend
gp=$tmp/fr/slowdown_vs_size.gp
check grep -q "flows of 2 seeds pooled, bars: min-max of the seeds" "$gp"
check grep -q "index 0 u 1:2:3:4 w yerrorbars" "$gp"
check test "$(grep -c 'set key at screen' "$gp")" -eq 3 # once per terminal
# PFC by layer: the leaf-spine has no core layer, so no core bars; seeds as error bars
check test "$(grep -c '^core' "$tmp/fr/data/pfc_layers.dat")" -eq 0
check grep -q '^agg' "$tmp/fr/data/pfc_layers.dat"
check grep -q "set style histogram errorbars" "$tmp/fr/pfc_by_layer.gp"
check grep -q "u 2:3:4:xtic(1).*fs solid.*t 'dcqcn'" "$tmp/fr/pfc_by_layer.gp"
check grep -q "u 8:9:10:xtic(1).*fs pattern 4.*t 'hpcc'" "$tmp/fr/pfc_by_layer.gp"
# monitors: a panel per run titled with its label and seed, same y range in all
check grep -q "set title 'hpcc (seed run 2)'" "$tmp/fr/paused_ports_over_time.gp"
check grep -Eq "set yrange \[0:[0-9.]+\]" "$tmp/fr/paused_ports_over_time.gp"
# a run without any PAUSE: no PFC figure, said so
"$bin" run "$src/tests/data/sweep-tiny.ini" --quiet --out "$tmp/calm" || check false run calm
"$bin" plot "$tmp/calm" --out "$tmp/fc" >/dev/null 2>"$tmp/err"
check test $? -eq 0
check test ! -e "$tmp/fc/pfc_by_layer.png"
check grep -q 'pfc_by_layer: no port was paused' "$tmp/err"
check grep -q 'pfc_by_layer' "$tmp/fc/notes.txt"

# reproduce: a tiny experiment; legends and bars by its [labels], seeds as error bars
mkdir "$tmp/exp"
cp "$tmp/seeds.ini" "$tmp/exp/t.ini"
cat >"$tmp/exp/t.exp" <<'EOF'
[experiment]
title = tiny
sweep = t.ini
rows = transport.cc
columns = traffic.load
figures = runs
figure = pk

[labels]
dcqcn = DCQCN
hpcc = HPCC

[metrics]
pk = fct_avg inf | AFCT (us)
EOF
ROCESIM_EXPERIMENTS=$tmp/exp "$bin" reproduce t --out "$tmp/r" --jobs 1 >"$tmp/out" 2>&1
check test $? -eq 0
check png_ok "$tmp/r/figures/t"
check grep -q "set style histogram errorbars" "$tmp/r/figures/t.gp"
check grep -q "t 'load = 0.3'" "$tmp/r/figures/t.gp"
check grep -q "set ylabel 'AFCT (µs)'" "$tmp/r/figures/t.gp" # the table's "(us)" as µs
check grep -q '^"DCQCN"' "$tmp/r/figures/data/t.dat"
check grep -q "t 'HPCC, load = 0.5'" "$tmp/r/figures/fct_cdf.gp"
check png_ok "$tmp/r/figures/fct_cdf"

# report --html of a sweep: its figures include slowdown by size
"$bin" report --html "$tmp/s" --out "$tmp/s.html" 2>/dev/null
check test $? -eq 0
check grep -q 'alt="slowdown_vs_size_load_0.5.png"' "$tmp/s.html"
check grep -q 'Not drawn:' "$tmp/s.html"

# a collective run: its iteration times (collective.csv's time_ns, in us)
printf '[topology]\nleaves = 2\nspines = 1\nhosts_per_leaf = 2\n[traffic]\npattern = collective\nsize = 40KB\niterations = 3\n' >"$tmp/coll.ini"
"$bin" run "$tmp/coll.ini" --quiet --out "$tmp/coll" || check false run collective
"$bin" plot "$tmp/coll" --out "$tmp/figc" >/dev/null 2>&1
check test $? -eq 0
check grep -q '<svg' "$tmp/figc/collective_iterations.svg"
check test "$(head -c 4 "$tmp/figc/collective_iterations.pdf")" = '%PDF'
# in the one style: whole iterations on x, µs, the same series style as every figure
gp=$tmp/figc/collective_iterations.gp
check grep -q "set xtics 1 format '%.0f'" "$gp"
check grep -q "set ylabel 'iteration time (µs)'" "$gp"
check grep -q "u 1:2 w lp lw 2 lc rgb '#0072B2' dt 1 pt 7" "$gp"
check grep -q "set terminal pdfcairo" "$gp"
want=$(awk -F, 'NR == 3 { printf "%.3f", $9 / 1000 }' "$tmp/coll/collective.csv")
check awk -v w="$want" '$1 == 1 && $2 == w { ok = 1 } END { exit !ok }' "$tmp/figc/data/collective_0.dat"
# a categorical sweep (scheme names on x): points with solid min-max bars, no
# line joining ecmp, spray, ...; a tick per scheme named through --label;
# slowdown by size one figure with every scheme; the collective's iteration
# time and busbw against the scheme
printf '[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n[traffic]\npattern = collective\nsize = 200KB\niterations = 3\n[sweep]\nlb.scheme = ecmp, spray\nrun.seed = 1, 2\n' >"$tmp/cat.ini"
"$bin" sweep "$tmp/cat.ini" --quiet --out "$tmp/cat" >/dev/null 2>&1 || check false sweep cat
"$bin" plot "$tmp/cat" --out "$tmp/fcat" --label ecmp=ECMP --label spray=Spray >/dev/null 2>"$tmp/errcat"
check test $? -eq 0
gp=$tmp/fcat/afct_vs_scheme.gp
check grep -q "set xtics ('ECMP' 0, 'Spray' 1)" "$gp"
check grep -q "u 0:3:4:5 w yerrorbars lw 1.5 lc rgb '#0072B2' dt 1 ps 0 notitle" "$gp"
check grep -q "u 0:3 w p lc rgb '#0072B2' pt 7 ps 1.1 t 'all runs'" "$gp"
check test "$(grep -c ' w lp ' "$gp")" -eq 0
for f in iteration_time_vs_scheme busbw_vs_scheme slowdown_vs_size; do
    check png_ok "$tmp/fcat/$f"
done
check test "$(ls "$tmp/fcat" | grep -c '^slowdown_vs_size.*\.gp$')" -eq 1
check grep -q "t 'ECMP'" "$tmp/fcat/slowdown_vs_size.gp"
check grep -q "t 'Spray'" "$tmp/fcat/slowdown_vs_size.gp"
"$bin" plot "$tmp/cat" --label ecmp >/dev/null 2>"$tmp/errl"
check test $? -eq 2
check grep -q -- '--label needs VALUE=LABEL, got ecmp' "$tmp/errl"
# the flow-rate legend names a [flow.NAME] flow by its name
{ cat "$src/tests/data/sweep-tiny.ini" | sed '/^\[sweep\]/,$d'; printf '[flow.F0]\nsrc = 0\ndst = 5\nsize = 200KB\n[output]\nflows = F0\n'; } >"$tmp/named.ini"
"$bin" run "$tmp/named.ini" --quiet --out "$tmp/named" || check false run named
"$bin" plot "$tmp/named" --out "$tmp/fnamed" >/dev/null 2>&1
check grep -q "t 'F0'" "$tmp/fnamed/flow_rate_over_time.gp"
# the HTML page of a sweep folder has a statistics section of its finished runs
"$bin" report --html "$tmp/cat" --out "$tmp/cat.html" 2>/dev/null
check grep -q '<h3>Statistics of its 4 finished runs (rocesim report)</h3>' "$tmp/cat.html"
check grep -q 'alt="iteration_time_vs_scheme.png"' "$tmp/cat.html"

# a run in which no flow finished: the FCT CDF and slowdown figures are left out, said so, exit 0
"$bin" run "$src/tests/data/sweep-tiny.ini" --quiet --set run.stop=2us --out "$tmp/nofin" >/dev/null 2>&1
"$bin" plot "$tmp/nofin" --out "$tmp/fignf" >/dev/null 2>"$tmp/errnf"
check test $? -eq 0
check grep -q 'fct_cdf: no finished flows in any run, figure left out' "$tmp/errnf"
check test ! -e "$tmp/fignf/fct_cdf.png"
# a folder without fct.csv: the report reader's message, exit 2
mkdir "$tmp/empty"
"$bin" plot "$tmp/empty" --out "$tmp/fig2" >/dev/null 2>"$tmp/err"
check test $? -eq 2
check grep -q "$tmp/empty/fct.csv: cannot open" "$tmp/err"
echo "cli_plot: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
