/* Writing a run's results; see README "Outputs" for every column. */
#ifndef ROCESIM_OUTPUT_H
#define ROCESIM_OUTPUT_H
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include "core/err.h"
#include "scenario/scenario.h"

#define PATH_BUF 1024

/* How a run is written, chosen by the CLI. */
struct output_opts {
    const char *out_dir;    /* --out; NULL = the default folder (below) */
    const char *dir_suffix; /* appended to results/<scenario name> (from --set overrides), or NULL */
    const char *version;    /* of the binary, for summary.json */
    const char *cmdline;    /* as typed, for summary.json */
    bool tty;               /* stderr is a terminal: a \r progress line every 0.5 s, else a line every 5 s */
    bool quiet;             /* no progress at all */
    /* Set (to the signal number) by a SIGINT/SIGTERM handler: the run stops at
     * the next progress check and writes what it has, marked interrupted. */
    volatile sig_atomic_t *stop;
};

struct output {
    struct scenario *sc;
    struct output_opts opt;
    char dir[PATH_BUF];
    FILE *pfc_csv, *ns3_fct, *ns3_pfc;
    struct monitors *mon; /* stats/monitor.h; NULL when every monitor is off */
    double t0, last_print, wall;
    bool printed;
    int interrupted;      /* the signal that cut the run short, else 0 */
};

/* Creates the output folder (removing the files of an earlier run there),
 * opens the streaming files and attaches the simulator hooks. Folder:
 * out_dir, else [output] dir, else beside the ns-3 FCT_OUTPUT_FILE in ns-3
 * mode, else results/<scenario name><dir_suffix>. */
int output_open(struct output *o, struct scenario *sc, const struct output_opts *opt, struct err *e);
/* After sim_run: fct.csv, summary.json; closes everything. */
int output_finish(struct output *o, struct err *e);
void output_close(struct output *o);
/* The files a run writes under fixed names in its folder; output_open
 * removes them first, so no earlier run's file is left beside new ones. */
extern const char *const output_owned_files[];
/* The PFC deadlock a run stopped on (sim.dl), as text lines (stderr). */
void output_deadlock_text(FILE *f, const struct sim *s);
/* Nearest-rank percentile (pct in 0..100) of an ascending array. */
double percentile(const double *v, size_t n, double pct);

#endif
