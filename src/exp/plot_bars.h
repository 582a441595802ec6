/* plot_bars.c: a clustered bar chart (the tables of `rocesim reproduce`). */
#ifndef ROCESIM_EXP_PLOT_BARS_H
#define ROCESIM_EXP_PLOT_BARS_H

/* v[r * ncols + c] (NaN: no bar); lo/hi (or NULL): the min-max error bar of
 * each; 0, or -1 (also when every value is 0: said on stdout). */
int exp_plot_bars(const char *outdir, const char *name, const char *title, const char *ylabel, int nrows,
                  const char *const *rows, int ncols, const char *const *cols, const double *v, const double *lo,
                  const double *hi);

#endif
