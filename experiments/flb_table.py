#!/usr/bin/env python3
"""Tables for experiments/flb-atc25.sh: reads rocesim run folders (summary.json,
fct.csv, pfc.csv, flow_rate.csv) and prints each figure's numbers. Usage:
flb_table.py KIND DIR... (KIND: fct | motivation | incast)."""
import csv, json, math, os, sys

LAYERS = ("edge", "agg", "core")


def summary(d):
    with open(os.path.join(d, "summary.json")) as f:
        return json.load(f)


def fcts(d):
    with open(os.path.join(d, "fct.csv")) as f:
        return [(int(r["size_bytes"]), int(r["fct_ns"]) if r["fct_ns"] else None) for r in csv.DictReader(f)]


def pct(v, p):
    v = sorted(v)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)] if v else float("nan")


def window_s(s):
    """The arrival window (traffic.duration), the PAUSE rate's time base."""
    t = s["config"]["traffic"]["duration"]
    for unit, mul in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("s", 1.0)):
        if t.endswith(unit):
            return float(t[: -len(unit)]) * mul
    return float(t)


def fct_table(dirs):
    print("| run | flows done | PAUSE/s edge (leaf) | agg | core (spine) | AFCT ms | p99 FCT ms | AFCT <=100KB us | drops |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in dirs:
        s = summary(d)
        fl = fcts(d)
        done = [t for _, t in fl if t is not None]
        small = [t for sz, t in fl if t is not None and sz <= 100000]
        w = window_s(s)
        pl = s["pfc_pause_frames_by_layer"]
        print("| %s | %d/%d | %.0f | %.0f | %.0f | %.3f | %.3f | %.1f | %d |" % (
            os.path.basename(d.rstrip("/")), len(done), len(fl), pl["edge"] / w, pl["agg"] / w, pl["core"] / w,
            sum(done) / len(done) / 1e6 if done else float("nan"), pct(done, 99) / 1e6,
            sum(small) / len(small) / 1e3 if small else float("nan"), s["drops_in_lossless_mode"]))


def motivation_table(dirs):
    """Fig. 2/3: f0, f1, f2 throughput during the bursts (40-48 ms) and the
    PAUSE frames each spine (path P0..P2: nodes 36..38) received then."""
    print("| run | f0 Gbps | f1 Gbps | f2 Gbps | PAUSEs to S1/S2/S3 (P0/P1/P2) | PAUSEs to H0-H2 | all PAUSEs | burst flows AFCT us |")
    print("|---|---|---|---|---|---|---|---|")
    for d in dirs:
        rates = {0: [], 1: [], 2: []}
        with open(os.path.join(d, "flow_rate.csv")) as f:
            for r in csv.DictReader(f):
                t = float(r["time_ns"]) / 1e6
                fid = int(r["flow_id"])
                if 40.0 < t <= 48.0 and fid in rates:
                    rates[fid].append(float(r["gbps"]))
        to_spine = [0, 0, 0]
        to_host = 0
        with open(os.path.join(d, "pfc.csv")) as f:
            for r in csv.DictReader(f):
                if r["event"] != "pause":
                    continue
                t = float(r["time_ns"]) / 1e6
                if not 40.0 <= t <= 60.0:
                    continue
                peer = int(r["node"])  # the node whose port was paused
                if 36 <= peer <= 38:
                    to_spine[peer - 36] += 1
                if peer <= 2:
                    to_host += 1
        s = summary(d)
        fl = fcts(d)
        burst = [t for i, (_, t) in enumerate(fl) if i >= 3 and t is not None]
        m = lambda v: sum(v) / len(v) if v else float("nan")
        print("| %s | %.1f | %.1f | %.1f | %s | %d | %d | %.0f |" % (
            os.path.basename(d.rstrip("/")), m(rates[0]), m(rates[1]), m(rates[2]),
            "/".join(map(str, to_spine)), to_host, s["pfc_pause_frames"], m(burst) / 1e3))


def incast_table(dirs):
    """Fig. 16: goodput at the client = bytes of the responses / time from the
    request (first start) to the last response's end."""
    print("| run | N | goodput Gbps | PAUSEs | drops |")
    print("|---|---|---|---|---|")
    for d in dirs:
        s = summary(d)
        with open(os.path.join(d, "fct.csv")) as f:
            rows = list(csv.DictReader(f))
        start = min(int(r["start_ns"]) for r in rows)
        end = max(int(r["finish_ns"]) for r in rows if r["finish_ns"])
        size = sum(int(r["size_bytes"]) for r in rows)
        print("| %s | %d | %.2f | %d | %d |" % (os.path.basename(d.rstrip("/")), len(rows),
              size * 8 / (end - start), s["pfc_pause_frames"], s["drops_in_lossless_mode"]))


if __name__ == "__main__":
    {"fct": fct_table, "motivation": motivation_table, "incast": incast_table}[sys.argv[1]](sys.argv[2:])
