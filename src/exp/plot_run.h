/* plot_run.c: the figures of run folders (slowdown by size, FCT CDF, PFC by
 * layer, the monitors over time), a set of runs grouped into series. */
#ifndef ROCESIM_EXP_PLOT_RUN_H
#define ROCESIM_EXP_PLOT_RUN_H
#include "exp/fig.h"
#include "stats/report.h"

struct run {
    const char *dir;
    char label[LB];
    int series; /* runs of one series differ only in their seed */
    struct report_run r;
    struct report_summary s;
};

/* Runs grouped into series, in first-seen order. */
struct set {
    struct run *runs;
    int n, ns;
    char (*slabel)[LB];
    int *ssize;
};

/* Loads the run folders (labels given, or derived when labels is NULL);
 * -1 on a bad folder (message printed). */
int plot_set_load(struct set *S, const char *const *dirs, const char *const *labels, int n);
void plot_set_unload(struct set *S);
/* The most seeds any series has. */
int plot_set_maxsize(const struct set *S);
/* Every figure of run folders; returns the count made, -1 on error. */
int plot_set(const char *outdir, const struct set *S);
/* FCT slowdown by flow size (p50 and p99 panels) as OUTDIR/NAME; 0 drawn, 1 left out, -1 error. */
int plot_slowdown_by_size(const char *out, const struct set *S, const char *name, const char *title_extra);

#endif
