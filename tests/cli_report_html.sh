#!/bin/bash
# rocesim report --html: one self-contained page (figures as data: URIs, the
# report tables, a sweep's table, each run's scenario) that headless
# Chromium renders with every figure decoded (the page's own script puts the
# count in its title). Exits 77 (skipped) without gnuplot or chromium.
# usage: cli_report_html.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"
if ! command -v gnuplot >/dev/null; then
    echo "cli_report_html: SKIPPED: no gnuplot (Debian gnuplot-nox), so no figures to check"
    exit 77
fi
grid=$src/tests/data/sweep-tiny.ini
"$bin" sweep "$grid" --quiet --out "$tmp/s" || check false sweep
"$bin" run "$grid" --quiet --set output.queue_ports=layer:edge --out "$tmp/run" || check false run
"$bin" report --html "$tmp/s" "$tmp/run" > "$tmp/page.html"
check test $? -eq 0
# self-contained: figures inline, nothing fetched from elsewhere
nimg=$(grep -o '<img ' "$tmp/page.html" | wc -l)
check test "$nimg" -ge 8
check test "$(grep -o 'src="data:image/png;base64,' "$tmp/page.html" | wc -l)" -eq "$nimg"
check test "$(grep -Eo '(src|href)="(https?:|file:|/)' "$tmp/page.html" | wc -l)" -eq 0
check grep -q '<th>transport.cc</th>' "$tmp/page.html"        # the sweep's table
check grep -q 'AFCT (us)' "$tmp/page.html"                    # rocesim report's tables
check grep -q 'scenario of cc=hpcc_load=0.5' "$tmp/page.html" # each run's scenario
# --out writes the same page; a folder that is no run is an input error
"$bin" report --html "$tmp/s" "$tmp/run" --out "$tmp/page2.html" && check cmp -s "$tmp/page.html" "$tmp/page2.html"
"$bin" report --html "$tmp" >/dev/null 2>"$tmp/err"
check test $? -eq 2
check grep -q "neither a run folder" "$tmp/err"

if [ -n "${ROCESIM_SANITIZED:-}" ]; then # the page was made by the sanitized binary; rendering is checked in the release pass
    echo "cli_report_html: $pass passed, $fail failed (Chromium rendering checked in the release build only)"
    [ "$fail" -eq 0 ]
    exit
fi
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
    echo "cli_report_html: $pass passed, $fail failed; Chromium rendering SKIPPED: no chromium (make test-deps installs it)"
    [ "$fail" -eq 0 ] || exit 1
    exit 77
fi
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$tmp/profile" --window-size=1280,1600)
timeout 120 "$chrome" "${flags[@]}" --screenshot="$tmp/shot.png" "file://$tmp/page.html" >/dev/null 2>&1
check test "$(head -c 4 "$tmp/shot.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG'
check test "$(stat -c %s "$tmp/shot.png" 2>/dev/null || echo 0)" -gt 20000
timeout 120 "$chrome" "${flags[@]}" --dump-dom "file://$tmp/page.html" 2>/dev/null > "$tmp/dom.html"
check grep -q "<title>rocesim report: $nimg of $nimg figures loaded</title>" "$tmp/dom.html"
echo "cli_report_html: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
