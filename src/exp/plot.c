/* `rocesim plot INPUT... [--out DIR] [--no-title]`: figures with gnuplot, as
 * PNG and SVG. INPUT is a run folder (fct.csv, summary.json, pfc_ports.csv,
 * monitor CSVs), a sweep.csv, or a sweep folder holding one. Every figure's
 * data and gnuplot script stay in DIR (data/, NAME.gp) so it can be restyled
 * by hand. gnuplot is needed at run time only (Debian gnuplot-nox).
 *
 * This file is the command; the figures are drawn by plot_sweep.c (a
 * sweep), plot_run.c (run folders), plot_collective.c and plot_bars.c, all
 * in the one style of fig.c. */
#include "exp/plot.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/err.h"
#include "core/xalloc.h"
#include "exp/plot_run.h"
#include "exp/plot_sweep.h"
#include "exp/sweep.h"
#include "exp/util.h"

/* ---------------------------------------------------------- entry */

static int plot_prepare(const char *outdir)
{
    if (!exp_have_gnuplot()) {
        fprintf(stderr, "rocesim plot: gnuplot not found on PATH: install it (Debian: apt-get install gnuplot-nox)\n");
        return -1;
    }
    char data[PB];
    snprintf(data, sizeof data, "%s/data", outdir);
    if (exp_mkdirs(data) < 0) {
        fprintf(stderr, "%s: cannot create folder: %s\n", data, strerror(errno));
        return -1;
    }
    return 0;
}

int exp_plot_dirs(const char *const *inputs, int n, const char *outdir, bool svg, bool png)
{
    (void)svg;
    (void)png;
    if (plot_prepare(outdir) < 0)
        return -1;
    const char **rd = xcalloc((size_t)n + 1, sizeof *rd);
    int nr = 0, made = 0, rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char p[PB];
        const char *csv = NULL;
        snprintf(p, sizeof p, "%s/sweep.csv", inputs[i]);
        if (exp_is_file(inputs[i]))
            csv = inputs[i];
        else if (exp_is_file(p))
            csv = p;
        if (csv) {
            int k = plot_sweep(outdir, csv, true);
            if (k < 0)
                rc = -1;
            else
                made += k;
            continue;
        }
        rd[nr++] = inputs[i];
    }
    struct set S;
    if (rc == 0 && nr) {
        if (plot_set_load(&S, rd, NULL, nr) < 0)
            rc = -1;
        else {
            int k = plot_set(outdir, &S);
            made += k > 0 ? k : 0;
            rc = k < 0 ? -1 : rc;
            plot_set_unload(&S);
        }
    }
    free(rd);
    return rc < 0 ? -1 : made;
}

int exp_plot_sweep_runs(const char *sweepdir, const char *outdir)
{
    if (plot_prepare(outdir) < 0)
        return -1;
    char csv[PB];
    snprintf(csv, sizeof csv, "%s/sweep.csv", sweepdir);
    struct table t;
    if (tab_load(&t, csv) < 0)
        return -1;
    int seedc = tab_col(&t, "run.seed");
    const char **dirs = xcalloc((size_t)t.nr + 1, sizeof *dirs), **labs = xcalloc((size_t)t.nr + 1, sizeof *labs);
    char (*db)[PB] = xcalloc((size_t)t.nr + 1, sizeof *db);
    char (*lb)[LB] = xcalloc((size_t)t.nr + 1, sizeof *lb);
    int n = 0, made = 0;
    for (int r = 0; r < t.nr; r++) {
        char fct[PB + 32];
        snprintf(db[n], PB, "%s/%s", sweepdir, t.rows[r][0]);
        snprintf(fct, sizeof fct, "%s/fct.csv", db[n]);
        if (!tab_row_ok(&t, r) || !exp_is_file(fct))
            continue;
        tab_row_label(&t, r, -1, seedc, -1, lb[n], LB);
        dirs[n] = db[n];
        labs[n] = lb[n];
        n++;
    }
    struct set S;
    if (n && plot_set_load(&S, dirs, labs, n) == 0) {
        made = plot_set(outdir, &S);
        plot_set_unload(&S);
    } else if (n)
        made = -1;
    free(dirs);
    free(labs);
    free(db);
    free(lb);
    tab_free(&t);
    return made;
}

static const char plot_usage[] =
    "usage: rocesim plot INPUT... [--out DIR] [--no-title] [--label VALUE=LABEL]...\n"
    "INPUT: run folders (a line each; runs that differ only in the seed are one\n"
    "line, their mean with min-max bars) or a sweep.csv / sweep folder.\n"
    "Writes PDF, PNG and SVG figures, their data (DIR/data/) and gnuplot scripts\n"
    "(DIR/*.gp) into DIR (default: plots/). --no-title: no figure titles (for a\n"
    "paper's captions). --label dcqcn=DCQCN: legends and categories show a swept\n"
    "or scheme value VALUE as LABEL (repeatable).\n"
    "Needs gnuplot (Debian gnuplot-nox).\n";

int exp_plot(int argc, char **argv)
{
    const char *out = "plots";
    const char **in = xcalloc((size_t)argc, sizeof *in);
    int n = 0;
    bool titles = true;
    const char *labels[64];
    int nl = 0;
    for (int i = 2; i < argc; i++) {
        if ((strcmp(argv[i], "--out") == 0 || strcmp(argv[i], "-o") == 0) && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc && strchr(argv[i + 1], '=') && argv[i + 1][0] != '=' && nl < 64)
            labels[nl++] = argv[++i];
        else if (strcmp(argv[i], "--no-title") == 0)
            titles = false;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(plot_usage, stdout);
            free(in);
            return 0;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "rocesim plot: %s %s\n%s",
                    strcmp(argv[i], "--label") == 0 ? "--label needs VALUE=LABEL, got" : "unknown option",
                    strcmp(argv[i], "--label") == 0 && i + 1 < argc ? argv[i + 1] : argv[i], plot_usage);
            free(in);
            return EXIT_BADINPUT;
        } else
            in[n++] = argv[i];
    }
    if (!n) {
        fputs(plot_usage, stderr);
        free(in);
        return EXIT_BADINPUT;
    }
    exp_plot_options(titles, 0, NULL, NULL);
    for (int i = 0; i < nl; i++)
        fig_add_label(labels[i]);
    for (int i = 0; i < n; i++) { /* a sweep folder: say what its table leaves out (earlier grids' runs) */
        char **runs = NULL;
        int k = exp_sweep_runs(in[i], &runs, "rocesim plot");
        for (int j = 0; j < k; j++)
            free(runs[j]);
        free(runs);
    }
    int made = exp_plot_dirs(in, n, out, true, true);
    free(in);
    if (made < 0)
        return EXIT_BADINPUT;
    printf("%d figure%s (PDF, PNG and SVG) -> %s/\n", made, made == 1 ? "" : "s", out);
    return 0;
}

