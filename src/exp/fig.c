/* The one figure style (fig.h). Figures are meant to go into a paper as
 * they are: legends name the schemes and the settings that differ between
 * the runs (the .exp [labels] under `reproduce`), every series has its own
 * colour, dash pattern and point type (readable in grayscale), legends sit
 * below the plot, axis ranges are those of the data, and a figure or panel
 * with nothing but zeros is left out or says so. */
#include "exp/fig.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "core/xalloc.h"
#include "exp/util.h"

const char *fig_base_name(const char *path)
{
    static char b[512];
    snprintf(b, sizeof b, "%s", path);
    size_t l = strlen(b);
    while (l > 1 && b[l - 1] == '/')
        b[--l] = 0;
    const char *s = strrchr(b, '/');
    return s ? s + 1 : b;
}
/* ---------------------------------------------------------- options */

bool fig_titles = true;
static int nmap;
static char **map_from, **map_to;

void exp_plot_options(bool titles, int n, const char *const *from, const char *const *to)
{
    fig_titles = titles;
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

int fig_add_label(const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return -1;
    map_from = xrealloc(map_from, (size_t)(nmap + 2) * sizeof *map_from);
    map_to = xrealloc(map_to, (size_t)(nmap + 2) * sizeof *map_to);
    map_from[nmap] = strndup(arg, (size_t)(eq - arg));
    map_to[nmap++] = strdup(eq + 1);
    return 0;
}

const char *fig_relabel(const char *v)
{
    for (int i = 0; i < nmap; i++)
        if (strcmp(map_from[i], v) == 0)
            return map_to[i];
    return NULL;
}

const char *fig_short_name(const char *key)
{
    const char *d = strrchr(key, '.');
    return d ? d + 1 : key;
}

/* Keys whose value alone names the series ("hpcc", not "cc=hpcc"). */
bool fig_scheme_key(const char *key)
{
    return strcmp(key, "transport.cc") == 0 || strcmp(key, "lb.scheme") == 0 || strcmp(key, "run.name") == 0 ||
           strncmp(key, "variant", 7) == 0;
}

/* One piece of a legend label for KEY = VAL. */
void fig_label_piece(char *lab, size_t n, const char *key, const char *val)
{
    size_t l = strlen(lab);
    const char *m = fig_relabel(val);
    if (m)
        snprintf(lab + l, n - l, "%s%s", l ? ", " : "", m);
    else if (fig_scheme_key(key))
        snprintf(lab + l, n - l, "%s%s", l ? ", " : "", val);
    else
        snprintf(lab + l, n - l, "%s%s = %s", l ? ", " : "", fig_short_name(key), val);
}

/* ---------------------------------------------------------- styles */

/* Okabe-Ito colours (distinct for colour-blind readers), each series also
 * with its own dash pattern and point type so it reads in grayscale. */
static const char *const pal[8] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999933"};
static const int ptype[10] = {7, 5, 9, 11, 13, 4, 6, 8, 10, 12};

void fig_style(FILE *f, int i)
{
    fprintf(f, " lw 2 lc rgb '%s' dt %d pt %d", pal[i % 8], i % 5 + 1, ptype[i % 10]);
}

/* The same without a point type, for plain lines. */
void fig_lstyle(FILE *f, int i)
{
    fprintf(f, " lw 2 lc rgb '%s' dt %d", pal[i % 8], i % 5 + 1);
}

/* Bars: colour and a fill that differs in grayscale (solid, hatches). */
void fig_series(FILE *f, const char *src, const char *x, int ycol, int locol, bool line, int i, double ps,
                const char *xtic, const char *title)
{
    if (locol > 0) { /* the min-max bars: solid, in the series' colour, under its line and points */
        fprintf(f, "%s u %s:%d:%d:%d w yerrorbars lw 1.5 lc rgb '%s' dt 1 ps 0 notitle, \\\n  ", src, x, ycol, locol,
                locol + 1, pal[i % 8]);
    }
    fprintf(f, "%s u %s:%d%s w %s", src, x, ycol, xtic ? xtic : "", line ? "lp" : "p");
    if (line)
        fig_style(f, i);
    else
        fprintf(f, " lc rgb '%s' pt %d", pal[i % 8], ptype[i % 10]);
    fprintf(f, " ps %.2g t ", ps);
    fig_gq(f, title);
}

void fig_bar_style(FILE *f, int i)
{
    static const char *const fill[6] = {"solid 0.9", "pattern 4", "solid 0.35", "pattern 5", "pattern 1", "pattern 6"};
    fprintf(f, " lc rgb '%s' fs %s border lc rgb 'black'", pal[i % 8], fill[i % 6]);
}
/* ---------------------------------------------------------- gnuplot */


FILE *fig_begin(struct fig *g, const char *outdir, const char *name, int w, int h)
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
void fig_gq(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

void fig_title(FILE *f, const char *t)
{
    if (fig_titles) {
        fprintf(f, "set title ");
        fig_gq(f, t);
        fprintf(f, "\n");
    } else
        fprintf(f, "unset title\n");
}

/* The legend below the plot, off the data, in up to `cols` columns. */
void fig_key_below(FILE *f, int nseries, int cols)
{
    if (nseries <= 1)
        fprintf(f, "unset key\n");
    else
        fprintf(f, "set key below center horizontal maxcols %d samplen 3 Left reverse height 1 noenhanced\n", cols);
}

int fig_end(struct fig *g)
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
               "set grid lc rgb '#dddddd'\nset key noenhanced\nset border lw 1.2\nset tics nomirror out\n");
    /* The same body three times. The PDF (for a paper) is the canvas at 200
     * px to the inch (a 960 px figure: 4.8 in) with 10 pt text, so a
     * one-panel figure set one column wide (3.3 in) keeps about 7 pt; the
     * PNG and SVG have text of the same share of the width. */
    fprintf(s, "set terminal pdfcairo size %.2fin,%.2fin font 'DejaVu Sans,10' linewidth 1 noenhanced\n"
               "set output '%s.pdf'\n%s\nunset output\n",
            g->w / 200.0, g->h / 200.0, g->name, g->body);
    fprintf(s, "set terminal pngcairo size %d,%d font 'DejaVu Sans,15' linewidth 1.5 noenhanced\nset output '%s.png'\n%s\n"
               "unset output\n",
            g->w, g->h, g->name, g->body);
    fprintf(s, "set terminal svg size %d,%d font 'DejaVu Sans,20' linewidth 1.5 noenhanced\nset output '%s.svg'\n%s\n"
               "unset output\n",
            g->w, g->h, g->name, g->body);
    fclose(s);
    free(g->body);
    snprintf(path, sizeof path, "%s.gp", g->name);
    if (exp_gnuplot(g->outdir, path) < 0) {
        fprintf(stderr, "rocesim plot: gnuplot failed on %s/%s.gp (its messages: %s/gnuplot.log)\n", g->outdir, g->name,
                g->outdir);
        return -1;
    }
    return 0;
}

FILE *fig_data_open(const char *outdir, const char *name, char *rel, size_t n)
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
__attribute__((format(printf, 2, 3))) void fig_note(const char *outdir, const char *fmt, ...)
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


void fig_rng_add(struct rng *r, double v)
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
void fig_set_range(FILE *f, const char *ax, struct rng r, bool logs, bool zero, double pad)
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
        /* a labelled tick at every decade, minor ticks at 2..9 x 10^k */
        fprintf(f, "set %stics %.6g, 10 format '%%g'\nset m%stics 10\n", ax, pow(10, floor(log10(lo))), ax);
        if (hi / lo < 100) { /* a narrow range: labels also at 2 and 5 x 10^k */
            fprintf(f, "set %stics add (", ax);
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

int fig_cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* mean, min and max of the series' values v[0..k) */
void fig_mmm(const double *v, int k, double out[3])
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
