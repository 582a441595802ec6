/* `rocesim reproduce NAME [--quick] [--out DIR]` and `--list`: a shipped
 * experiment (experiments/NAME.exp) names a sweep file (and a reduced one
 * for --quick), the metrics to read from each run, the table's rows, and
 * what the paper states. It runs the sweep, draws the figures and prints
 * the table with the paper's numbers beside ours (also DIR/table.md). The
 * .exp format is read by expdef.c, each run's metrics by metric.c. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/err.h"
#include "core/xalloc.h"
#include "exp/reproduce.h"
#include "exp/expdef.h"
#include "exp/plot.h"
#include "exp/plot_bars.h"
#include "exp/sweep.h"
#include "exp/util.h"
#include "scenario/sweepspec.h"

#define MAXM 24
#define MAXROWS 64

/* ------------------------------------------------------------ the run */

static int list_experiments(void)
{
    const char *dir = exp_experiments_dir();
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: cannot open the experiments folder: %s\n", dir, strerror(errno));
        return 1;
    }
    char *names[256];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 256) {
        size_t l = strlen(de->d_name);
        if (l > 4 && strcmp(de->d_name + l - 4, ".exp") == 0)
            names[n++] = strndup(de->d_name, l - 4);
    }
    closedir(d);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    printf("experiments (rocesim reproduce NAME [--quick]; from %s)\n", dir);
    for (int i = 0; i < n; i++) {
        char p[1200];
        struct expdef x;
        snprintf(p, sizeof p, "%s/%s.exp", dir, names[i]);
        if (expdef_load(&x, p) == 0) {
            const char *t = expdef_get(&x, "experiment", "title");
            printf("    %-14s %s\n", names[i], t ? t : "");
        }
        expdef_free(&x);
        free(names[i]);
    }
    return 0;
}

static const char repro_usage[] =
    "usage: rocesim reproduce NAME [--quick] [--out DIR] [--jobs N] [--no-run] [--no-title] [--any-binary]\n"
    "       rocesim reproduce --list\n"
    "       rocesim reproduce --page [--out FILE] [--results DIR]\n"
    "Runs a shipped experiment (experiments/NAME.exp: a sweep, its metrics and\n"
    "the paper's numbers), draws its figures (gnuplot) and prints its table with\n"
    "the paper's numbers beside ours; writes DIR/table.md, DIR/figures/ and the\n"
    "runs in DIR/runs/ (default results/reproduce/NAME[-quick]). Reruns resume.\n"
    "--no-run: no sweep and no figures, only the table of the runs already in DIR.\n"
    "--no-title: figures without titles (for a paper's captions).\n"
    "--any-binary: keep complete runs another rocesim binary made (rocesim sweep).\n"
    "--page: the verdict page (docs/reproductions.md) of every experiment, from\n"
    "its [verdict] section and its runs under DIR (default results/reproduce).\n";

int exp_reproduce(int argc, char **argv)
{
    const char *name = NULL, *out = NULL, *jobs = NULL;
    bool quick = false, no_run = false, titles = true, any_binary = false;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0)
            return list_experiments();
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--no-run") == 0)
            no_run = true;
        else if (strcmp(argv[i], "--any-binary") == 0)
            any_binary = true;
        else if (strcmp(argv[i], "--no-title") == 0)
            titles = false;
        else if ((strcmp(argv[i], "--out") == 0 || strcmp(argv[i], "-o") == 0) && i + 1 < argc)
            out = argv[++i];
        else if ((strcmp(argv[i], "--jobs") == 0 || strcmp(argv[i], "-j") == 0) && i + 1 < argc)
            jobs = argv[++i];
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return fputs(repro_usage, stdout), 0;
        else if (argv[i][0] == '-' || name)
            return fprintf(stderr, "rocesim reproduce: unexpected %s\n%s", argv[i], repro_usage), EXIT_BADINPUT;
        else
            name = argv[i];
    }
    if (!name)
        return fputs(repro_usage, stderr), EXIT_BADINPUT;
    char path[1200];
    const char *edir = exp_experiments_dir();
    snprintf(path, sizeof path, "%s/%s.exp", edir, name);
    struct expdef x;
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "rocesim reproduce: no experiment '%s' (in %s; `rocesim reproduce --list` names them)\n", name, edir);
        return EXIT_BADINPUT;
    }
    if (expdef_load(&x, path) < 0) {
        expdef_free(&x);
        return EXIT_BADINPUT;
    }
    const char *sw = expdef_get(&x, "experiment", quick ? "quick" : "sweep");
    const char *rowkey = expdef_get(&x, "experiment", "rows"), *colkey = expdef_get(&x, "experiment", "columns");
    if (!sw || !rowkey) {
        fprintf(stderr, "%s: [experiment] needs %s and rows\n", path, quick ? "quick" : "sweep");
        expdef_free(&x);
        return EXIT_BADINPUT;
    }
    char swpath[1400], outdir[1024], runs[1100], figs[1100];
    snprintf(swpath, sizeof swpath, "%s/%s", edir, sw);
    if (out)
        snprintf(outdir, sizeof outdir, "%s", out);
    else
        snprintf(outdir, sizeof outdir, "results/reproduce/%s%s", name, quick ? "-quick" : "");
    snprintf(runs, sizeof runs, "%s/runs", outdir);
    snprintf(figs, sizeof figs, "%s/figures", outdir);
    const char *title = expdef_get(&x, "experiment", "title"), *paper = expdef_get(&x, "experiment", "paper");
    printf("%s%s\n%s\n", title ? title : name, quick ? " (quick)" : "", paper ? paper : "");
    fflush(stdout);

    char *sargv[12];
    int sa = 0;
    sargv[sa++] = argv[0];
    sargv[sa++] = "sweep";
    sargv[sa++] = swpath;
    sargv[sa++] = "--out";
    sargv[sa++] = runs;
    if (jobs) {
        sargv[sa++] = "--jobs";
        sargv[sa++] = (char *)jobs;
    }
    if (any_binary)
        sargv[sa++] = "--any-binary";
    sargv[sa] = NULL;
    int rc = no_run ? 0 : exp_sweep(sa, sargv, NULL);
    if (rc == EXIT_BADINPUT || rc == 130) {
        expdef_free(&x);
        return rc;
    }

    /* Rows (and columns) from the sweep's points; metrics averaged over the rest (seeds). */
    struct sweep_spec s;
    struct err e;
    if (sweep_spec_load(&s, swpath, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        expdef_free(&x);
        return EXIT_BADINPUT;
    }
    int rk = -1, ck = -1, pk = -1;
    const char *pankey = expdef_get(&x, "experiment", "panels");
    for (int k = 0; k < s.nk; k++) {
        if (strcmp(s.k[k].key, rowkey) == 0)
            rk = k;
        if (colkey && strcmp(s.k[k].key, colkey) == 0)
            ck = k;
        if (pankey && strcmp(s.k[k].key, pankey) == 0)
            pk = k;
    }
    if (rk < 0) { /* columns may name a key only the full form sweeps */
        fprintf(stderr, "%s: rows must name a key of %s's [sweep]\n", path, swpath);
        sweep_spec_free(&s);
        expdef_free(&x);
        return EXIT_BADINPUT;
    }
    /* With panels = KEY the table has a group of rows per value of KEY (a
     * third swept key, e.g. the load when columns are the workloads): table
     * row r is row value r % nrow of panel r / nrow. */
    int nrow = s.k[rk].n, ncol = ck >= 0 ? s.k[ck].n : 1, nm = 0;
    int npan = pk >= 0 ? s.k[pk].n : 1, nrows = nrow * npan;
    const char *mspec[MAXM], *mhead[MAXM], *mkey[MAXM];
    bool msum[MAXM];
    char mh[MAXM][128];
    for (int i = 0; i < x.n && nm < MAXM; i++)
        if (strcmp(x.kv[i].sec, "metrics") == 0) {
            char *bar = strchr(x.kv[i].val, '|');
            mkey[nm] = x.kv[i].key;
            snprintf(mh[nm], sizeof mh[nm], "%s", bar ? bar + 1 : x.kv[i].key);
            if (bar)
                *bar = 0;
            mspec[nm] = expdef_trim(x.kv[i].val);
            msum[nm] = strncmp(mspec[nm], "sum ", 4) == 0;
            if (msum[nm])
                mspec[nm] = expdef_trim((char *)mspec[nm] + 4);
            mhead[nm] = expdef_trim(mh[nm]);
            nm++;
        }
    double sum[MAXROWS][4][MAXM], vlo[MAXROWS][4][MAXM], vhi[MAXROWS][4][MAXM]; /* vlo/vhi: over seeds, for the figures */
    int cnt[MAXROWS][4][MAXM];
    /* A cell never mixes finished and unfinished runs: only the runs
     * sweep.csv lists as ok count; the others (interrupted, failed, not run)
     * are left out and counted, and the cell says how many runs it holds. */
    int nfin[MAXROWS][4], ntot[MAXROWS][4], unfinished = 0;
    memset(sum, 0, sizeof sum);
    memset(cnt, 0, sizeof cnt);
    memset(nfin, 0, sizeof nfin);
    memset(ntot, 0, sizeof ntot);
    char **okruns = NULL;
    int nok = exp_sweep_runs(runs, &okruns, NULL);
    const char **rundirs = xcalloc(s.npoints + 1, sizeof *rundirs);
    char (*rdbuf)[1700] = xcalloc(s.npoints + 1, sizeof *rdbuf);
    int nrd = 0;
    for (size_t i = 0; i < s.npoints; i++) {
        int ch[SWEEP_MAX_KEYS];
        char pn[512];
        sweep_point(&s, i, ch);
        sweep_point_name(&s, ch, pn, sizeof pn);
        snprintf(rdbuf[nrd], sizeof rdbuf[nrd], "%s/%s", runs, pn);
        rundirs[nrd] = rdbuf[nrd];
        nrd++;
        int r = ch[rk] + (pk >= 0 ? ch[pk] * nrow : 0), c = ck >= 0 ? ch[ck] : 0;
        if (r >= MAXROWS || c >= 4)
            continue;
        bool done = false;
        for (int k = 0; k < nok && !done; k++)
            done = strcmp(okruns[k], rdbuf[nrd - 1]) == 0;
        ntot[r][c]++;
        if (!done) {
            unfinished++;
            continue;
        }
        nfin[r][c]++;
        for (int m = 0; m < nm; m++) {
            double v = exp_metric(rdbuf[nrd - 1], mspec[m]);
            if (isnan(v))
                continue;
            vlo[r][c][m] = !cnt[r][c][m] || v < vlo[r][c][m] ? v : vlo[r][c][m];
            vhi[r][c][m] = !cnt[r][c][m] || v > vhi[r][c][m] ? v : vhi[r][c][m];
            sum[r][c][m] += v, cnt[r][c][m]++;
        }
    }

    for (int k = 0; k < nok; k++)
        free(okruns[k]);
    free(okruns);
    int per_cell = 0; /* runs per cell (the seeds), when every cell has as many */
    for (int r = 0; r < nrows && r < MAXROWS; r++)
        for (int c = 0; c < ncol && c < 4; c++)
            per_cell = per_cell == 0 || per_cell == ntot[r][c] ? ntot[r][c] : -1;

    /* The table: markdown, to stdout and DIR/table.md. With layout = stacked
     * a line per (row, column) value instead of a column group per column
     * value (for many metrics); with baseline = ROWVALUE and relative = M, ...
     * also each listed metric's change against that row (same column value),
     * the form papers state their gains in (with panels, against that row
     * of the same panel). */
    const char *layout = expdef_get(&x, "experiment", "layout"), *base = expdef_get(&x, "experiment", "baseline");
    const char *rel = expdef_get(&x, "experiment", "relative");
    /* relative_form = baseline: the baseline's change against each row
     * instead ("FLB cuts AFCT by 29 % vs Proteus", as FLB's paper states it) */
    const char *rform = expdef_get(&x, "experiment", "relative_form");
    bool rinv = rform && strcmp(rform, "baseline") == 0;
    bool stacked = layout && strcmp(layout, "stacked") == 0 && ck >= 0;
    int brow = -1, rel_m[MAXM], nrel = 0;
    for (int r = 0; base && r < nrow; r++)
        if (strcmp(s.k[rk].vals[r], base) == 0)
            brow = r;
    if (rel && brow >= 0) {
        char rb[512];
        snprintf(rb, sizeof rb, "%s", rel);
        for (char *t = strtok(rb, ", "); t && nrel < MAXM; t = strtok(NULL, ", "))
            for (int m = 0; m < nm; m++)
                if (strcmp(mkey[m], t) == 0)
                    rel_m[nrel++] = m;
    }
    const char *blabel = brow >= 0 && expdef_get(&x, "labels", base) ? expdef_get(&x, "labels", base) : base;
    char tpath[1200];
    snprintf(tpath, sizeof tpath, "%s/table.md", outdir);
    FILE *tf = fopen(tpath, "w");
    FILE *outs[2] = {stdout, tf};
    int csub = stacked ? 1 : ncol < 4 ? ncol : 4; /* metric columns per metric */
    for (int o = 0; o < 2; o++) {
        FILE *f = outs[o];
        if (!f)
            continue;
        if (o == 1)
            fprintf(f, "# %s%s\n\n%s\n\n", title ? title : name, quick ? " (quick)" : "", paper ? paper : "");
        if (pk >= 0)
            fprintf(f, "\n| %s |", pankey);
        fprintf(f, pk >= 0 ? " %s |" : "\n| %s |", rowkey);
        if (stacked)
            fprintf(f, " %s |", colkey);
        for (int m = 0; m < nm; m++)
            for (int c = 0; c < csub; c++)
                fprintf(f, " %s%s%s |", mhead[m], ck >= 0 && !stacked ? " " : "", ck >= 0 && !stacked ? s.k[ck].vals[c] : "");
        for (int q = 0; q < nrel; q++)
            for (int c = 0; c < csub; c++)
                fprintf(f, rinv ? " %s: %s vs row (%%)%s%s |" : " %s vs %s (%%)%s%s |", mhead[rel_m[q]], blabel,
                        ck >= 0 && !stacked ? " " : "", ck >= 0 && !stacked ? s.k[ck].vals[c] : "");
        fprintf(f, " paper |\n|---|%s%s", stacked ? "---|" : "", pk >= 0 ? "---|" : "");
        for (int m = 0; m < (nm + nrel) * csub; m++)
            fprintf(f, "---:|");
        fprintf(f, "---|\n");
        for (int r = 0; r < nrows && r < MAXROWS; r++)
            for (int cs = 0; cs < (stacked ? ncol : 1) && cs < 4; cs++) {
                char lk[200], pkey[400];
                snprintf(lk, sizeof lk, "%s", s.k[rk].vals[r % nrow]);
                const char *label = expdef_get(&x, "labels", lk);
                if (pk >= 0) {
                    const char *pl = expdef_get(&x, "labels", s.k[pk].vals[r / nrow]);
                    fprintf(f, "| %s ", pl ? pl : s.k[pk].vals[r / nrow]);
                }
                fprintf(f, "| %s |", label ? label : lk);
                if (stacked) {
                    const char *cl = expdef_get(&x, "labels", s.k[ck].vals[cs]);
                    fprintf(f, " %s |", cl ? cl : s.k[ck].vals[cs]);
                }
                for (int m = 0; m < nm + nrel; m++)
                    for (int c = 0; c < csub; c++) {
                        int cc = stacked ? cs : c, mm = m < nm ? m : rel_m[m - nm];
                        double v = !cnt[r][cc][mm] ? NAN : msum[mm] ? sum[r][cc][mm] : sum[r][cc][mm] / cnt[r][cc][mm];
                        if (m >= nm) {
                            int b = r / nrow * nrow + brow;
                            double bv = !cnt[b][cc][mm] ? NAN : msum[mm] ? sum[b][cc][mm] : sum[b][cc][mm] / cnt[b][cc][mm];
                            v = rinv ? (v > 0 ? 100 * (bv / v - 1) : NAN) : bv > 0 ? 100 * (v / bv - 1) : NAN;
                        }
                        if (isnan(v))
                            fprintf(f, " -");
                        else if (m >= nm)
                            fprintf(f, " %+.1f", v);
                        else
                            fprintf(f, fabs(v) >= 100 || v == floor(v) ? " %.0f" : fabs(v) >= 10 ? " %.1f" : " %.2f", v);
                        if (m < nm && (nfin[r][cc] < ntot[r][cc] || per_cell < 0)) /* a cell short of runs says so */
                            fprintf(f, " (%d of %d runs)", nfin[r][cc], ntot[r][cc]);
                        fprintf(f, " |");
                    }
                /* the paper's numbers: for "row/column" (stacked) or "row/panel"
                 * first, then for the row (on its first line) */
                snprintf(pkey, sizeof pkey, "%s/%s", lk, stacked ? s.k[ck].vals[cs] : pk >= 0 ? s.k[pk].vals[r / nrow] : "");
                const char *pv = stacked || pk >= 0 ? expdef_get(&x, "paper", pkey) : NULL;
                if (!pv && (!stacked || cs == 0) && r < nrow)
                    pv = expdef_get(&x, "paper", lk);
                fprintf(f, " %s |\n", pv ? pv : "");
            }
        if (per_cell > 1)
            fprintf(f, "\nEach cell: %d runs (seeds) of its point, averaged (summed for `sum` metrics), unless it says otherwise.\n", per_cell);
        else if (per_cell == 1)
            fprintf(f, "\nEach cell: one run.\n");
        if (unfinished)
            fprintf(f, "%s%d of %zu runs are not finished (interrupted, failed or not run yet) and are left out: a cell "
                       "without all its runs says \"(K of N runs)\". `rocesim reproduce %s%s` runs them.\n",
                    per_cell > 0 ? "" : "\n", unfinished, s.npoints, name, quick ? " --quick" : "");
        const char *note = expdef_get(&x, "experiment", "note");
        if (note)
            fprintf(f, "\n%s\n", note);
    }
    if (tf)
        fclose(tf);

    /* Figures: of every run (each a line), and of the sweep table. */
    int made = 0;
    const char *figs_of = expdef_get(&x, "experiment", "figures");
    { /* legends and bars name the swept values by their [labels] */
        const char **lf = xcalloc((size_t)x.n + 1, sizeof *lf), **lt = xcalloc((size_t)x.n + 1, sizeof *lt);
        int nl = 0;
        for (int i = 0; i < x.n; i++)
            if (strcmp(x.kv[i].sec, "labels") == 0)
                lf[nl] = x.kv[i].key, lt[nl++] = x.kv[i].val;
        exp_plot_options(titles, nl, lf, lt);
        free(lf);
        free(lt);
    }
    if (no_run) {
        ;
    } else if (!exp_have_gnuplot()) {
        fprintf(stderr, "rocesim reproduce: gnuplot not found: no figures (Debian gnuplot-nox)\n");
    } else {
        if (!figs_of || strstr(figs_of, "runs")) {
            int k = exp_plot_sweep_runs(runs, figs);
            made += k > 0 ? k : 0;
        }
        if (figs_of && strstr(figs_of, "sweep")) {
            const char *one[1] = {runs};
            int k = exp_plot_dirs(one, 1, figs, true, true);
            made += k > 0 ? k : 0;
        }
    }
    /* The experiment's own figure: bars of one metric, a group per row, a bar per column. */
    const char *bm = expdef_get(&x, "experiment", "figure");
    for (int m = 0; bm && !no_run && m < nm && exp_have_gnuplot(); m++) {
        if (strcmp(mkey[m], bm) != 0)
            continue;
        const char *rl[MAXROWS], *cl[4];
        double *v = xcalloc((size_t)(nrows * ncol) + 1, sizeof *v), *lo = xcalloc((size_t)(nrows * ncol) + 1, sizeof *lo),
               *hi = xcalloc((size_t)(nrows * ncol) + 1, sizeof *hi);
        char (*pl)[160] = xcalloc((size_t)nrows + 1, sizeof *pl);
        for (int r = 0; r < nrows && r < MAXROWS; r++) {
            const char *label = expdef_get(&x, "labels", s.k[rk].vals[r % nrow]);
            rl[r] = label ? label : s.k[rk].vals[r % nrow];
            if (pk >= 0) { /* "panel value / row label" */
                snprintf(pl[r], sizeof pl[r], "%s / %s", s.k[pk].vals[r / nrow], rl[r]);
                rl[r] = pl[r];
            }
            for (int c = 0; c < ncol && c < 4; c++) {
                v[r * ncol + c] = !cnt[r][c][m] ? NAN : msum[m] ? sum[r][c][m] : sum[r][c][m] / cnt[r][c][m];
                lo[r * ncol + c] = !cnt[r][c][m] || msum[m] ? NAN : vlo[r][c][m];
                hi[r * ncol + c] = !cnt[r][c][m] || msum[m] ? NAN : vhi[r][c][m];
            }
        }
        char cbuf[4][160];
        for (int c = 0; c < ncol && c < 4; c++) {
            const char *cv = ck >= 0 ? expdef_get(&x, "labels", s.k[ck].vals[c]) : NULL;
            if (cv)
                snprintf(cbuf[c], sizeof cbuf[c], "%s", cv);
            else if (ck >= 0)
                snprintf(cbuf[c], sizeof cbuf[c], "%s = %s", strrchr(colkey, '.') ? strrchr(colkey, '.') + 1 : colkey,
                         s.k[ck].vals[c]);
            cl[c] = ck >= 0 ? cbuf[c] : mhead[m];
        }
        char fname[200];
        snprintf(fname, sizeof fname, "%s", name);
        if (exp_plot_bars(figs, fname, title ? title : name, mhead[m], nrows < MAXROWS ? nrows : MAXROWS, rl,
                          ncol < 4 ? ncol : 4, cl, v, lo, hi) == 0) {
            made++;
            printf("\nfigure: %s/%s.png\n", figs, fname);
        }
        free(pl);
        free(v);
        free(lo);
        free(hi);
    }
    /* [figures] NAME = M1, M2, ... | y label: per column value, a group per
     * metric (e.g. size buckets) and a bar per row (the schemes), as papers
     * draw slowdown by flow size. */
    for (int i = 0; i < x.n && !no_run && exp_have_gnuplot(); i++) {
        if (strcmp(x.kv[i].sec, "figures") != 0)
            continue;
        char spec[512], *bar;
        snprintf(spec, sizeof spec, "%s", x.kv[i].val);
        bar = strchr(spec, '|');
        if (bar)
            *bar++ = 0;
        int gm[MAXM], ng = 0;
        for (char *t = strtok(spec, ", "); t && ng < MAXM; t = strtok(NULL, ", "))
            for (int m = 0; m < nm; m++)
                if (strcmp(mkey[m], t) == 0)
                    gm[ng++] = m;
        int nr = nrow < MAXROWS ? nrow : MAXROWS;
        if (!ng || nr > 8 || pk >= 0) /* with panels: the table and the experiment's figure only */
            continue;
        const char *gl[MAXM], *rl[MAXROWS];
        for (int g = 0; g < ng; g++)
            gl[g] = mhead[gm[g]];
        for (int r = 0; r < nr; r++) {
            const char *label = expdef_get(&x, "labels", s.k[rk].vals[r]);
            rl[r] = label ? label : s.k[rk].vals[r];
        }
        for (int c = 0; c < ncol && c < 4; c++) {
            double *v = xcalloc((size_t)(ng * nr) + 1, sizeof *v), *lo = xcalloc((size_t)(ng * nr) + 1, sizeof *lo),
                   *hi = xcalloc((size_t)(ng * nr) + 1, sizeof *hi);
            for (int g = 0; g < ng; g++)
                for (int r = 0; r < nr; r++) {
                    bool k = cnt[r][c][gm[g]] > 0;
                    v[g * nr + r] = k ? sum[r][c][gm[g]] / cnt[r][c][gm[g]] : NAN;
                    lo[g * nr + r] = k ? vlo[r][c][gm[g]] : NAN;
                    hi[g * nr + r] = k ? vhi[r][c][gm[g]] : NAN;
                }
            char fname[300], ftitle[600];
            const char *cl = ck >= 0 ? expdef_get(&x, "labels", s.k[ck].vals[c]) : NULL;
            snprintf(fname, sizeof fname, "%s-%s%s%s", name, x.kv[i].key, ck >= 0 ? "-" : "", ck >= 0 ? s.k[ck].vals[c] : "");
            snprintf(ftitle, sizeof ftitle, "%s%s%s", title ? title : name, ck >= 0 ? ": " : "",
                     ck >= 0 ? (cl ? cl : s.k[ck].vals[c]) : "");
            if (exp_plot_bars(figs, fname, ftitle, bar ? expdef_trim(bar) : x.kv[i].key, ng, gl, nr, rl, v, lo, hi) == 0) {
                made++;
                printf("figure: %s/%s.png\n", figs, fname);
            }
            free(v);
            free(lo);
            free(hi);
        }
    }
    printf("\n%d figure%s -> %s/ (PDF, PNG and SVG); table -> %s\n", made, made == 1 ? "" : "s", figs, tpath);
    free(rundirs);
    free(rdbuf);
    sweep_spec_free(&s);
    expdef_free(&x);
    return rc;
}
