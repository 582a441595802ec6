/* The experiments layer: `rocesim sweep` (grids of runs, one child process
 * each, on all cores, sharded or shared among MPI ranks), `rocesim plot`
 * (gnuplot figures), `rocesim report --html` and `rocesim reproduce` (the
 * papers' figures by name). It sits on top of the CLI: it runs our own
 * binary as `rocesim run` children and reads their output folders back
 * (stats/report.h), so a crashing run cannot take the sweep down.
 *
 * This is the layer's interface for src/cli/ (exp.c is its top). The files
 * of src/exp/ read downward, each including only the headers of the files
 * below it (the order is in docs/architecture.md and checked by
 * tests/include_layers.sh). */
#ifndef ROCESIM_EXP_H
#define ROCESIM_EXP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "exp/sweep.h"
/* for page.c, which still includes this header rather than the ones below it */
#include "exp/expdef.h"
#include "exp/page.h"
#include "exp/reproduce.h"
#include "exp/util.h"

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

#endif
