#!/bin/bash
# rocesim reproduce: --list names the shipped experiments; pcn-fig2 --quick
# (five runs of PCN's burst scenario, seconds) writes its table with the
# paper's text beside ours and its figures, and shows PCN's point: no PAUSE
# reaches the innocent F0's sender, which keeps most of the link during the
# bursts, while with PFC alone F0's sender is paused and F0 starves.
# usage: cli_reproduce.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if "$@"; then pass=$((pass + 1)); else echo "FAIL: $*"; fail=$((fail + 1)); fi; }
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
# a rerun resumes: nothing is simulated again
"$bin" reproduce pcn-fig2 --quick --out "$tmp/r" > /dev/null 2>"$tmp/err2"
check grep -q '5 here (5 complete already)' "$tmp/err2"
echo "cli_reproduce: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
