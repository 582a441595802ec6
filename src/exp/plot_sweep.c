/* The figures of a sweep (plot_sweep.h): each metric of sweep.csv against
 * the swept x, one series per combination of the other swept values, the
 * mean over run.seed with min-max error bars; and slowdown by flow size. */
#include "exp/plot_sweep.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/xalloc.h"
#include "exp/fig.h"
#include "exp/plot_run.h"
#include "exp/util.h"
#include "scenario/sweepspec.h"

/* ---------------------------------------------------------- sweep.csv */


void tab_free(struct table *t)
{
    for (int i = 0; i < t->nh; i++)
        free(t->hdr[i]);
    free(t->hdr);
    for (int r = 0; r < t->nr; r++) {
        for (int i = 0; i < t->nh; i++)
            free(t->rows[r][i]);
        free(t->rows[r]);
    }
    free(t->rows);
}

static int split_csv(char *line, char ***out)
{
    int n = 0;
    char **v = NULL;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line;;) {
        char *c = strchr(p, ',');
        if (c)
            *c = 0;
        v = xrealloc(v, (size_t)(n + 1) * sizeof *v);
        size_t l = strlen(p);
        v[n++] = l >= 2 && p[0] == '"' && p[l - 1] == '"' ? strndup(p + 1, l - 2) : strdup(p);
        if (!c)
            break;
        p = c + 1;
    }
    *out = v;
    return n;
}

int tab_load(struct table *t, const char *path)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno)), -1;
    char *line = NULL;
    size_t cap = 0;
    if (getline(&line, &cap, f) < 0) {
        fclose(f);
        free(line);
        return fprintf(stderr, "%s:1: empty file\n", path), -1;
    }
    t->nh = split_csv(line, &t->hdr);
    t->first_param = 1;
    t->status_col = -1;
    for (int i = 0; i < t->nh; i++)
        if (strcmp(t->hdr[i], "status") == 0)
            t->status_col = i;
    if (strcmp(t->hdr[0], "run") != 0 || t->status_col < 0) {
        fclose(f);
        free(line);
        tab_free(t);
        return fprintf(stderr, "%s:1: not a sweep.csv (expected run,...,status,...)\n", path), -1;
    }
    int ln = 1;
    while (getline(&line, &cap, f) >= 0) {
        ln++;
        char **v;
        int n = split_csv(line, &v);
        if (n != t->nh) {
            for (int i = 0; i < n; i++)
                free(v[i]);
            free(v);
            fclose(f);
            free(line);
            tab_free(t);
            return fprintf(stderr, "%s:%d: %d fields, the header has %d\n", path, ln, n, t->nh), -1;
        }
        t->rows = xrealloc(t->rows, (size_t)(t->nr + 1) * sizeof *t->rows);
        t->rows[t->nr++] = v;
    }
    free(line);
    fclose(f);
    return 0;
}

int tab_col(const struct table *t, const char *name)
{
    for (int i = 0; i < t->nh; i++)
        if (strcmp(t->hdr[i], name) == 0)
            return i;
    return -1;
}

static bool numeric(const char *s)
{
    char *end;
    if (!*s)
        return false;
    strtod(s, &end);
    return !*end;
}

/* The series label of row r: the swept values but the seed's and x's
 * (variants and schemes by name, mapped through the [labels] of `reproduce`). */
void tab_row_label(const struct table *t, int r, int xc, int seedc, int pc, char *lab, size_t n)
{
    lab[0] = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int c = t->first_param; c < t->status_col; c++)
            if (c != xc && c != seedc && c != pc && fig_scheme_key(t->hdr[c]) == (pass == 0))
                fig_label_piece(lab, n, t->hdr[c], t->rows[r][c]);
    if (!lab[0])
        snprintf(lab, n, "all runs");
}

bool tab_row_ok(const struct table *t, int r)
{
    return strcmp(t->rows[r][t->status_col], "ok") == 0;
}

/* The x parameter: traffic.load if swept, else the first numeric one, else
 * the first as categories. */
static int sweep_x(const struct table *t, int seedc)
{
    int xc = -1;
    for (int c = t->first_param; c < t->status_col && xc < 0; c++)
        if (strstr(t->hdr[c], "load"))
            xc = c;
    for (int c = t->first_param; c < t->status_col && xc < 0; c++)
        if (c != seedc && t->nr && numeric(t->rows[0][c]) && !sweep_is_variant_key(t->hdr[c]))
            xc = c;
    for (int c = t->first_param; c < t->status_col && xc < 0; c++)
        if (c != seedc)
            xc = c;
    return xc < 0 ? seedc : xc;
}

static void dir_of(const char *csv, char *dir, size_t n)
{
    size_t l = strnlen(csv, n - 1);
    memcpy(dir, csv, l);
    dir[l] = 0;
    char *s = strrchr(dir, '/');
    if (s)
        *s = 0;
    else
        snprintf(dir, n, ".");
}

/* Slowdown by flow size of a sweep's runs: with a numeric x (the load) a
 * figure per x value (at most 6), a line per series; with categories on x
 * (scheme names) one figure, a line per category and series. Seeds pooled. */
static int plot_sweep_sizes(const char *out, const struct table *t, const char *csv, int xc, int seedc, char **xs, int nx,
                            bool xnum)
{
    char sdir[1024];
    dir_of(csv, sdir, sizeof sdir);
    int made = 0;
    if (!xnum)
        nx = 1;
    for (int x = 0; x < nx && x < 6; x++) {
        const char **dirs = xcalloc((size_t)t->nr + 1, sizeof *dirs);
        const char **labs = xcalloc((size_t)t->nr + 1, sizeof *labs);
        char (*db)[PB] = xcalloc((size_t)t->nr + 1, sizeof *db);
        char (*lb)[LB] = xcalloc((size_t)t->nr + 1, sizeof *lb);
        int n = 0;
        for (int r = 0; r < t->nr; r++) {
            if (!tab_row_ok(t, r) || (xnum && xc >= 0 && strcmp(t->rows[r][xc], xs[x]) != 0))
                continue;
            snprintf(db[n], PB, "%s/%s", sdir, t->rows[r][0]);
            char fct[PB + 32];
            snprintf(fct, sizeof fct, "%s/fct.csv", db[n]);
            if (!exp_is_file(fct))
                continue;
            tab_row_label(t, r, xnum ? xc : -1, seedc, -1, lb[n], LB);
            dirs[n] = db[n];
            labs[n] = lb[n];
            n++;
        }
        struct set S;
        if (n && plot_set_load(&S, dirs, labs, n) == 0) {
            char name[200], extra[200] = "";
            const char *xn = xc >= 0 ? fig_short_name(t->hdr[xc]) : "x";
            snprintf(name, sizeof name, "slowdown_vs_size");
            if (xnum) {
                snprintf(name, sizeof name, "slowdown_vs_size_%s_%s", xn, xs[x]);
                snprintf(extra, sizeof extra, " at %s = %s", xn, xs[x]);
            }
            made += plot_slowdown_by_size(out, &S, name, extra) == 0;
            plot_set_unload(&S);
        }
        free(dirs);
        free(labs);
        free(db);
        free(lb);
    }
    return made;
}

/* Metric vs the x parameter, one line per combination of the other
 * parameters, the mean over run.seed with min-max error bars. */
int plot_sweep(const char *out, const char *csv, bool sizes)
{
    struct table t;
    if (tab_load(&t, csv) < 0)
        return -1;
    int seedc = tab_col(&t, "run.seed");
    int xc = sweep_x(&t, seedc);
    if (xc < 0) {
        tab_free(&t);
        fprintf(stderr, "%s: no swept parameter to plot against\n", csv);
        return -1;
    }
    bool xnum = true;
    for (int r = 0; r < t.nr; r++)
        xnum &= numeric(t.rows[r][xc]);
    /* Many lines (more than 8): a panel per value of the other swept key
     * with the fewest values (e.g. the workload), a line per scheme in each. */
    int pc = -1, pcn = 0;
    {
        int nother = 0;
        for (int c = t.first_param; c < t.status_col; c++) {
            if (c == xc || c == seedc)
                continue;
            nother++;
            int nv = 0;
            for (int r = 0; r < t.nr; r++) {
                int q;
                for (q = 0; q < r && strcmp(t.rows[q][c], t.rows[r][c]); q++)
                    ;
                nv += q == r;
            }
            nv += fig_scheme_key(t.hdr[c]) ? 100 : 0; /* schemes compare within a panel, not across */
            if (nv % 100 > 1 && nv % 100 <= 6 && (pc < 0 || nv < pcn))
                pc = c, pcn = nv;
        }
        int nall = 0;
        for (int r = 0; r < t.nr; r++) {
            int q;
            for (q = 0; q < r; q++) {
                bool same = true;
                for (int c = t.first_param; c < t.status_col && same; c++)
                    same = c == xc || c == seedc || strcmp(t.rows[q][c], t.rows[r][c]) == 0;
                if (same)
                    break;
            }
            nall += q == r;
        }
        if (nother < 2 || nall <= 8)
            pc = -1;
    }
    /* series labels, panels and x values, in first-seen order */
    char **slab = xcalloc((size_t)t.nr + 1, sizeof *slab), **xs = xcalloc((size_t)t.nr + 1, sizeof *xs);
    char (*plab)[LB] = xcalloc((size_t)t.nr + 1, sizeof *plab);
    const char **pv = xcalloc((size_t)t.nr + 1, sizeof *pv);
    int ns = 0, nx = 0, np = 0, *rs = xcalloc((size_t)t.nr + 1, sizeof *rs), *rx = xcalloc((size_t)t.nr + 1, sizeof *rx);
    int *rp = xcalloc((size_t)t.nr + 1, sizeof *rp);
    int maxk = 0;
    for (int r = 0; r < t.nr; r++) {
        char lab[LB];
        tab_row_label(&t, r, xc, seedc, pc, lab, sizeof lab);
        int s;
        for (s = 0; s < ns && strcmp(slab[s], lab); s++)
            ;
        if (s == ns)
            slab[ns++] = strdup(lab);
        rs[r] = s;
        int x;
        for (x = 0; x < nx && strcmp(xs[x], t.rows[r][xc]); x++)
            ;
        if (x == nx)
            xs[nx++] = t.rows[r][xc];
        rx[r] = x;
        int q = 0;
        if (pc >= 0) {
            for (q = 0; q < np && strcmp(pv[q], t.rows[r][pc]); q++)
                ;
            if (q == np) {
                pv[np] = t.rows[r][pc];
                fig_label_piece(plab[np], LB, t.hdr[pc], pv[np]);
                np++;
            }
        } else
            np = 1;
        rp[r] = q;
    }
    for (int q = 0; q < np; q++)
        for (int s = 0; s < ns; s++)
            for (int x = 0; x < nx; x++) {
                int k = 0;
                for (int r = 0; r < t.nr; r++)
                    k += rp[r] == q && rs[r] == s && rx[r] == x && tab_row_ok(&t, r);
                if (k > maxk)
                    maxk = k;
            }
    static const struct {
        const char *col, *name, *title, *ylabel;
        bool logy, only_some; /* only_some: a column only some sweeps fill (collectives): no note when empty */
    } metrics[] = {
        {"afct_us", "afct_vs_x", "Average FCT", "average FCT (µs)", false, false},
        {"sd_p99", "p99_slowdown_vs_x", "99th-percentile FCT slowdown, all flows", "p99 FCT slowdown", true, false},
        {"sd_small_p95", "p95_small_vs_x", "95th-percentile FCT slowdown, flows up to 100 KB", "p95 FCT slowdown (≤ 100 KB)",
         true, false},
        {"pause_frames", "pause_frames_vs_x", "PFC PAUSE frames sent", "PAUSE frames", false, false},
        {"iter_us", "iteration_time_vs_x", "Collective iteration time", "iteration time (µs)", false,
         true},
        {"iter_p99_us", "iteration_p99_vs_x", "Collective iteration time, p99", "p99 iteration time (µs)", false,
         true},
        {"busbw_GBps", "busbw_vs_x", "Collective busbw", "busbw (GB/s)", false,
         true},
    };
    const char *xn = fig_short_name(t.hdr[xc]);
    char xl[200];
    if (strcmp(xn, "load") == 0)
        snprintf(xl, sizeof xl, "offered load (fraction of the host link rate)");
    else
        snprintf(xl, sizeof xl, "%s", t.hdr[xc]);
    int made = 0;
    for (size_t m = 0; m < sizeof metrics / sizeof *metrics; m++) {
        int mc = tab_col(&t, metrics[m].col);
        if (mc < 0)
            continue;
        char nm[128], rel[LB], name[160];
        snprintf(name, sizeof name, "%s", metrics[m].name);
        char *xp = strstr(name, "_x");
        snprintf(xp + 1, sizeof name - (size_t)(xp + 1 - name), "%s", xn);
        snprintf(nm, sizeof nm, "%s.dat", metrics[m].name);
        FILE *d = fig_data_open(out, nm, rel, sizeof rel);
        if (!d)
            break;
        fprintf(d, "# x xlabel, then per series the mean, min and max of %s over seeds%s\n# x xl", metrics[m].col,
                np > 1 ? "; a block per panel" : "");
        for (int s = 0; s < ns; s++)
            fprintf(d, " s%d s%d_min s%d_max", s, s, s);
        fprintf(d, "\n");
        struct rng xr, yr, *pyr = xcalloc((size_t)np + 1, sizeof *pyr);
        memset(&xr, 0, sizeof xr);
        memset(&yr, 0, sizeof yr);
        double *v = xcalloc((size_t)t.nr + 1, sizeof *v);
        for (int q = 0; q < np; q++) {
            if (np > 1)
                fprintf(d, "%s# panel %s\n", q ? "\n\n" : "", plab[q]);
            for (int x = 0; x < nx; x++) {
                fprintf(d, "%s %s", xnum ? xs[x] : "0", xs[x]);
                fig_rng_add(&xr, xnum ? strtod(xs[x], NULL) : x);
                for (int s = 0; s < ns; s++) {
                    int k = 0;
                    for (int r = 0; r < t.nr; r++)
                        if (rp[r] == q && rs[r] == s && rx[r] == x && numeric(t.rows[r][mc]) && tab_row_ok(&t, r))
                            v[k++] = strtod(t.rows[r][mc], NULL);
                    double mm[3];
                    fig_mmm(v, k, mm);
                    fprintf(d, k ? " %.6g %.6g %.6g" : " NaN NaN NaN", mm[0], mm[1], mm[2]);
                    if (k && (!metrics[m].logy || mm[1] > 0)) {
                        fig_rng_add(&yr, mm[1]);
                        fig_rng_add(&yr, mm[2]);
                        fig_rng_add(&pyr[q], mm[1]);
                        fig_rng_add(&pyr[q], mm[2]);
                    }
                }
                fprintf(d, "\n");
            }
        }
        free(v);
        fclose(d);
        if (!yr.any && metrics[m].only_some) {
            free(pyr);
            continue;
        }
        if (!yr.any || (yr.lo == 0 && yr.hi == 0)) {
            fig_note(out, "%s: %s", name,
                   yr.any ? "every value is 0, figure left out" : "no completed run has a value, figure left out");
            free(pyr);
            continue;
        }
        struct fig g;
        int kcols = ns <= 4 ? ns : 3, krows = ns > 1 ? (ns + kcols - 1) / kcols : 0;
        int prow = (np + 1) / 2, h = np > 1 ? 120 + 350 * prow + 40 * krows : 600 + 34 * krows;
        FILE *f = fig_begin(&g, out, name, np > 1 ? 1200 : 960, h);
        char t1[400], note[120];
        note[0] = 0;
        if (maxk > 1)
            snprintf(note, sizeof note, " (mean of %d seeds, bars: min-max)", maxk);
        snprintf(t1, sizeof t1, "%s vs %s%s", metrics[m].title, xn, note);
        if (np > 1) { /* equal panels, one legend below them all */
            fprintf(f, "set multiplot layout %d,2 margins 0.085,0.98,%.4f,%.4f spacing 0.08,%.4f", prow,
                    (115.0 + 40 * krows) / h, fig_titles ? 1 - 100.0 / h : 1 - 50.0 / h, 130.0 / h);
            if (fig_titles) {
                fprintf(f, " title ");
                fig_gq(f, t1);
            }
            fprintf(f, "\n");
        } else {
            fig_title(f, t1);
            fig_key_below(f, ns, 3);
        }
        fprintf(f, "set xlabel '%s'\nset ylabel '%s'\n", xl, metrics[m].ylabel);
        bool logy = metrics[m].logy && yr.lo > 0 && yr.hi / yr.lo > 20; /* a narrow range reads better linear */
        if (logy)
            fprintf(f, "set logscale y\n");
        if (np == 1)
            fig_set_range(f, "y", yr, logy, !metrics[m].logy, 0.06);
        if (xnum)
            fig_set_range(f, "x", xr, false, false, 0.05);
        else { /* categories (scheme names): a tick and label each, at the centre of its points */
            fprintf(f, "set xrange [-0.6:%.1f]\nset xtics (", nx - 0.4);
            for (int x = 0; x < nx; x++) {
                fprintf(f, "%s", x ? ", " : "");
                fig_gq(f, fig_relabel(xs[x]) ? fig_relabel(xs[x]) : xs[x]);
                fprintf(f, " %d", x);
            }
            fprintf(f, ")\nunset mxtics\nset grid noxtics\n");
        }
        for (int q = 0; q < np; q++) {
            if (np > 1) { /* each panel its own y range (workloads differ by orders of magnitude) */
                if (pyr[q].any)
                    fig_set_range(f, "y", pyr[q], logy, !metrics[m].logy, 0.06);
                else
                    fprintf(f, "set yrange [0:1]\nset label 1 'no value' at graph 0.5, 0.5 center\n");
                fprintf(f, "set title ");
                fig_gq(f, plab[q]);
                fprintf(f, "\n");
                if (q == np - 1 && ns > 1)
                    fprintf(f, "set key at screen 0.5, %.4f center top horizontal maxcols %d samplen 3 Left reverse "
                               "noenhanced\n",
                            (40.0 * krows + 14) / h, kcols);
                else
                    fprintf(f, "unset key\n");
            }
            fprintf(f, "plot ");
            for (int s = 0; s < ns; s++) {
                int c = 3 + 3 * s;
                /* series side by side, not on top of each other: a little
                 * apart for bars on a numeric x, spread within the category
                 * on a categorical one (scheme names: points, no line) */
                double off = !xnum && ns > 1 ? (s - (ns - 1) / 2.0) * (0.5 / ns)
                             : maxk > 1 && ns > 1 ? (s - (ns - 1) / 2.0) * 0.008 * (xr.hi - xr.lo) : 0;
                char src[LB + 40], x[64];
                fprintf(f, "%s", s ? ", \\\n  " : "");
                snprintf(src, sizeof src, "'%s'", rel);
                if (np > 1)
                    snprintf(src + strlen(src), sizeof src - strlen(src), " index %d", q);
                if (off != 0)
                    snprintf(x, sizeof x, "($%d%+.6g)", xnum ? 1 : 0, off);
                else
                    snprintf(x, sizeof x, "%s", xnum ? "1" : "0");
                fig_series(f, src, x, c, maxk > 1 ? c + 1 : 0, xnum, s, 1.1, NULL, slab[s]);
            }
            fprintf(f, "\n");
            if (np > 1 && !pyr[q].any)
                fprintf(f, "unset label 1\n");
        }
        free(pyr);
        if (np > 1)
            fprintf(f, "unset multiplot\n");
        if (fig_end(&g) == 0)
            made++;
    }
    if (sizes)
        made += plot_sweep_sizes(out, &t, csv, xc, seedc, xs, nx, xnum);
    for (int s = 0; s < ns; s++)
        free(slab[s]);
    free(slab);
    free(xs);
    free(rs);
    free(rx);
    free(rp);
    free(pv);
    free(plab);
    tab_free(&t);
    return made;
}
