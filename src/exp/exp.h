/* The experiments layer: `rocesim sweep` (grids of runs, one child process
 * each, on all cores, sharded or shared among MPI ranks), `rocesim plot`
 * (gnuplot figures), `rocesim report --html` and `rocesim reproduce` (the
 * papers' figures by name). It sits on top of the CLI: it runs our own
 * binary as `rocesim run` children and reads their output folders back
 * (stats/report.h), so a crashing run cannot take the sweep down. */
#ifndef ROCESIM_EXP_H
#define ROCESIM_EXP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* How a sweep's points are shared among cooperating processes. Without MPI
 * there is one (rank 0 of 1, gather = copy). */
struct exp_dist {
    int rank, size;
    const char *name; /* "MPI" or NULL */
    /* Concatenates every rank's text on rank 0 (rank order); returns a
     * malloc'ed string on rank 0, NULL on the others. */
    char *(*gather)(const char *mine);
    void (*barrier)(void);
};

/* Handles argv[1] = sweep | plot | reproduce, and report when --html is
 * among the arguments. Returns the exit code, or -1 if the command is not
 * ours. dist may be NULL (single process); when launched by mpirun, the
 * CLI passes the MPI one (cli/dist_mpi.c). */
int exp_main(int argc, char **argv, const struct exp_dist *(*dist)(int *argc, char ***argv));

/* cli/dist_mpi.c (executable only): the MPI sharing when built with MPI
 * and launched by mpirun, else NULL. */
const struct exp_dist *exp_dist_mpi(int *argc, char ***argv);
extern const bool exp_mpi_built;
/* cli/dist_mpi.c: for `rocesim run` launched by mpirun with more than one
 * rank, the collectives of a run across them (net.h); else NULL. */
struct eng_comm;
const struct eng_comm *run_comm_mpi(int *argc, char ***argv);

/* `rocesim list`: which optional parts are there (MPI at build time,
 * gnuplot and chromium at run time). */
void exp_print_features(FILE *out, bool mpi_built);

/* An executable named prog on $PATH? */
bool exp_on_path(const char *prog);

/* sweep.c */
/* The binary's version (the CLI sets it): a sweep reruns a complete point
 * whose summary.json names another. */
extern const char *exp_version;
int exp_sweep(int argc, char **argv, const struct exp_dist *d);
/* Why the run in dir is not what configuration pc would run now: the keys
 * whose values differ from its summary.json's "config" (comments and layout
 * of the scenario file do not count), and with binary set, another
 * rocesim_version. why is "" when it is current. */
struct config;
void exp_run_stale(const char *dir, const struct config *pc, bool binary, char *why, size_t n);
/* The run folders (DIR/RUN) a sweep folder's sweep.csv lists with status
 * ok, malloc'ed, in table order; returns their count, or -1 without a
 * sweep.csv. With who (a command name) set, says on stderr which rows
 * were left out (failed, pending) and which run folders in DIR are not
 * rows of the table (an earlier grid's), so they are never mixed in. */
int exp_sweep_runs(const char *dir, char ***paths, const char *who);
/* The binary to run children with: this process's own executable. */
const char *exp_self(void);
/* plot.c */
int exp_plot(int argc, char **argv);
/* Writes figures of run folders / a sweep.csv into outdir; returns the count made, -1 on error (message printed). */
int exp_plot_dirs(const char *const *inputs, int n, const char *outdir, bool svg, bool png);
/* The figures of the completed runs of sweepdir/sweep.csv, a line per
 * combination of the swept values but the seed (seeds: mean, min-max bars). */
int exp_plot_sweep_runs(const char *sweepdir, const char *outdir);
/* Figure titles on or off; legend labels: a swept value from[i] is shown as to[i]. */
void exp_plot_options(bool titles, int n, const char *const *from, const char *const *to);
bool exp_have_gnuplot(void);
/* Runs gnuplot on script (a file name) in dir; 0 or -1. */
int exp_gnuplot(const char *dir, const char *script);
/* plot_collective.c: each job's iteration times from the folders' collective.csv; 1 drawn, 0 none, -1 error. */
int exp_plot_collectives(const char *outdir, const char *const *dirs, const char *const *labels, int n);
/* A clustered bar chart: v[r * ncols + c] (NaN: no bar); lo/hi (or NULL): the
 * min-max error bar of each; 0, or -1 (also when every value is 0: said on stdout). */
int exp_plot_bars(const char *outdir, const char *name, const char *title, const char *ylabel, int nrows,
                  const char *const *rows, int ncols, const char *const *cols, const double *v, const double *lo,
                  const double *hi);
/* html.c */
int exp_report_html(int argc, char **argv);
/* reproduce.c */
int exp_reproduce(int argc, char **argv);
/* The folder of the shipped experiments ($ROCESIM_EXPERIMENTS, ./experiments, or the source's). */
const char *exp_experiments_dir(void);
/* An experiment file (NAME.exp): sections of key = value lines. open: NULL
 * (message printed) if unreadable or malformed; item: entry i's line number
 * and its section, key and value, -1 past the end. */
struct exp_def;
struct exp_def *exp_def_open(const char *path);
void exp_def_close(struct exp_def *d);
const char *exp_def_get(const struct exp_def *d, const char *sec, const char *key);
int exp_def_item(const struct exp_def *d, int i, const char **sec, const char **key, const char **val);
/* page.c: `rocesim reproduce --page`, the verdict page of every experiment. */
int exp_page(int argc, char **argv);

/* A whole file as a NUL-terminated string (its length in *len if len), or
 * NULL if it cannot be opened. */
char *exp_slurp(const char *path, size_t *len);

#endif
