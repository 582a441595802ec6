#!/bin/bash
# output.partition_report (stats/partrep.c): on a dumbbell cut at its middle
# link, the messages it counts are exactly the packets and PFC frames that
# cross that link; its totals agree with summary.json and with its own CSV;
# the run's other outputs are byte-identical with the report off.
# usage: cli_partition.sh ROCESIM_BIN
set -u
BIN=$1
. "$(dirname "$0")/cli_lib.sh"
cat >"$tmp/db.ini" <<'INI'
[topology]
type = dumbbell
senders = 4
receivers = 1
fabric_link = 400Gbps
[switch]
buffer = 500KB
[transport]
mtu = 1000
[traffic]
pattern = incast
fan_in = 4
size = 1MB
receiver = 4
[flow.one]
src = 0
dst = 1
size = 100KB
INI
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
"$BIN" run "$tmp/db.ini" --quiet --out "$tmp/off" >/dev/null 2>&1
"$BIN" run "$tmp/db.ini" --quiet --set output.partition_report=on --out "$tmp/on" >/dev/null 2>&1
check test -s "$tmp/on/partition.json" -a -s "$tmp/on/partition.csv" -a ! -e "$tmp/off/partition.json"
for f in fct.csv pfc.csv pfc_ports.csv; do check cmp -s "$tmp/off/$f" "$tmp/on/$f"; done
# 2 partitions (one per switch with its hosts), the middle link cut, 1 us lookahead
check json "$tmp/on/partition.json" 'd["partitions"] == 2 and d["cut_links"] == 1 and d["lookahead_ns"] == 1000'
# 4 incast flows of 1000 packets cross it, each packet ACKed (ack_interval 1);
# flow.one (host 0 -> host 1) stays on its switch: 8000 packets
check json "$tmp/on/partition.json" 'd["cut_packets"] == 8000'
# the PFC frames over the cut are those host-side switch 5 received on port 4
n=$(awk -F, '$2 == 5 && $3 == 4' "$tmp/on/pfc.csv" | wc -l)
check test "$n" -gt 0
check json "$tmp/on/partition.json" "d['cut_pfc'] == $n"
# every event counted once: the summary's count, the CSV's rows, the partitions
ev=$(python3 -c "import json; print(json.load(open('$tmp/on/summary.json'))['events'])")
check json "$tmp/on/partition.json" "d['events'] == $ev and sum(d['events_per_partition']) + d['global_events'] == $ev"
check python3 - "$tmp/on" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1] + "/partition.json"))
rows = list(csv.DictReader(open(sys.argv[1] + "/partition.csv")))
assert len(rows) == d["windows"]
assert sum(int(r["events"]) for r in rows) == d["events"]
assert sum(int(r["cut_pfc"]) for r in rows) == d["cut_pfc"]
assert all(int(r["events"]) == int(r["global"]) + int(r["p0"]) + int(r["p1"]) for r in rows)
# every message is received by one partition
assert all(int(r["m0"]) + int(r["m1"]) == int(r["cut_packets"]) + int(r["cut_pfc"]) for r in rows)
assert sum(d["messages_per_partition"]) == d["cut_packets"] + d["cut_pfc"] and min(d["messages_per_partition"]) > 0
# ...and sent by another: the two partitions' messages to each other, by pair (model.py --ranks)
pairs = {(q, p): n for q, p, n in d["messages_between_partitions"]}
assert set(pairs) == {(0, 1), (1, 0)} and all(pairs[(1 - p, p)] == d["messages_per_partition"][p] for p in (0, 1))
# windows start at an event and are at least the lookahead apart
starts = [float(r["start_ns"]) for r in rows]
assert all(b - a >= d["lookahead_ns"] - 1e-6 for a, b in zip(starts, starts[1:]))
# one thread runs everything; with as many threads as partitions the busiest partition sets the pace
mk = d["makespan_events_unison"]
assert mk[0] == d["events"] - d["global_events"] and mk[1] == d["busiest_partition_events_sum"]
assert all(s <= u for s, u in zip(d["makespan_events_bound"], mk))
assert d["same_time_other_partition"] <= d["same_time_events"] < d["events"]
PY
# a partitioning without lookahead is refused, naming the key
"$BIN" run "$tmp/db.ini" --quiet --set output.partition_report=on --set topology.link_delay=0 --out "$tmp/z" >/dev/null 2>"$tmp/err"
check test $? -eq 2
check grep -q "run.partitions: a cut link has no delay" "$tmp/err"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
