/* `rocesim plot INPUT... [--out DIR] [--no-title]`: figures with gnuplot, as
 * PNG and SVG. INPUT is a run folder (fct.csv, summary.json, pfc_ports.csv,
 * monitor CSVs), a sweep.csv, or a sweep folder holding one. Every figure's
 * data and gnuplot script stay in DIR (data/, NAME.gp) so it can be restyled
 * by hand. gnuplot is needed at run time only (Debian gnuplot-nox).
 *
 * Figures are meant to go into a paper as they are: legends name the
 * schemes and the settings that differ between the runs (the .exp [labels]
 * under `reproduce`), runs that differ only in their seed are one series
 * (the mean, with min-max error bars), every series has its own colour,
 * dash pattern and point type (readable in grayscale), legends sit below
 * the plot, axis ranges are those of the data, and a figure or panel with
 * nothing but zeros is left out or says so. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/err.h"
#include "core/xalloc.h"
#include "exp/exp.h"
#include "scenario/sweepspec.h"
#include "stats/report.h"

#define PB 1600
#define LB 256

bool exp_have_gnuplot(void)
{
    return exp_on_path("gnuplot");
}

static const char *base_name(const char *path)
{
    static char b[512];
    snprintf(b, sizeof b, "%s", path);
    size_t l = strlen(b);
    while (l > 1 && b[l - 1] == '/')
        b[--l] = 0;
    const char *s = strrchr(b, '/');
    return s ? s + 1 : b;
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---------------------------------------------------------- options */

static bool opt_titles = true;
static int nmap;
static char **map_from, **map_to;

void exp_plot_options(bool titles, int n, const char *const *from, const char *const *to)
{
    opt_titles = titles;
    for (int i = 0; i < nmap; i++) {
        free(map_from[i]);
        free(map_to[i]);
    }
    free(map_from);
    free(map_to);
    nmap = n;
    map_from = xcalloc((size_t)n + 1, sizeof *map_from);
    map_to = xcalloc((size_t)n + 1, sizeof *map_to);
    for (int i = 0; i < n; i++) {
        map_from[i] = strdup(from[i]);
        map_to[i] = strdup(to[i]);
    }
}

static const char *relabel(const char *v)
{
    for (int i = 0; i < nmap; i++)
        if (strcmp(map_from[i], v) == 0)
            return map_to[i];
    return NULL;
}

static const char *short_name(const char *key)
{
    const char *d = strrchr(key, '.');
    return d ? d + 1 : key;
}

/* Keys whose value alone names the series ("hpcc", not "cc=hpcc"). */
static bool scheme_key(const char *key)
{
    return strcmp(key, "transport.cc") == 0 || strcmp(key, "lb.scheme") == 0 || strcmp(key, "run.name") == 0 ||
           strncmp(key, "variant", 7) == 0;
}

/* One piece of a legend label for KEY = VAL. */
static void label_piece(char *lab, size_t n, const char *key, const char *val)
{
    size_t l = strlen(lab);
    const char *m = relabel(val);
    if (m)
        snprintf(lab + l, n - l, "%s%s", l ? ", " : "", m);
    else if (scheme_key(key))
        snprintf(lab + l, n - l, "%s%s", l ? ", " : "", val);
    else
        snprintf(lab + l, n - l, "%s%s = %s", l ? ", " : "", short_name(key), val);
}

/* ---------------------------------------------------------- styles */

/* Okabe-Ito colours (distinct for colour-blind readers), each series also
 * with its own dash pattern and point type so it reads in grayscale. */
static const char *const pal[8] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999933"};
static const int ptype[10] = {7, 5, 9, 11, 13, 4, 6, 8, 10, 12};

static void style(FILE *f, int i)
{
    fprintf(f, " lw 2 lc rgb '%s' dt %d pt %d", pal[i % 8], i % 5 + 1, ptype[i % 10]);
}

/* The same without a point type, for plain lines. */
static void lstyle(FILE *f, int i)
{
    fprintf(f, " lw 2 lc rgb '%s' dt %d", pal[i % 8], i % 5 + 1);
}

/* Bars: colour and a fill that differs in grayscale (solid, hatches). */
static void bar_style(FILE *f, int i)
{
    static const char *const fill[6] = {"solid 0.9", "pattern 4", "solid 0.35", "pattern 5", "pattern 1", "pattern 6"};
    fprintf(f, " lc rgb '%s' fs %s border lc rgb 'black'", pal[i % 8], fill[i % 6]);
}

/* ---------------------------------------------------------- gnuplot */

struct fig {
    const char *outdir;
    char name[160];
    char *body;
    size_t len;
    FILE *f; /* open_memstream on body */
    int w, h;
};

static FILE *fig_begin(struct fig *g, const char *outdir, const char *name, int w, int h)
{
    memset(g, 0, sizeof *g);
    g->outdir = outdir;
    snprintf(g->name, sizeof g->name, "%s", name);
    g->w = w;
    g->h = h;
    g->f = open_memstream(&g->body, &g->len);
    if (!g->f) {
        fprintf(stderr, "rocesim plot: out of memory\n");
        exit(1);
    }
    return g->f;
}

/* A gnuplot single-quoted string. */
static void gq(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static void fig_title(FILE *f, const char *t)
{
    if (opt_titles) {
        fprintf(f, "set title ");
        gq(f, t);
        fprintf(f, "\n");
    } else
        fprintf(f, "unset title\n");
}

/* The legend below the plot, off the data, in up to `cols` columns. */
static void key_below(FILE *f, int nseries, int cols)
{
    if (nseries <= 1)
        fprintf(f, "unset key\n");
    else
        fprintf(f, "set key below center horizontal maxcols %d samplen 3 Left reverse height 1 noenhanced\n", cols);
}

static int run_gnuplot(const char *dir, const char *script)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) < 0)
            _exit(126);
        /* its warnings into a log, shown only on failure */
        int fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (fd >= 0) {
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Writes NAME.gp (the body once for PNG, once for SVG) and runs gnuplot. */
static int fig_end(struct fig *g)
{
    fclose(g->f);
    char path[PB];
    snprintf(path, sizeof path, "%s/%s.gp", g->outdir, g->name);
    FILE *s = fopen(path, "w");
    if (!s) {
        fprintf(stderr, "%s: cannot write: %s\n", path, strerror(errno));
        free(g->body);
        return -1;
    }
    fprintf(s, "# rocesim plot: %s (run `gnuplot %s.gp` in this folder to redraw)\n", g->name, g->name);
    fprintf(s, "set encoding utf8\nset datafile separator whitespace\nset datafile missing 'NaN'\n"
               "set grid lc rgb '#dddddd'\nset key noenhanced\nset border lw 1.2\n");
    fprintf(s, "set terminal pngcairo size %d,%d font 'DejaVu Sans,11' noenhanced\nset output '%s.png'\n%s\nunset output\n", g->w,
            g->h, g->name, g->body);
    fprintf(s, "set terminal svg size %d,%d font 'DejaVu Sans,11' noenhanced\nset output '%s.svg'\n%s\nunset output\n", g->w,
            g->h, g->name, g->body);
    fclose(s);
    free(g->body);
    snprintf(path, sizeof path, "%s.gp", g->name);
    if (run_gnuplot(g->outdir, path) < 0) {
        fprintf(stderr, "rocesim plot: gnuplot failed on %s/%s.gp (its messages: %s/gnuplot.log)\n", g->outdir, g->name,
                g->outdir);
        return -1;
    }
    return 0;
}

static FILE *data_open(const char *outdir, const char *name, char *rel, size_t n)
{
    snprintf(rel, n, "data/%s", name);
    char path[PB];
    snprintf(path, sizeof path, "%s/%s", outdir, rel);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "%s: cannot write: %s\n", path, strerror(errno));
    return f;
}

/* A figure left out, said on stderr and in DIR/notes.txt (the HTML page shows it). */
__attribute__((format(printf, 2, 3))) static void note(const char *outdir, const char *fmt, ...)
{
    char b[600], p[PB];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rocesim plot: %s\n", b);
    snprintf(p, sizeof p, "%s/notes.txt", outdir);
    FILE *f = fopen(p, "a");
    if (f) {
        fprintf(f, "%s\n", b);
        fclose(f);
    }
}

/* ---------------------------------------------------------- axis ranges */

struct rng {
    double lo, hi;
    bool any;
};

static void rng_add(struct rng *r, double v)
{
    if (!isfinite(v))
        return;
    if (!r->any) {
        r->lo = r->hi = v;
        r->any = true;
    } else {
        if (v < r->lo)
            r->lo = v;
        if (v > r->hi)
            r->hi = v;
    }
}

/* `set AXrange` fitted to the data: from 0 (zero), padded by `pad` of the
 * span, or (logscale) by a factor; nothing known: autoscale. */
static void set_range(FILE *f, const char *ax, struct rng r, bool logs, bool zero, double pad)
{
    if (!r.any) {
        fprintf(f, "set %srange [*:*]\n", ax);
        return;
    }
    double lo = r.lo, hi = r.hi;
    if (logs) {
        if (lo <= 0)
            lo = hi > 0 ? hi / 1e3 : 1;
        if (hi <= lo)
            hi = lo * 2, lo /= 2;
        lo /= 1 + pad;
        hi *= 1 + pad;
        fprintf(f, "set %srange [%.6g:%.6g]\n", ax, lo, hi);
        if (ax[0] == 'y' && hi / lo < 1000) { /* labels at 1, 2, 5 x 10^k, not only at the decades */
            fprintf(f, "set %stics (", ax);
            int k = 0;
            for (double dec = pow(10, floor(log10(lo))); dec <= hi; dec *= 10)
                for (int m = 0; m < 3; m++) {
                    double t = dec * (m == 0 ? 1 : m == 1 ? 2 : 5);
                    if (t >= lo && t <= hi)
                        fprintf(f, "%s%.6g", k++ ? ", " : "", t);
                }
            fprintf(f, ")\n");
        }
        return;
    }
    if (zero && lo >= 0)
        lo = 0;
    double span = hi - lo;
    if (span < 0.1 * fabs(hi) || span == 0) { /* a flat series: do not magnify a 0.1 % difference; all 0: [0:0.5] */
        double mid = (hi + lo) / 2, half = fabs(hi) > 0 ? 0.05 * fabs(hi) : 0.5;
        lo = mid - half;
        hi = mid + half;
        span = hi - lo;
        if (zero && lo < 0 && r.lo >= 0)
            lo = 0;
    }
    fprintf(f, "set %srange [%.6g:%.6g]\n", ax, zero && lo == 0 ? 0 : lo - pad * span, hi + pad * span);
}

/* ---------------------------------------------------------- run folders */

struct run {
    const char *dir;
    char label[LB];
    int series;        /* runs of one series differ only in their seed */
    struct report_run r;
    struct report_summary s;
};

/* Runs grouped into series, in first-seen order. */
struct set {
    struct run *runs;
    int n, ns;
    char (*slabel)[LB];
    int *ssize;
};

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

static int set_maxsize(const struct set *S)
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
    int m = set_maxsize(S);
    if (m > 1)
        snprintf(b, n, " (%s of %d seeds, bars: min-max)", what, m);
    else
        b[0] = 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* mean, min and max of the series' values v[0..k) */
static void mmm(const double *v, int k, double out[3])
{
    out[0] = out[1] = out[2] = NAN;
    double sum = 0;
    int c = 0;
    for (int i = 0; i < k; i++) {
        if (!isfinite(v[i]))
            continue;
        if (!c || v[i] < out[1])
            out[1] = v[i];
        if (!c || v[i] > out[2])
            out[2] = v[i];
        sum += v[i];
        c++;
    }
    if (c)
        out[0] = sum / c;
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
            snprintf(lab, LB, "%s", base_name(runs[i].dir));
            continue;
        }
        if (names_differ) {
            label_piece(lab, LB, "run.name", cfg_get(&c[i], "run.name"));
            continue;
        }
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < c[0].n; k++) {
                const char *key = c[0].k[k];
                if (label_skip(key) || scheme_key(key) != (pass == 0))
                    continue;
                bool in_all = true, differs = false;
                for (int j = 0; j < n && in_all; j++) {
                    const char *v = cfg_get(&c[j], key);
                    in_all = v != NULL;
                    differs |= v && strcmp(v, c[0].v[k]) != 0;
                }
                if (in_all && differs)
                    label_piece(lab, LB, key, cfg_get(&c[i], key));
            }
        if (!lab[0]) {
            const char *nm = cfg_get(&c[i], "run.name"), *cc = cfg_get(&c[i], "transport.cc");
            if (nm && strcmp(nm, "default") != 0)
                label_piece(lab, LB, "run.name", nm);
            else if (cc)
                label_piece(lab, LB, "transport.cc", cc);
            else
                snprintf(lab, LB, "%s", base_name(runs[i].dir));
        }
    }
    /* the same label and the same seed: not seeds of one series */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const char *a = cfg_get(&c[i], "run.seed"), *b = cfg_get(&c[j], "run.seed");
            if (strcmp(runs[i].label, runs[j].label) == 0 && (!a || !b || strcmp(a, b) == 0)) {
                for (int q = 0; q < n; q++)
                    snprintf(runs[q].label, LB, "%s", base_name(runs[q].dir));
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
    qsort(v, k, sizeof *v, cmp_dbl);
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
static int plot_slowdown_by_size(const char *out, const struct set *S, const char *name, const char *title_extra)
{
    char rel[LB], nm[200];
    snprintf(nm, sizeof nm, "%s.dat", name);
    FILE *d = data_open(out, nm, rel, sizeof rel);
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
            rng_add(&xr, row[0]);
            for (int q = 1; q < 7; q++)
                rng_add(&yr, row[q]);
            prev = edge;
        }
        fprintf(d, "\n\n");
    }
    free(v);
    free(sz);
    fclose(d);
    if (!xr.any) {
        note(out, "%s: no finished flows, figure left out", name);
        return 1;
    }
    bool logy = yr.lo > 0 && yr.hi / yr.lo > 20;
    bool bars = set_maxsize(S) > 1;
    int cols = S->ns <= 4 ? S->ns : 3, krows = S->ns > 1 ? (S->ns + cols - 1) / cols : 0;
    int h = 520 + 28 * krows;
    struct fig g;
    FILE *f = fig_begin(&g, out, name, 1200, h);
    char note[120] = "", t[600];
    if (set_maxsize(S) > 1)
        snprintf(note, sizeof note, ", flows of %d seeds pooled, bars: min-max of the seeds", set_maxsize(S));
    double bm = (80.0 + 28 * krows) / h, tm = opt_titles ? 1 - 75.0 / h : 1 - 45.0 / h;
    if (opt_titles) {
        snprintf(t, sizeof t, "FCT slowdown by flow size%s (20 buckets of equal flow count%s)", title_extra, note);
        fprintf(f, "set multiplot title ");
        gq(f, t);
        fprintf(f, "\n");
    } else
        fprintf(f, "set multiplot\n");
    fprintf(f, "set logscale x\n%sset xlabel 'flow size, largest in the bucket (KB)'\n", logy ? "set logscale y\n" : "");
    set_range(f, "x", xr, true, false, 0.05);
    set_range(f, "y", yr, logy, false, 0.06);
    fprintf(f, "set bmargin at screen %.4f\nset tmargin at screen %.4f\n", bm, tm);
    for (int panel = 0; panel < 2; panel++) {
        fprintf(f, "set lmargin at screen %.3f\nset rmargin at screen %.3f\n", panel ? 0.56 : 0.07, panel ? 0.98 : 0.49);
        fprintf(f, "set title '%s'\nset ylabel 'FCT slowdown, %s'\n", panel ? "99th percentile" : "median",
                panel ? "p99" : "p50");
        if (panel == 1 && S->ns > 1)
            fprintf(f, "set key at screen 0.5, %.4f center top horizontal maxcols %d samplen 3 Left reverse noenhanced\n",
                    (28.0 * krows + 12) / h, cols);
        else
            fprintf(f, "unset key\n");
        fprintf(f, "plot ");
        for (int s = 0; s < S->ns; s++) {
            fprintf(f, "%s'%s' index %d u 1:%d%s w %s", s ? ", \\\n  " : "", rel, s, panel ? 5 : 2,
                    bars ? (panel ? ":6:7" : ":3:4") : "", bars ? "yerrorlines" : "lp");
            style(f, s);
            fprintf(f, " ps 0.8 t ");
            gq(f, S->slabel[s]);
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
    FILE *f = fig_begin(&g, out, "fct_cdf", 960, 600 + 24 * ((S->ns + 2) / 3));
    struct rng xr;
    memset(&xr, 0, sizeof xr);
    char t[300], pooled[120] = "";
    if (set_maxsize(S) > 1)
        snprintf(pooled, sizeof pooled, " (flows of %d seeds pooled)", set_maxsize(S));
    snprintf(t, sizeof t, "CDF of flow completion time, finished flows%s", pooled);
    fig_title(f, t);
    fprintf(f, "set xlabel 'FCT (µs)'\nset ylabel 'fraction of flows'\nset logscale x\nset yrange [0:1.02]\n");
    key_below(f, S->ns, 3);
    char *plot = NULL;
    size_t plen = 0;
    FILE *p = open_memstream(&plot, &plen);
    for (int s = 0; s < S->ns; s++) {
        char rel[LB], nm[64];
        snprintf(nm, sizeof nm, "fct_cdf_%d.dat", s);
        FILE *d = data_open(out, nm, rel, sizeof rel);
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
        qsort(v, k, sizeof *v, cmp_dbl);
        fprintf(d, "# fct_us fraction (%s)\n", S->slabel[s]);
        for (size_t j = 0; j < k; j++) {
            fprintf(d, "%.3f %.6f\n", v[j], (double)(j + 1) / (double)k);
            rng_add(&xr, v[j]);
        }
        free(v);
        fclose(d);
        fprintf(p, "%s'%s' u 1:2 w l", s ? ", \\\n  " : "", rel);
        lstyle(p, s);
        fprintf(p, " t ");
        gq(p, S->slabel[s]);
    }
    fclose(p);
    if (!xr.any) { /* gnuplot cannot draw an x range from no points */
        free(plot);
        fclose(f);
        free(g.body);
        note(out, "fct_cdf: no finished flows in any run, figure left out");
        return 1;
    }
    set_range(f, "x", xr, true, false, 0.02);
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
    FILE *d = data_open(out, "pfc_layers.dat", rel, sizeof rel);
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
                mmm(v, k, m);
                fprintf(d, " %.6g %.6g %.6g", m[0], m[1], m[2]);
                tot[q] += m[2];
                rng_add(&yr[q], m[2]);
                rng_add(&yr[q], 0);
            }
        fprintf(d, "\n");
    }
    fclose(d);
    free(v);
    if (!nl || (tot[0] == 0 && tot[1] == 0)) {
        note(out, "pfc_by_layer: no port was paused and no PAUSE frame sent in any run, figure left out");
        return 1;
    }
    bool bars = set_maxsize(S) > 1;
    int cols = S->ns <= 4 ? S->ns : 3, krows = S->ns > 1 ? (S->ns + cols - 1) / cols : 0;
    int h = 520 + 28 * krows;
    struct fig g;
    FILE *f = fig_begin(&g, out, "pfc_by_layer", 1100, h);
    char note[120], t[400];
    seeds_note(note, sizeof note, S, "mean");
    if (opt_titles) {
        snprintf(t, sizeof t, "PFC by layer (host: NIC ports; edge/agg/core: switch ports)%s", note);
        fprintf(f, "set multiplot title ");
        gq(f, t);
        fprintf(f, "\n");
    } else
        fprintf(f, "set multiplot\n");
    fprintf(f, "set style data histogram\nset style histogram %s gap 1\nset style fill solid 0.9 border -1\n"
               "set boxwidth 0.9\nset xlabel 'layer'\nset xrange [-0.6:%.1f]\n",
            bars ? "errorbars lw 1.5" : "clustered", nl - 0.4);
    fprintf(f, "set bmargin at screen %.4f\nset tmargin at screen %.4f\n", (80.0 + 28 * krows) / h,
            opt_titles ? 1 - 75.0 / h : 1 - 45.0 / h);
    for (int panel = 0; panel < 2; panel++) {
        fprintf(f, "set lmargin at screen %.3f\nset rmargin at screen %.3f\n", panel ? 0.57 : 0.08, panel ? 0.98 : 0.49);
        fprintf(f, "set title '%s'\nset ylabel '%s'\n",
                panel ? "PAUSE frames sent by ports of the layer" : "time ports were paused, summed over ports",
                panel ? "PAUSE frames" : "paused time (ms)");
        set_range(f, "y", yr[panel], false, true, 0.08);
        if (tot[panel] == 0)
            fprintf(f, "set label 1 'all zero in every run' at graph 0.5, 0.5 center\n");
        if (panel == 1 && S->ns > 1)
            fprintf(f, "set key at screen 0.5, %.4f center top horizontal maxcols %d samplen 2 Left reverse noenhanced\n",
                    (28.0 * krows + 12) / h, cols);
        else
            fprintf(f, "unset key\n");
        fprintf(f, "plot ");
        for (int s = 0; s < S->ns; s++) {
            int c = 2 + 6 * s + 3 * panel;
            if (bars)
                fprintf(f, "%s'%s' u %d:%d:%d:xtic(1)", s ? ", \\\n  " : "", rel, c, c + 1, c + 2);
            else
                fprintf(f, "%s'%s' u %d:xtic(1)", s ? ", \\\n  " : "", rel, c);
            bar_style(f, s);
            fprintf(f, " t ");
            gq(f, S->slabel[s]);
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
        note(out, "%s: every sample is 0 in every run, figure left out", name);
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
        FILE *f = fig_begin(&g, out, name, 1200, 330 * rows + (opt_titles ? 30 : 0));
        if (opt_titles) {
            fprintf(f, "set multiplot layout %d,2 title ", rows);
            gq(f, title);
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
            gq(f, pt);
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
                FILE *d = data_open(out, nm, rel, sizeof rel);
                if (!d)
                    break;
                fprintf(d, "# time_ms value (%s %s)\n", runs[i].dir, ts[k].key);
                for (size_t j = 0; j < ts[k].n; j++)
                    fprintf(d, "%.6f %.6f\n", ts[k].t[j], ts[k].v[j]);
                fclose(d);
                fprintf(f, "%s'%s' u 1:2 w l", shown++ ? ", " : "", rel);
                lstyle(f, ts[k].order);
                fprintf(f, " t ");
                gq(f, ts[k].key);
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
    FILE *f = fig_begin(&g, out, name, 960, 600 + 24 * ((shown_n + 2) / 3));
    char t[300];
    snprintf(t, sizeof t, "%s%s", title, (int)nts > maxs ? " (the series with the highest peaks)" : "");
    fig_title(f, t);
    double shown_peak = 0;
    for (int k = 0; k < shown_n; k++)
        if (ts[k].peak > shown_peak)
            shown_peak = ts[k].peak;
    fprintf(f, "set xlabel 'time (ms)'\nset ylabel '%s'\nset xrange [0:%g]\nset yrange [0:%.6g]\n", ylabel, tmax,
            shown_peak * 1.05);
    key_below(f, shown_n > 1 ? shown_n : (n > 1 ? 2 : 1), 3);
    fprintf(f, "plot ");
    for (int k = 0; k < shown_n; k++) {
        char rel[LB], nm[200];
        snprintf(nm, sizeof nm, "%s_%d.dat", name, k);
        FILE *d = data_open(out, nm, rel, sizeof rel);
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
        lstyle(f, k);
        fprintf(f, " t ");
        gq(f, lt);
    }
    fprintf(f, "\n");
    tseries_free(ts, nts);
    return fig_end(&g) < 0 ? -1 : 1;
}

/* Loads the run folders (labels given, or derived when labels is NULL);
 * -1 on a bad folder (message printed). */
static int set_load(struct set *S, const char *const *dirs, const char *const *labels, int n)
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

static void set_unload(struct set *S)
{
    for (int i = 0; i < S->n; i++)
        report_free(&S->runs[i].r);
    free(S->runs);
    set_free(S);
}

/* Every figure of run folders; returns the count made. */
static int plot_set(const char *outdir, const struct set *S)
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

/* ---------------------------------------------------------- sweep.csv */

struct table {
    char **hdr;
    int nh;
    char ***rows;
    int nr;
    int first_param, status_col; /* params are columns [first_param, status_col) */
};

static void table_free(struct table *t)
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

int exp_table_load(struct table *t, const char *path);
int exp_table_load(struct table *t, const char *path)
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
        table_free(t);
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
            table_free(t);
            return fprintf(stderr, "%s:%d: %d fields, the header has %d\n", path, ln, n, t->nh), -1;
        }
        t->rows = xrealloc(t->rows, (size_t)(t->nr + 1) * sizeof *t->rows);
        t->rows[t->nr++] = v;
    }
    free(line);
    fclose(f);
    return 0;
}

static int col_of(const struct table *t, const char *name)
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
static void row_label(const struct table *t, int r, int xc, int seedc, int pc, char *lab, size_t n)
{
    lab[0] = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int c = t->first_param; c < t->status_col; c++)
            if (c != xc && c != seedc && c != pc && scheme_key(t->hdr[c]) == (pass == 0))
                label_piece(lab, n, t->hdr[c], t->rows[r][c]);
    if (!lab[0])
        snprintf(lab, n, "all runs");
}

static bool row_ok(const struct table *t, int r)
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

/* Slowdown by flow size of a sweep's runs, a figure per x value (at most
 * 6): a line per series, its seeds averaged. */
static int plot_sweep_sizes(const char *out, const struct table *t, const char *csv, int xc, int seedc, char **xs, int nx)
{
    char sdir[1024];
    dir_of(csv, sdir, sizeof sdir);
    int made = 0;
    for (int x = 0; x < nx && x < 6; x++) {
        const char **dirs = xcalloc((size_t)t->nr + 1, sizeof *dirs);
        const char **labs = xcalloc((size_t)t->nr + 1, sizeof *labs);
        char (*db)[PB] = xcalloc((size_t)t->nr + 1, sizeof *db);
        char (*lb)[LB] = xcalloc((size_t)t->nr + 1, sizeof *lb);
        int n = 0;
        for (int r = 0; r < t->nr; r++) {
            if (!row_ok(t, r) || (xc >= 0 && strcmp(t->rows[r][xc], xs[x]) != 0))
                continue;
            snprintf(db[n], PB, "%s/%s", sdir, t->rows[r][0]);
            char fct[PB + 32];
            snprintf(fct, sizeof fct, "%s/fct.csv", db[n]);
            if (!is_file(fct))
                continue;
            row_label(t, r, xc, seedc, -1, lb[n], LB);
            dirs[n] = db[n];
            labs[n] = lb[n];
            n++;
        }
        struct set S;
        if (n && set_load(&S, dirs, labs, n) == 0) {
            char name[200], extra[200];
            const char *xn = xc >= 0 ? short_name(t->hdr[xc]) : "x";
            snprintf(name, sizeof name, "slowdown_vs_size_%s_%s", xn, xs[x]);
            snprintf(extra, sizeof extra, " at %s = %s", xn, xs[x]);
            made += plot_slowdown_by_size(out, &S, name, extra) == 0;
            set_unload(&S);
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
static int plot_sweep(const char *out, const char *csv, bool sizes)
{
    struct table t;
    if (exp_table_load(&t, csv) < 0)
        return -1;
    int seedc = col_of(&t, "run.seed");
    int xc = sweep_x(&t, seedc);
    if (xc < 0) {
        table_free(&t);
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
            nv += scheme_key(t.hdr[c]) ? 100 : 0; /* schemes compare within a panel, not across */
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
        row_label(&t, r, xc, seedc, pc, lab, sizeof lab);
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
                label_piece(plab[np], LB, t.hdr[pc], pv[np]);
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
                    k += rp[r] == q && rs[r] == s && rx[r] == x && row_ok(&t, r);
                if (k > maxk)
                    maxk = k;
            }
    static const struct {
        const char *col, *name, *title, *ylabel;
        bool logy;
    } metrics[] = {
        {"afct_us", "afct_vs_x", "Average FCT", "average FCT (µs)", false},
        {"sd_p99", "p99_slowdown_vs_x", "99th-percentile FCT slowdown, all flows", "p99 FCT slowdown", true},
        {"sd_small_p95", "p95_small_vs_x", "95th-percentile FCT slowdown, flows up to 100 KB", "p95 FCT slowdown (≤ 100 KB)",
         true},
        {"pause_frames", "pause_frames_vs_x", "PFC PAUSE frames sent", "PAUSE frames", false},
    };
    const char *xn = short_name(t.hdr[xc]);
    char xl[200];
    if (strcmp(xn, "load") == 0)
        snprintf(xl, sizeof xl, "offered load (fraction of the host link rate)");
    else
        snprintf(xl, sizeof xl, "%s", t.hdr[xc]);
    int made = 0;
    for (size_t m = 0; m < sizeof metrics / sizeof *metrics; m++) {
        int mc = col_of(&t, metrics[m].col);
        if (mc < 0)
            continue;
        char nm[128], rel[LB], name[160];
        snprintf(name, sizeof name, "%s", metrics[m].name);
        char *xp = strstr(name, "_x");
        snprintf(xp + 1, sizeof name - (size_t)(xp + 1 - name), "%s", xn);
        snprintf(nm, sizeof nm, "%s.dat", metrics[m].name);
        FILE *d = data_open(out, nm, rel, sizeof rel);
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
                rng_add(&xr, xnum ? strtod(xs[x], NULL) : x);
                for (int s = 0; s < ns; s++) {
                    int k = 0;
                    for (int r = 0; r < t.nr; r++)
                        if (rp[r] == q && rs[r] == s && rx[r] == x && numeric(t.rows[r][mc]) && row_ok(&t, r))
                            v[k++] = strtod(t.rows[r][mc], NULL);
                    double mm[3];
                    mmm(v, k, mm);
                    fprintf(d, k ? " %.6g %.6g %.6g" : " NaN NaN NaN", mm[0], mm[1], mm[2]);
                    if (k && (!metrics[m].logy || mm[1] > 0)) {
                        rng_add(&yr, mm[1]);
                        rng_add(&yr, mm[2]);
                        rng_add(&pyr[q], mm[1]);
                        rng_add(&pyr[q], mm[2]);
                    }
                }
                fprintf(d, "\n");
            }
        }
        free(v);
        fclose(d);
        if (!yr.any || (yr.lo == 0 && yr.hi == 0)) {
            note(out, "%s: %s", name,
                   yr.any ? "every value is 0, figure left out" : "no completed run has a value, figure left out");
            free(pyr);
            continue;
        }
        struct fig g;
        int kcols = ns <= 4 ? ns : 3, krows = ns > 1 ? (ns + kcols - 1) / kcols : 0;
        int prow = (np + 1) / 2, h = np > 1 ? 120 + 350 * prow + 28 * krows : 600 + 24 * krows;
        FILE *f = fig_begin(&g, out, name, np > 1 ? 1200 : 960, h);
        char t1[400], note[120];
        note[0] = 0;
        if (maxk > 1)
            snprintf(note, sizeof note, " (mean of %d seeds, bars: min-max)", maxk);
        snprintf(t1, sizeof t1, "%s vs %s%s", metrics[m].title, xn, note);
        if (np > 1) { /* equal panels, one legend below them all */
            fprintf(f, "set multiplot layout %d,2 margins 0.07,0.98,%.4f,%.4f spacing 0.08,%.4f", prow,
                    (80.0 + 28 * krows) / h, opt_titles ? 1 - 70.0 / h : 1 - 35.0 / h, 100.0 / h);
            if (opt_titles) {
                fprintf(f, " title ");
                gq(f, t1);
            }
            fprintf(f, "\n");
        } else {
            fig_title(f, t1);
            key_below(f, ns, 3);
        }
        fprintf(f, "set xlabel '%s'\nset ylabel '%s'\n", xl, metrics[m].ylabel);
        bool logy = metrics[m].logy && yr.lo > 0 && yr.hi / yr.lo > 20; /* a narrow range reads better linear */
        if (logy)
            fprintf(f, "set logscale y\n");
        if (np == 1)
            set_range(f, "y", yr, logy, !metrics[m].logy, 0.06);
        if (xnum)
            set_range(f, "x", xr, false, false, 0.05);
        else
            fprintf(f, "set xrange [-0.4:%.1f]\n", nx - 0.6);
        for (int q = 0; q < np; q++) {
            if (np > 1) { /* each panel its own y range (workloads differ by orders of magnitude) */
                if (pyr[q].any)
                    set_range(f, "y", pyr[q], logy, !metrics[m].logy, 0.06);
                else
                    fprintf(f, "set yrange [0:1]\nset label 1 'no value' at graph 0.5, 0.5 center\n");
                fprintf(f, "set title ");
                gq(f, plab[q]);
                fprintf(f, "\n");
                if (q == np - 1 && ns > 1)
                    fprintf(f, "set key at screen 0.5, %.4f center top horizontal maxcols %d samplen 3 Left reverse "
                               "noenhanced\n",
                            (28.0 * krows + 12) / h, kcols);
                else
                    fprintf(f, "unset key\n");
            }
            fprintf(f, "plot ");
            for (int s = 0; s < ns; s++) {
                int c = 3 + 3 * s;
                /* bars of several series side by side, not on top of each other */
                double off = maxk > 1 && ns > 1 ? (s - (ns - 1) / 2.0) * 0.008 * (xnum ? xr.hi - xr.lo : nx) : 0;
                fprintf(f, "%s'%s'", s ? ", \\\n  " : "", rel);
                if (np > 1)
                    fprintf(f, " index %d", q);
                if (off != 0)
                    fprintf(f, " u ($%d%+.6g):%d", xnum ? 1 : 0, off, c);
                else
                    fprintf(f, " u %s:%d", xnum ? "1" : "0", c);
                if (maxk > 1)
                    fprintf(f, ":%d:%d", c + 1, c + 2);
                fprintf(f, "%s", xnum ? "" : ":xtic(2)");
                fprintf(f, " w %s", maxk > 1 ? "yerrorlines" : "lp");
                style(f, s);
                fprintf(f, " ps 1.1 t ");
                gq(f, slab[s]);
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
        made += plot_sweep_sizes(out, &t, csv, xc, seedc, xs, nx);
    for (int s = 0; s < ns; s++)
        free(slab[s]);
    free(slab);
    free(xs);
    free(rs);
    free(rx);
    free(rp);
    free(pv);
    free(plab);
    table_free(&t);
    return made;
}

/* ---------------------------------------------------------- entry */

static int mkdirs(const char *path)
{
    char b[PB];
    snprintf(b, sizeof b, "%s", path);
    for (char *p = b + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(b, 0777);
            *p = '/';
        }
    return mkdir(b, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

static int plot_prepare(const char *outdir)
{
    if (!exp_have_gnuplot()) {
        fprintf(stderr, "rocesim plot: gnuplot not found on PATH: install it (Debian: apt-get install gnuplot-nox)\n");
        return -1;
    }
    char data[PB];
    snprintf(data, sizeof data, "%s/data", outdir);
    if (mkdirs(data) < 0) {
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
        if (is_file(inputs[i]))
            csv = inputs[i];
        else if (is_file(p))
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
        if (set_load(&S, rd, NULL, nr) < 0)
            rc = -1;
        else {
            int k = plot_set(outdir, &S);
            made += k > 0 ? k : 0;
            rc = k < 0 ? -1 : rc;
            set_unload(&S);
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
    if (exp_table_load(&t, csv) < 0)
        return -1;
    int seedc = col_of(&t, "run.seed");
    const char **dirs = xcalloc((size_t)t.nr + 1, sizeof *dirs), **labs = xcalloc((size_t)t.nr + 1, sizeof *labs);
    char (*db)[PB] = xcalloc((size_t)t.nr + 1, sizeof *db);
    char (*lb)[LB] = xcalloc((size_t)t.nr + 1, sizeof *lb);
    int n = 0, made = 0;
    for (int r = 0; r < t.nr; r++) {
        char fct[PB + 32];
        snprintf(db[n], PB, "%s/%s", sweepdir, t.rows[r][0]);
        snprintf(fct, sizeof fct, "%s/fct.csv", db[n]);
        if (!row_ok(&t, r) || !is_file(fct))
            continue;
        row_label(&t, r, -1, seedc, -1, lb[n], LB);
        dirs[n] = db[n];
        labs[n] = lb[n];
        n++;
    }
    struct set S;
    if (n && set_load(&S, dirs, labs, n) == 0) {
        made = plot_set(outdir, &S);
        set_unload(&S);
    } else if (n)
        made = -1;
    free(dirs);
    free(labs);
    free(db);
    free(lb);
    table_free(&t);
    return made;
}

static const char plot_usage[] =
    "usage: rocesim plot INPUT... [--out DIR] [--no-title]\n"
    "INPUT: run folders (a line each; runs that differ only in the seed are one\n"
    "line, their mean with min-max bars) or a sweep.csv / sweep folder.\n"
    "Writes PNG and SVG figures, their data (DIR/data/) and gnuplot scripts (DIR/*.gp)\n"
    "into DIR (default: plots/). --no-title: no figure titles (for a paper's captions).\n"
    "Needs gnuplot (Debian gnuplot-nox).\n";

int exp_plot(int argc, char **argv)
{
    const char *out = "plots";
    const char **in = xcalloc((size_t)argc, sizeof *in);
    int n = 0;
    bool titles = true;
    for (int i = 2; i < argc; i++) {
        if ((strcmp(argv[i], "--out") == 0 || strcmp(argv[i], "-o") == 0) && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--no-title") == 0)
            titles = false;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(plot_usage, stdout);
            free(in);
            return 0;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "rocesim plot: unknown option %s\n%s", argv[i], plot_usage);
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
    printf("%d figure%s (PNG and SVG) -> %s/\n", made, made == 1 ? "" : "s", out);
    return 0;
}

/* "(us)" of a table heading as "(µs)" in a figure. */
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
    if (mkdirs(data) < 0)
        return -1;
    snprintf(nm, sizeof nm, "%s.dat", name);
    FILE *d = data_open(outdir, nm, rel, sizeof rel);
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
            rng_add(&yr, v[i]);
            rng_add(&yr, 0);
            if (bars) {
                fprintf(d, isfinite(lo[i]) ? " %.6g" : " NaN", lo[i]);
                fprintf(d, isfinite(hi[i]) ? " %.6g" : " NaN", hi[i]);
                rng_add(&yr, hi[i]);
            }
        }
        fprintf(d, "\n");
    }
    fclose(d);
    if (!yr.any || (yr.lo == 0 && yr.hi == 0)) {
        note(outdir, "%s: every value is 0 or missing, figure left out", name);
        return -1;
    }
    size_t rlen = 0; /* long row names: slanted */
    for (int r = 0; r < nrows; r++)
        rlen += strlen(rows[r]) + 2;
    struct fig g;
    int krows = ncols > 1 ? (ncols + 2) / 3 : 0;
    FILE *f = fig_begin(&g, outdir, name, 960, 600 + 24 * krows);
    fig_title(f, title);
    char ub[300];
    fprintf(f, "set ylabel ");
    gq(f, micro(ylabel, ub, sizeof ub));
    fprintf(f, "\nset style data histogram\nset style histogram %s gap 1\nset style fill solid 0.9 border -1\n"
               "set boxwidth 0.9\nset xrange [-0.6:%.1f]\nset xtics nomirror%s\n",
            bars ? "errorbars lw 1.5" : "clustered", nrows - 0.4, rlen > 90 ? " rotate by -20 left" : "");
    set_range(f, "y", yr, false, true, 0.08);
    key_below(f, ncols, 3);
    fprintf(f, "plot ");
    for (int c = 0; c < ncols; c++) {
        if (bars)
            fprintf(f, "%s'%s' u %d:%d:%d:xtic(1)", c ? ", " : "", rel, 2 + 3 * c, 3 + 3 * c, 4 + 3 * c);
        else
            fprintf(f, "%s'%s' u %d:xtic(1)", c ? ", " : "", rel, 2 + c);
        bar_style(f, c);
        fprintf(f, " t ");
        gq(f, micro(cols[c], ub, sizeof ub));
    }
    fprintf(f, "\n");
    return fig_end(&g);
}

int exp_gnuplot(const char *dir, const char *script) { return run_gnuplot(dir, script); }
