/* The figures of run folders (plot_run.h): FCT slowdown by flow size, the
 * CDF of FCT, PFC by layer, and the monitor CSVs over time (queues, link
 * utilisation, flow rates, paused ports); runs that differ only in their
 * seed are one series (the mean, with min-max error bars). */
#include "exp/plot_run.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/err.h"
#include "core/xalloc.h"
#include "exp/plot_collective.h"
#include "exp/util.h"

/* ---------------------------------------------------------- run folders */



static void set_group(struct set *S)
{
    S->slabel = xcalloc((size_t)S->n + 1, sizeof *S->slabel);
    S->ssize = xcalloc((size_t)S->n + 1, sizeof *S->ssize);
    S->ns = 0;
    for (int i = 0; i < S->n; i++) {
        int s;
        for (s = 0; s < S->ns && strcmp(S->slabel[s], S->runs[i].label); s++)
            ;
        if (s == S->ns)
            snprintf(S->slabel[S->ns++], LB, "%s", S->runs[i].label);
        S->runs[i].series = s;
        S->ssize[s]++;
    }
}

static void set_free(struct set *S)
{
    free(S->slabel);
    free(S->ssize);
    S->slabel = NULL;
    S->ssize = NULL;
}

int plot_set_maxsize(const struct set *S)
{
    int m = 0;
    for (int s = 0; s < S->ns; s++)
        if (S->ssize[s] > m)
            m = S->ssize[s];
    return m;
}

/* " (mean of N seeds, bars: min-max)" when some series averages seeds. */
static void seeds_note(char *b, size_t n, const struct set *S, const char *what)
{
    int m = plot_set_maxsize(S);
    if (m > 1)
        snprintf(b, n, " (%s of %d seeds, bars: min-max)", what, m);
    else
        b[0] = 0;
}

/* ---- labels of run folders from their effective configuration */

/* summary.json's "config": {"SECTION": {"key": "value", ...}, ...}, one section a line. */
struct cfg {
    int n;
    char **k, **v;
};

static void cfg_load(struct cfg *c, const char *dir)
{
    memset(c, 0, sizeof *c);
    char p[PB];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    char *t = exp_slurp(p, NULL);
    if (!t)
        return;
    char *s = strstr(t, "\n  \"config\": {");
    for (char *line = s ? strchr(s + 1, '\n') : NULL; line && *++line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        char sec[64];
        int off = 0;
        if (sscanf(line, " \"%63[^\"]\": {%n", sec, &off) == 1 && off) {
            for (char *q = line + off; (q = strchr(q, '"'));) {
                char key[128], val[512];
                int o2 = 0;
                if (sscanf(q, "\"%127[^\"]\": \"%511[^\"]\"%n", key, val, &o2) >= 1 && o2) {
                    c->k = xrealloc(c->k, (size_t)(c->n + 1) * sizeof *c->k);
                    c->v = xrealloc(c->v, (size_t)(c->n + 1) * sizeof *c->v);
                    char kk[200];
                    snprintf(kk, sizeof kk, "%s.%s", sec, key);
                    c->k[c->n] = strdup(kk);
                    c->v[c->n++] = strdup(val);
                    q += o2;
                } else if (sscanf(q, "\"%127[^\"]\": \"\"%n", key, &o2) >= 1 && o2)
                    q += o2;
                else
                    break;
            }
        }
        if (!nl)
            break;
        line = nl;
    }
    free(t);
}

static const char *cfg_get(const struct cfg *c, const char *key)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->k[i], key) == 0)
            return c->v[i];
    return NULL;
}

static void cfg_free(struct cfg *c)
{
    for (int i = 0; i < c->n; i++) {
        free(c->k[i]);
        free(c->v[i]);
    }
    free(c->k);
    free(c->v);
}

static bool label_skip(const char *k)
{
    return strcmp(k, "run.seed") == 0 || strcmp(k, "run.name") == 0 || strncmp(k, "output.", 7) == 0 ||
           strcmp(k, "run.stop") == 0;
}

/* Labels for run folders: their run.name when those differ, else the
 * settings that differ between them (schemes first, by value alone),
 * else (seeds only) the common run.name or scheme. Runs that would share a
 * label with the same seed keep their folder names. */
static void derive_labels(struct run *runs, int n)
{
    struct cfg *c = xcalloc((size_t)n + 1, sizeof *c);
    bool all = true, names_differ = false;
    for (int i = 0; i < n; i++) {
        cfg_load(&c[i], runs[i].dir);
        all &= c[i].n > 0;
    }
    for (int i = 1; all && i < n; i++) {
        const char *a = cfg_get(&c[0], "run.name"), *b = cfg_get(&c[i], "run.name");
        names_differ |= a && b && strcmp(a, b) != 0;
    }
    for (int i = 0; i < n; i++) {
        char *lab = runs[i].label;
        lab[0] = 0;
        if (!all) {
            snprintf(lab, LB, "%s", fig_base_name(runs[i].dir));
            continue;
        }
        if (names_differ) {
            fig_label_piece(lab, LB, "run.name", cfg_get(&c[i], "run.name"));
            continue;
        }
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < c[0].n; k++) {
                const char *key = c[0].k[k];
                if (label_skip(key) || fig_scheme_key(key) != (pass == 0))
                    continue;
                bool in_all = true, differs = false;
                for (int j = 0; j < n && in_all; j++) {
                    const char *v = cfg_get(&c[j], key);
                    in_all = v != NULL;
                    differs |= v && strcmp(v, c[0].v[k]) != 0;
                }
                if (in_all && differs)
                    fig_label_piece(lab, LB, key, cfg_get(&c[i], key));
            }
        if (!lab[0]) {
            const char *nm = cfg_get(&c[i], "run.name"), *cc = cfg_get(&c[i], "transport.cc");
            if (nm && strcmp(nm, "default") != 0)
                fig_label_piece(lab, LB, "run.name", nm);
            else if (cc)
                fig_label_piece(lab, LB, "transport.cc", cc);
            else
                snprintf(lab, LB, "%s", fig_base_name(runs[i].dir));
        }
    }
    /* the same label and the same seed: not seeds of one series */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const char *a = cfg_get(&c[i], "run.seed"), *b = cfg_get(&c[j], "run.seed");
            if (strcmp(runs[i].label, runs[j].label) == 0 && (!a || !b || strcmp(a, b) == 0)) {
                for (int q = 0; q < n; q++)
                    snprintf(runs[q].label, LB, "%s", fig_base_name(runs[q].dir));
                i = j = n;
            }
        }
    for (int i = 0; i < n; i++)
        cfg_free(&c[i]);
    free(c);
}

/* ---- the figures of run folders */

/* p50 and p99 of the slowdowns (clamped at 1) of the finished flows of
 * series s (run `only`, or all its runs when -1) with lo < size <= hi, as
 * report.c's equal-count buckets (sorted[int(n * p)]); false when none. */
static bool bucket_pct(const struct set *S, int s, int only, uint64_t lo, uint64_t hi, double *v, double out[2])
{
    size_t k = 0;
    for (int i = 0; i < S->n; i++) {
        if (S->runs[i].series != s || (only >= 0 && i != only))
            continue;
        for (size_t j = 0; j < S->runs[i].r.n_flows; j++) {
            const struct report_flow *fl = &S->runs[i].r.flows[j];
            if (fl->done && fl->size > lo && fl->size <= hi)
                v[k++] = fl->slowdown < 1 ? 1 : fl->slowdown;
        }
    }
    if (!k)
        return false;
    qsort(v, k, sizeof *v, fig_cmp_dbl);
    out[0] = v[(size_t)((double)k * 0.5)];
    out[1] = v[(size_t)((double)k * 0.99)];
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* FCT slowdown by flow size, p50 and p99 side by side with one legend below.
 * A series' flows (all its seeds) are sorted by size into 20 buckets of
 * equal count (x: the bucket's largest flow); y is the percentile of the
 * pooled bucket, the bars span the seeds' own percentiles in that bucket. */
int plot_slowdown_by_size(const char *out, const struct set *S, const char *name, const char *title_extra)
{
    char rel[LB], nm[200];
    snprintf(nm, sizeof nm, "%s.dat", name);
    FILE *d = fig_data_open(out, nm, rel, sizeof rel);
    if (!d)
        return -1;
    struct rng xr, yr;
    memset(&xr, 0, sizeof xr);
    memset(&yr, 0, sizeof yr);
    fprintf(d, "# per series a block (two blank lines between): size_kb p50 p50_min p50_max p99 p99_min p99_max\n"
               "# (pooled over the series' seeds; min/max: of the seeds' own percentiles in the bucket)\n");
    size_t tot = 0;
    for (int i = 0; i < S->n; i++)
        tot += S->runs[i].r.n_flows;
    double *v = xcalloc(tot + 1, sizeof *v);
    uint64_t *sz = xcalloc(tot + 1, sizeof *sz);
    for (int s = 0; s < S->ns; s++) {
        fprintf(d, "# %s\n", S->slabel[s]);
        size_t k = 0;
        for (int i = 0; i < S->n; i++)
            if (S->runs[i].series == s)
                for (size_t j = 0; j < S->runs[i].r.n_flows; j++)
                    if (S->runs[i].r.flows[j].done)
                        sz[k++] = S->runs[i].r.flows[j].size;
        qsort(sz, k, sizeof *sz, cmp_u64);
        uint64_t prev = 0;
        for (int b = 0; b < REPORT_EQUAL && k; b++) {
            size_t hi = (size_t)((double)k * (b + 1) / REPORT_EQUAL);
            if (hi == 0 || sz[hi - 1] <= prev)
                continue;
            uint64_t edge = sz[hi - 1];
            double row[7], pc[2], lo[2] = {INFINITY, INFINITY}, up[2] = {-INFINITY, -INFINITY};
            if (!bucket_pct(S, s, -1, prev, edge, v, pc))
                continue;
            for (int i = 0; i < S->n; i++) {
                double q[2];
                if (S->runs[i].series == s && bucket_pct(S, s, i, prev, edge, v, q))
                    for (int m = 0; m < 2; m++) {
                        lo[m] = q[m] < lo[m] ? q[m] : lo[m];
                        up[m] = q[m] > up[m] ? q[m] : up[m];
                    }
            }
            row[0] = (double)edge / 1e3;
            row[1] = pc[0], row[2] = lo[0], row[3] = up[0];
            row[4] = pc[1], row[5] = lo[1], row[6] = up[1];
            fprintf(d, "%.3f %.4f %.4f %.4f %.4f %.4f %.4f\n", row[0], row[1], row[2], row[3], row[4], row[5], row[6]);
            fig_rng_add(&xr, row[0]);
            for (int q = 1; q < 7; q++)
                fig_rng_add(&yr, row[q]);
            prev = edge;
        }
        fprintf(d, "\n\n");
    }
    free(v);
    free(sz);
    fclose(d);
    if (!xr.any) {
        fig_note(out, "%s: no finished flows, figure left out", name);
        return 1;
    }
    bool logy = yr.lo > 0 && yr.hi / yr.lo > 20;
    bool bars = plot_set_maxsize(S) > 1;
    int cols = S->ns <= 4 ? S->ns : 3, krows = S->ns > 1 ? (S->ns + cols - 1) / cols : 0;
    int h = 560 + 40 * krows;
    struct fig g;
    FILE *f = fig_begin(&g, out, name, 1200, h);
    char note[120] = "", t[600];
    if (plot_set_maxsize(S) > 1)
        snprintf(note, sizeof note, ", flows of %d seeds pooled, bars: min-max of the seeds", plot_set_maxsize(S));
    double bm = (115.0 + 40 * krows) / h, tm = fig_titles ? 1 - 110.0 / h : 1 - 60.0 / h;
    if (fig_titles) {
        snprintf(t, sizeof t, "FCT slowdown by flow size%s (20 buckets of equal flow count%s)", title_extra, note);
        fprintf(f, "set multiplot title ");
        fig_gq(f, t);
        fprintf(f, "\n");
    } else
        fprintf(f, "set multiplot\n");
    fprintf(f, "set logscale x\n%sset xlabel 'flow size, largest in the bucket (KB)'\n", logy ? "set logscale y\n" : "");
    fig_set_range(f, "x", xr, true, false, 0.05);
    fig_set_range(f, "y", yr, logy, false, 0.06);
    fprintf(f, "set bmargin at screen %.4f\nset tmargin at screen %.4f\n", bm, tm);
    for (int panel = 0; panel < 2; panel++) {
        fprintf(f, "set lmargin at screen %.3f\nset rmargin at screen %.3f\n", panel ? 0.585 : 0.085, panel ? 0.98 : 0.49);
        fprintf(f, "set title '%s'\nset ylabel 'FCT slowdown, %s'\n", panel ? "99th percentile" : "median",
                panel ? "p99" : "p50");
        if (panel == 1 && S->ns > 1)
            fprintf(f, "set key at screen 0.5, %.4f center top horizontal maxcols %d samplen 3 Left reverse noenhanced\n",
                    (40.0 * krows + 14) / h, cols);
        else
            fprintf(f, "unset key\n");
        fprintf(f, "plot ");
        for (int s = 0; s < S->ns; s++) {
            char src[LB + 32];
            snprintf(src, sizeof src, "'%s' index %d", rel, s);
            fprintf(f, "%s", s ? ", \\\n  " : "");
            fig_series(f, src, "1", panel ? 5 : 2, bars ? (panel ? 6 : 3) : 0, true, s, 0.8, NULL, S->slabel[s]);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "unset multiplot\n");
    return fig_end(&g);
}

/* CDF of FCT; a series pools the finished flows of its seeds. */
static int plot_fct_cdf(const char *out, const struct set *S)
{
    struct fig g;
    FILE *f = fig_begin(&g, out, "fct_cdf", 960, 600 + 34 * ((S->ns + 2) / 3));
    struct rng xr;
    memset(&xr, 0, sizeof xr);
    char t[300], pooled[120] = "";
    if (plot_set_maxsize(S) > 1)
        snprintf(pooled, sizeof pooled, " (flows of %d seeds pooled)", plot_set_maxsize(S));
    snprintf(t, sizeof t, "CDF of flow completion time, finished flows%s", pooled);
    fig_title(f, t);
    fprintf(f, "set xlabel 'FCT (µs)'\nset ylabel 'fraction of flows'\nset logscale x\nset yrange [0:1.02]\n");
    fig_key_below(f, S->ns, 3);
    char *plot = NULL;
    size_t plen = 0;
    FILE *p = open_memstream(&plot, &plen);
    for (int s = 0; s < S->ns; s++) {
        char rel[LB], nm[64];
        snprintf(nm, sizeof nm, "fct_cdf_%d.dat", s);
        FILE *d = fig_data_open(out, nm, rel, sizeof rel);
        if (!d) {
            fclose(p);
            free(plot);
            fclose(f);
            free(g.body);
            return -1;
        }
        size_t k = 0, tot = 0;
        for (int i = 0; i < S->n; i++)
            if (S->runs[i].series == s)
                tot += S->runs[i].r.n_flows;
        double *v = xmalloc((tot + 1) * sizeof *v);
        for (int i = 0; i < S->n; i++)
            if (S->runs[i].series == s)
                for (size_t j = 0; j < S->runs[i].r.n_flows; j++)
                    if (S->runs[i].r.flows[j].done)
                        v[k++] = S->runs[i].r.flows[j].fct_ns / 1e3;
        qsort(v, k, sizeof *v, fig_cmp_dbl);
        fprintf(d, "# fct_us fraction (%s)\n", S->slabel[s]);
        for (size_t j = 0; j < k; j++) {
            fprintf(d, "%.3f %.6f\n", v[j], (double)(j + 1) / (double)k);
            fig_rng_add(&xr, v[j]);
        }
        free(v);
        fclose(d);
        fprintf(p, "%s'%s' u 1:2 w l", s ? ", \\\n  " : "", rel);
        fig_lstyle(p, s);
        fprintf(p, " t ");
        fig_gq(p, S->slabel[s]);
    }
    fclose(p);
    if (!xr.any) { /* gnuplot cannot draw an x range from no points */
        free(plot);
        fclose(f);
        free(g.body);
        fig_note(out, "fct_cdf: no finished flows in any run, figure left out");
        return 1;
    }
    fig_set_range(f, "x", xr, true, false, 0.02);
    fprintf(f, "plot %s\n", plot);
    free(plot);
    return fig_end(&g);
}

/* PFC by layer: paused time and PAUSE frames sent, one bar per series (the
 * mean over its seeds, bars min-max), only the layers the fabric has. */
static int plot_pfc_layers(const char *out, const struct set *S)
{
    static const char *const lname[4] = {"host", "edge", "agg", "core"};
    bool has[4] = {false}, any_ports = false;
    for (int i = 0; i < S->n; i++) {
        for (size_t p = 0; p < S->runs[i].r.n_ports; p++)
            if (S->runs[i].r.ports[p].layer >= 0 && S->runs[i].r.ports[p].layer < 4)
                has[S->runs[i].r.ports[p].layer] = any_ports = true;
        for (int l = 0; l < 4; l++)
            has[l] |= S->runs[i].r.pause_sent[l] > 0;
    }
    if (!any_ports)
        for (int l = 0; l < 4; l++)
            has[l] |= S->runs[0].r.has_layers;
    double *v = xcalloc((size_t)S->n + 1, sizeof *v);
    char rel[LB];
    FILE *d = fig_data_open(out, "pfc_layers.dat", rel, sizeof rel);
    if (!d) {
        free(v);
        return -1;
    }
    double tot[2] = {0, 0};
    struct rng yr[2];
    memset(yr, 0, sizeof yr);
    int nl = 0;
    fprintf(d, "# layer, then per series: paused_ms min max, pause_frames_sent min max (over seeds)\n");
    for (int l = 0; l < 4; l++) {
        if (!has[l])
            continue;
        nl++;
        fprintf(d, "%s", lname[l]);
        for (int s = 0; s < S->ns; s++)
            for (int q = 0; q < 2; q++) {
                int k = 0;
                for (int i = 0; i < S->n; i++) {
                    if (S->runs[i].series != s)
                        continue;
                    double x = 0;
                    if (q == 0) {
                        for (size_t p = 0; p < S->runs[i].r.n_ports; p++)
                            if (S->runs[i].r.ports[p].layer == l)
                                x += S->runs[i].r.ports[p].paused_us / 1e3;
                    } else
                        x = (double)S->runs[i].r.pause_sent[l];
                    v[k++] = x;
                }
                double m[3];
                fig_mmm(v, k, m);
                fprintf(d, " %.6g %.6g %.6g", m[0], m[1], m[2]);
                tot[q] += m[2];
                fig_rng_add(&yr[q], m[2]);
                fig_rng_add(&yr[q], 0);
            }
        fprintf(d, "\n");
    }
    fclose(d);
    free(v);
    if (!nl || (tot[0] == 0 && tot[1] == 0)) {
        fig_note(out, "pfc_by_layer: no port was paused and no PAUSE frame sent in any run, figure left out");
        return 1;
    }
    bool bars = plot_set_maxsize(S) > 1;
    int cols = S->ns <= 4 ? S->ns : 3, krows = S->ns > 1 ? (S->ns + cols - 1) / cols : 0;
    int h = 560 + 40 * krows;
    struct fig g;
    FILE *f = fig_begin(&g, out, "pfc_by_layer", 1100, h);
    char note[120], t[400];
    seeds_note(note, sizeof note, S, "mean");
    if (fig_titles) {
        snprintf(t, sizeof t, "PFC by layer (host: NIC ports; edge/agg/core: switch ports)%s", note);
        fprintf(f, "set multiplot title ");
        fig_gq(f, t);
        fprintf(f, "\n");
    } else
        fprintf(f, "set multiplot\n");
    fprintf(f, "set style data histogram\nset style histogram %s gap 1\nset style fill solid 0.9 border -1\n"
               "set boxwidth 0.9\nset xlabel 'layer'\nset xrange [-0.6:%.1f]\n",
            bars ? "errorbars lw 1.5" : "clustered", nl - 0.4);
    fprintf(f, "set bmargin at screen %.4f\nset tmargin at screen %.4f\n", (115.0 + 40 * krows) / h,
            fig_titles ? 1 - 110.0 / h : 1 - 60.0 / h);
    for (int panel = 0; panel < 2; panel++) {
        fprintf(f, "set lmargin at screen %.3f\nset rmargin at screen %.3f\n", panel ? 0.595 : 0.095, panel ? 0.98 : 0.49);
        fprintf(f, "set title '%s'\nset ylabel '%s'\n",
                panel ? "PAUSE frames sent by ports of the layer" : "time ports were paused, summed over ports",
                panel ? "PAUSE frames" : "paused time (ms)");
        fig_set_range(f, "y", yr[panel], false, true, 0.08);
        if (tot[panel] == 0)
            fprintf(f, "set label 1 'all zero in every run' at graph 0.5, 0.5 center\n");
        if (panel == 1 && S->ns > 1)
            fprintf(f, "set key at screen 0.5, %.4f center top horizontal maxcols %d samplen 2 Left reverse noenhanced\n",
                    (40.0 * krows + 14) / h, cols);
        else
            fprintf(f, "unset key\n");
        fprintf(f, "plot ");
        for (int s = 0; s < S->ns; s++) {
            int c = 2 + 6 * s + 3 * panel;
            if (bars)
                fprintf(f, "%s'%s' u %d:%d:%d:xtic(1)", s ? ", \\\n  " : "", rel, c, c + 1, c + 2);
            else
                fprintf(f, "%s'%s' u %d:xtic(1)", s ? ", \\\n  " : "", rel, c);
            fig_bar_style(f, s);
            fprintf(f, " t ");
            fig_gq(f, S->slabel[s]);
        }
        fprintf(f, "\n");
        if (tot[panel] == 0)
            fprintf(f, "unset label 1\n");
    }
    fprintf(f, "unset multiplot\n");
    return fig_end(&g);
}

/* A monitor CSV "time_ns,A,B,...,value" as lines over time: one series per
 * (run, id columns), at most `maxs` of them (the largest peaks). */
struct tseries {
    char key[96];
    int run, order; /* order: its rank among the run's series (colour) */
    double peak;
    size_t n, cap;
    double *t, *v;
};

static void tseries_free(struct tseries *ts, size_t nts)
{
    for (size_t k = 0; k < nts; k++) {
        free(ts[k].t);
        free(ts[k].v);
    }
    free(ts);
}

/* A flow's name in legends: F0 for a [flow.F0] flow, else "flow ID". */
static void flow_name(const struct report_run *r, const char *idstr, char *b, size_t n)
{
    unsigned long id = strtoul(idstr, NULL, 10);
    const struct report_flow *fl = id < r->n_flows && r->flows[id].id == id ? &r->flows[id] : NULL;
    for (size_t j = 0; !fl && j < r->n_flows; j++)
        if (r->flows[j].id == id)
            fl = &r->flows[j];
    /* the last slot of sources is shared by every name past it: not a flow's own */
    if (fl && fl->source && (fl->source < REPORT_SOURCES - 1 || r->n_sources < REPORT_SOURCES) &&
        strncmp(r->sources[fl->source], "flow.", 5) == 0)
        snprintf(b, n, "%s", r->sources[fl->source] + 5);
    else
        snprintf(b, n, "flow %s", idstr);
}

static int plot_monitor(const char *out, const struct set *S, const char *file, int nid, int vcol, double scale,
                        const char *name, const char *title, const char *ylabel, const char *idfmt, int maxs)
{
    const struct run *runs = S->runs;
    int n = S->n;
    struct tseries *ts = NULL;
    size_t nts = 0, cts = 0;
    int have = 0;
    for (int i = 0; i < n; i++) {
        char path[PB];
        snprintf(path, sizeof path, "%s/%s", runs[i].dir, file);
        FILE *in = fopen(path, "r");
        if (!in)
            continue;
        have = 1;
        char line[512];
        int order = 0;
        if (!fgets(line, sizeof line, in)) {
            fclose(in);
            continue;
        }
        while (fgets(line, sizeof line, in)) {
            char *fld[16];
            int nf = 0;
            for (char *p = strtok(line, ",\n"); p && nf < 16; p = strtok(NULL, ",\n"))
                fld[nf++] = p;
            if (nf <= vcol || nf < 1 + nid)
                continue;
            char key[96] = "";
            if (nid == 2)
                snprintf(key, sizeof key, idfmt, fld[1], fld[2]);
            else if (nid == 1 && strcmp(idfmt, "flow %s") == 0)
                flow_name(&runs[i].r, fld[1], key, sizeof key);
            else if (nid == 1)
                snprintf(key, sizeof key, idfmt, fld[1]);
            size_t k;
            for (k = 0; k < nts; k++)
                if (ts[k].run == i && strcmp(ts[k].key, key) == 0)
                    break;
            if (k == nts) {
                if (nts == cts)
                    ts = xrealloc(ts, (cts = cts ? 2 * cts : 16) * sizeof *ts);
                memset(&ts[nts], 0, sizeof *ts);
                snprintf(ts[nts].key, sizeof ts[nts].key, "%s", key);
                ts[nts].order = order++;
                ts[nts++].run = i;
            }
            struct tseries *s = &ts[k];
            if (s->n == s->cap) {
                s->cap = s->cap ? 2 * s->cap : 256;
                s->t = xrealloc(s->t, s->cap * sizeof *s->t);
                s->v = xrealloc(s->v, s->cap * sizeof *s->v);
            }
            s->t[s->n] = strtod(fld[0], NULL) / 1e6;
            s->v[s->n] = strtod(fld[vcol], NULL) * scale;
            if (s->v[s->n] > s->peak)
                s->peak = s->v[s->n];
            s->n++;
        }
        fclose(in);
    }
    if (!have)
        return 0;
    double tmax = 0, peak = 0;
    for (size_t k = 0; k < nts; k++) {
        if (ts[k].n && ts[k].t[ts[k].n - 1] > tmax)
            tmax = ts[k].t[ts[k].n - 1];
        if (ts[k].peak > peak)
            peak = ts[k].peak;
    }
    if (!nts || peak <= 0) {
        fig_note(out, "%s: every sample is 0 in every run, figure left out", name);
        tseries_free(ts, nts);
        return 0;
    }
    /* Several runs of a few series each (the flows of a scenario): one panel
     * per run, same style per series key, so schemes compare side by side. */
    bool panels = n > 1 && n <= 8 && (int)nts <= 4 * n;
    if (panels) {
        int rows = (n + 1) / 2, maxk = 0;
        for (size_t k = 0; k < nts; k++)
            if (ts[k].order + 1 > maxk)
                maxk = ts[k].order + 1;
        struct fig g;
        FILE *f = fig_begin(&g, out, name, 1200, 330 * rows + (fig_titles ? 30 : 0));
        if (fig_titles) {
            fprintf(f, "set multiplot layout %d,2 title ", rows);
            fig_gq(f, title);
            fprintf(f, "\n");
        } else
            fprintf(f, "set multiplot layout %d,2\n", rows);
        /* the same y range in every panel, with room above the data for a one-line legend */
        fprintf(f, "set xlabel 'time (ms)'\nset ylabel '%s'\nset xrange [0:%g]\nset yrange [0:%.6g]\n", ylabel, tmax,
                peak * (maxk > 1 ? 1.25 : 1.05));
        if (maxk > 1)
            fprintf(f, "set key inside top center horizontal samplen 2 Left reverse noenhanced\n");
        else
            fprintf(f, "unset key\n");
        for (int i = 0; i < n; i++) {
            char pt[LB + 40];
            double rpeak = 0;
            bool seeded = S->ssize[runs[i].series] > 1;
            for (size_t k = 0; k < nts; k++)
                if (ts[k].run == i && ts[k].peak > rpeak)
                    rpeak = ts[k].peak;
            if (seeded) {
                int nth = 0;
                for (int j = 0; j < i; j++)
                    nth += runs[j].series == runs[i].series;
                snprintf(pt, sizeof pt, "%s (seed run %d)", runs[i].label, nth + 1);
            } else
                snprintf(pt, sizeof pt, "%s", runs[i].label);
            fprintf(f, "set title ");
            fig_gq(f, pt);
            fprintf(f, "\n");
            if (rpeak <= 0)
                fprintf(f, "set label 1 'all zero' at graph 0.5, 0.5 center\n");
            fprintf(f, "plot ");
            int shown = 0;
            for (size_t k = 0; k < nts; k++) {
                if (ts[k].run != i)
                    continue;
                char rel[LB], nm[200];
                snprintf(nm, sizeof nm, "%s_%zu.dat", name, k);
                FILE *d = fig_data_open(out, nm, rel, sizeof rel);
                if (!d)
                    break;
                fprintf(d, "# time_ms value (%s %s)\n", runs[i].dir, ts[k].key);
                for (size_t j = 0; j < ts[k].n; j++)
                    fprintf(d, "%.6f %.6f\n", ts[k].t[j], ts[k].v[j]);
                fclose(d);
                fprintf(f, "%s'%s' u 1:2 w l", shown++ ? ", " : "", rel);
                fig_lstyle(f, ts[k].order);
                fprintf(f, " t ");
                fig_gq(f, ts[k].key);
            }
            if (!shown)
                fprintf(f, "NaN t 'no samples'");
            fprintf(f, "\n");
            if (rpeak <= 0)
                fprintf(f, "unset label 1\n");
        }
        fprintf(f, "unset multiplot\n");
        tseries_free(ts, nts);
        return fig_end(&g) < 0 ? -1 : 1;
    }
    /* the largest peaks first, but keep each run's order stable */
    for (size_t a = 1; a < nts; a++)
        for (size_t b = a; b > 0 && ts[b - 1].peak < ts[b].peak; b--) {
            struct tseries t = ts[b];
            ts[b] = ts[b - 1];
            ts[b - 1] = t;
        }
    int shown_n = (int)nts < maxs ? (int)nts : maxs;
    struct fig g;
    FILE *f = fig_begin(&g, out, name, 960, 600 + 34 * ((shown_n + 2) / 3));
    char t[300];
    snprintf(t, sizeof t, "%s%s", title, (int)nts > maxs ? " (the series with the highest peaks)" : "");
    fig_title(f, t);
    double shown_peak = 0;
    for (int k = 0; k < shown_n; k++)
        if (ts[k].peak > shown_peak)
            shown_peak = ts[k].peak;
    fprintf(f, "set xlabel 'time (ms)'\nset ylabel '%s'\nset xrange [0:%g]\nset yrange [0:%.6g]\n", ylabel, tmax,
            shown_peak * 1.05);
    fig_key_below(f, shown_n > 1 ? shown_n : (n > 1 ? 2 : 1), 3);
    fprintf(f, "plot ");
    for (int k = 0; k < shown_n; k++) {
        char rel[LB], nm[200];
        snprintf(nm, sizeof nm, "%s_%d.dat", name, k);
        FILE *d = fig_data_open(out, nm, rel, sizeof rel);
        if (!d)
            break;
        fprintf(d, "# time_ms value (%s %s)\n", runs[ts[k].run].dir, ts[k].key);
        for (size_t j = 0; j < ts[k].n; j++)
            fprintf(d, "%.6f %.6f\n", ts[k].t[j], ts[k].v[j]);
        fclose(d);
        char lt[LB + 100];
        if (n > 1)
            snprintf(lt, sizeof lt, "%s: %s", runs[ts[k].run].label, ts[k].key);
        else
            snprintf(lt, sizeof lt, "%s", ts[k].key);
        fprintf(f, "%s'%s' u 1:2 w l", k ? ", \\\n  " : "", rel);
        fig_lstyle(f, k);
        fprintf(f, " t ");
        fig_gq(f, lt);
    }
    fprintf(f, "\n");
    tseries_free(ts, nts);
    return fig_end(&g) < 0 ? -1 : 1;
}

/* Loads the run folders (labels given, or derived when labels is NULL);
 * -1 on a bad folder (message printed). */
int plot_set_load(struct set *S, const char *const *dirs, const char *const *labels, int n)
{
    memset(S, 0, sizeof *S);
    S->runs = xcalloc((size_t)n + 1, sizeof *S->runs);
    for (int i = 0; i < n; i++) {
        struct err e;
        struct run *r = &S->runs[i];
        r->dir = dirs[i];
        if (report_load(&r->r, dirs[i], &e) < 0) {
            fprintf(stderr, "%s\n", e.msg);
            for (int j = 0; j < i; j++)
                report_free(&S->runs[j].r);
            free(S->runs);
            S->runs = NULL;
            return -1;
        }
        report_compute(&r->r, &r->s);
        if (labels)
            snprintf(r->label, LB, "%s", labels[i]);
        S->n++;
    }
    if (!labels)
        derive_labels(S->runs, n);
    set_group(S);
    return 0;
}

void plot_set_unload(struct set *S)
{
    for (int i = 0; i < S->n; i++)
        report_free(&S->runs[i].r);
    free(S->runs);
    set_free(S);
}

/* Every figure of run folders; returns the count made. */
int plot_set(const char *outdir, const struct set *S)
{
    int made = 0;
    made += plot_slowdown_by_size(outdir, S, "slowdown_vs_size", "") == 0;
    made += plot_fct_cdf(outdir, S) == 0;
    made += plot_pfc_layers(outdir, S) == 0;
    made += plot_monitor(outdir, S, "queue.csv", 2, 3, 1e-3, "queue_over_time", "Egress queue length", "queue (KB)",
                         "node %s port %s", 8) > 0;
    made += plot_monitor(outdir, S, "util.csv", 2, 3, 100, "util_over_time", "Link utilisation", "utilisation (%)",
                         "node %s port %s", 8) > 0;
    made += plot_monitor(outdir, S, "flow_rate.csv", 1, 2, 1, "flow_rate_over_time", "Flow throughput",
                         "throughput (Gbps)", "flow %s", 8) > 0;
    /* rate_gbps, when the file has it: the CC's rate over time (PCN's rate law, slow start) */
    made += plot_monitor(outdir, S, "flow_rate.csv", 1, 3, 1, "send_rate_over_time", "Sender pacing rate", "rate (Gbps)",
                         "flow %s", 8) > 0;
    made += plot_monitor(outdir, S, "paused.csv", 0, 1, 1, "paused_ports_over_time",
                         "Ports with a paused priority (PFC congestion tree)", "paused ports", "paused ports", 8) > 0;
    const char **cd = xcalloc((size_t)S->n + 1, 2 * sizeof *cd); /* collectives: plot_collective.c */
    for (int i = 0; i < S->n; i++)
        cd[i] = S->runs[i].dir, cd[S->n + i] = S->runs[i].label;
    int k = exp_plot_collectives(outdir, cd, cd + S->n, S->n);
    free(cd);
    return k < 0 ? -1 : made + (k > 0);
}
