/* A clustered bar chart (plot_bars.h), in fig.c's style. */
#include "exp/plot_bars.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "exp/fig.h"
#include "exp/util.h"

static const char *micro(const char *s, char *b, size_t n)
{
    const char *u = strstr(s, "(us)");
    if (!u)
        return s;
    snprintf(b, n, "%.*s(µs)%s", (int)(u - s), s, u + 4);
    return b;
}

int exp_plot_bars(const char *outdir, const char *name, const char *title, const char *ylabel, int nrows,
                  const char *const *rows, int ncols, const char *const *cols, const double *v, const double *lo,
                  const double *hi)
{
    if (!exp_have_gnuplot())
        return -1;
    char data[PB], rel[LB], nm[200];
    snprintf(data, sizeof data, "%s/data", outdir);
    if (exp_mkdirs(data) < 0)
        return -1;
    snprintf(nm, sizeof nm, "%s.dat", name);
    FILE *d = fig_data_open(outdir, nm, rel, sizeof rel);
    if (!d)
        return -1;
    bool bars = false;
    struct rng yr;
    memset(&yr, 0, sizeof yr);
    for (int i = 0; lo && hi && i < nrows * ncols; i++)
        bars |= isfinite(lo[i]) && isfinite(hi[i]) && lo[i] != hi[i];
    fprintf(d, "# row, then per column: value%s\n", bars ? " min max (over seeds)" : "");
    for (int r = 0; r < nrows; r++) {
        char rb[300];
        fprintf(d, "\"%s\"", micro(rows[r], rb, sizeof rb));
        for (int c = 0; c < ncols; c++) {
            int i = r * ncols + c;
            fprintf(d, isnan(v[i]) ? " NaN" : " %.6g", v[i]);
            fig_rng_add(&yr, v[i]);
            fig_rng_add(&yr, 0);
            if (bars) {
                fprintf(d, isfinite(lo[i]) ? " %.6g" : " NaN", lo[i]);
                fprintf(d, isfinite(hi[i]) ? " %.6g" : " NaN", hi[i]);
                fig_rng_add(&yr, hi[i]);
            }
        }
        fprintf(d, "\n");
    }
    fclose(d);
    if (!yr.any || (yr.lo == 0 && yr.hi == 0)) {
        fig_note(outdir, "%s: every value is 0 or missing, figure left out", name);
        return -1;
    }
    size_t rlen = 0; /* long row names: slanted */
    for (int r = 0; r < nrows; r++)
        rlen += strlen(rows[r]) + 2;
    struct fig g;
    int krows = ncols > 1 ? (ncols + 2) / 3 : 0;
    FILE *f = fig_begin(&g, outdir, name, 960, 600 + 34 * krows);
    fig_title(f, title);
    char ub[300];
    fprintf(f, "set ylabel ");
    fig_gq(f, micro(ylabel, ub, sizeof ub));
    fprintf(f, "\nset style data histogram\nset style histogram %s gap 1\nset style fill solid 0.9 border -1\n"
               "set boxwidth 0.9\nset xrange [-0.6:%.1f]\nset xtics nomirror%s\n",
            bars ? "errorbars lw 1.5" : "clustered", nrows - 0.4, rlen > 90 ? " rotate by -20 left" : "");
    fig_set_range(f, "y", yr, false, true, 0.08);
    fig_key_below(f, ncols, 3);
    fprintf(f, "plot ");
    for (int c = 0; c < ncols; c++) {
        if (bars)
            fprintf(f, "%s'%s' u %d:%d:%d:xtic(1)", c ? ", " : "", rel, 2 + 3 * c, 3 + 3 * c, 4 + 3 * c);
        else
            fprintf(f, "%s'%s' u %d:xtic(1)", c ? ", " : "", rel, 2 + c);
        fig_bar_style(f, c);
        fprintf(f, " t ");
        fig_gq(f, micro(cols[c], ub, sizeof ub));
    }
    fprintf(f, "\n");
    return fig_end(&g);
}
