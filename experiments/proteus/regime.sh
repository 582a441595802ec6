#!/bin/sh
# regime.sh [OUT]: Proteus (paper-literal) against DRILL where PFC fires more
# and more (experiments/proteus/README.md, "What the DRILL claim needs").
# Runs experiments/proteus/regime.ini with one setting changed at a time, each
# for DRILL and Proteus (16 runs, about 3 CPU-minutes), from the repository
# root, and prints per run: Web Search flows' AFCT and p99 (us), the incast
# flows' AFCT, PAUSE frames, victim flows (%), out-of-order packets, MB resent,
# and Proteus's Algorithm 1/2 counters.
set -eu
out=${1:-results/proteus-regime}
bin=${ROCESIM:-build/rocesim}
base=experiments/proteus/regime.ini
run() { # NAME SETTINGS...
    n=$1; shift
    for s in drill proteus; do
        [ -f "$out/$n-$s/summary.json" ] || nice -n 10 "$bin" run "$base" --set traffic.duration=2ms \
            --set traffic.inc.duration=2ms "$@" --set lb.scheme=$s --out "$out/$n-$s" --quiet
    done
}
NOINC="--set traffic.inc.pattern=none"
run ws60            --set traffic.load=0.6 $NOINC
run ws60-gbn        --set traffic.load=0.6 $NOINC --set transport.reorder=gbn
run ws60-inc5       --set traffic.load=0.6
run ws60-shift6     --set traffic.load=0.6 $NOINC --set switch.pfc_shift=6
run ft8-ws60-inc5   --set traffic.load=0.6 --set topology.type=fattree --set topology.k=8
run os4-ws25        --set traffic.load=0.25 --set topology.fabric_link=50Gbps $NOINC
run ws50-inc10      --set traffic.load=0.5 --set traffic.inc.fan_in=64 --set traffic.inc.size=100KB --set traffic.inc.load=0.1
run ws40-inc20      --set traffic.load=0.4 --set traffic.inc.fan_in=64 --set traffic.inc.size=100KB --set traffic.inc.load=0.2
python3 - "$out" <<'PY'
import csv, json, os, sys
out = sys.argv[1]
print("| run | scheme | WS AFCT us | WS p99 us | incast AFCT us | PAUSEs | victims % | out-of-order | resent MB | Proteus counters |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
for d in sorted(os.listdir(out)):
    p = os.path.join(out, d)
    if not os.path.exists(os.path.join(p, "summary.json")):
        continue
    j = json.load(open(os.path.join(p, "summary.json")))
    rows = list(csv.DictReader(open(os.path.join(p, "fct.csv"))))
    ws = sorted(int(r["fct_ns"]) for r in rows if r["source"] == "traffic" and r["fct_ns"])
    inc = [int(r["fct_ns"]) for r in rows if r["source"] != "traffic" and r["fct_ns"]]
    p99 = ws[max(0, -(-99 * len(ws) // 100) - 1)] / 1e3 if ws else float("nan")
    sc = (j.get("lb_stats") or {}).get("scheme", {})
    name, scheme = d.rsplit("-", 1)
    print("| %s | %s | %.0f | %.0f | %s | %d | %.1f | %d | %.1f | %s |" % (
        name, scheme, sum(ws) / len(ws) / 1e3, p99, "%.0f" % (sum(inc) / len(inc) / 1e3) if inc else "-",
        j["pfc_pause_frames"], 100 * sum(int(r["victim"]) for r in rows) / len(rows),
        j["lb_stats"]["out_of_order_packets"], j.get("bytes_retransmitted", 0) / 1e6,
        ", ".join("%s %d" % (k, v) for k, v in sc.items() if v)))
PY
