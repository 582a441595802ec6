#!/bin/bash
# Results that cannot go stale, mix or vanish, and runs that explain
# themselves (issue 25): the output-folder lock, the temporary folder moved
# into place (a folder holds one whole run; SIGKILL and a write error keep
# the earlier results), stale sweep points rerun and an earlier grid's
# folders left out, the watchdog, the explanation of lossless drops, and
# the small checks (loss = 1, did-you-mean, CDF in fractions ending at 100,
# implausible ns-3 link rates, the topology file named for unreachable hosts).
# usage: cli_integrity.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
small=(--quiet --set topology.leaves=2 --set topology.spines=2 --set topology.hosts_per_leaf=4
       --set traffic.duration=200us)

# ---- one whole run per folder: files this run did not write go, the user's stay
"$bin" run "${small[@]}" --set output.queue_ports=all --set output.queue_interval=10us --out "$tmp/o" || echo "FAIL: run 1"
echo mine > "$tmp/o/notes.txt"
check test -s "$tmp/o/queue.csv"
"$bin" run "${small[@]}" --set run.seed=2 --out "$tmp/o" || echo "FAIL: run 2"
check test ! -e "$tmp/o/queue.csv"
check test "$(cat "$tmp/o/notes.txt")" = mine
check json "$tmp/o/summary.json" "d['seed'] == 2 and d['peak_rss_bytes'] > 1000000"
check test -z "$(ls -A "$tmp/o" | grep rocesim-run)"
cp -r "$tmp/o" "$tmp/before"

# ---- the lock: a second run into a folder in use exits 2 naming the first's pid
"$bin" run --set traffic.duration=50ms --out "$tmp/o" --quiet 2>/dev/null &
pid=$!
for _ in $(seq 100); do compgen -G "$tmp/o/.rocesim-run-*" >/dev/null && break; sleep 0.05; done
"$bin" run "${small[@]}" --out "$tmp/o" 2>"$tmp/err"
check test $? -eq 2
check grep -q "^--out $tmp/o: another rocesim run (pid $pid) is writing into this folder" "$tmp/err"
# ---- SIGKILL: the earlier run's results stay, byte for byte
kill -KILL $pid
wait $pid 2>/dev/null
for f in fct.csv pfc.csv pfc_ports.csv summary.json; do check cmp -s "$tmp/before/$f" "$tmp/o/$f"; done
check test -d "$tmp/o/.rocesim-run-$pid" # left by the killed run ...
"$bin" run "${small[@]}" --set run.seed=3 --out "$tmp/o" || echo "FAIL: run 3"
check test -z "$(ls -A "$tmp/o" | grep rocesim-run)" # ... and removed by the next
check json "$tmp/o/summary.json" "d['seed'] == 3"
cp -r "$tmp/o" "$tmp/before3"

# ---- a write error (file size limit: EFBIG, as a full disk gives ENOSPC) names the file and the
# system's reason, exits 1 and keeps the earlier results
(ulimit -f 8; trap '' XFSZ; exec "$bin" run --quiet --set traffic.duration=1ms --out "$tmp/o") 2>"$tmp/err"
check test $? -eq 1
check grep -q "^$tmp/o/[a-z_]*\.csv: cannot write: File too large (the run's files were not written; $tmp/o/ keeps the earlier results)" "$tmp/err"
for f in fct.csv pfc.csv pfc_ports.csv summary.json; do check cmp -s "$tmp/before3/$f" "$tmp/o/$f"; done
check test -z "$(ls -A "$tmp/o" | grep rocesim-run)"

# ---- stale sweep points are rerun, naming what changed; an earlier grid's folders are left out
grid=$src/tests/data/sweep-tiny.ini
"$bin" sweep "$grid" --jobs 2 --out "$tmp/s" 2>/dev/null || echo "FAIL: sweep 1"
sed 's/^duration = 0.3ms/duration = 0.2ms/' "$grid" > "$tmp/sweep-tiny.ini"
"$bin" sweep "$tmp/sweep-tiny.ini" --jobs 2 --out "$tmp/s" 2>"$tmp/err" || echo "FAIL: sweep 2"
check grep -q "^sweep: $tmp/s/cc=dcqcn_load=0.3/ holds results of another configuration or binary: traffic.duration 300us -> 200us; rerunning it" "$tmp/err"
check grep -q "^sweep: 4 points, 4 here (0 complete already)" "$tmp/err"
check json "$tmp/s/cc=hpcc_load=0.5/summary.json" "d['config']['traffic']['duration'] == '200us'"
"$bin" sweep "$tmp/sweep-tiny.ini" --jobs 2 --out "$tmp/s" 2>"$tmp/err" || echo "FAIL: sweep 3"
check grep -q "4 here (4 complete already)" "$tmp/err"
check test -z "$(grep 'another configuration' "$tmp/err")"
# a run another binary made: rerun by default, kept with --any-binary (and said so)
sed -i 's/"rocesim_version": "[^"]*"/"rocesim_version": "0000000"/' "$tmp/s/cc=hpcc_load=0.5/summary.json"
"$bin" sweep "$tmp/sweep-tiny.ini" --jobs 2 --out "$tmp/s" --any-binary 2>"$tmp/err" || echo "FAIL: sweep 3a"
check grep -q "4 here (4 complete already)" "$tmp/err"
check grep -q "^sweep: 1 complete point made by another rocesim binary kept (--any-binary" "$tmp/err"
check grep -q '"rocesim_version": "0000000"' "$tmp/s/cc=hpcc_load=0.5/summary.json"
"$bin" sweep "$tmp/sweep-tiny.ini" --jobs 2 --out "$tmp/s" 2>"$tmp/err" || echo "FAIL: sweep 3a2"
check grep -q "^sweep: $tmp/s/cc=hpcc_load=0.5/ holds results of another configuration or binary: the binary (rocesim 0000000 -> " "$tmp/err"
check grep -q "4 here (3 complete already)" "$tmp/err"
# a run made before a newer option existed (its saved config lacks the key) is
# current when the option is at its default, stale when the sweep sets it
python3 - "$tmp/s/cc=dcqcn_load=0.3/summary.json" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
t2 = re.sub(r'"queue_by_priority": "off", ', '', t, count=1)
assert t2 != t
open(p, 'w').write(t2)
PY
"$bin" sweep "$tmp/sweep-tiny.ini" --jobs 2 --out "$tmp/s" 2>"$tmp/err" || echo "FAIL: sweep 3b"
check grep -q "4 here (4 complete already)" "$tmp/err"
sed 's/^\[sweep\]/[output]\nqueue_by_priority = on\n[sweep]/' "$tmp/sweep-tiny.ini" > "$tmp/sweep-tiny-q.ini"
"$bin" sweep "$tmp/sweep-tiny-q.ini" --jobs 2 --out "$tmp/s" 2>"$tmp/err" || echo "FAIL: sweep 3c"
check grep -q "^sweep: $tmp/s/cc=dcqcn_load=0.3/ holds results of another configuration or binary: .*output.queue_by_priority (not set) -> on" "$tmp/err"
sed 's/^transport.cc = dcqcn, hpcc/transport.cc = dcqcn/' "$tmp/sweep-tiny.ini" > "$tmp/sweep-tiny2.ini"
"$bin" sweep "$tmp/sweep-tiny2.ini" --jobs 2 --out "$tmp/s" 2>"$tmp/err" || echo "FAIL: sweep 4"
check grep -q "^sweep: 2 folders in $tmp/s/ are not points of this grid (an earlier grid's?) and are left out of sweep.csv" "$tmp/err"
check test "$(grep -vc '^run,' "$tmp/s/sweep.csv")" -eq 2
check test -z "$(grep hpcc "$tmp/s/sweep.csv")"
"$bin" report "$tmp/s" >"$tmp/out" 2>"$tmp/err"
check test $? -eq 0
check grep -q "^rocesim report: run 1: $tmp/s/cc=dcqcn_load=0.3$" "$tmp/out"
check grep -q "^               run 2: $tmp/s/cc=dcqcn_load=0.5$" "$tmp/out"
check test -z "$(grep 'run 3' "$tmp/out")"
check grep -q "2 folders not in sweep.csv (an earlier grid's?) left out" "$tmp/err"

# ---- runs that can never finish: loss 1 refused; the watchdog stops a run without progress
printf '[topology]\nleaves = 1\nspines = 1\nhosts_per_leaf = 4\nloss = 1\n' > "$tmp/loss1.ini"
"$bin" run "$tmp/loss1.ini" --out "$tmp/l1" 2>"$tmp/err"
check test $? -eq 2
check grep -q "^$tmp/loss1.ini:5: topology.loss = 1: every packet would be lost" "$tmp/err"
printf '[topology]\nleaves = 1\nspines = 1\nhosts_per_leaf = 4\nloss = 0.9999999\n[traffic]\npattern = none\n[flow.a]\nsrc = 0\ndst = 1\nsize = 100KB\n[flow.b]\nsrc = 2\ndst = 3\nsize = 100KB\n' > "$tmp/wd.ini"
"$bin" run "$tmp/wd.ini" --quiet --out "$tmp/wd" 2>"$tmp/err"
check test $? -eq 4
check grep -q "^rocesim: watchdog: no byte delivered from 0.000 ms to 1280.000 ms (run.watchdog = 1280.000 ms) while 2 flows were active" "$tmp/err"
check grep -q "^  flow 0: host 0 -> 1, 0 of 100000 bytes acknowledged: [0-9]* of its packets were lost on lossy links .*; [0-9]* retransmission timeouts fired" "$tmp/err"
check json "$tmp/wd/summary.json" "d['watchdog']['stopped_ns'] == 1280000000 and [s['flow'] for s in d['watchdog']['stuck']] == [0, 1] and d['flows_unfinished'] == 2"
check test "$(grep -c '^[01],.*,,,' "$tmp/wd/fct.csv")" -eq 2 # both listed unfinished
# a chosen watchdog, and a dead link: host 0's own link fails for good
"$bin" run "$tmp/wd.ini" --quiet --set topology.loss=0 --set topology.fail=host0-leaf0@0 --set run.stop=10s \
    --set run.watchdog=50ms --out "$tmp/wd2" 2>"$tmp/err"
check test $? -eq 4
check grep -q "^  flow 0: host 0 -> 1, 0 of 100000 bytes acknowledged: the link of its source host 0 is down" "$tmp/err"
check json "$tmp/wd2/summary.json" "d['watchdog']['timeout_ns'] == 50000000 and len(d['watchdog']['stuck']) == 1 and d['flows_completed'] == 1"
"$bin" run "$tmp/wd.ini" --quiet --set topology.loss=0 --set topology.fail=host0-leaf0@0 --set run.stop=100ms \
    --set run.watchdog=off --out "$tmp/wd3" 2>/dev/null
check test $? -eq 0
"$bin" run "$tmp/wd.ini" --set run.watchdog=soon --out "$tmp/wd4" 2>"$tmp/err"
check test $? -eq 2
check grep -q "^--set run.watchdog=soon: run.watchdog = soon: expected auto, off or a time" "$tmp/err"
check grep -q "^    run.watchdog = auto  *stop a run (exit 4" <("$bin" list)

# ---- drops in lossless mode are explained: ns-3's ACK_HIGH_PRIO semantics on a small incast
cat > "$tmp/ld.ini" <<'INI'
[topology]
leaves = 2
spines = 2
hosts_per_leaf = 8
[switch]
buffer = 1MB
[transport]
ack_high_prio = nic
[traffic]
load = 0.5
duration = 1ms
[traffic.incast]
pattern = incast
fan_in = 12
size = 200KB
repeat = poisson
load = 0.1
INI
"$bin" run "$tmp/ld.ini" --quiet --out "$tmp/ld" 2>"$tmp/err"
check test $? -eq 0
check json "$tmp/ld/summary.json" "d['drops_in_lossless_mode'] > 0 and sum(d['drops_in_lossless_mode_by_cause'].values()) == d['drops_in_lossless_mode'] and d['drops_in_lossless_mode_by_cause']['ack_after_pause'] > 0 and 'transport.ack_high_prio = on' in d['lossless_drops_explained'] and d['flows_unfinished'] == 0"
check grep -q "^rocesim: [0-9]* packets dropped in lossless mode, .*ACKs sent under a PAUSE.*transport.ack_high_prio = on (ACKs in the strict-priority queue at switches too) avoids it" "$tmp/err"
"$bin" run "$tmp/ld.ini" --quiet --set transport.ack_high_prio=on --out "$tmp/ld-on" 2>"$tmp/err"
check json "$tmp/ld-on/summary.json" "d['drops_in_lossless_mode'] == 0 and d['lossless_drops_explained'] is None"
check test -z "$(grep 'dropped in lossless' "$tmp/err")"

# ---- small checks
"$bin" run --set traffic.laod=0.3 2>"$tmp/err"
check grep -q "unknown key 'laod' in \[traffic\] (did you mean \`load\`?)" "$tmp/err"
"$bin" run --set topology.load=0.3 2>"$tmp/err"
check grep -q "unknown key 'load' in \[topology\] (did you mean \[traffic\] load?)" "$tmp/err"
printf '[trafic]\nload = 0.3\n' > "$tmp/sec.ini"
"$bin" run "$tmp/sec.ini" 2>"$tmp/err"
check grep -q "^$tmp/sec.ini:1: unknown section \[trafic\] (did you mean \[traffic\]?)" "$tmp/err"
printf '1000 0\n5000 0.5\n9000 0.9\n20000 100\n' > "$tmp/f.cdf"
"$bin" run --set traffic.cdf="$tmp/f.cdf" --out "$tmp/cdf" 2>"$tmp/err"
check test $? -eq 2
check grep -q "^$tmp/f.cdf:4: the CDF ends at 100 (ns-3's percent format) but every earlier point is at most 1" "$tmp/err"
printf '4 2 2\n2 3\n0 2 100 1us 0\n1 3 100Gbps 1us 0\n' > "$tmp/topo.txt"
printf '[topology]\ntype = file\nfile = %s\n[traffic]\npattern = none\n[flow.a]\nsrc = 0\ndst = 1\nsize = 1KB\n' "$tmp/topo.txt" > "$tmp/tf.ini"
"$bin" run "$tmp/tf.ini" --out "$tmp/tf" 2>"$tmp/err"
check test $? -eq 2
check grep -q "^rocesim: warning: $tmp/topo.txt:3: 1 link has an implausible rate, the first \"100\" (below 1 Mbps): ns-3 reads a bare number as bits per second" "$tmp/err"
check test "$(grep -c implausible "$tmp/err")" -eq 1
check grep -q "^$tmp/topo.txt: host 0 cannot reach host 1 (flow 0): no path joins them in this topology file" "$tmp/err"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
