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
    uint16_t source; /* index into report_run.sources (fct.csv's source column), 0 without one */
};

#define REPORT_SOURCES 64 /* distinct source names kept; further ones share the last */
#define REPORT_SOURCE_LEN 48

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
    char sources[REPORT_SOURCES][REPORT_SOURCE_LEN]; /* "traffic", "traffic.NAME", "flow.NAME"; "" = none */
    size_t n_sources;
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

/* Reads DIR/fct.csv, DIR/summary.json and DIR/pfc_ports.csv (if present); a
 * folder with no fct.csv but an fct.txt, or a file, is read as ns-3 HPCC's
 * fct.txt (report_read_ns3_fct). */
int report_load(struct report_run *r, const char *dir, struct err *e);
/* ns-3 HPCC fct.txt: "sip dip sport dport size start_ns fct_ns standalone_fct_ns"
 * per finished flow (hex addresses); slowdown = fct / standalone, id = line - 1. */
int report_read_ns3_fct(struct report_run *r, const char *path, struct err *e);
/* Single files, for tests: `path` is used in messages. */
int report_read_fct(struct report_run *r, const char *path, struct err *e);
int report_read_ports(struct report_run *r, const char *path, struct err *e);
int report_read_summary(struct report_run *r, const char *path, struct err *e);
void report_compute(const struct report_run *r, struct report_summary *out);
void report_free(struct report_run *r);
/* Ten equal-count size buckets of the finished flows (sorted by size, bucket
 * i = [i*n/10, (i+1)*n/10)), slowdown percentiles as the equal-count buckets
 * above: for checking one simulator against another bucket by bucket. */
#define REPORT_DECILES 10
struct report_decile {
    size_t n;
    uint64_t min_size, max_size;
    double p50, p95, p99; /* NaN when n == 0 */
};
void report_deciles(const struct report_run *r, struct report_decile out[REPORT_DECILES]);
/* With n >= 2: every run's deciles side by side, and per cell the largest
 * relative difference from run 1 (the reference, e.g. ns-3's fct.txt). */
void report_print_compare(FILE *out, const struct report_run *runs, int n);
/* `report --seeds A... --vs B...`: the decile cells of two groups of runs of
 * the same flows (say ns-3 and rocesim, several random seeds each), each cell
 * as mean [min, max] per side, the difference of the means relative to side
 * 1, whether each mean lies within the other side's range, and Welch's t.
 * Runs whose deciles hold other sizes are an error. `sum` (may be NULL) gets
 * the counts of the closing line. */
struct report_seed_sum {
    int cells, within5, within10, in_range;
};
int report_print_seeds(FILE *out, const char *const *a, int na, const char *const *b, int nb, struct report_seed_sum *sum,
                       struct err *e);
/* The whole report of n runs, one column per run. */
int report_print(FILE *out, const char *const *dirs, int n, struct err *e);

#endif
