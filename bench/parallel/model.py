#!/usr/bin/env python3
"""bench/parallel/model.py: the scaling model of docs/parallel.md.

From a run's partition.json (output.partition_report = on) and the CPU
seconds of the same run with the report off, predicts the wall time of a
window-synchronised parallel run on T threads:

    time(T) = (makespan_events(T) + global_events) * c_event
              + windows * barrier(T)
              + cut_messages * c_message / T

  makespan_events(T)  sum over windows of the busiest thread's events
                      (partition.json, per schedule: unison, static, bound)
  global_events       monitors, link changes, deadlock checks: run serially
  c_event             (serial CPU seconds - set-up CPU seconds) / events
                      (measured, report off; --setup: a run stopped at 1 ps)
  barrier(T)          one window barrier with T threads (an assumption:
                      --barrier-ns B gives B * log2(T), a dissemination
                      barrier's rounds; --barrier-flat-ns B gives B)
  c_message           one packet or PFC frame over a cut link, handled by
                      its receiving partition (spread over the threads)

"messages at receivers" (when partition.csv is beside the JSON) prices each
message at the partition that receives it instead: a partition's load in a
window is events x c_event + messages received x c_message, scheduled as above.
"wait" is the share of the threads' time spent at the barrier waiting for the
busiest thread of each window (unison schedule, events only).
Speed-up = the serial event loop's CPU seconds / time(T): set-up (topology,
routes, flows) stays serial and is left out. Prints one row per T.

usage: model.py partition.json CPU_SECONDS [--setup S] [--barrier-ns B | --barrier-flat-ns B]
                [--message-ns M] [--threads 2,16,64] [--label TEXT]
"""
import argparse
import csv
import heapq
import json
import math
import os
import sys


def unison_with_messages(path, T, c_ev, c_msg):
    """Sum over windows of the busiest thread's seconds, where a partition's
    load in a window is its events x c_ev + the messages it received x c_msg,
    scheduled as Unison does (descending by the previous window's load, each to
    the least-loaded thread). None without partition.csv."""
    if not os.path.exists(path):
        return None
    total = 0.0
    with open(path) as f:
        rd = csv.reader(f)
        head = next(rd)
        ps = [i for i, h in enumerate(head) if h.startswith("p") and h[1:].isdigit()]
        ms = [i for i, h in enumerate(head) if h.startswith("m") and h[1:].isdigit()]
        if len(ms) != len(ps):
            return None
        prev = [0.0] * len(ps)
        for row in rd:
            load = [int(row[i]) * c_ev + int(row[j]) * c_msg for i, j in zip(ps, ms)]
            order = sorted((p for p in range(len(ps)) if load[p] > 0), key=lambda p: (-prev[p], p))
            heap = [(0.0, t) for t in range(T)]
            mk = 0.0
            for p in order:
                l, t = heapq.heappop(heap)
                l += load[p]
                mk = max(mk, l)
                heapq.heappush(heap, (l, t))
            total += mk
            prev = load
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("cpu", type=float, help="serial CPU seconds (report off)")
    ap.add_argument("--setup", type=float, default=0.0, help="set-up CPU seconds, left out")
    ap.add_argument("--barrier-ns", type=float, default=None)
    ap.add_argument("--barrier-flat-ns", type=float, default=None)
    ap.add_argument("--message-ns", type=float, default=20.0)
    ap.add_argument("--threads", default="2,16,64")
    ap.add_argument("--label", default="")
    ap.add_argument("--header", action="store_true")
    a = ap.parse_args()
    d = json.load(open(a.json))
    ev = d["events"]
    loop = a.cpu - a.setup
    c_ev = loop / ev
    W = d["windows"]
    M = d["cut_packets"] + d["cut_pfc"]
    G = d["global_events"]
    if a.header:
        print("| run | P | cut links | windows | events/window | imbalance (run / window mean) | msgs/window | ns/event "
              "| T | barrier µs | unison: time s, speed-up | static | bound | wait | messages at receivers |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for T in (int(x) for x in a.threads.split(",")):
        k = d["threads"].index(T)
        if a.barrier_flat_ns is not None:
            bar = a.barrier_flat_ns * 1e-9
        else:
            bar = (a.barrier_ns if a.barrier_ns is not None else 200.0) * 1e-9 * max(1.0, math.log2(T))
        cells = []
        # barrier wait: the share of thread time spent waiting for the busiest thread (unison)
        wait = 1 - (ev - G) / (T * d["makespan_events_unison"][k]) if d["makespan_events_unison"][k] else 0
        for sched in ("unison", "static", "bound"):
            mk = d["makespan_events_" + sched][k]
            t = (mk + G) * c_ev + W * bar + M * a.message_ns * 1e-9 / T
            cells.append("%.3f, **%.2f×**" % (t, loop / t) if sched == "unison" else "%.2f×" % (loop / t))
        rx = unison_with_messages(os.path.join(os.path.dirname(a.json), "partition.csv"), T, c_ev,
                                  a.message_ns * 1e-9)
        rx_cell = "-" if rx is None else "%.2f×" % (loop / (rx + G * c_ev + W * bar))
        print("| %s | %d | %d | %d | %.0f | %.2f / %.2f | %.0f | %.0f | %d | %.2f | %s | %.0f %% | %s |"
              % (a.label, d["partitions"], d["cut_links"], W, d["events_per_window"], d["imbalance_run"],
                 d["imbalance_window_mean"], M / max(W, 1), c_ev * 1e9, T, bar * 1e6, " | ".join(cells), 100 * wait,
                 rx_cell))


if __name__ == "__main__":
    sys.exit(main())
