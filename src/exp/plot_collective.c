/* `rocesim plot` of collective runs (plot_collective.h): each job's
 * iteration times, one line per run folder and job (collective.csv's
 * time_ns), in fig.c's style like every other figure. */
#include "exp/plot_collective.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/xalloc.h"
#include "exp/fig.h"
#include "exp/util.h"

struct cseries {
    char title[LB + 80];
    char rel[LB];
    int iters;
};

int exp_plot_collectives(const char *outdir, const char *const *dirs, const char *const *labels, int n)
{
    struct cseries *cs = NULL;
    int ns = 0, jobs_max = 0;
    struct rng xr = {0}, yr = {0};
    for (int d = 0; d < n; d++) {
        char path[PB + 32], line[1024], job[64] = "";
        snprintf(path, sizeof path, "%s/collective.csv", dirs[d]);
        FILE *in = fopen(path, "r");
        if (!in)
            continue;
        FILE *out = NULL;
        int jobs = 0;
        if (!fgets(line, sizeof line, in)) /* the header */
            line[0] = 0;
        while (fgets(line, sizeof line, in)) {
            char *col[10];
            int nc = 0;
            for (char *p = line; p && nc < 10;) { /* job, collective, hosts, size, chunks, iteration, start, end, time, ... */
                col[nc++] = p;
                p = strchr(p, ',');
                if (p)
                    *p++ = 0;
            }
            if (nc < 10)
                continue;
            if (!out || strcmp(job, col[0]) != 0) { /* a new series: a job of this run */
                if (out)
                    fclose(out);
                snprintf(job, sizeof job, "%s", col[0]);
                cs = xrealloc(cs, (size_t)(ns + 1) * sizeof *cs);
                memset(&cs[ns], 0, sizeof *cs);
                char nm[64];
                snprintf(nm, sizeof nm, "collective_%d.dat", ns);
                out = fig_data_open(outdir, nm, cs[ns].rel, sizeof cs[ns].rel);
                if (!out) {
                    fclose(in);
                    free(cs);
                    return -1;
                }
                fprintf(out, "# iteration time_us (%s, job %s)\n", dirs[d], job);
                snprintf(cs[ns].title, sizeof cs[ns].title, "%s\t%s", labels[d], job);
                ns++;
                jobs++;
            }
            if (*col[8]) {
                double it = strtod(col[5], NULL), us = strtod(col[8], NULL) / 1e3;
                fprintf(out, "%.0f %.3f\n", it, us);
                fig_rng_add(&xr, it);
                fig_rng_add(&yr, us);
                fig_rng_add(&yr, 0);
                cs[ns - 1].iters++;
            }
        }
        if (out)
            fclose(out);
        fclose(in);
        jobs_max = jobs > jobs_max ? jobs : jobs_max;
    }
    if (!ns)
        return 0;
    /* legends: the run's label, with the job's name when a run has several
     * jobs, or the job's name alone for a single run */
    for (int s = 0; s < ns; s++) {
        char *tab = strchr(cs[s].title, '\t');
        *tab = 0;
        char t[LB + 80];
        int len; /* a legend longer than t is cut (the title's bound) */
        if (n == 1)
            len = snprintf(t, sizeof t, "%s", tab + 1);
        else if (jobs_max > 1)
            len = snprintf(t, sizeof t, "%s: %s", cs[s].title, tab + 1);
        else
            len = snprintf(t, sizeof t, "%s", cs[s].title);
        if (len < 0)
            t[0] = 0;
        memcpy(cs[s].title, t, sizeof t);
    }
    struct fig g;
    FILE *f = fig_begin(&g, outdir, "collective_iterations", 960, 600 + 34 * ((ns + 2) / 3));
    fig_title(f, "Collective iteration time");
    fprintf(f, "set xlabel 'iteration'\nset ylabel 'iteration time (µs)'\n");
    /* whole iterations on x */
    int span = xr.any ? (int)(xr.hi - xr.lo) : 1;
    fprintf(f, "set xtics %d format '%%.0f'\nset mxtics %d\n", span > 20 ? (span + 9) / 10 : 1, span > 20 ? 2 : 1);
    if (xr.any && xr.hi == xr.lo)
        xr.lo -= 1, xr.hi += 1;
    fig_set_range(f, "x", xr, false, false, 0.04);
    fig_set_range(f, "y", yr, false, true, 0.08);
    fig_key_below(f, ns, 3);
    fprintf(f, "plot ");
    for (int s = 0; s < ns; s++) {
        char src[LB + 8];
        snprintf(src, sizeof src, "'%s'", cs[s].rel);
        fprintf(f, "%s", s ? ", \\\n  " : "");
        fig_series(f, src, "1", 2, 0, true, s, 1.0, NULL, cs[s].title);
    }
    fprintf(f, "\n");
    free(cs);
    return fig_end(&g) < 0 ? -1 : 1;
}
