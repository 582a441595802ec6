#!/bin/sh
# CLI-level input errors: run the real binary on bad inputs and check that it
# exits with code 2 and that stderr has a line starting "FILE:LINE: " (or
# "--set OPT: "), naming the right file and line.
# Usage: cli_errors.sh ROCESIM_BIN SOURCE_DIR
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 ROCESIM_BIN SOURCE_DIR" >&2
    exit 1
fi
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac; }
BIN=$(abs "$1")
SRC=$(abs "$2")
DATA=$SRC/tests/data
if [ ! -x "$BIN" ]; then
    echo "cli_errors: $BIN is not an executable" >&2
    exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocesim_cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir "$TMP/cwd" # runs start here, so relative paths in fixtures point at nothing
pass=0
fail=0

# expect NAME PREFIX ARGS...: `rocesim ARGS` must exit 2 with a stderr line starting with PREFIX.
expect() {
    name=$1
    prefix=$2
    shift 2
    (cd "$TMP/cwd" && "$BIN" "$@") >"$TMP/out" 2>"$TMP/err"
    code=$?
    why=""
    if [ "$code" -ne 2 ]; then
        why="exit code $code, want 2"
    elif ! awk -v p="$prefix" 'index($0, p) == 1 { found = 1 } END { exit !found }' "$TMP/err"; then
        why="no stderr line starts with '$prefix'"
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        echo "ok   $name"
    else
        fail=$((fail + 1))
        echo "FAIL $name: $why"
        echo "     command: rocesim $*"
        sed 's/^/     stderr: /' "$TMP/err" | head -n 10
    fi
}

# Scenario files written here so they can name fixtures by absolute path.
cat >"$TMP/topo_node.ini" <<INI
[topology]
type = file
file = $DATA/topo_bad_node.txt
[traffic]
pattern = none
INI
cat >"$TMP/flow_host.ini" <<INI
[topology]
type = file
file = $DATA/topo_ok.txt
[traffic]
pattern = file
file = $DATA/flow_to_switch.txt
INI

cat >"$TMP/fail.ini" <<INI
[topology]
type = leafspine
fail = leaf0-spine99@1ms
INI
printf '1\n0 1 3 100 1000 2\n' >"$TMP/flow_ok.txt"
cat >"$TMP/ns3_link_down.txt" <<TXT
TOPOLOGY_FILE $DATA/topo_ok.txt
FLOW_FILE $TMP/flow_ok.txt
L2_ACK_INTERVAL 1
LINK_DOWN 100 0 1
TXT

expect "fail names a missing node" "$TMP/fail.ini:3: " flows "$TMP/fail.ini"
expect "ns-3 LINK_DOWN on no link" "$TMP/ns3_link_down.txt:4: " flows "$TMP/ns3_link_down.txt"
expect "link_rate on no link" "--set topology.link_rate=leaf0-leaf1:1G: " flows --set topology.link_rate=leaf0-leaf1:1G
expect "clos cores not striped" "--set topology.cores=5: " flows --set topology.type=clos --set topology.cores=5
expect "oversubscription not whole" "--set topology.oversubscription=2.5: " flows --set topology.oversubscription=2.5 --set topology.spines=3
expect "host cut off for good" "--set topology.fail=leaf0-host0@1ms: " flows --set topology.fail=leaf0-host0@1ms
cat >"$TMP/faults.ini" <<INI
[topology]
type = leafspine
flap = leaf0-spine0@1ms-2ms:every=100us
switch_fail = spine0@1500us
slow = leaf1-spine0:25Gbps@1ms-2ms
INI
expect "flap without its end" "--set topology.flap=leaf0-spine0@1ms:every=100us: " flows --set topology.flap=leaf0-spine0@1ms:every=100us
expect "flap down not shorter than period" "--set topology.flap=leaf0-spine0@1ms-2ms:every=100us:down=100us: " flows --set topology.flap=leaf0-spine0@1ms-2ms:every=100us:down=100us
expect "switch_fail names a host" "--set topology.switch_fail=host0@1ms: " flows --set topology.switch_fail=host0@1ms
expect "switch_fail cuts hosts off for good" "--set topology.switch_fail=leaf0@1ms: " flows --set topology.switch_fail=leaf0@1ms
expect "slow not a cut" "--set topology.slow=leaf0-spine0:200Gbps@1ms: " flows --set topology.slow=leaf0-spine0:200Gbps@1ms
expect "switch_fail overlaps a flap" "$TMP/faults.ini:4: " flows "$TMP/faults.ini"
expect "static PFC threshold in reserve" "--set switch.pfc_threshold=2KB: " flows --set switch.pfc_threshold=2KB
expect "unknown section" "$DATA/bad_section.ini:3: " flows "$DATA/bad_section.ini"
expect "unknown key" "$DATA/bad_key.ini:3: " flows "$DATA/bad_key.ini"
expect "bad unit" "$DATA/bad_unit.ini:2: " flows "$DATA/bad_unit.ini"
expect "load out of range" "$DATA/bad_load.ini:2: " flows "$DATA/bad_load.ini"
expect "unknown congestion control" "$DATA/bad_cc.ini:2: " flows "$DATA/bad_cc.ini"
expect "bad ns-3 config value" "$DATA/bad_ns3.txt:3: " flows "$DATA/bad_ns3.txt"
expect "missing scenario file" "$TMP/no-such-file.ini: " flows "$TMP/no-such-file.ini"
expect "--set without =" "--set switch.buffer: " flows --set switch.buffer
expect "--set unknown section" "--set foo.bar=1: " flows --set foo.bar=1
expect "--set bad unit" "--set switch.buffer=12XB: " flows --set switch.buffer=12XB
expect "--set unknown cc" "--set transport.cc=foo: " flows --set transport.cc=foo
# a misspelt scheme: did-you-mean; the known CCs are those transport.cc takes, companions named apart
expect "--set misspelt cc: did you mean" "--set transport.cc=dcqnc: unknown congestion control 'dcqnc' (did you mean \`dcqcn\`? known: dcqcn, " flows --set transport.cc=dcqnc
if grep -q "known: [^;]*pbfs" "$TMP/err" || ! grep -q "; beside one of them run [a-z0-9, ]*pbfs[a-z0-9, ]*, each switched on by transport.NAME = on" "$TMP/err"; then
    fail=$((fail + 1)); echo "FAIL companions listed as CCs, or not explained"; sed 's/^/     stderr: /' "$TMP/err"
else pass=$((pass + 1)); fi
expect "--set misspelt lb: did you mean" "--set lb.scheme=conwave: unknown load balancer 'conwave' (did you mean \`conweave\`?" flows --set lb.scheme=conwave
expect "[cc.NAME] misspelt: did you mean" "--set cc.hpc.u_target=0.9: unknown section [cc.hpc]: no congestion control 'hpc' (did you mean \`hpcc\`?" flows --set cc.hpc.u_target=0.9
# `--set key value` (a space): say to write key=value, not "cannot open scenario file"
expect "--set KEY VALUE" "--set transport.cc: expected section.key=value as one argument: write --set transport.cc=dcqcn" run --set transport.cc dcqcn
# units: a rate written as a size gets the rate's unit; a byte count takes B
expect "rate in Gb" "--set topology.host_link=100Gb: topology.host_link: bad rate '100Gb': unknown rate unit: did you mean Gbps?" flows --set topology.host_link=100Gb
expect "byte count with a bad unit" "--set transport.mtu=9000X: transport.mtu: bad byte count" flows --set transport.mtu=9000X
# serial-only refusals: what is refused and which key, in user words
# a dependency met in another partition than the released flow's source's (here flow 0's completion,
# at its sender host0, releases flow 1 at host20, under another leaf) stays serial; collectives' and
# one leaf's releases are local (cli_parallel)
printf '2\n0 1 3 100 10000 0\n20 3 3 100 10000 0 0\n' > "$TMP/dep_flows.txt"
expect "cross-partition dependency on threads" "--set run.threads=2: run.threads = 2: flow 1 waits for flow 0's completion (its last ACK at its sender), met at host0, in another partition than its own source host20: the release would have to cross partitions" run --quiet --set traffic.pattern=file --set traffic.file="$TMP/dep_flows.txt" --set run.threads=2 --out "$TMP/o"
expect "collective's QP chain under conweave on threads" "--set run.threads=2: run.threads = 2: flow " run --quiet --set traffic.pattern=collective --set lb.scheme=conweave --set run.threads=2 --out "$TMP/o"
if grep -q "continues flow [0-9]*'s queue pair .* conweave's destination switch" "$TMP/err"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL conweave QP refusal"; fi
if grep -q 'struct \|traffic\.after\|cport\|n_sent' "$TMP/err"; then fail=$((fail + 1)); echo "FAIL refusal names code"; else pass=$((pass + 1)); fi
expect "--set after file, run" "--set traffic.load=1.7: " run "$DATA/bad_topo_missing.ini" --set traffic.load=1.7 --quiet
expect "missing topology file" "$DATA/bad_topo_missing.ini:3: " flows "$DATA/bad_topo_missing.ini"
expect "topology names a missing node" "$DATA/topo_bad_node.txt:4: " flows "$TMP/topo_node.ini"
# a link line without its last field is reported on that line, not on the next one
printf '[topology]\ntype = file\nfile = %s\n' "$DATA/topo_missing_field.txt" >"$TMP/topo_field.ini"
expect "topology link missing a field" "$DATA/topo_missing_field.txt:4: link 2 has 4 of its 5 fields (first node, second node, rate, delay, error rate) on this line: is its error rate missing?" flows "$TMP/topo_field.ini"
expect "flow to a non-host" "$DATA/flow_to_switch.txt:3: " flows "$TMP/flow_host.ini"
printf '[traffic]\npattern = none\n[flow.a]\nsrc = 0\ndst = 1\nsize = 1KB\n[output]\nqueue_ports = 999:0\n' >"$TMP/mon.ini"
expect "monitor port list names a missing node" "$TMP/mon.ini:8: output.queue_ports: " run "$TMP/mon.ini" --quiet --out "$TMP/mon"
long=$(printf 'x%.0s' $(seq 70))
expect "monitor port item too long" "--set output.queue_ports=$long: output.queue_ports: '$(printf 'x%.0s' $(seq 63))...': item too long" run --quiet --set traffic.pattern=none --set flow.a.src=0 --set flow.a.dst=1 --set flow.a.size=1KB --set output.queue_ports=$long --out "$TMP/mon"
expect "monitor flow item too long" "--set output.flows=$long: output.flows: '$(printf 'x%.0s' $(seq 63))...': item too long" run --quiet --set traffic.pattern=none --set flow.a.src=0 --set flow.a.dst=1 --set flow.a.size=1KB --set output.flows=$long --out "$TMP/mon"
expect "--set monitor flow list" "--set output.flows=7: output.flows: " run --quiet --set traffic.pattern=none --set flow.a.src=0 --set flow.a.dst=1 --set flow.a.size=1KB --set output.flows=7 --out "$TMP/mon"
# errors found while building traffic and network still name where the key was set
printf '[run]\nseed = 3\n[traffic.bg]\nload = 0.2\ncdf = nosuch\n' >"$TMP/cdf.ini"
expect "unknown CDF in [traffic.NAME]" "$TMP/cdf.ini:5: [traffic.bg] traffic.cdf: no workload named 'nosuch'" flows "$TMP/cdf.ini"
expect "--set unknown CDF" "--set traffic.cdf=nosuch: traffic.cdf: " flows --set traffic.cdf=nosuch
expect "buffer below headroom" "--set switch.buffer=10KB: switch.buffer " run --quiet --set switch.buffer=10KB --out "$TMP/buf"
: >"$TMP/afile"
expect "--out under a file" "--out $TMP/afile/x: " run --quiet --set traffic.duration=10us --out "$TMP/afile/x"
expect "report: malformed fct.csv line" "$DATA/report/bad_fields/fct.csv:3: " report "$DATA/report/ok" "$DATA/report/bad_fields"
expect "report: bad number" "$DATA/report/bad_number/fct.csv:4: " report "$DATA/report/bad_number"
expect "report: missing run folder" "$TMP/no-run/fct.csv: " report "$TMP/no-run"
expect "report without folder" "usage: rocesim report" report
expect "report --seeds without --vs" "usage: rocesim report --seeds" report --seeds "$DATA/report/ns3_a_fct.txt"
expect "report --seeds, nothing after --vs" "usage: rocesim report --seeds" report --seeds "$DATA/report/ns3_a_fct.txt" --vs
expect "report --seeds, other flows" "$DATA/report/ok: its size deciles differ" report --seeds "$DATA/report/ns3_a_fct.txt" --vs "$DATA/report/ok"
# collectives and flow dependencies (issue 28)
printf '3\n0 1 3 100 1000 0 2\n1 2 3 100 1000 0 0\n2 3 3 100 1000 0 1\n' >"$TMP/flow_cycle.txt"
printf '[traffic]\npattern = file\nfile = %s\n' "$TMP/flow_cycle.txt" >"$TMP/cycle.ini"
expect "flow file: dependency cycle" "$TMP/flow_cycle.txt:2: flow 0 is on a cycle" run "$TMP/cycle.ini" -q --out "$TMP/o"
printf '[traffic]\npattern = collective\ncollective = hd_allreduce\ngroup = 12\n' >"$TMP/hd.ini"
expect "hd_allreduce, 12 hosts" "$TMP/hd.ini:4: traffic.group: hd_allreduce" run "$TMP/hd.ini" -q --out "$TMP/o"

# Multi-port NICs (topology.planes, dual_tor): combinations that do not exist
printf '[topology]\ntype = leafspine\nplanes = 2\n' >"$TMP/planes_ls.ini"
expect "planes on a leaf-spine" "$TMP/planes_ls.ini:3: topology.planes is for GPU fabrics" run "$TMP/planes_ls.ini" -q --out "$TMP/o"
printf '[topology]\ntype = rail\nplanes = 2\ndual_tor = on\n' >"$TMP/planes_dt.ini"
expect "planes with dual_tor" "$TMP/planes_dt.ini:4: topology.dual_tor: with planes = 2" run "$TMP/planes_dt.ini" -q --out "$TMP/o"
printf '[topology]\ntype = rail\nservers = 2\nplanes = 2\n[traffic]\npattern = poisson\n' >"$TMP/planes_poisson.ini"
expect "Poisson on multi-port NICs" "$TMP/planes_poisson.ini:6: traffic.pattern: the fabric's NICs have 2 ports" run "$TMP/planes_poisson.ini" -q --out "$TMP/o"
printf '1\n0 20 3 100 1000 0\n' >"$TMP/port_flow.txt"
printf '[topology]\ntype = rail\nservers = 2\nplanes = 2\n[traffic]\npattern = file\nfile = %s\n' "$TMP/port_flow.txt" >"$TMP/planes_file.ini"
expect "flow file naming a NIC's second port" "$TMP/port_flow.txt:2: flow to node 20 is port 1 of GPU 4's NIC" run "$TMP/planes_file.ini" -q --out "$TMP/o"

# A PFC deadlock stops the run with exit code 3, the cycle on stderr and in summary.json.
(cd "$SRC" && "$BIN" run scenarios/deadlock-ring.ini --quiet --out "$TMP/dl") >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 3 ] && grep -q '^rocesim: PFC deadlock at ' "$TMP/err" &&
    [ "$(grep -c '^  switch 1[0-4] port [0-9] (to node 1[0-4]) priority 3 paused since ' "$TMP/err")" -eq 5 ] &&
    grep -q '"deadlock": {"detected_ns": ' "$TMP/dl/summary.json"; then
    pass=$((pass + 1))
else
    echo "FAIL: deadlock-ring: exit $rc (want 3), stderr:"
    cat "$TMP/err"
    fail=$((fail + 1))
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
