/* sweep.c: `rocesim sweep`, grids of `rocesim run` children, and the
 * reading of a sweep folder's table for the files above it. */
#ifndef ROCESIM_EXP_SWEEP_H
#define ROCESIM_EXP_SWEEP_H
#include <stdbool.h>
#include <stddef.h>

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
/* A sweep file's own relative paths (topology.file, traffic.file and cdf,
 * also of [traffic.NAME]) as absolute "section.key" values: a point's
 * scenario.ini lives in the point's folder, so they are written there so. */
struct exp_paths {
    char **key, **val;
    int n;
};
void exp_paths_of(const char *file, struct exp_paths *ap);
void exp_paths_free(struct exp_paths *ap);
/* The text of a point's scenario.ini as `rocesim sweep` writes it for the
 * sweep file `file`: the point's values (path values absolute), ap's paths
 * unless swept, and run.name = name unless swept. Malloc'ed. */
struct sweep_spec;
char *exp_point_text(const char *file, const struct sweep_spec *s, const int *choice, const struct exp_paths *ap,
                     const char *name);
/* The run folders (DIR/RUN) a sweep folder's sweep.csv lists with status
 * ok, malloc'ed, in table order; returns their count, or -1 without a
 * sweep.csv. With who (a command name) set, says on stderr which rows
 * were left out (failed, pending) and which run folders in DIR are not
 * rows of the table (an earlier grid's), so they are never mixed in. */
int exp_sweep_runs(const char *dir, char ***paths, const char *who);
/* The binary to run children with: this process's own executable. */
const char *exp_self(void);

#endif
