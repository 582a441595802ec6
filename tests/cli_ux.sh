#!/bin/bash
# What a new user meets at the command line: every --help and --version exit
# 0; nonsense (a unit-less rate, a scenario without flows) exits 2 with its
# place; a run folder says what produced it and holds no earlier run's files;
# --set runs land in distinct folders; fct.csv names each flow's section;
# flow statistics over no flow are null; a killed run keeps what it has.
# With BUILD_DIR, also checks that installing (what `make install` runs) puts
# a working rocesim in PREFIX/bin.
# usage: cli_ux.sh ROCESIM_BIN [BUILD_DIR]
set -u
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac; }
BIN=$(abs "$1")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocesim_ux.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$TMP/err" ] && sed 's/^/     stderr: /' "$TMP/err" | head -n 5; }
check() { name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
# A small fabric, so runs take milliseconds.
small=(--set topology.leaves=2 --set topology.spines=1 --set topology.hosts_per_leaf=4 --set traffic.duration=50us)

# --version, and --help of every subcommand
"$BIN" --version >"$TMP/out" 2>"$TMP/err"
check "--version exits 0 and names the build" test $? -eq 0 -a -n "$(grep -E '^rocesim [0-9a-z]' "$TMP/out")"
for c in run flows list report version help; do
    "$BIN" "$c" --help >"$TMP/out" 2>"$TMP/err"
    check "rocesim $c --help exits 0" test $? -eq 0 -a -n "$(grep "^usage: rocesim $c" "$TMP/out")"
done
"$BIN" --help >"$TMP/out"
check "help prints a single %" grep -q 'at 50% load' "$TMP/out"

# a rate without a unit: exit 2, FILE:LINE, the units named
printf '[topology]\nhost_link = 100\n' >"$TMP/bare.ini"
"$BIN" run "$TMP/bare.ini" --quiet >/dev/null 2>"$TMP/err"
check "unit-less rate exits 2 with file:line and the units" \
    test $? -eq 2 -a -n "$(grep "^$TMP/bare.ini:2: topology.host_link: .*needs a unit: .*Gbps" "$TMP/err")"
# a scenario without flows
"$BIN" run --quiet --set traffic.pattern=none >/dev/null 2>"$TMP/err"
check "zero flows exits 2 naming the option" test $? -eq 2 -a -n "$(grep '^--set traffic.pattern=none: .*no flows' "$TMP/err")"
check "zero flows wrote no folder" test ! -e results
# keys of a CC that is not selected
"$BIN" flows "${small[@]}" --set cc.hpcc.u_target=0.9 >/dev/null 2>"$TMP/err"
check "[cc.hpcc] with dcqcn selected: warning" grep -q '^rocesim: warning: --set cc.hpcc.u_target=0.9: .*transport.cc is dcqcn' "$TMP/err"

# named sections in fct.csv; the scenario, version and command line in summary.json
cat >"$TMP/named.ini" <<'INI'
[topology]
leaves = 2
spines = 1
hosts_per_leaf = 4
[traffic]
duration = 300us
load = 0.37
intra_rack = 0.3
[cc.dcqcn]
rate_ai = 40Mbps
[traffic.incast]
pattern = incast
fan_in = 3
size = 20KB
receiver = 0
start = 5us
[flow.victim]
src = 1
dst = 6
size = 50KB
start = 2us
INI
"$BIN" run "$TMP/named.ini" --quiet --out "$TMP/named" 2>"$TMP/err"
check "named run exits 0" test $? -eq 0
check "fct.csv: source is the last column" grep -q '^flow_id,src,dst,size_bytes,.*,source$' "$TMP/named/fct.csv"
check "fct.csv names [flow.victim]" test "$(grep -c '^[0-9]*,1,6,50000,2000,.*,flow\.victim$' "$TMP/named/fct.csv")" -eq 1
check "fct.csv names [traffic.incast] (3 flows)" test "$(grep -c ',0,20000,5000,.*,traffic\.incast$' "$TMP/named/fct.csv")" -eq 3
check "fct.csv: background flows are [traffic]" grep -q ',traffic$' "$TMP/named/fct.csv"
check "summary.json: effective scenario, version, command line" json "$TMP/named/summary.json" \
    "d['config']['traffic']['load'] == '0.37' and d['config']['traffic']['intra_rack'] == '0.3' and d['config']['traffic']['cdf'] == 'web_search' and d['config']['flow.victim']['size'] == '50KB' and d['config']['cc.dcqcn']['rate_ai'] == '40Mbps' and d['rocesim_version'] != '' and 'named.ini' in d['command_line'] and d['interrupted'] is False"

# summary.json's config is the whole scenario: given back as --set options
# alone (no file), it makes the very same flows
python3 - "$TMP/named/summary.json" >"$TMP/sets" <<'PY'
import json, sys
for sec, keys in json.load(open(sys.argv[1]))['config'].items():
    if isinstance(keys, dict):
        for k, v in keys.items():
            if v != '':
                print('--set=%s.%s=%s' % (sec, k, v))
PY
"$BIN" flows "$TMP/named.ini" >"$TMP/flows_file" 2>"$TMP/err"
mapfile -t sets <"$TMP/sets"
"$BIN" flows "${sets[@]}" >"$TMP/flows_set" 2>"$TMP/err"
check "summary.json config given back as --set makes the same flows" \
    test "$(wc -l <"$TMP/flows_file")" -gt 5 -a "${#sets[@]}" -gt 50 -a -z "$(cmp "$TMP/flows_file" "$TMP/flows_set" 2>&1)"

# an earlier run's monitor files do not survive a new run in the same folder
"$BIN" run "${small[@]}" --quiet --out "$TMP/reuse" --set output.queue_ports=all 2>"$TMP/err"
check "first run wrote queue.csv" test -s "$TMP/reuse/queue.csv"
"$BIN" run "${small[@]}" --quiet --out "$TMP/reuse" 2>"$TMP/err"
check "second run removed the stale queue.csv" test ! -e "$TMP/reuse/queue.csv" -a -s "$TMP/reuse/fct.csv"

# runs differing by --set only land in distinct folders, and say where
"$BIN" run "${small[@]}" >"$TMP/out1" 2>"$TMP/err"
"$BIN" run "${small[@]}" --set transport.cc=hpcc >"$TMP/out2" 2>>"$TMP/err"
d2="results/default+topology.leaves=2+topology.spines=1+topology.hosts_per_leaf=4+traffic.duration=50us+transport.cc=hpcc"
check "--set runs in distinct folders" test -s "$d2/summary.json" -a -s "${d2%+transport.cc=hpcc}/summary.json"
check "the result line names the folder" grep -q -- "-> $d2/\$" "$TMP/out2"

# statistics of no finished flow are null, and the run warns the flows cannot finish
"$BIN" run "${small[@]}" --quiet --set run.stop=1us --out "$TMP/none" 2>"$TMP/err"
check "run.stop too early: warning with the option" grep -q '^rocesim: warning: --set run.stop=1us: run.stop = 1us: .* flows cannot finish' "$TMP/err"
check "slowdown statistics of no flow are null" json "$TMP/none/summary.json" \
    "d['flows_completed'] == 0 and all(v is None for v in d['fct_slowdown'].values())"
"$BIN" report "$TMP/none" >"$TMP/out" 2>"$TMP/err"
check "report shows no number for no flow" grep -q '^  AFCT (us)  *-$' "$TMP/out"

# SIGTERM: the run stops, writes everything it has and exits 143
"$BIN" run --set traffic.duration=200ms --out "$TMP/killed" 2>"$TMP/err" &
pid=$!
# the run writes into its temporary folder until it ends; signals are caught from before it exists
for _ in $(seq 100); do compgen -G "$TMP/killed/.rocesim-run-*" >/dev/null && break; sleep 0.1; done
sleep 1
kill -TERM $pid
wait $pid
code=$?
check "SIGTERM exits 143" test $code -eq 143
check "killed run: summary.json parses and says interrupted" json "$TMP/killed/summary.json" \
    "d['interrupted'] is True and d['signal'] == 'SIGTERM' and 0 < d['sim_time_ns'] < 200000000 and d['flows_unfinished'] > 0"
check "killed run: every fct.csv line has the header's fields" \
    awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad || NR < 100 || n < 12 }' "$TMP/killed/fct.csv"
check "killed run: unfinished flows have empty finish columns" grep -q '^[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,,,[0-9]*,,[01],[0-9,]*,traffic$' "$TMP/killed/fct.csv"
"$BIN" report "$TMP/killed" >"$TMP/out" 2>"$TMP/err"
check "report reads the killed run and says it is partial" grep -q "^rocesim report: .*(interrupted: partial results)" "$TMP/out"
check "killed run: pfc.csv ends on a line boundary" test "$(tail -c 1 "$TMP/killed/pfc.csv" | od -An -c | tr -d ' ')" = '\n'

# out of memory: exit 2 with a message (not under ASan, which needs the address space)
if [ "${ROCESIM_SANITIZED:-0}" != 1 ]; then
    # 1.4 M flows: their state alone needs more than the 200 MB allowed
    (ulimit -v 200000; "$BIN" run --quiet --set traffic.duration=1500ms --set traffic.load=1 --out "$TMP/oom") \
        >/dev/null 2>"$TMP/err"
    code=$?
    check "out of memory exits 2 with a message" test $code -eq 2 -a -n "$(grep 'out of memory' "$TMP/err")"
fi

if [ $# -ge 2 ]; then
    cmake --install "$2" --prefix "$TMP/prefix" >/dev/null 2>"$TMP/err"
    PATH="$TMP/prefix/bin:$PATH" rocesim --version >"$TMP/out" 2>>"$TMP/err"
    check "install puts rocesim in PREFIX/bin" test $? -eq 0 -a "$(cat "$TMP/out")" = "$("$BIN" --version)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
