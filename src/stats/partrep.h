/* The partition report (output.partition_report = on; docs/parallel.md): what
 * a conservative parallel run of this scenario would face, measured on the
 * serial run. The topology is partitioned (topo/partition.h, run.partitions);
 * simulated time is cut into windows as a window-synchronised engine would
 * cut it: a window starts at the earliest pending event and lasts the
 * lookahead (the smallest delay over cut links), so no message sent in it can
 * be due in it. Per window it counts the events of each partition
 * (net/net.h's hooks.event says which node an event acts on) and the packets
 * and PFC frames that arrive over a cut link (the messages).
 *   partition.csv   one row per window: window,start_ns,events,global,
 *                   cut_packets,cut_pfc,max_partition, then the events of
 *                   each partition p0,p1,..., then the messages each received
 *                   m0,m1,... (the packets and PFC frames arriving in it over
 *                   a cut link)
 *   partition.json  the partitioning, totals, imbalance, and for 1..64
 *                   threads the sum over windows of the busiest thread's
 *                   events under three schedules (below): the event part of
 *                   the scaling model; bench/partition_model.sh adds the costs.
 * Schedules of partitions onto T threads, per window: "unison" takes the
 * partitions in descending order of their previous window's events and gives
 * each to the thread with least work so far in this window (Unison's
 * load-adaptive scheduling, EuroSys'24, as a thread that runs out of work
 * fetches the next); "static" is partition p on thread p mod T; "bound" is
 * max(largest partition, events / T), which no schedule beats. */
#ifndef ROCESIM_PARTREP_H
#define ROCESIM_PARTREP_H
#include <stdbool.h>
#include <stdint.h>
#include "core/err.h"
#include "net/net.h"
#include "scenario/scenario.h"

struct partrep;

/* NULL in *out when output.partition_report is off. Opens partition.csv in
 * dir. Errors name the key: "run.partitions: ...". */
int partrep_open(struct partrep **out, const struct scenario *sc, const char *dir, struct err *e);
/* The hooks.event hook. */
void partrep_event(struct partrep *r, const struct sim *s, uint32_t node, uint32_t from, bool pfc);
/* After sim_run: the last window, partition.json, closes the files. */
int partrep_finish(struct partrep *r, const char *dir, struct err *e);
void partrep_free(struct partrep *r);

#endif
