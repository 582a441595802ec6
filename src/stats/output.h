/* Writing a run's results; see README "Outputs" for every column. */
#ifndef ROCESIM_OUTPUT_H
#define ROCESIM_OUTPUT_H
#include <stdbool.h>
#include <stdio.h>
#include "core/err.h"
#include "scenario/scenario.h"

#define PATH_BUF 1024

struct output {
    struct scenario *sc;
    char dir[PATH_BUF];
    FILE *pfc_csv, *ns3_fct, *ns3_pfc;
    struct monitors *mon; /* stats/monitor.h; NULL when every monitor is off */
    double t0, last_print, wall;
    bool printed;
};

/* Creates the output folder, opens the streaming files and attaches the
 * simulator hooks. Folder: out_dir, else [output] dir, else beside the ns-3
 * FCT_OUTPUT_FILE in ns-3 mode, else results/<scenario name>. */
int output_open(struct output *o, struct scenario *sc, const char *out_dir, bool progress, struct err *e);
/* After sim_run: fct.csv, summary.json; closes everything. */
int output_finish(struct output *o, struct err *e);
void output_close(struct output *o);
/* The PFC deadlock a run stopped on (sim.dl), as text lines (stderr). */
void output_deadlock_text(FILE *f, const struct sim *s);
/* Nearest-rank percentile (pct in 0..100) of an ascending array. */
double percentile(const double *v, size_t n, double pct);

#endif
