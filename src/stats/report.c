/* `rocesim report`: over run folders read back (runread.c), prints FCT /
 * slowdown statistics per size bucket, unfinished flows, and PFC pause
 * totals, one column per run. */
#include "stats/report.h"
#include "core/xalloc.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include "stats/collective.h"
#include "stats/output.h" /* percentile() */

/* ---------------------------------------------------------------- statistics */

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* v sorted ascending; ns3: fct_analysis.py's get_pctl, a[int(n*p)] */
static void stats_of(struct report_stats *st, double *v, size_t n, bool ns3)
{
    st->n = n;
    if (n == 0) {
        st->avg = st->p50 = st->p95 = st->p99 = st->p999 = NAN;
        return;
    }
    qsort(v, n, sizeof *v, cmp_dbl);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    st->avg = sum / (double)n;
    if (ns3) {
        st->p50 = v[(size_t)((double)n * 0.5)];
        st->p95 = v[(size_t)((double)n * 0.95)];
        st->p99 = v[(size_t)((double)n * 0.99)];
        st->p999 = v[(size_t)((double)n * 0.999)];
    } else {
        st->p50 = percentile(v, n, 50);
        st->p95 = percentile(v, n, 95);
        st->p99 = percentile(v, n, 99);
        st->p999 = percentile(v, n, 99.9);
    }
}

static int bucket_of(uint64_t size)
{
    return size <= 100000 ? 1 : size <= 1000000 ? 2 : 3;
}

static int cmp_size(const void *a, const void *b)
{
    const struct report_flow *x = *(const struct report_flow *const *)a, *y = *(const struct report_flow *const *)b;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return (x->slowdown > y->slowdown) - (x->slowdown < y->slowdown);
}

void report_compute(const struct report_run *r, struct report_summary *o)
{
    memset(o, 0, sizeof *o);
    size_t n = r->n_flows;
    double *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    const struct report_flow **done = xmalloc(n * sizeof *done);
    o->flows = n;
    size_t nd = 0;
    for (size_t i = 0; i < n; i++)
        if (r->flows[i].done)
            done[nd++] = &r->flows[i];
    o->finished = nd;
    o->unfinished = n - nd;
    /* fixed buckets: 0 = all */
    for (int k = 0; k < REPORT_FIXED; k++) {
        size_t m = 0, unf = 0;
        for (size_t i = 0; i < n; i++) {
            const struct report_flow *f = &r->flows[i];
            if (k && bucket_of(f->size) != k)
                continue;
            if (!f->done) {
                unf++;
                continue;
            }
            a[m] = f->fct_ns / 1000.0;
            b[m++] = f->slowdown;
        }
        stats_of(&o->fct[k], a, m, false);
        stats_of(&o->sd[k], b, m, false);
        o->fct[k].unfinished = o->sd[k].unfinished = unf;
    }
    o->afct_us = o->fct[0].avg;
    /* equal-count buckets of the finished flows sorted by size, as fct_analysis.py */
    qsort(done, nd, sizeof *done, cmp_size);
    for (int k = 0; k < REPORT_EQUAL; k++) {
        size_t lo = (size_t)k * 5 * nd / 100, hi = ((size_t)k * 5 + 5) * nd / 100, m = 0;
        for (size_t i = lo; i < hi; i++) {
            a[m] = done[i]->fct_ns / 1000.0;
            b[m++] = done[i]->slowdown < 1 ? 1 : done[i]->slowdown;
        }
        stats_of(&o->efct[k], a, m, true);
        stats_of(&o->esd[k], b, m, true);
        o->efct[k].max_size = o->esd[k].max_size = hi > lo ? done[hi - 1]->size : 0;
    }
    free(a);
    free(b);
    free(done);
}

/* ---------------------------------------------------------------- printing */

enum { K_INT, K_DEC };

struct stat_col {
    const char *name;
    int kind;
};

/* v[run][row][stat]. One run: rows x stats. Several: (row, stat) x runs. */
static void table(FILE *out, const char *title, int nruns, int nrows, const char *const *rows, int nstat,
                  const struct stat_col *stats, const double *v)
{
    fprintf(out, "\n%s\n", title);
    char cell[64];
#define CELL(x, kind) (isnan(x) ? "-" : (snprintf(cell, sizeof cell, (kind) == K_INT ? "%.0f" : "%.3f", (x)), cell))
    if (nruns == 1) {
        fprintf(out, "  %-16s", "");
        for (int s = 0; s < nstat; s++)
            fprintf(out, " %12s", stats[s].name);
        fputc('\n', out);
        for (int r = 0; r < nrows; r++) {
            fprintf(out, "  %-16s", rows[r]);
            for (int s = 0; s < nstat; s++)
                fprintf(out, " %12s", CELL(v[r * nstat + s], stats[s].kind));
            fputc('\n', out);
        }
        return;
    }
    fprintf(out, "  %-16s %-12s", "", "");
    for (int k = 0; k < nruns; k++) {
        char h[16];
        snprintf(h, sizeof h, "run %d", k + 1);
        fprintf(out, " %12s", h);
    }
    fputc('\n', out);
    for (int r = 0; r < nrows; r++)
        for (int s = 0; s < nstat; s++) {
            fprintf(out, "  %-16s %-12s", s == 0 ? rows[r] : "", stats[s].name);
            for (int k = 0; k < nruns; k++)
                fprintf(out, " %12s", CELL(v[((size_t)k * nrows + r) * nstat + s], stats[s].kind));
            fputc('\n', out);
        }
#undef CELL
}

static void fill_stats(double *v, const struct report_stats *st, bool equal)
{
    int i = 0;
    if (equal)
        v[i++] = st->n ? (double)st->max_size : NAN;
    v[i++] = (double)st->n;
    if (!equal)
        v[i++] = (double)st->unfinished;
    v[i++] = st->avg;
    v[i++] = st->p50;
    v[i++] = st->p95;
    v[i++] = st->p99;
    v[i++] = st->p999;
}

static int cmp_port(const void *a, const void *b)
{
    const struct report_port *x = a, *y = b;
    if (x->paused_us != y->paused_us)
        return x->paused_us > y->paused_us ? -1 : 1;
    if (x->frames != y->frames)
        return x->frames > y->frames ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return (x->port > y->port) - (x->port < y->port);
}

int report_print(FILE *out, const char *const *dirs, int n, struct err *e)
{
    struct report_run *runs = xcalloc((size_t)n, sizeof *runs);
    struct report_summary *sum = xcalloc((size_t)n, sizeof *sum);
    /* the largest table: 20 rows x 7 stats per run */
    double *v = xcalloc((size_t)n * REPORT_EQUAL * 8, sizeof *v);
    int rc = 0;
    for (int k = 0; k < n; k++) {
        if (report_load(&runs[k], dirs[k], e) < 0) {
            rc = -1;
            goto out;
        }
        report_compute(&runs[k], &sum[k]);
    }
    if (n == 1)
        fprintf(out, "rocesim report: %s%s\n", dirs[0], runs[0].interrupted ? " (interrupted: partial results)" : "");
    else
        for (int k = 0; k < n; k++)
            fprintf(out, "%s run %d: %s%s\n", k ? "              " : "rocesim report:", k + 1, dirs[k],
                    runs[k].interrupted ? " (interrupted: partial results)" : "");

    /* overview */
    {
        static const char *const rows[] = {"flows", "finished", "unfinished", "AFCT (us)"};
        fprintf(out, "\nFlows\n");
        for (int r = 0; r < 4; r++) {
            fprintf(out, "  %-16s", rows[r]);
            for (int k = 0; k < n; k++) {
                const struct report_summary *m = &sum[k];
                if (r == 3 && isnan(m->afct_us))
                    fprintf(out, " %12s", "-");
                else if (r == 3)
                    fprintf(out, " %12.3f", m->afct_us);
                else
                    fprintf(out, " %12zu", r == 0 ? m->flows : r == 1 ? m->finished : m->unfinished);
            }
            fputc('\n', out);
        }
        for (int k = 0; k < n; k++) { /* never silently dropped: every unfinished flow by id */
            if (!sum[k].unfinished)
                continue;
            char who[32] = "";
            if (n > 1)
                snprintf(who, sizeof who, " of run %d", k + 1);
            fprintf(out, "  unfinished flows%s (%zu), by id (FIRST-LAST: every id between):", who, sum[k].unfinished);
            int col = 100;
            const struct report_flow *fl = runs[k].flows;
            for (size_t i = 0; i < runs[k].n_flows; i++) {
                if (fl[i].done)
                    continue;
                size_t j = i; /* a run of consecutive unfinished ids */
                while (j + 1 < runs[k].n_flows && !fl[j + 1].done && fl[j + 1].id == fl[j].id + 1)
                    j++;
                if (col > 90) {
                    fprintf(out, "\n   ");
                    col = 3;
                }
                if (j > i)
                    col += fprintf(out, " %u-%u", fl[i].id, fl[j].id);
                else
                    col += fprintf(out, " %u", fl[i].id);
                i = j;
            }
            fputc('\n', out);
        }
    }

    static const char *const fixed_rows[REPORT_FIXED] = {"all", "(0,100KB]", "(100KB,1MB]", "(1MB,inf)"};
    static const struct stat_col fixed_st[] = {{"n", K_INT},   {"unfinished", K_INT}, {"avg", K_DEC}, {"p50", K_DEC},
                                               {"p95", K_DEC}, {"p99", K_DEC},        {"p99.9", K_DEC}};
    for (int which = 0; which < 2; which++) {
        for (int k = 0; k < n; k++)
            for (int r = 0; r < REPORT_FIXED; r++)
                fill_stats(v + ((size_t)k * REPORT_FIXED + r) * 7, which ? &sum[k].sd[r] : &sum[k].fct[r], false);
        table(out,
              which ? "Slowdown (FCT / ideal FCT), fixed size buckets (percentiles: nearest rank)"
                    : "FCT (us), fixed size buckets (percentiles: nearest rank)",
              n, REPORT_FIXED, fixed_rows, 7, fixed_st, v);
    }

    static const char *const eq_rows[REPORT_EQUAL] = {"0-5%",   "5-10%",  "10-15%", "15-20%", "20-25%",
                                                      "25-30%", "30-35%", "35-40%", "40-45%", "45-50%",
                                                      "50-55%", "55-60%", "60-65%", "65-70%", "70-75%",
                                                      "75-80%", "80-85%", "85-90%", "90-95%", "95-100%"};
    static const struct stat_col eq_st[] = {{"max_size", K_INT}, {"n", K_INT},   {"avg", K_DEC},  {"p50", K_DEC},
                                            {"p95", K_DEC},      {"p99", K_DEC}, {"p99.9", K_DEC}};
    for (int which = 0; which < 2; which++) {
        for (int k = 0; k < n; k++)
            for (int r = 0; r < REPORT_EQUAL; r++)
                fill_stats(v + ((size_t)k * REPORT_EQUAL + r) * 7, which ? &sum[k].esd[r] : &sum[k].efct[r], true);
        table(out,
              which ? "Slowdown, equal-count size buckets of finished flows (as ns-3 fct_analysis.py: slowdown < 1 "
                      "counted as 1, percentile = sorted[int(n*p)])"
                    : "FCT (us), equal-count size buckets of finished flows (as ns-3 fct_analysis.py: "
                      "percentile = sorted[int(n*p)])",
              n, REPORT_EQUAL, eq_rows, 7, eq_st, v);
    }

    /* PFC by layer */
    {
        static const char *const rows[] = {"edge", "agg", "core", "host", "total"};
        static const int lay[] = {1, 2, 3, 0};
        static const struct stat_col st[] = {{"pause_sent", K_INT}, {"paused_ports", K_INT}, {"paused_us", K_DEC}};
        for (int k = 0; k < n; k++)
            for (int r = 0; r < 5; r++) {
                double *w = v + ((size_t)k * 5 + r) * 3;
                w[0] = w[1] = w[2] = 0;
                for (int l = 0; l < 4; l++) {
                    if (r < 4 && l != r)
                        continue;
                    w[0] += (double)runs[k].pause_sent[lay[l]];
                    for (size_t i = 0; i < runs[k].n_ports; i++) {
                        const struct report_port *p = &runs[k].ports[i];
                        if (p->layer != lay[l])
                            continue;
                        w[1] += p->paused_us > 0 || p->frames > 0;
                        w[2] += p->paused_us;
                    }
                }
                if (!runs[k].has_layers)
                    w[0] = NAN;
                if (!runs[k].has_ports)
                    w[1] = w[2] = NAN;
            }
        table(out,
              "PFC by layer (pause_sent: PAUSE frames sent by switches of the layer, summary.json; paused_ports, "
              "paused_us: ports of the layer that were paused, and for how long, pfc_ports.csv)",
              n, 5, rows, 3, st, v);
    }

    /* load balancing, from fct.csv's per-flow columns */
    {
        static const char *const rows[] = {"all flows"};
        static const struct stat_col st[] = {{"reordered", K_INT}, {"ooo_pkts", K_INT}, {"max_ooo", K_INT},
                                             {"flowlets", K_INT}, {"path_switch", K_INT}};
        for (int k = 0; k < n; k++) {
            double *w = v + (size_t)k * 5;
            w[0] = w[1] = w[2] = w[3] = w[4] = runs[k].has_lb ? 0 : NAN;
            for (size_t i = 0; i < runs[k].n_flows && runs[k].has_lb; i++) {
                const struct report_flow *f = &runs[k].flows[i];
                w[0] += f->ooo > 0;
                w[1] += f->ooo;
                w[2] = f->ooo_max > w[2] ? f->ooo_max : w[2];
                w[3] += f->flowlets;
                w[4] += f->path_switches;
            }
        }
        table(out,
              "Load balancing (fct.csv: flows that saw reordering, out-of-order packets, largest out-of-order degree "
              "in packets, flowlets and path switches at the first switch)",
              n, 1, rows, 5, st, v);
        static const char *const irows[] = {"imbalance"};
        static const struct stat_col ist[] = {{"samples", K_INT}, {"avg", K_DEC}, {"p50", K_DEC}, {"p99", K_DEC}};
        bool any = false;
        for (int k = 0; k < n; k++) {
            double *w = v + (size_t)k * 4;
            struct report_stats is;
            double *tmp = xcalloc(runs[k].n_imbalance + 1, sizeof *tmp);
            if (runs[k].n_imbalance) /* imbalance is NULL without imbalance.csv: memcpy from NULL is UB */
                memcpy(tmp, runs[k].imbalance, runs[k].n_imbalance * sizeof *tmp);
            stats_of(&is, tmp, runs[k].n_imbalance, false);
            free(tmp);
            w[0] = (double)is.n, w[1] = is.avg, w[2] = is.p50, w[3] = is.p99;
            any |= runs[k].n_imbalance > 0;
        }
        if (any)
            table(out,
                  "Uplink imbalance (imbalance.csv: (max - min) / mean of an edge switch's uplink bytes per window, "
                  "as ConWeave measures it)",
                  n, 1, irows, 4, ist, v);
    }

    /* top 10 paused ports */
    fprintf(out, "\nTop 10 paused ports (pfc_ports.csv: node:port layer, PAUSE frames received, time paused)\n");
    for (int k = 0; k < n; k++)
        if (runs[k].has_ports)
            qsort(runs[k].ports, runs[k].n_ports, sizeof *runs[k].ports, cmp_port);
    static const char *const lname[] = {"host", "edge", "agg", "core"};
    bool some_ports = false;
    for (int k = 0; k < n; k++)
        some_ports |= runs[k].has_ports;
    if (!some_ports)
        fprintf(out, "  (no pfc_ports.csv)\n");
    for (int r = 0; r < 10 && some_ports; r++) {
        bool any = false;
        char line[4096];
        int len = snprintf(line, sizeof line, "  %2d.", r + 1);
        for (int k = 0; k < n; k++) {
            char c[96] = "-";
            if (!runs[k].has_ports)
                snprintf(c, sizeof c, "(no pfc_ports.csv)");
            else if ((size_t)r < runs[k].n_ports && (runs[k].ports[r].paused_us > 0 || runs[k].ports[r].frames > 0)) {
                const struct report_port *p = &runs[k].ports[r];
                snprintf(c, sizeof c, "%u:%u %s %llu %.3fus", p->node, p->port, lname[p->layer],
                         (unsigned long long)p->frames, p->paused_us);
                any = true;
            }
            if (len < (int)sizeof line)
                len += snprintf(line + len, sizeof line - (size_t)len, " %-34s", c);
        }
        if (!any) {
            if (r == 0)
                fprintf(out, "  (no port was paused)\n");
            break;
        }
        if (len >= (int)sizeof line)
            len = (int)sizeof line - 1;
        while (len > 0 && line[len - 1] == ' ')
            line[--len] = 0;
        fprintf(out, "%s\n", line);
    }
    report_print_compare(out, runs, n);
    collective_report(out, dirs, n);
out:
    for (int k = 0; k < n; k++)
        report_free(&runs[k]);
    free(runs);
    free(sum);
    free(v);
    return rc;
}

/* ---------------------------------------------------------------- comparison */

void report_deciles(const struct report_run *r, struct report_decile out[REPORT_DECILES])
{
    size_t n = r->n_flows, nd = 0;
    const struct report_flow **done = xmalloc((n ? n : 1) * sizeof *done);
    double *v = xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        if (r->flows[i].done)
            done[nd++] = &r->flows[i];
    qsort(done, nd, sizeof *done, cmp_size);
    for (int k = 0; k < REPORT_DECILES; k++) {
        size_t lo = (size_t)k * nd / REPORT_DECILES, hi = (size_t)(k + 1) * nd / REPORT_DECILES, m = 0;
        for (size_t i = lo; i < hi; i++)
            v[m++] = done[i]->slowdown < 1 ? 1 : done[i]->slowdown;
        struct report_stats st;
        stats_of(&st, v, m, true);
        out[k] = (struct report_decile){.n = m, .min_size = m ? done[lo]->size : 0, .max_size = m ? done[hi - 1]->size : 0,
                                        .p50 = st.p50, .p95 = st.p95, .p99 = st.p99};
    }
    free(v);
    free(done);
}

void report_print_compare(FILE *out, const struct report_run *runs, int n)
{
    if (n < 2)
        return;
    struct report_decile *d = xcalloc((size_t)n * REPORT_DECILES, sizeof *d);
    for (int k = 0; k < n; k++)
        report_deciles(&runs[k], d + (size_t)k * REPORT_DECILES);
    fprintf(out, "\nSlowdown by size decile, side by side (10 equal-count buckets of each run's finished flows sorted by "
                 "size; sizes of run 1; percentile = sorted[int(n*p)], slowdown < 1 counted as 1; diff = the largest "
                 "(run k - run 1) / run 1)\n");
    fprintf(out, "  %-8s %-21s %-4s", "bucket", "sizes (B)", "");
    for (int k = 0; k < n; k++) {
        char h[16];
        snprintf(h, sizeof h, "run %d", k + 1);
        fprintf(out, " %10s", h);
    }
    fprintf(out, " %9s\n", "diff");
    double worst = 0;
    int worst_b = -1, worst_s = 0;
    static const char *const sname[3] = {"p50", "p95", "p99"};
    for (int b = 0; b < REPORT_DECILES; b++) {
        const struct report_decile *r0 = &d[b];
        for (int s = 0; s < 3; s++) {
            char label[12] = "", sizes[32] = "";
            if (s == 0) {
                snprintf(label, sizeof label, "%d-%d%%", b * 10, b * 10 + 10);
                if (r0->n)
                    snprintf(sizes, sizeof sizes, "%llu-%llu", (unsigned long long)r0->min_size,
                             (unsigned long long)r0->max_size);
            }
            fprintf(out, "  %-8s %-21s %-4s", label, sizes, sname[s]);
            double ref = NAN, big = NAN;
            for (int k = 0; k < n; k++) {
                const struct report_decile *x = &d[(size_t)k * REPORT_DECILES + b];
                double val = s == 0 ? x->p50 : s == 1 ? x->p95 : x->p99;
                if (isnan(val))
                    fprintf(out, " %10s", "-");
                else
                    fprintf(out, " %10.3f", val);
                if (k == 0)
                    ref = val;
                else if (!isnan(val) && !isnan(ref) && ref > 0) {
                    double rel = (val - ref) / ref;
                    if (isnan(big) || fabs(rel) > fabs(big))
                        big = rel;
                }
            }
            if (isnan(big))
                fprintf(out, " %9s\n", "-");
            else
                fprintf(out, " %+8.1f%%\n", 100 * big);
            if (!isnan(big) && fabs(big) > fabs(worst)) {
                worst = big;
                worst_b = b;
                worst_s = s;
            }
        }
    }
    if (worst_b >= 0)
        fprintf(out, "  largest difference: %+.1f %% (%s of bucket %d-%d%%)\n", 100 * worst, sname[worst_s], worst_b * 10,
                worst_b * 10 + 10);
    free(d);
}

/* ---------------------------------------------------------------- seed groups */

/* One cell's samples: mean, min, max and sample variance (n - 1). */
struct seed_cell {
    double mean, min, max, var;
};

static void seed_cell_of(struct seed_cell *c, const double *v, int n)
{
    double s = 0;
    c->min = c->max = v[0];
    for (int i = 0; i < n; i++) {
        s += v[i];
        c->min = v[i] < c->min ? v[i] : c->min;
        c->max = v[i] > c->max ? v[i] : c->max;
    }
    c->mean = s / n;
    double q = 0;
    for (int i = 0; i < n; i++)
        q += (v[i] - c->mean) * (v[i] - c->mean);
    c->var = n > 1 ? q / (n - 1) : 0;
}

/* Within [min, max] widened by 0.05 %, so that two sides that print the same
 * value to 3 decimals (say ns-3's exact ratio and fct.csv's 6 decimals of the
 * same slowdown) count as in each other's range. */
static bool in_range(double x, const struct seed_cell *c)
{
    double tol = 5e-4 * fabs(x);
    return x >= c->min - tol && x <= c->max + tol;
}

int report_print_seeds(FILE *out, const char *const *a, int na, const char *const *b, int nb, struct report_seed_sum *sum,
                       struct err *e)
{
    int n = na + nb, rc = 0;
    if (na < 1 || nb < 1)
        return errf(e, "report --seeds: give at least one run on each side of --vs");
    struct report_decile *d = xcalloc((size_t)n * REPORT_DECILES, sizeof *d);
    double *v = xmalloc((size_t)n * sizeof *v);
    for (int k = 0; k < n; k++) {
        struct report_run r;
        const char *dir = k < na ? a[k] : b[k - na];
        if (report_load(&r, dir, e) < 0) {
            rc = -1;
            goto out;
        }
        report_deciles(&r, d + (size_t)k * REPORT_DECILES);
        report_free(&r);
        /* means over runs only make sense when every run buckets the same flow sizes */
        for (int q = 0; q < REPORT_DECILES && k > 0; q++)
            if (d[(size_t)k * REPORT_DECILES + q].n != d[q].n ||
                d[(size_t)k * REPORT_DECILES + q].min_size != d[q].min_size ||
                d[(size_t)k * REPORT_DECILES + q].max_size != d[q].max_size) {
                rc = errf(e, "%s: its size deciles differ from %s's (bucket %d-%d%%): not the same flows", dir, a[0],
                          q * 10, q * 10 + 10);
                goto out;
            }
    }
    fprintf(out,
            "Slowdown by size decile, mean [min, max] over the runs of each side (%d against %d; buckets as the "
            "side-by-side table: each run's finished flows sorted by size, 10 equal-count buckets, percentile = "
            "sorted[int(n*p)], slowdown < 1 counted as 1); diff = (mean 2 - mean 1) / mean 1; in = mean 2 within "
            "side 1's [min, max] / mean 1 within side 2's (ranges widened by 0.05 %%); t = (mean 2 - mean 1) / "
            "sqrt(var1/n1 + var2/n2), '-' when neither side varies\n",
            na, nb);
    fprintf(out, "  %-8s %-21s %-4s %-28s %-28s %8s %-7s %7s\n", "bucket", "sizes (B)", "", "side 1", "side 2", "diff", "in",
            "t");
    static const char *const sname[3] = {"p50", "p95", "p99"};
    struct report_seed_sum s = {0};
    for (int q = 0; q < REPORT_DECILES; q++) {
        for (int m = 0; m < 3 && d[q].n == 0; m++) /* fewer than 10 flows: every run has this bucket empty */
            fprintf(out, "  %-8s %-21s %-4s %-28s %-28s %8s %-7s %7s\n", m ? "" : "-", "", sname[m], "-", "-", "-", "-", "-");
        for (int m = 0; m < 3 && d[q].n > 0; m++) {
            struct seed_cell c[2];
            for (int side = 0; side < 2; side++) {
                int lo = side ? na : 0, cnt = side ? nb : na;
                for (int k = 0; k < cnt; k++) {
                    const struct report_decile *x = &d[(size_t)(lo + k) * REPORT_DECILES + q];
                    v[k] = m == 0 ? x->p50 : m == 1 ? x->p95 : x->p99;
                }
                seed_cell_of(&c[side], v, cnt);
            }
            char label[12] = "", sizes[32] = "", col[2][40], t[16] = "-";
            if (m == 0) {
                snprintf(label, sizeof label, "%d-%d%%", q * 10, q * 10 + 10);
                snprintf(sizes, sizeof sizes, "%llu-%llu", (unsigned long long)d[q].min_size,
                         (unsigned long long)d[q].max_size);
            }
            for (int side = 0; side < 2; side++)
                snprintf(col[side], sizeof col[side], "%.3f [%.3f, %.3f]", c[side].mean, c[side].min, c[side].max);
            double diff = (c[1].mean - c[0].mean) / c[0].mean, se = sqrt(c[0].var / na + c[1].var / nb);
            if (se > 1e-9 * (fabs(c[0].mean) + 1)) /* not rounding noise of equal samples */
                snprintf(t, sizeof t, "%+.2f", (c[1].mean - c[0].mean) / se);
            bool in2 = in_range(c[1].mean, &c[0]), in1 = in_range(c[0].mean, &c[1]);
            fprintf(out, "  %-8s %-21s %-4s %-28s %-28s %+7.1f%% %-7s %7s\n", label, sizes, sname[m], col[0], col[1],
                    100 * diff, in2 ? (in1 ? "yes/yes" : "yes/no") : (in1 ? "no/yes" : "no/no"), t);
            s.cells++;
            s.within5 += fabs(diff) <= 0.05 + 1e-12;
            s.within10 += fabs(diff) <= 0.10 + 1e-12;
            s.in_range += in1 || in2;
        }
    }
    fprintf(out, "  means within 5 %%: %d of %d cells, within 10 %%: %d; a mean within the other side's range: %d\n",
            s.within5, s.cells, s.within10, s.in_range);
    if (sum)
        *sum = s;
out:
    free(v);
    free(d);
    return rc;
}
