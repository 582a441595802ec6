#!/bin/sh
# SimAI inputs (docs/simai.md): a SimAI workload recognised by content, SimAI
# topologies (NVSwitch as a switch, each GPU a NIC host and an NVLink host),
# SimAI.conf, ncclFlowModel_EndToEnd.csv; every column of the workload read;
# bad lines -> FILE:LINE and exit 2; every CC and LB, faults and two jobs.
# The workloads and topologies are ours (tests/data/simai), in SimAI's format.
# Usage: cli_simai.sh ROCESIM_BIN SOURCE_DIR
set -u
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac; }
BIN=$(abs "$1")
D=$(abs "$2")/tests/data/simai
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocesim_simai.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
cd "$TMP" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
run() { # run NAME ARGS...: rocesim run ARGS --out NAME, quiet
    name=$1
    shift
    "$BIN" run "$@" --out "$TMP/$name" >"$TMP/$name.out" 2>"$TMP/$name.err"
}
e2e() { awk -F, -v k="$2" '$1 == k' "$TMP/$1/ncclFlowModel_EndToEnd.csv"; }

# 1. TP 8 in one server: every flow between NVLink hosts (ids 17..24 in topo_8g), the report adds up,
#    and each all-reduce is within the closed form's reach on the non-blocking NVSwitch.
if run tp8 "$D/tp8.txt" --set topology.file="$D/topo_8g.txt" --set simai.conf="$D/conf.txt"; then
    awk -F, 'NR > 1 && ($2 < 17 || $3 < 17) { n++ } END { exit n > 0 }' "$TMP/tp8/fct.csv" &&
        ok "tp8: intra-server flows use NVLink hosts" || bad tp8 "a flow left the NVSwitch"
    total=$(e2e tp8 "total exposed comm")
    echo "$total" | awk -F, '{ comp = $4; t = $6; x = $2 }
        END { exit !(comp == 200.004 && (x + comp - t < 0.001 && t - x - comp < 0.001)) }' &&
        ok "tp8: total comp 200.004 us (every compute column) = total time - exposed" ||
        bad tp8 "total line '$total'"
    # ring all-reduce, n = 8, at 2880 Gbps less 48 B per 9000 B packet: 2(n-1)/n S / rate
    for row in "first_layer 1048576" "second_layer 4194304"; do
        set -- $row
        e2e tp8 "$1" | awk -F, -v s="$2" '{ ideal = 2 * 7 / 8 * s * 8 / 2880e9 * (9048 / 9000) * 1e6;
            exit !($9 >= ideal && $9 < ideal + 14 * 0.6 && $6 == $9) }' &&
            ok "tp8: $1 all-reduce: 2(n-1)/n S/rate <= time < that + 14 steps x 0.6 us, all exposed" ||
            bad tp8 "$1: $(e2e tp8 "$1")"
    done
    grep -q '"simai_jobs": \[{"name": "traffic", "workload": ' "$TMP/tp8/summary.json" && ok "tp8: summary.json simai_jobs" ||
        bad tp8 "no simai_jobs in summary.json"
    grep -q 'MON_START is not modelled' "$TMP/tp8.err" && ok "tp8: SimAI-only conf keys warned about" ||
        bad tp8 "no warning for MON_START"
    grep -q 'GLOBAL_T 0: SimAI always uses 1' "$TMP/tp8.err" && ok "tp8: GLOBAL_T forced to 1 with a warning" ||
        bad tp8 "no GLOBAL_T warning"
    if grep -q 'nonexistent\|SIMULATOR_STOP' "$TMP/tp8.err"; then bad tp8 "FLOW_FILE/FCT_OUTPUT_FILE/STOP_TIME not ignored"; else
        ok "tp8: FLOW_FILE, FCT_OUTPUT_FILE, SIMULATOR_STOP_TIME ignored"; fi
else
    bad tp8 "exit $?: $(cat "$TMP/tp8.err")"
fi

# 2. Every column: TP 8 x DP 2 on two servers. fwd/ig collectives on the TP groups (8 GPUs, NVLink),
#    wg on the DP groups (2 GPUs, one per server: NICs), sizes as written (fwd 100 -> 4096, SimAI's floor),
#    types as written, compute as written.
if run dp "$D/tp8dp2.txt" --set topology.file="$D/topo_16g.txt" --set simai.conf="$D/conf.txt"; then
    got=$(awk -F, 'NR > 1 { print $1, $2, $3, $4 }' "$TMP/dp/collective.csv" | sort | uniq -c | awk '{ print $1, $2, $3, $4, $5 }' | tr '\n' ';')
    want="2 traffic/0.fwd ring_allreduce 8 4096;8 traffic/0.wg ring_allreduce 2 262144;2 traffic/1.fwd ring_allreduce 8 524288;2 traffic/1.ig reducescatter 8 524288;8 traffic/1.wg ring_allreduce 2 1048576;2 traffic/2.fwd allgather 8 524288;2 traffic/2.ig ring_allreduce 8 524288;8 traffic/2.wg ring_allreduce 2 1048576;"
    [ "$got" = "$want" ] && ok "dp: communicators, types and sizes per column" || bad dp "collectives '$got'"
    awk -F, 'NR > 1 && $18 == "traffic" { if ($4 == 131072 || $4 == 524288) { if ($2 > 26 || $3 > 26) n++ } } END { exit n > 0 }' \
        "$TMP/dp/fct.csv" && ok "dp: DP (wg) flows between NIC hosts" || bad dp "a wg flow used NVLink"
    e2e dp SUM | awk -F, '{ exit !($3 == 130 && $4 == 180 && $5 == 140) }' &&
        ok "dp: fwd/wg/ig compute columns summed (130/180/140 us)" || bad dp "SUM $(e2e dp SUM)"
    e2e dp block_1 | awk -F, '{ exit !($3 == 70 && $4 == 90 && $5 == 80) }' && ok "dp: per-layer compute" ||
        bad dp "block_1 $(e2e dp block_1)"
else
    bad dp "exit $?: $(cat "$TMP/dp.err")"
fi

# 3. EP and DP_EP communicators: TP 4, ep 2 on 16 GPUs: GPU 0's EP group is {0, 4}, its DP_EP group {0, 8}.
if run ep "$D/ep.txt" --set topology.file="$D/topo_16g.txt" --set simai.conf="$D/conf.txt"; then
    # NVLink hosts are 27 + GPU; GPU 8 is on the other server (NIC host 8)
    awk -F, 'NR > 1 { print $2 "-" $3 }' "$TMP/ep/fct.csv" | grep -qx '27-31' && ok "ep: ALLTOALL_EP between GPUs 0 and 4" ||
        bad ep "no 0->4 flow"
    awk -F, 'NR > 1 { print $2 "-" $3 }' "$TMP/ep/fct.csv" | grep -qx '0-8' && ok "ep: ALLREDUCE_DP_EP between GPUs 0 and 8" ||
        bad ep "no 0->8 flow"
else
    bad ep "exit $?: $(cat "$TMP/ep.err")"
fi

# 3b. TP 16 over two servers: 8 rings (channels); inter-server flows between NIC hosts 0..15.
#     SimAI's ring order leaves server A from GPU c-1 and enters B at GPU c (another rail: src % 8 != dst % 8);
#     ring_order = rail keeps both ends on one rail.
for ro in simai rail; do
    if run "tp16_$ro" "$D/tp16.txt" --set topology.file="$D/topo_16g.txt" --set simai.conf="$D/conf.txt" --set simai.ring_order=$ro; then
        r=$(awk -F, 'NR > 1 && $2 < 16 && $3 < 16 { n++; same += ($2 % 8 == $3 % 8) } END { print n, same }' "$TMP/tp16_$ro/fct.csv")
        jobs=$(awk -F, 'NR > 1' "$TMP/tp16_$ro/collective.csv" | wc -l)
        # 8 rings x 30 steps x 2 inter-server flows
        want="480 0"; [ $ro = rail ] && want="480 480"
        [ "$r" = "$want" ] && [ "$jobs" -eq 8 ] && ok "tp16 $ro: 8 rings, inter-server flows (n, same rail) = $r" ||
            bad "tp16 $ro" "inter-server flows '$r' (want '$want'), $jobs rings"
    else
        bad "tp16 $ro" "exit $?: $(cat "$TMP/tp16_$ro.err")"
    fi
done

# 3c. SimAI's flows (MockNcclGroup): each ring flow a new queue pair whose one prerequisite is the flow its
#     data came in on, met when that flow completes (its sender has the last ACK: ns-3-alibabacloud's
#     QpComplete is what tells SimAI's receiver), so a GPU's successive steps to one peer can be in flight
#     together; yet not out of order (simai.recv_hold): SimAI hands a flow's data over only against a
#     posted receive, and a GPU posts step s's when it issues its step-s send, so each flow has a floor,
#     its GPU's previous flow to that peer (b); simai.qp = channel chains a channel's messages to a peer
#     on one queue pair (q) and starts a step when its data arrived (r), as pattern = collective does.
for qp in flow channel; do
    if "$BIN" flows "$D/tp16.txt" --set topology.file="$D/topo_16g.txt" --set simai.conf="$D/conf.txt" \
        --set simai.qp=$qp --set simai.send_lat=3us >"$TMP/flows_$qp.txt" 2>"$TMP/flows_$qp.err"; then
        r=$(awk 'NR > 1 && NF == 7 && $7 != "-" { n++; if ($7 ~ /^[0-9]+(,[0-9]+b)?(\+|$)/) one++; if ($7 ~ /r/) r++
                if ($7 ~ /q/) q++; if ($7 ~ /b/) b++ }
            END { print n, one + 0, r + 0, q + 0, b + 0 }' "$TMP/flows_$qp.txt")
        # 8 rings x 16 GPUs x 29 steps after the first: (with prerequisites, only one completion [+ a
        # floor], r, q, b)
        want="3712 3712 0 0 3712"; [ $qp = channel ] && want="3712 0 3712 3712 0"
        [ "$r" = "$want" ] && ok "qp $qp: (flows with prerequisites, with one completion, data's, queue pair's, floors) = $r" ||
            bad "qp $qp" "'$r', want '$want'"
    else
        bad "qp $qp" "exit $?: $(cat "$TMP/flows_$qp.err")"
    fi
done
# ...and each such flow starts AS_SEND_LAT (3 us) + SimAI's endpoint-delay (10 ns) after its parent completed,
# or with its floor (the GPU's previous flow to that peer) if that started later; none before its floor.
# With 64 MiB (tp16_64m: DCQCN cuts the inter-server QPs unevenly) some are held (their data came before
# their floor started), and with simai.recv_hold = off some of those overtake the step before.
steps() { # steps RUN: (flows, started 3010 ns after the parent's completion or with the floor, held, overtook)
    awk 'NR == FNR { if (FNR > 1 && $7 ~ /^[0-9]+,[0-9]+b\+/) { split($7, a, /[,b+]/); par[FNR - 2] = a[1]
            flo[FNR - 2] = a[2] } next }
        { split($0, f, ","); if (FNR > 1) { st[f[1]] = f[5]; fin[f[1]] = f[6] } }
        END { for (i in par) { n++; want = fin[par[i]] + 3010; if (st[flo[i]] > want) { want = st[flo[i]]; h++ }
                if (st[i] == want) k++; if (st[i] < st[flo[i]]) o++ }
            print n, k + 0, h + 0, o + 0 }' "$TMP/flows_hold.txt" "$TMP/$1/fct.csv"
}
H="$D/tp16_64m.txt --set topology.file=$D/topo_16g.txt --set simai.conf=$D/conf.txt --set simai.send_lat=3us"
# shellcheck disable=SC2086 # H is words
if "$BIN" flows $H >"$TMP/flows_hold.txt" 2>"$TMP/flows_hold.err" && run hold $H && run nohold $H --set simai.recv_hold=off; then
    r=$(steps hold)
    echo "$r" | awk '{ exit !($1 == 3712 && $2 == 3712 && $3 > 0 && $4 == 0) }' &&
        ok "qp flow: every ring step starts 3.010 us after its parent completed, or with its floor if held; none before it ($r)" ||
        bad "qp flow" "(flows, started 3010 ns after the parent's completion or with the floor, held, before the floor) = '$r'"
    r=$(steps nohold)
    echo "$r" | awk '{ exit !($1 == 3712 && $3 > 0 && $4 > 0) }' &&
        ok "recv_hold off: ring steps overtake the GPU's step before to that peer ($r)" ||
        bad "recv_hold off" "(flows, ..., before the floor) = '$r'"
else
    bad "hold" "exit $?: $(cat "$TMP/flows_hold.err" "$TMP/hold.err" "$TMP/nohold.err" 2>/dev/null)"
fi
if run tp16_lat "$D/tp16.txt" --set topology.file="$D/topo_16g.txt" --set simai.conf="$D/conf.txt" --set simai.send_lat=3us; then
    # SimAI's Total time is when its GPU 0 has finished (its report runs there), not the last GPU: GPU 0's
    # last flow (NIC host 0 or NVLink host 27) + the 2 ns of ig and wg compute after it
    r=$(awk -F, 'NR > 1 { if ($6 > m) m = $6; if (($2 == 0 || $3 == 0 || $2 == 27 || $3 == 27) && $6 > m0) m0 = $6 }
        END { printf "%.3f %.3f", (m0 + 2) / 1000, m / 1000 }' "$TMP/tp16_lat/fct.csv")
    t=$(e2e tp16_lat "total exposed comm" | cut -d, -f6)
    echo "$r $t" | awk '{ exit !($3 == $1 && $1 < $2) }' &&
        ok "tp16: Total time $t us = GPU 0's end, before the job's last flow (GPU 0 +2 ns, last: $r)" ||
        bad "tp16 total" "total $t, (GPU 0's end, last flow) = $r"
else
    bad "tp16_lat" "exit $?: $(cat "$TMP/tp16_lat.err")"
fi

# 4. Bad inputs: FILE:LINE and exit 2.
W="HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 8"
L="l -1 10 ALLREDUCE 4096 1 NONE 0 1 NONE 0 1"
expect() { # expect NAME PREFIX FILE-CONTENT [topology]
    printf '%s\n' "$3" >"$TMP/$1.txt"
    "$BIN" run "$TMP/$1.txt" --set topology.file="${4:-$D/topo_8g.txt}" --set simai.conf="$D/conf.txt" --out "$TMP/o_$1" \
        >/dev/null 2>"$TMP/$1.err"
    code=$?
    if [ $code -eq 2 ] && grep -q "^$TMP/$2" "$TMP/$1.err"; then ok "error: $1"; else
        bad "error: $1" "exit $code, stderr: $(cat "$TMP/$1.err")"; fi
}
expect fields "fields.txt:3: 11 fields, expected 12" "$W
1
l -1 10 ALLREDUCE 4096 1 NONE 0 1 NONE 0"
expect ctype "ctype.txt:3: fwd_type 'ALLREDUCE_XP'" "$W
1
l -1 10 ALLREDUCE_XP 4096 1 NONE 0 1 NONE 0 1"
expect ctype2 "ctype2.txt:3: wg_type 'BROADCAST'" "$W
1
l -1 10 NONE 0 1 NONE 0 1 BROADCAST 0 1"
expect compute "compute.txt:3: ig_compute '1.5'" "$W
1
l -1 10 NONE 0 1.5 NONE 0 1 NONE 0 1"
expect size "size.txt:4: wg_size '-8'" "$W
2
$L
l -1 10 NONE 0 1 NONE 0 1 ALLREDUCE -8 1"
expect depen "depen.txt:3: depen 'x'" "$W
1
l x 10 NONE 0 1 NONE 0 1 NONE 0 1"
expect update "update.txt:3: wg_update 'z'" "$W
1
l -1 10 NONE 0 1 NONE 0 1 NONE 0 z"
expect count_short "count_short.txt:4: 1 layers, line 2 announces 2" "$W
2
$L"
expect count_long "count_long.txt:4: more layers than the 1 line 2 announces" "$W
1
$L
$L"
expect count_bad "count_bad.txt:2: expected the number of layers" "$W
two
$L"
expect no_gpus "no_gpus.txt:1: the header needs model_parallel_NPU_group: and all_gpus:" "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8
1
$L"
expect tp_bad "tp_bad.txt:1: model_parallel_NPU_group:: bad value 'x'" "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: x all_gpus: 8
1
$L"
expect divides "divides.txt:1: all_gpus 12 is not a multiple" "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 all_gpus: 12
1
$L"
expect ckpt "ckpt.txt:1: checkpoints: 2: activation recomputation" "$W checkpoints: 2 0 1
1
$L"
expect policy "policy.txt:1: policy MICRO" "MICRO
1
$L"
# the topology and the conf
expect_topo() { # expect_topo NAME TOPOLOGY MESSAGE: the topology as $TMP/t_NAME.txt under a good workload
    printf "$2" >"$TMP/t_$1.txt"
    expect "topo_$1" "t_$1.txt:$3" "$W
1
$L" "$TMP/t_$1.txt"
}
expect_topo rate '3 1 1 1 2 H100\n1 2\n0 1 2880Gbps 0.000025ms 0\n0 2 400Gbs 0.0005ms 0\n' "4: link 2: bad rate"
expect_topo nv2 '11 8 2 1 3 H100\n8 9 10\n0 8 2880Gbps 0.000025ms 0\n0 9 2880Gbps 0.000025ms 0\n0 10 400Gbps 0.0005ms 0\n' \
    "1: 2 NVSwitches for 1 servers"
# ids past the header's node count (the translation names each GPU's NVLink host n + g: they must not reach it)
expect_topo swid '10 8 1 1 2 H100\n8 12\n0 8 2880Gbps 0.000025ms 0\n0 9 400Gbps 0.0005ms 0\n' \
    "2: switch id 12: the file has nodes 0..9"
expect_topo link '10 8 1 1 2 H100\n8 9\n0 8 2880Gbps 0.000025ms 0\n0 13 400Gbps 0.0005ms 0\n' \
    "4: link end 13: the file has nodes 0..9"
printf '%s\n1\n%s\n' "$W" "$L" >"$TMP/ok.txt"
printf 'KMAX_MAP 1 400000000000 x\n' >"$TMP/c_bad.txt"
"$BIN" run "$TMP/ok.txt" --set topology.file="$D/topo_8g.txt" --set simai.conf="$TMP/c_bad.txt" >/dev/null 2>"$TMP/c.err"
[ $? -eq 2 ] && grep -q "^--set simai.conf=$TMP/c_bad.txt: simai.conf: $TMP/c_bad.txt:1: KMAX_MAP: bad threshold" "$TMP/c.err" &&
    ok "error: conf (the option, then the conf's line)" ||
    bad "error: conf" "$(cat "$TMP/c.err")"
printf '%s\n1\n%s\n' "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 all_gpus: 16" "$L" >"$TMP/big.txt"
"$BIN" run "$TMP/big.txt" --set topology.file="$D/topo_8g.txt" >/dev/null 2>"$TMP/big.err"
[ $? -eq 2 ] && grep -q "needs 16 GPUs (all_gpus), the topology has 8" "$TMP/big.err" && ok "error: too few GPUs" ||
    bad "error: too few GPUs" "$(cat "$TMP/big.err")"

# 5. Every CC and every LB under a SimAI job (TP 8 x DP 2: NVLink and the rail fabric).
for cc in dcqcn hpcc timely dctcp swift pcn qcn mprdma none; do
    if run "cc_$cc" "$D/tp8dp2.txt" --set topology.file="$D/topo_16g.txt" --set simai.conf="$D/conf.txt" \
        --set transport.cc=$cc && grep -q '"finished": true' "$TMP/cc_$cc/summary.json"; then ok "cc $cc"; else
        bad "cc $cc" "$(tail -2 "$TMP/cc_$cc.err")"; fi
done
for lb in ecmp spray drill letflow conga hermes proteus flb conweave; do
    extra=""
    [ $lb = conweave ] && extra="--set transport.reorder=buffer"
    if run "lb_$lb" "$D/tp8dp2.txt" --set topology.file="$D/topo_16g.txt" --set simai.conf="$D/conf.txt" \
        --set lb.scheme=$lb $extra && grep -q '"finished": true' "$TMP/lb_$lb/summary.json"; then ok "lb $lb"; else
        bad "lb $lb" "$(tail -2 "$TMP/lb_$lb.err")"; fi
done

k=0
for x in "transport.cc=flbrc lb.scheme=flb" "transport.pbfs=on" "transport.hf2t=on lb.scheme=letflow" "transport.slowstart=on"; do
    k=$((k + 1))
    set --
    for kv in $x; do set -- "$@" --set "$kv"; done
    if run "comp_$k" "$D/tp8dp2.txt" --set topology.file="$D/topo_16g.txt" --set simai.conf="$D/conf.txt" "$@" &&
        grep -q '"finished": true' "$TMP/comp_$k/summary.json"; then ok "$x"; else bad "$x" "$(tail -2 "$TMP/comp_$k.err")"; fi
done

# 6. A fault: GPU 0's NIC link cut to 100 Gbps for the whole run makes the DP all-reduces, and the job, slower.
if run slow "$D/tp8dp2.txt" --set topology.file="$D/topo_16g.txt" --set simai.conf="$D/conf.txt" \
    --set topology.slow=0-18:100Gbps@0; then
    a=$(e2e dp "total exposed comm" | cut -d, -f6)
    b=$(e2e slow "total exposed comm" | cut -d, -f6)
    awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > a + 10) }' && ok "fault: slowed NIC link, job $a -> $b us" ||
        bad fault "job $a -> $b us"
else
    bad fault "exit $?: $(cat "$TMP/slow.err")"
fi

# 7. Two jobs: [traffic] on GPUs 0-7 (the first free), [traffic.b] on the next 8; both reported.
cat >"$TMP/two.ini" <<EOF
[topology]
type = file
file = $D/topo_16g.txt
[simai]
conf = $D/conf.txt
[traffic]
pattern = simai
file = $D/tp8.txt
[traffic.b]
pattern = simai
file = $D/tp8.txt
EOF
if run two "$TMP/two.ini"; then
    [ -f "$TMP/two/ncclFlowModel_EndToEnd.csv" ] && [ -f "$TMP/two/ncclFlowModel_EndToEnd_b.csv" ] &&
        ok "two jobs: one report each" || bad "two jobs" "$(ls "$TMP/two")"
    # job b on GPUs 8-15: NVLink hosts 27+8 .. 27+15
    awk -F, 'NR > 1 && $18 == "traffic.b" && ($2 < 35 || $3 < 35) { n++ } END { exit n > 0 }' "$TMP/two/fct.csv" &&
        ok "two jobs: the second on the next free GPUs" || bad "two jobs" "job b overlaps job a"
else
    bad "two jobs" "exit $?: $(cat "$TMP/two.err")"
fi

# 8. The scenario file, run from another folder: its simai.conf, topology and workloads are read from its folder.
if run scen "$D/../../../scenarios/simai-two-jobs.ini" && [ -f "$TMP/scen/ncclFlowModel_EndToEnd_b.csv" ]; then
    ok "scenarios/simai-two-jobs.ini from another folder"
else
    bad "scenario" "$(tail -2 "$TMP/scen.err")"
fi

echo "cli_simai: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
