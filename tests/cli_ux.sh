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

# units: a byte count takes B (transport.mtu = 9000B), and `rocesim list` names every suffix (32M included)
"$BIN" run "${small[@]}" --set transport.mtu=9000B --quiet --out "$TMP/mtu" 2>"$TMP/err"
check "transport.mtu=9000B is 9000 bytes" json "$TMP/mtu/summary.json" "d['config']['transport']['mtu'] == '9000'"
"$BIN" list >"$TMP/out"
check "rocesim list documents the unit suffixes" test -n "$(grep '^units: rates bps, Kbps, ' "$TMP/out")" -a -n "$(grep '^(10^3..; also K, M, G: 32M = 32MB)' "$TMP/out")"
check "rocesim list marks companions as not a transport.cc" grep -q '^  hf2t  *(companion: transport.hf2t = on, beside transport.cc)' "$TMP/out"

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

# relative paths in an INI file are read from the file's folder, wherever rocesim runs; with --set,
# from the current folder; a sweep's points (written elsewhere) keep reading the same files
mkdir -p "$TMP/rel/sub" "$TMP/elsewhere"
printf '3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n' >"$TMP/rel/sub/t.topo"
printf '1\n0 1 3 100 10000 0\n' >"$TMP/rel/sub/f.txt"
printf '[topology]\ntype = file\nfile = sub/t.topo\n[traffic]\npattern = file\nfile = sub/f.txt\n[sweep]\ntransport.cc = dcqcn, hpcc\n' >"$TMP/rel/s.ini"
(cd "$TMP/elsewhere" && "$BIN" run ../rel/s.ini --quiet --out "$TMP/relrun") 2>"$TMP/err"
check "relative paths in an INI: from the INI's folder" json "$TMP/relrun/summary.json" \
    "d['flows_completed'] == 1 and d['config']['topology']['file'] == '../rel/sub/t.topo'"
(cd "$TMP/rel/sub" && "$BIN" run ../s.ini --set traffic.file=f.txt --quiet --out "$TMP/relset") 2>"$TMP/err"
check "a path given with --set: from the current folder" json "$TMP/relset/summary.json" \
    "d['flows_completed'] == 1 and d['config']['traffic']['file'] == 'f.txt'"
(cd "$TMP/elsewhere" && "$BIN" sweep ../rel/s.ini --quiet --out "$TMP/relsweep") >/dev/null 2>"$TMP/err"
check "a sweep's points read the INI's relative paths" test "$(grep -c ',ok,1,1' "$TMP/relsweep/sweep.csv")" -eq 2

# a big fabric: set-up progress with its share done on stderr, and SIGTERM honoured during set-up
# (a k = 64 fat-tree spends seconds in its routing tables): nothing simulated, nothing written, exit 143
big=(--set topology.type=fattree --set topology.k=64 --set traffic.duration=1us)
"$BIN" run "${big[@]}" --out "$TMP/cut" 2>"$TMP/err" &
pid=$!
for _ in $(seq 300); do grep -q '^rocesim: set-up: ' "$TMP/err" && break; sleep 0.1; done
kill -TERM $pid
wait $pid
code=$?
check "set-up progress: the step and its share done" grep -q '^rocesim: set-up: routing tables [0-9]*% done, ' "$TMP/err"
check "SIGTERM during set-up exits 143" test $code -eq 143
check "SIGTERM during set-up says so and that nothing was written" \
    grep -q '^rocesim: interrupted by SIGTERM during set-up (routing tables, [0-9]*% done) after .*nothing was simulated and no results were written' "$TMP/err"
check "SIGTERM during set-up: no summary.json, no half-written folder" \
    test ! -e "$TMP/cut/summary.json" -a -z "$(compgen -G "$TMP/cut/.rocesim-run-*")"
"$BIN" run "${big[@]}" --quiet --out "$TMP/cutq" 2>"$TMP/err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
code=$?
check "--quiet: no set-up progress, SIGINT during set-up still honoured (130)" \
    test $code -eq 130 -a -z "$(grep 'set-up:' "$TMP/err")" -a -n "$(grep 'interrupted by SIGINT during set-up' "$TMP/err")"
# set-up time, its peak memory and the estimate made before it, in summary.json
check "summary.json: set-up seconds, peak memory and estimate" json "$TMP/named/summary.json" \
    "d['setup']['seconds'] >= 0 and 1000000 < d['setup']['peak_rss_bytes'] <= d['peak_rss_bytes'] and d['setup']['memory_estimate_bytes'] > 1000000"
# a fabric that needs more memory than allowed: refused before building, naming the key that allows it
"$BIN" run "${small[@]}" --set run.max_memory=1MB --out "$TMP/mem" >/dev/null 2>"$TMP/err"
check "over run.max_memory: exit 2 naming the key and the estimate" test $? -eq 2 -a \
    -n "$(grep '^--set run.max_memory=1MB: run.max_memory: this fabric needs about [0-9.]* [KMG]B to set up (routing tables .*more than the run.max_memory of 1 MB; set run.max_memory higher' "$TMP/err")" -a ! -e "$TMP/mem"
"$BIN" run "${small[@]}" --set run.max_memory=1GB --quiet --out "$TMP/mem" 2>"$TMP/err"
check "under run.max_memory: runs" test $? -eq 0 -a -s "$TMP/mem/summary.json"

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
    check "--version: a version number and the git hash" grep -q '^rocesim [0-9]*\.[0-9]*\.[0-9]* (git [0-9a-z]' "$TMP/out"
    # run from outside the clone, with nothing but PREFIX: the shipped data comes from PREFIX/share/rocesim
    mkdir -p "$TMP/outside"
    (cd "$TMP/outside" && env -u ROCESIM_WORKLOADS -u ROCESIM_EXPERIMENTS "$TMP/prefix/bin/rocesim" list) >"$TMP/out" 2>"$TMP/err"
    check "installed: workloads from PREFIX/share/rocesim" grep -q "^workloads (traffic.cdf = NAME; from $TMP/prefix/share/rocesim/workloads)" "$TMP/out"
    check "installed: every shipped workload readable" test "$(grep -c ' mean [0-9]* B (linear' "$TMP/out")" -ge 5
    (cd "$TMP/outside" && env -u ROCESIM_WORKLOADS -u ROCESIM_EXPERIMENTS "$TMP/prefix/bin/rocesim" run "${small[@]}" \
        --set traffic.cdf=fb_hadoop --quiet --out o) 2>"$TMP/err"
    check "installed: a run with a shipped workload, outside the clone" test $? -eq 0 -a -s "$TMP/outside/o/summary.json"
    (cd "$TMP/outside" && env -u ROCESIM_EXPERIMENTS "$TMP/prefix/bin/rocesim" reproduce --list) >"$TMP/out" 2>"$TMP/err"
    check "installed: the paper experiments" grep -q 'conweave-fig12' "$TMP/out"
    (cd "$TMP/outside" && "$TMP/prefix/bin/rocesim" run "$TMP/prefix/share/rocesim/scenarios/deadlock-ring.ini" --quiet --out dl) 2>"$TMP/err"
    check "installed: a shipped scenario with a topology file beside it" test $? -eq 3
    (cd "$TMP/outside" && ROCESIM_WORKLOADS="$TMP/prefix/share/rocesim/workloads" "$BIN" list) >"$TMP/out" 2>"$TMP/err"
    check "\$ROCESIM_WORKLOADS still chooses the folder" grep -q "from $TMP/prefix/share/rocesim/workloads)" "$TMP/out"
    # the man page and the completions, generated from the same tables as --help and `rocesim list`
    man1="$TMP/prefix/share/man/man1/rocesim.1"
    check "installed: man page with every command and key" test -n "$(grep '^\.TH ROCESIM 1' "$man1")" -a \
        -n "$(grep -F 'run   [SCENARIO] [\-\-set section.key=value]' "$man1")" -a -n "$(grep -F '\fBrun.max_memory\fR = 0' "$man1")"
    comp="$TMP/prefix/share/bash-completion/completions/rocesim"
    words=$(bash -c 'source "$1"; COMP_WORDS=(rocesim run --set transport.cc=dc); COMP_CWORD=3; _rocesim; echo "${COMPREPLY[*]}"' _ "$comp")
    check "bash completion: scheme names after --set transport.cc=" test "$words" = "transport.cc=dcqcn transport.cc=dctcp"
    words=$(bash -c 'source "$1"; COMP_WORDS=(rocesim run --set run.max_m); COMP_CWORD=3; _rocesim; echo "${COMPREPLY[*]}"' _ "$comp")
    check "bash completion: keys after --set" test "$words" = "run.max_memory="
    words=$(bash -c 'source "$1"; COMP_WORDS=(rocesim rep); COMP_CWORD=1; _rocesim; echo "${COMPREPLY[*]}"' _ "$comp")
    check "bash completion: commands" test "$words" = "report reproduce"
    check "zsh completion installed" grep -q '^#compdef rocesim' "$TMP/prefix/share/zsh/site-functions/_rocesim"
    if command -v zsh >/dev/null; then check "zsh completion parses" zsh -n "$TMP/prefix/share/zsh/site-functions/_rocesim"; fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
