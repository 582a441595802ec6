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
    /* A run across MPI ranks, at a rank other than 0: no folder and no file
     * (rank 0 writes the results of all), only the watchdog and the signal
     * check, which every rank runs alike. */
    bool follower;
    double setup_t0; /* proc_wall() when the run's set-up began (summary.json setup.seconds); 0 = unknown */
};

#define OUTPUT_MAX_EXT 3 /* ns-3 outputs outside dir: fct.txt, pfc.txt, the QLEN_MON_FILE */

struct output {
    struct scenario *sc;
    struct output_opts opt;
    char dir[PATH_BUF];
    char tmp[PATH_BUF + 32]; /* dir/.rocesim-run-PID: this run's files until they are all written */
    char ext_tmp[OUTPUT_MAX_EXT][2 * PATH_BUF], ext_final[OUTPUT_MAX_EXT][2 * PATH_BUF];
    int n_ext;
    int lock_fd;    /* the folder's flock, + 1; 0 = none */
    bool committed; /* the files are in dir */
    /* run.watchdog: checked every wd_iv of simulated time while flows are
     * active; wd_since = when bytes_delivered last moved (at a check) */
    simtime_t wd_timeout, wd_iv, wd_since, wd_fired; /* wd_fired: when it stopped the run, else 0 */
    uint64_t wd_bytes;
    uint64_t total_bytes;  /* of every flow: the drain's ETA counts what is left */
    uint64_t drain_bytes0; /* bytes_delivered when the last flow started */
    double drain_t0;       /* wall time then, 0 before */
    FILE *pfc_csv, *ns3_fct, *ns3_pfc;
    struct monitors *mon; /* stats/monitor.h; NULL when every monitor is off */
    struct partrep *part; /* stats/partrep.h; NULL unless output.partition_report */
    double t0, last_print, wall;
    double setup_seconds;   /* from opt.setup_t0 to the end of output_open */
    uint64_t setup_peak_rss; /* peak memory then */
    bool printed;
    int interrupted;      /* the signal that cut the run short, else 0 */
};

/* Creates the output folder, locks it (another run into it is an error
 * naming that run's pid), opens the streaming files in a temporary folder
 * inside it and attaches the simulator hooks. Folder:
 * out_dir, else [output] dir, else beside the ns-3 FCT_OUTPUT_FILE in ns-3
 * mode, else results/<scenario name><dir_suffix>. */
int output_open(struct output *o, struct scenario *sc, const struct output_opts *opt, struct err *e);
/* After sim_run: fct.csv, summary.json; closes everything, then moves the
 * files into the folder in place of the earlier run's (summary.json last).
 * On an error (named with the file's final path and errno) nothing in the
 * folder is replaced. */
int output_finish(struct output *o, struct err *e);
/* fclose that names path and the system's reason when a write failed. */
int output_fclose(FILE *f, const char *path, struct err *e);
void output_close(struct output *o);
/* The files a run writes under fixed names in its folder; those this run
 * does not write are removed when its files move in, so no earlier run's
 * file is left beside new ones. */
extern const char *const output_owned_files[];
/* Why a lossless run dropped packets (by cause, counted at the drop site)
 * and the setting that avoids it, as one paragraph; 0 when none dropped. */
size_t output_lossless_drops_text(const struct sim *s, char *buf, size_t n);
/* The flows the watchdog found stuck and why it thinks so, as text (stderr). */
void output_watchdog_text(FILE *f, const struct output *o);
/* The PFC deadlock a run stopped on (sim.dl), as text lines (stderr). */
void output_deadlock_text(FILE *f, const struct sim *s);
/* Nearest-rank percentile (pct in 0..100) of an ascending array. */
double percentile(const double *v, size_t n, double pct);

#endif
