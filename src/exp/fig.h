/* fig.c: the one style of every figure `rocesim plot`, `report --html` and
 * `reproduce` draw (colours, dashes, points, fonts, legends, axis ranges,
 * the labels of swept values) and the gnuplot script each figure leaves
 * beside its PNG/SVG. The plot_*.c files draw with it; it knows no figure. */
#ifndef ROCESIM_EXP_FIG_H
#define ROCESIM_EXP_FIG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PB 1600 /* a path */
#define LB 256  /* a legend label */

/* Titles on (`--no-title` clears it); legend labels: a swept value from[i] is shown as to[i]. */
extern bool fig_titles;
void exp_plot_options(bool titles, int n, const char *const *from, const char *const *to);
/* One more legend label, "VALUE=LABEL" (--label of plot and report --html);
 * -1 if it is not of that form. */
int fig_add_label(const char *arg);
/* The label given to value v, NULL when none. */
const char *fig_relabel(const char *v);
/* "load" of "traffic.load". */
const char *fig_short_name(const char *key);
/* Keys whose value alone names a series ("hpcc", not "cc=hpcc"). */
bool fig_scheme_key(const char *key);
/* Appends one piece of a legend label for KEY = VAL to lab. */
void fig_label_piece(char *lab, size_t n, const char *key, const char *val);
/* The last component of a path (a static buffer). */
const char *fig_base_name(const char *path);

/* Series i's style: a line with points, a plain line, a bar. */
void fig_style(FILE *f, int i);
void fig_lstyle(FILE *f, int i);
void fig_bar_style(FILE *f, int i);
/* One series of a plot command: `SRC u X:YCOL` as a line with points (line)
 * or points alone (categories on x), with xtic (e.g. ":xtic(2)") appended to
 * its using, titled; with locol > 0, solid min-max error bars from columns
 * locol and locol + 1 drawn first (no legend entry of their own). */
void fig_series(FILE *f, const char *src, const char *x, int ycol, int locol, bool line, int i, double ps,
                const char *xtic, const char *title);

/* A figure: its gnuplot body is written to the FILE fig_begin returns;
 * fig_end writes OUTDIR/NAME.gp (the body once per output format) and runs gnuplot. */
struct fig {
    const char *outdir;
    char name[160];
    char *body;
    size_t len;
    FILE *f; /* open_memstream on body */
    int w, h;
};
FILE *fig_begin(struct fig *g, const char *outdir, const char *name, int w, int h);
int fig_end(struct fig *g);
/* A gnuplot single-quoted string. */
void fig_gq(FILE *f, const char *s);
void fig_title(FILE *f, const char *t);
/* The legend below the plot, off the data, in up to `cols` columns. */
void fig_key_below(FILE *f, int nseries, int cols);
/* OUTDIR/data/NAME for writing; rel gets "data/NAME". */
FILE *fig_data_open(const char *outdir, const char *name, char *rel, size_t n);
/* A figure left out, said on stderr and in DIR/notes.txt (the HTML page shows it). */
__attribute__((format(printf, 2, 3))) void fig_note(const char *outdir, const char *fmt, ...);

/* Axis ranges fitted to the data. */
struct rng {
    double lo, hi;
    bool any;
};
void fig_rng_add(struct rng *r, double v);
/* `set AXrange` fitted to the data: from 0 (zero), padded by `pad` of the
 * span, or (logscale) by a factor; nothing known: autoscale. */
void fig_set_range(FILE *f, const char *ax, struct rng r, bool logs, bool zero, double pad);

int fig_cmp_dbl(const void *a, const void *b);
/* mean, min and max of v[0..k) (NaN skipped) */
void fig_mmm(const double *v, int k, double out[3]);

#endif
