/* `rocesim report DIR [DIR2 ...]`: FCT and slowdown statistics of finished
 * runs, read back from their output folders (fct.csv, and summary.json and
 * pfc_ports.csv when present). Bad input is "FILE:LINE: what is wrong". */
#ifndef ROCESIM_REPORT_H
#define ROCESIM_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/err.h"

struct report_flow {
    uint32_t id;
    uint64_t size;
    bool done;
    double fct_ns, slowdown; /* done only */
    uint32_t ooo, ooo_max, flowlets, path_switches; /* when fct.csv has them */
};

struct report_port {
    uint32_t node, port;
    int layer; /* 0 host, 1 edge, 2 agg, 3 core */
    uint64_t frames;
    double paused_us;
};

struct report_run {
    char dir[1024];
    struct report_flow *flows;
    size_t n_flows;
    bool has_lb;                  /* fct.csv had the load-balancing columns */
    bool has_layers;              /* summary.json had pfc_pause_frames_by_layer */
    bool interrupted;             /* summary.json: a signal cut the run short */
    uint64_t pause_sent[4];       /* by the sender's layer */
    bool has_ports;               /* pfc_ports.csv was there */
    double *imbalance;            /* imbalance.csv's samples, when there */
    size_t n_imbalance;
    struct report_port *ports;
    size_t n_ports;
};

/* Statistics of one group of flows. Percentiles: nearest rank (as
 * summary.json) for the fixed buckets; sorted[int(n*p)] with the slowdown
 * clamped at 1 for the equal-count buckets, as ns-3's fct_analysis.py. */
struct report_stats {
    size_t n, unfinished;
    uint64_t max_size; /* equal-count buckets: largest flow in the bucket */
    double avg, p50, p95, p99, p999; /* NaN when n == 0 */
};

#define REPORT_FIXED 4   /* all, (0,100KB], (100KB,1MB], (1MB,inf) */
#define REPORT_EQUAL 20  /* 5 % steps of the flows sorted by size */

struct report_summary {
    size_t flows, finished, unfinished;
    double afct_us;
    struct report_stats fct[REPORT_FIXED], sd[REPORT_FIXED];   /* fct in us */
    struct report_stats efct[REPORT_EQUAL], esd[REPORT_EQUAL]; /* finished flows only */
};

/* Reads DIR/fct.csv (required), DIR/summary.json and DIR/pfc_ports.csv (if present). */
int report_load(struct report_run *r, const char *dir, struct err *e);
/* Single files, for tests: `path` is used in messages. */
int report_read_fct(struct report_run *r, const char *path, struct err *e);
int report_read_ports(struct report_run *r, const char *path, struct err *e);
int report_read_summary(struct report_run *r, const char *path, struct err *e);
void report_compute(const struct report_run *r, struct report_summary *out);
void report_free(struct report_run *r);
/* The whole report of n runs, one column per run. */
int report_print(FILE *out, const char *const *dirs, int n, struct err *e);

#endif
