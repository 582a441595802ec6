/* Monitors: what happens over time, sampled by one periodic event
 * (net/sim.c's EV_MONITOR calling hooks.sample), each into its own CSV in the
 * output folder. All are off by default; off, they schedule nothing and cost
 * nothing. See README "Monitors" for every column.
 *   queue.csv       egress queue bytes of chosen ports     output.queue_ports, queue_interval
 *   util.csv        link utilisation of chosen ports       output.util_ports, util_interval
 *   flow_rate.csv   receive throughput of chosen flows     output.flows, flow_interval
 *   paused.csv      paused ports and paused paths          output.paused_interval
 *   ns-3 QLEN_MON_FILE  third.cc's monitor_buffer histograms (ns-3 configs)
 * and, at the end of every run, pfc_ports.csv (pause time per port). */
#ifndef ROCESIM_MONITOR_H
#define ROCESIM_MONITOR_H
#include <stdint.h>
#include "core/err.h"
#include "net/net.h"
#include "scenario/scenario.h"

struct monitors;

/* Resolves the [output] monitor keys (and ns-3's QLEN_MON_*, written to
 * qlen_path when that is non-NULL) against the built network and opens the
 * CSVs in dir. *out is NULL when every monitor is off; otherwise *first is
 * the time of the first sample (attach hooks.sample = monitors_sample, then
 * sim_monitor_start). Errors name the key first: "output.queue_ports: ...". */
int monitors_open(struct monitors **out, const struct scenario *sc, const char *dir, const char *qlen_path,
                  simtime_t *first, struct err *e);
/* The hook: takes every sample due now, returns the next sample time. */
simtime_t monitors_sample(struct monitors *m, const struct sim *s);
/* After sim_run: closing samples at the end time, then closes the files. */
int monitors_finish(struct monitors *m, const struct sim *s, struct err *e);
void monitors_free(struct monitors *m);

/* pfc_ports.csv: node,port,layer,pause_frames_received,paused_us for every port. */
int pfc_ports_write(const struct sim *s, const char *dir, struct err *e);
/* "host", "edge", "agg", "core" */
const char *layer_name(unsigned layer);

/* monlist.c: a port list as output.queue_ports takes it, resolved against s: global
 * port ids, ascending. Returns the count, or -1 with e set ("KEY: ..."). */
int monitor_parse_ports(const struct sim *s, const char *key, const char *spec, uint32_t **pids, struct err *e);
/* A port of an edge switch toward another switch. */
bool monitor_is_uplink(const struct sim *s, uint32_t pid);
/* monlist.c: a flow list: ids, ranges FIRST-LAST, names of [flow.NAME] flows. Returns the count or -1. */
int monitor_parse_flows(const struct scenario *sc, const char *key, const char *spec, uint32_t **ids, struct err *e);

#endif
