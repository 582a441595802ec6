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

Across MPI ranks (--ranks RxT,...: R ranks of T threads each, needs
partition.csv): partition p runs at rank p*R/P (contiguous blocks, as
engine/engine.h's eng_rank_of assigns them), its threads scheduled as above within the rank only;
a window lasts as long as its busiest rank, plus the thread barrier, plus the
three collectives of a window (--mpi-us L: L x log2 R microseconds, measured
by bench/parallel/mpicosts.c). A message a partition receives from another
rank costs it --rank-message-ns more (the bytes through MPI; scheduled with
its events): partition.csv counts messages by receiving partition per window,
and partition.json's messages_between_partitions says, over the run, which
share of each partition's came from partitions at other ranks; without it
(more than 2,048 partitions) every message is priced as from another rank, an
upper bound.
--rank-event-factor F prices an event F times c_event when R > 1 (ranks on
one machine hold a copy each of the read-mostly tables in the shared cache).

usage: model.py partition.json CPU_SECONDS [--setup S] [--barrier-ns B | --barrier-flat-ns B]
                [--message-ns M] [--threads 2,16,64] [--label TEXT]
                [--ranks 2x1,4x16 [--mpi-us L] [--rank-message-ns N]]
"""
import argparse
import csv
import heapq
import json
import math
import os
import sys


def ranks_time(path, d, R, T, c_ev, c_msg, c_rmsg):
    """Sum over windows of the busiest rank's seconds: its busiest thread's
    load, a partition's load in a window being its events x c_ev + the
    messages it received x c_msg (+ the share of them from other ranks x
    c_rmsg), each rank's partitions scheduled on its T threads as Unison does
    (descending by the previous window's load, each to the least-loaded
    thread). R = 1: one process, "messages at receivers". None without
    partition.csv."""
    if not os.path.exists(path):
        return None
    P = d["partitions"]
    rank_of = [p * R // P for p in range(P)]
    parts_of = [[p for p in range(P) if rank_of[p] == r] for r in range(R)]
    cross = [1.0 if R > 1 else 0.0] * P
    if R > 1 and "messages_between_partitions" in d:
        got, other = [0] * P, [0] * P
        for q, p, n in d["messages_between_partitions"]:
            got[p] += n
            other[p] += n if rank_of[q] != rank_of[p] else 0
        cross = [other[p] / got[p] if got[p] else 0.0 for p in range(P)]
    total = 0.0
    with open(path) as f:
        rd = csv.reader(f)
        head = next(rd)
        ps = [i for i, h in enumerate(head) if h.startswith("p") and h[1:].isdigit()]
        ms = [i for i, h in enumerate(head) if h.startswith("m") and h[1:].isdigit()]
        if len(ms) != len(ps):
            return None
        prev = [0.0] * P
        for row in rd:
            ev = [int(row[i]) for i in ps]
            msg = [int(row[j]) for j in ms]
            load = [ev[p] * c_ev + msg[p] * (c_msg + cross[p] * c_rmsg) for p in range(P)]
            worst = 0.0
            for r in range(R):
                mine = [p for p in parts_of[r] if load[p] > 0]
                mine.sort(key=lambda p: (-prev[p], p))
                heap = [(0.0, t) for t in range(T)]
                mk = 0.0
                for p in mine:
                    l, t = heapq.heappop(heap)
                    l += load[p]
                    mk = max(mk, l)
                    heapq.heappush(heap, (l, t))
                worst = max(worst, mk)
            total += worst
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
    ap.add_argument("--ranks", default=None, help="RxT,...: R ranks of T threads (needs partition.csv)")
    ap.add_argument("--mpi-us", type=float, default=0.5, help="the 3 collectives of a window at 2 ranks, us")
    ap.add_argument("--rank-message-ns", type=float, default=35.0, help="a message from another rank, ns")
    ap.add_argument("--rank-event-factor", type=float, default=1.0,
                    help="c_event x this when R > 1 (1.2 measured with 2 ranks sharing one machine's cache)")
    a = ap.parse_args()
    d = json.load(open(a.json))
    ev = d["events"]
    loop = a.cpu - a.setup
    c_ev = loop / ev
    W = d["windows"]
    M = d["cut_packets"] + d["cut_pfc"]
    G = d["global_events"]
    if a.ranks:
        if a.header:
            print("| run | P | events/window | msgs/window | ns/event | ranks x threads | cores | collectives µs/window "
                  "| time s | speed-up |")
            print("|---|---|---|---|---|---|---|---|---|---|")
        for rt in a.ranks.split(","):
            R, T = (int(x) for x in rt.lower().split("x"))
            bar = (a.barrier_flat_ns * 1e-9 if a.barrier_flat_ns is not None else
                   (a.barrier_ns if a.barrier_ns is not None else 200.0) * 1e-9 * max(1.0, math.log2(T))) if T > 1 else 0
            mpi = a.mpi_us * 1e-6 * max(1.0, math.log2(R)) if R > 1 else 0
            f = a.rank_event_factor if R > 1 else 1.0
            mk = ranks_time(os.path.join(os.path.dirname(a.json), "partition.csv"), d, R, T, c_ev * f, a.message_ns * 1e-9,
                            a.rank_message_ns * 1e-9)
            if mk is None:
                sys.exit("model.py --ranks: needs partition.csv beside " + a.json)
            t = mk + G * c_ev * f + W * (bar + mpi)
            print("| %s | %d | %.0f | %.0f | %.0f | %d x %d | %d | %.2f | %.3f | **%.2f×** |"
                  % (a.label, d["partitions"], d["events_per_window"], M / max(W, 1), c_ev * 1e9, R, T, R * T,
                     mpi * 1e6, t, loop / t))
        return 0
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
        rx = ranks_time(os.path.join(os.path.dirname(a.json), "partition.csv"), d, 1, T, c_ev, a.message_ns * 1e-9, 0)
        rx_cell = "-" if rx is None else "%.2f×" % (loop / (rx + G * c_ev + W * bar))
        print("| %s | %d | %d | %d | %.0f | %.2f / %.2f | %.0f | %.0f | %d | %.2f | %s | %.0f %% | %s |"
              % (a.label, d["partitions"], d["cut_links"], W, d["events_per_window"], d["imbalance_run"],
                 d["imbalance_window_mean"], M / max(W, 1), c_ev * 1e9, T, bar * 1e6, " | ".join(cells), 100 * wait,
                 rx_cell))


if __name__ == "__main__":
    sys.exit(main())
