/* plot.c: `rocesim plot`, and the figures of run folders and sweeps for
 * html.c and reproduce.c. */
#ifndef ROCESIM_EXP_PLOT_H
#define ROCESIM_EXP_PLOT_H
#include <stdbool.h>
#include "exp/fig.h"
#include "exp/plot_bars.h"

int exp_plot(int argc, char **argv);
/* Writes figures of run folders / a sweep.csv into outdir; returns the count made, -1 on error (message printed). */
int exp_plot_dirs(const char *const *inputs, int n, const char *outdir, bool svg, bool png);
/* The figures of the completed runs of sweepdir/sweep.csv, a line per
 * combination of the swept values but the seed (seeds: mean, min-max bars). */
int exp_plot_sweep_runs(const char *sweepdir, const char *outdir);

#endif
