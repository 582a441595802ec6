/* plot_collective.c: the collectives' iteration times of run folders. */
#ifndef ROCESIM_EXP_PLOT_COLLECTIVE_H
#define ROCESIM_EXP_PLOT_COLLECTIVE_H

/* collective_iterations.{png,svg} in outdir from the runs' collective.csv:
 * a line per run folder and job; 1 drawn, 0 none, -1 error. */
int exp_plot_collectives(const char *outdir, const char *const *dirs, const char *const *labels, int n);

#endif
