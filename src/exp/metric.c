/* The metrics `rocesim reproduce` reads from one run folder: a table of
 * kinds {name, argument counts, function}, one function per kind, over the
 * run's summary.json, fct.csv, flow_rate.csv, queue.csv, util.csv and
 * pfc.csv (and stats/report.h's parsed run for the FCT statistics). The
 * kinds are listed above the table at the end. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"
#include "core/xalloc.h"
#include "exp/expdef.h"
#include "exp/util.h"
#include "stats/csvread.h"
#include "stats/report.h"

/* KEY, or OBJECT.KEY for a key inside one of summary.json's objects
 * (pfc_pause_rate_by_layer.core). */
static double json_num(const char *dir, const char *key)
{
    char p[2048], k[96], o[96] = "";
    snprintf(p, sizeof p, "%s/summary.json", dir);
    char *t = exp_slurp(p, NULL);
    const char *dot = strchr(key, '.');
    if (dot)
        snprintf(o, sizeof o, "\"%.*s\":", (int)(dot - key), key);
    snprintf(k, sizeof k, "\"%s\":", dot ? dot + 1 : key);
    const char *q = t && *o ? strstr(t, o) : t, *end = NULL;
    if (q && *o)
        end = strchr(q, '}');
    q = q ? strstr(q, k) : NULL;
    double v = q && (!end || q < end) ? strtod(q + strlen(k), NULL) : NAN;
    free(t);
    return v;
}

static bool in_list(const char *list, long v)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *p = strtok(buf, ","); p; p = strtok(NULL, ","))
        if (strtol(p, NULL, 10) == v)
            return true;
    return false;
}

/* Like in_list, over "NODE" (any port) or "NODE:PORT" entries. */
static bool in_port_list(const char *list, long node, long port)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *p = strtok(buf, ","); p; p = strtok(NULL, ",")) {
        char *colon = strchr(p, ':');
        if (strtol(p, NULL, 10) == node && (!colon || strtol(colon + 1, NULL, 10) == port))
            return true;
    }
    return false;
}

/* DIR/fct.csv, its path in p (which c keeps pointing at). */
static int fct_open(struct csv *c, char *p, size_t np, const char *dir, struct err *e)
{
    snprintf(p, np, "%s/fct.csv", dir);
    return csv_open(c, p, e);
}

/* fct.csv by column name: what 0 = % of flows whose COL is > 0, 1 = the
 * value of COL in flow FLOW's row (NAN if empty: unfinished). */
static double fct_column(const char *dir, const char *col, long flow, int what)
{
    char p[2048];
    struct csv c;
    struct err e;
    if (fct_open(&c, p, sizeof p, dir, &e) < 0)
        return NAN;
    int ci = csv_col_opt(&c, col);
    double n = 0, hit = 0, res = NAN;
    while (ci >= 0 && csv_next(&c, &e) > 0) {
        const char *q = c.fld[ci]; /* empty: an unfinished flow */
        double v = strtod(q, NULL);
        if (what == 1 && strtol(c.fld[0], NULL, 10) == flow) {
            res = *q ? v : NAN;
            break;
        }
        n++;
        hit += v > 0;
    }
    csv_close(&c);
    return what == 1 ? res : n > 0 ? 100 * hit / n : NAN;
}

static double ms_of(const char *s)
{
    simtime_t t;
    return parse_time(s, &t) ? NAN : (double)t / T_MS;
}

/* Sum over the listed flows of flow_rate.csv's Gbps at each sample time. */
struct samples {
    double *t, *v;
    size_t n;
};

static int rate_samples_col(const char *dir, const char *flows, struct samples *s, int col);

static int rate_samples(const char *dir, const char *flows, struct samples *s)
{
    return rate_samples_col(dir, flows, s, 3);
}

/* col 3: receive throughput (gbps), 4: the sender's pacing rate (rate_gbps). */
static int rate_samples_col(const char *dir, const char *flows, struct samples *s, int col)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/flow_rate.csv", dir);
    FILE *f = fopen(p, "r");
    memset(s, 0, sizeof *s);
    if (!f)
        return -1;
    char line[256];
    size_t cap = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        double t = strtod(strtok(line, ","), NULL) / 1e6;
        char *fl = strtok(NULL, ","), *g = strtok(NULL, ",\n");
        if (col == 4 && g)
            g = strtok(NULL, ",\n");
        if (!fl || !g || !in_list(flows, strtol(fl, NULL, 10)))
            continue;
        if (!s->n || s->t[s->n - 1] != t) {
            if (s->n == cap) {
                cap = cap ? 2 * cap : 1024;
                s->t = xrealloc(s->t, cap * sizeof *s->t);
                s->v = xrealloc(s->v, cap * sizeof *s->v);
            }
            s->t[s->n] = t;
            s->v[s->n++] = 0;
        }
        s->v[s->n - 1] += strtod(g, NULL);
    }
    fclose(f);
    return 0;
}

/* One flow's sender pacing rate (flow_rate.csv's rate_gbps) while active. */
static int send_rate(const char *dir, long flow, struct samples *s)
{
    char p[2048], line[256];
    snprintf(p, sizeof p, "%s/flow_rate.csv", dir);
    FILE *f = fopen(p, "r");
    memset(s, 0, sizeof *s);
    size_t cap = 0;
    if (!f || !fgets(line, sizeof line, f) || !strstr(line, "rate_gbps")) {
        if (f)
            fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        double t = strtod(strtok(line, ","), NULL) / 1e6;
        char *fl = strtok(NULL, ","), *g = strtok(NULL, ","), *r = strtok(NULL, ",\n");
        if (!fl || !g || !r || strtol(fl, NULL, 10) != flow || strtod(r, NULL) <= 0)
            continue;
        if (s->n == cap) {
            cap = cap ? 2 * cap : 1024;
            s->t = xrealloc(s->t, cap * sizeof *s->t);
            s->v = xrealloc(s->v, cap * sizeof *s->v);
        }
        s->t[s->n] = t;
        s->v[s->n++] = strtod(r, NULL);
    }
    fclose(f);
    return 0;
}

/* PCN's RP law after a flow's last rate cut (the last sample below line
 * rate that is not above the one before: a cut, or a marked CNP that kept the
 * rate and reset w): each later sample, one CNP period apart, should be the previous
 * one stepped by an unmarked CNP, r' = r(1 - w) + line w, w' = w(1 - w) +
 * w_max w, from w = w_min. what: 0 = the largest deviation from the law (% of
 * line), 1 = periods until LEVEL x line, 2 = the rate at the cut (Gbps). */
static double rp_law(const char *dir, long flow, double wmin, double wmax, double level, int what)
{
    struct samples s;
    if (send_rate(dir, flow, &s) < 0 || s.n < 3) {
        free(s.t);
        free(s.v);
        return NAN;
    }
    double line = 0, res = NAN;
    size_t cut = 0;
    for (size_t i = 0; i < s.n; i++)
        line = s.v[i] > line ? s.v[i] : line;
    for (size_t i = 1; i < s.n; i++) /* a cut, or a marked CNP that kept the rate (and reset w) */
        if (s.v[i] <= s.v[i - 1] * (1 + 1e-12) && s.v[i] < 0.999 * line)
            cut = i;
    if (cut) {
        double r = s.v[cut], w = wmin, dev = 0;
        size_t i;
        for (i = cut + 1; i < s.n && s.v[i - 1] < level * line; i++) {
            r = r * (1 - w) + line * w;
            w = w * (1 - w) + wmax * w;
            double d = fabs(s.v[i] - r) / line * 100;
            dev = d > dev ? d : dev;
        }
        res = what == 0 ? dev : what == 1 ? (s.v[i - 1] >= level * line ? (double)(i - 1 - cut) : NAN) : s.v[cut];
    }
    free(s.t);
    free(s.v);
    return res;
}

/* queue.csv of one port: bytes over time. what: 0 = mean KB in [from, to),
 * 1 = max KB in [from, to), 2 = ms of the last sample above `level` bytes
 * (after it the queue stays at or below it: the time it settled). */
static double queue_metric_in(const char *dir, const char *file, long node, long port, double from, double to,
                              double level, int what);

static double queue_metric(const char *dir, long node, long port, double from, double to, double level, int what)
{
    return queue_metric_in(dir, "queue.csv", node, port, from, to, level, what);
}

/* The same over util.csv (same columns): what 0 gives the mean utilisation. */
static double queue_metric_in(const char *dir, const char *file, long node, long port, double from, double to,
                              double level, int what)
{
    char p[2048], line[512];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    FILE *f = fopen(p, "r");
    if (!f || !fgets(line, sizeof line, f)) {
        if (f)
            fclose(f);
        return NAN;
    }
    double sum = 0, mx = 0, last = 0;
    size_t k = 0;
    while (fgets(line, sizeof line, f)) {
        double t = strtod(strtok(line, ","), NULL) / 1e6;
        char *nd = strtok(NULL, ","), *pt = strtok(NULL, ","), *b = strtok(NULL, ",\n");
        if (!nd || !pt || !b || strtol(nd, NULL, 10) != node || strtol(pt, NULL, 10) != port)
            continue;
        double bytes = strtod(b, NULL);
        if (bytes > level)
            last = t;
        if (t >= from && t < to) {
            sum += bytes, k++;
            mx = bytes > mx ? bytes : mx;
        }
    }
    fclose(f);
    return what == 2 ? last : !k ? NAN : what == 0 ? sum / (double)k / 1e3 : mx / 1e3;
}

struct ival {
    double a, b;
};

static int cmp_ival(const void *x, const void *y)
{
    double a = ((const struct ival *)x)->a, b = ((const struct ival *)y)->a;
    return a < b ? -1 : a > b;
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The arrival window of a run in seconds: [traffic] duration of a Poisson
 * pattern (from the scenario summary.json records), else the simulated time
 * (other patterns keep a default duration they do not use). FLB's PAUSE
 * rate divides by it so that runs whose last large flow ends at different
 * times share one time base. */
static double arrival_window_s(const char *dir)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    char *t = exp_slurp(p, NULL);
    const char *sec = t ? strstr(t, "\"traffic\": {") : NULL, *d = sec ? strstr(sec, "\"duration\": \"") : NULL;
    const char *end = sec ? strchr(sec, '}') : NULL;
    double w = NAN;
    const char *pat = sec ? strstr(sec, "\"pattern\": \"poisson\"") : NULL;
    if (d && d < end && pat && pat < end) {
        char val[64];
        simtime_t v;
        d += strlen("\"duration\": \"");
        snprintf(val, sizeof val, "%.*s", (int)strcspn(d, "\""), d);
        if (!parse_time(val, &v) && v > 0)
            w = (double)v / T_SEC;
    }
    free(t);
    return isnan(w) ? json_num(dir, "sim_time_ns") / 1e9 : w;
}

/* FLB's incast goodput: payload bytes of every flow in fct.csv over the
 * time from the first start to the last finish, Gbps; NAN if one is unfinished. */
static double goodput_gbps(const char *dir)
{
    char p[2048];
    struct csv c;
    struct err e;
    if (fct_open(&c, p, sizeof p, dir, &e) < 0)
        return NAN;
    /* columns by name: fct.csv gains columns over time */
    int csize = csv_col_opt(&c, "size_bytes"), cstart = csv_col_opt(&c, "start_ns"), cfin = csv_col_opt(&c, "finish_ns");
    double bytes = 0, first = INFINITY, last = -INFINITY;
    bool ok = csize >= 0 && cstart >= 0 && cfin >= 0;
    int rc = 0;
    while (ok && (rc = csv_next(&c, &e)) > 0) {
        const char *v[3] = {c.fld[csize], c.fld[cstart], c.fld[cfin]};
        if (!*v[0] || !*v[1] || !*v[2]) {
            ok = false;
            break;
        }
        double size = strtod(v[0], NULL), start = strtod(v[1], NULL), fin = strtod(v[2], NULL);
        bytes += size;
        first = start < first ? start : first;
        last = fin > last ? fin : last;
    }
    csv_close(&c);
    return ok && rc == 0 && last > first ? bytes * 8 / (last - first) : NAN;
}

/* ------------------------------------------------------------ the kinds:
 * each gets the spec's words w[0..nw-1] (w[0] its name), nw within its
 * table row's range. */

static double m_summary(const char *dir, int nw, char **w)
{
    return json_num(dir, w[1]) * (nw == 3 ? strtod(w[2], NULL) : 1.0);
}

static double m_above(const char *dir, int nw, char **w)
{
    (void)nw;
    double v = json_num(dir, w[1]);
    return isnan(v) ? NAN : v > strtod(w[2], NULL);
}

/* runs, deadlocked, deadlock_ms */
static double m_deadlock(const char *dir, int nw, char **w)
{
    (void)nw;
    char p[2048];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    char *t = exp_slurp(p, NULL);
    static const char key[] = "\"deadlock\": {\"detected_ns\": "; /* "deadlock": null when none */
    const char *d = t ? strstr(t, key) : NULL;
    double v = NAN;
    if (t && strcmp(w[0], "runs") == 0)
        v = 1;
    else if (t && strcmp(w[0], "deadlocked") == 0)
        v = d != NULL;
    else if (d)
        v = strtod(d + sizeof key - 1, NULL) / 1e6;
    free(t);
    return v;
}

static double m_per(const char *dir, int nw, char **w)
{
    double a = json_num(dir, w[1]), b = json_num(dir, w[2]);
    return b > 0 ? a / b * (nw == 4 ? strtod(w[3], NULL) : 1.0) : NAN;
}

/* fct_pct and sd_pct */
static double m_pct(const char *dir, int nw, char **w)
{
    struct report_run r;
    struct err e;
    uint64_t min = 0, max;
    bool sd = w[0][0] == 's';
    const char *src = !sd && nw == 4 ? w[3] : NULL; /* fct_pct's SOURCE */
    int last = src ? nw - 2 : nw - 1;             /* MAXSIZE */
    bool inf = strcmp(w[last], "inf") == 0;
    if (inf)
        max = UINT64_MAX;
    if ((sd && parse_size(w[2], &min)) || (!inf && parse_size(w[last], &max)) || report_load(&r, dir, &e) < 0)
        return NAN;
    size_t want = 0; /* the source's index; 0 = any */
    if (src) {
        while (++want < r.n_sources && strcmp(r.sources[want], src) != 0)
            ;
        if (want >= r.n_sources) {
            report_free(&r);
            return NAN;
        }
    }
    double *v = xmalloc((r.n_flows + 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < r.n_flows; i++)
        if (r.flows[i].done && r.flows[i].size <= max && (!sd || r.flows[i].size > min) &&
            (!want || r.flows[i].source == want))
            v[k++] = sd ? r.flows[i].slowdown : r.flows[i].fct_ns / 1e3;
    qsort(v, k, sizeof *v, cmp_dbl);
    double p = strtod(w[1], NULL), res = NAN;
    if (k) {
        size_t rank = (size_t)ceil(p / 100 * (double)k);
        res = v[rank ? rank - 1 : 0];
    }
    free(v);
    report_free(&r);
    return res;
}

/* rp_law and rp_cut */
static double m_rp(const char *dir, int nw, char **w)
{
    (void)nw;
    return rp_law(dir, strtol(w[1], NULL, 10), strtod(w[2], NULL), strtod(w[3], NULL), 0.999, w[0][3] == 'l' ? 0 : 2);
}

static double m_rp_climb(const char *dir, int nw, char **w)
{
    (void)nw;
    return rp_law(dir, strtol(w[1], NULL, 10), strtod(w[2], NULL), strtod(w[3], NULL), strtod(w[4], NULL), 1);
}

/* q_mean and q_max */
static double m_queue(const char *dir, int nw, char **w)
{
    (void)nw;
    char *colon = strchr(w[1], ':');
    return colon ? queue_metric(dir, strtol(w[1], NULL, 10), strtol(colon + 1, NULL, 10), ms_of(w[2]), ms_of(w[3]), 0,
                                w[0][3] == 'e' ? 0 : 1)
                 : NAN;
}

/* util.csv's share, in % (queue_metric's KB is /1e3) */
static double m_u_mean(const char *dir, int nw, char **w)
{
    (void)nw;
    char *colon = strchr(w[1], ':');
    return colon ? 1e5 * queue_metric_in(dir, "util.csv", strtol(w[1], NULL, 10), strtol(colon + 1, NULL, 10),
                                         ms_of(w[2]), ms_of(w[3]), 0, 0)
                 : NAN;
}

static double m_q_settle(const char *dir, int nw, char **w)
{
    (void)nw;
    char *colon = strchr(w[1], ':');
    uint64_t lv;
    return colon && !parse_size(w[2], &lv)
               ? queue_metric(dir, strtol(w[1], NULL, 10), strtol(colon + 1, NULL, 10), 0, 0, (double)lv, 2)
               : NAN;
}

static double m_send_below(const char *dir, int nw, char **w)
{
    (void)nw;
    struct samples sm;
    if (rate_samples_col(dir, w[1], &sm, 4) < 0)
        return NAN;
    double lv = strtod(w[2], NULL), res = NAN;
    for (size_t i = 0; i < sm.n && isnan(res); i++)
        if (sm.v[i] <= lv)
            res = sm.t[i];
    free(sm.t);
    free(sm.v);
    return res;
}

/* rate_mean and recover */
static double m_rate(const char *dir, int nw, char **w)
{
    (void)nw;
    struct samples s;
    if (rate_samples(dir, w[1], &s) < 0)
        return NAN;
    double res = NAN;
    if (w[0][1] == 'a') {
        double from = ms_of(w[2]), to = ms_of(w[3]), sum = 0;
        size_t k = 0;
        for (size_t i = 0; i < s.n; i++)
            if (s.t[i] > from && s.t[i] <= to)
                sum += s.v[i], k++;
        res = k ? sum / (double)k : NAN;
    } else {
        double after = ms_of(w[2]), level = strtod(w[3], NULL), t0 = ms_of(w[4]);
        for (size_t i = 0; i < s.n && isnan(res); i++)
            if (s.t[i] > after && s.v[i] >= level)
                res = s.t[i] - t0;
    }
    free(s.t);
    free(s.v);
    return res;
}

static double m_flows_with(const char *dir, int nw, char **w)
{
    (void)nw;
    return fct_column(dir, w[1], 0, 0);
}

static double m_flow(const char *dir, int nw, char **w)
{
    return fct_column(dir, w[1], strtol(w[2], NULL, 10), 1) * (nw == 4 ? strtod(w[3], NULL) : 1.0);
}

/* pauses_to and paused_ms, from pfc.csv */
static double m_pfc(const char *dir, int nw, char **w)
{
    (void)nw;
    char p[2048];
    snprintf(p, sizeof p, "%s/pfc.csv", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return NAN;
    double from = ms_of(w[2]), to = ms_of(w[3]);
    bool count = w[0][1] == 'a' && w[0][5] == 's';
    char line[256];
    long n = 0;
    /* open pauses by (node, port, priority): a handful of ports here */
    struct open {
        long node, port, prio;
        double t;
    } op[256];
    int nop = 0;
    struct ival *iv = NULL;
    size_t niv = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return NAN;
    }
    while (fgets(line, sizeof line, f)) {
        char *fl[6];
        int k = 0;
        for (char *q = strtok(line, ",\n"); q && k < 6; q = strtok(NULL, ",\n"))
            fl[k++] = q;
        if (k < 6)
            continue;
        long node = strtol(fl[1], NULL, 10), port = strtol(fl[2], NULL, 10);
        if (!in_port_list(w[1], node, port))
            continue;
        double t = strtod(fl[0], NULL) / 1e6;
        long prio = strtol(fl[3], NULL, 10);
        bool pause = strcmp(fl[5], "pause") == 0;
        if (count) {
            n += pause && t >= from && t < to;
            continue;
        }
        int j;
        for (j = 0; j < nop; j++)
            if (op[j].node == node && op[j].port == port && op[j].prio == prio)
                break;
        if (pause && j == nop && nop < 256)
            op[nop++] = (struct open){node, port, prio, t};
        else if (!pause && j < nop) {
            iv = xrealloc(iv, (niv + 1) * sizeof *iv);
            iv[niv++] = (struct ival){op[j].t, t};
            op[j] = op[--nop];
        }
    }
    fclose(f);
    if (count)
        return (double)n;
    for (int j = 0; j < nop; j++) { /* still paused at the end */
        iv = xrealloc(iv, (niv + 1) * sizeof *iv);
        iv[niv++] = (struct ival){op[j].t, INFINITY};
    }
    if (niv)
        qsort(iv, niv, sizeof *iv, cmp_ival);
    double total = 0, ca = 0, cb = -INFINITY;
    for (size_t i = 0; i <= niv; i++) { /* union of the intervals, clipped to [from, to) */
        if (i < niv && iv[i].a <= cb) {
            if (iv[i].b > cb)
                cb = iv[i].b;
            continue;
        }
        if (cb > ca) {
            double a = ca < from ? from : ca, b = cb > to ? to : cb;
            if (b > a)
                total += b - a;
        }
        if (i < niv) {
            ca = iv[i].a;
            cb = iv[i].b;
        }
    }
    free(iv);
    return total;
}

static double m_pause_rate(const char *dir, int nw, char **w)
{
    (void)nw;
    static const char *layers[] = {"host", "edge", "agg", "core"}; /* report.h's order */
    struct report_run r;
    struct err e;
    if (report_load(&r, dir, &e) < 0)
        return NAN;
    double n = NAN;
    for (int l = 0; l < 4 && r.has_layers; l++)
        if (strcmp(w[1], "all") == 0 || strcmp(w[1], layers[l]) == 0)
            n = (isnan(n) ? 0 : n) + (double)r.pause_sent[l];
    report_free(&r);
    return n / arrival_window_s(dir);
}

static double m_fct_avg(const char *dir, int nw, char **w)
{
    (void)nw;
    struct report_run r;
    struct err e;
    uint64_t max = UINT64_MAX;
    if ((strcmp(w[1], "inf") != 0 && parse_size(w[1], &max)) || report_load(&r, dir, &e) < 0)
        return NAN;
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < r.n_flows; i++)
        if (r.flows[i].done && r.flows[i].size <= max)
            sum += r.flows[i].fct_ns / 1e3, k++;
    report_free(&r);
    return k ? sum / (double)k : NAN;
}

static double m_goodput(const char *dir, int nw, char **w)
{
    (void)nw, (void)w;
    return goodput_gbps(dir);
}

/* One metric of one run (exp_metric); NAN when it cannot be computed. Kinds:
 *   summary KEY                 a number from summary.json (OBJECT.KEY: inside an object)
 *   per KEY1 KEY2 [SCALE]       KEY1 / KEY2 from summary.json (times SCALE)
 *   summary KEY SCALE           the same times SCALE (e.g. 100 for a share in %)
 *   above KEY X                 1 if summary.json's KEY is above X, else 0 (with sum: the
 *                               runs above X, e.g. seeds that fell into a PFC storm)
 *   fct_pct P MAXSIZE [SOURCE]  P-th percentile FCT (us) of finished flows up to MAXSIZE (of
 *                               fct.csv's source SOURCE only, e.g. traffic: the [traffic] generator)
 *   sd_pct P MIN MAX            P-th percentile slowdown of finished flows with MIN < size <= MAX
 *                               (sizes as 100KB; "inf" is no upper bound)
 *   q_mean NODE:PORT FROM TO    mean egress queue (KB) of that port (queue.csv), FROM <= t < TO
 *   q_max NODE:PORT FROM TO     its largest sample (KB)
 *   u_mean NODE:PORT FROM TO    mean link utilisation (%) of that port (util.csv)
 *   q_settle NODE:PORT BYTES    ms of its last sample above BYTES (the queue settled after it)
 *   send_below FLOWS GBPS       ms of the first sample where the flows' summed sender rates <= GBPS
 *   rp_law FLOW WMIN WMAX       largest deviation (% of line) of the flow's sender rate
 *                               (flow_rate.csv rate_gbps) from PCN's RP law after its last cut
 *   rp_climb FLOW WMIN WMAX LEVEL  CNP periods (samples) from that cut to LEVEL x line rate
 *   rp_cut FLOW WMIN WMAX       the rate at that cut (Gbps)
 *   rate_mean FLOWS FROM TO     mean Gbps of the flows together (flow_rate.csv), FROM < t <= TO
 *   recover FLOWS AFTER GBPS T0 ms from T0 to the first sample after AFTER where the flows reach GBPS
 *   pauses_to NODES FROM TO     PAUSE frames received by the nodes (pfc.csv); an entry
 *                               NODE:PORT counts that port only (e.g. 26:2,26:3)
 *   paused_ms NODES FROM TO     time at least one port of the nodes was paused (pfc.csv)
 *   flows_with COL              % of the flows in fct.csv whose column COL is > 0 (e.g.
 *                               ever_paused: HoL-blocked flows; ooo: reordered flows)
 *   flow COL FLOW [SCALE]       column COL of that flow's row in fct.csv (times SCALE; e.g.
 *                               flow fct_ns 0 1e-6: flow 0's FCT in ms; none if empty)
 *   runs                        1 for a run that finished (use with sum: runs per row)
 *   deadlocked                  1 if the run stopped on a PFC deadlock, else 0
 *   deadlock_ms                 when the deadlock was detected (ms); none: not counted
 *   pause_rate LAYER            PAUSE frames sent by the switches of LAYER (edge, agg, core or
 *                               all) per second of arrivals (a Poisson pattern's
 *                               traffic.duration, else the simulated time): FLB's "PAUSE rate"
 *   fct_avg MAXSIZE             mean FCT (us) of finished flows up to MAXSIZE ("inf": all)
 *   goodput                     Gbps at the receivers: the bytes of all flows over the time from
 *                               the first start to the last finish (FLB's incast, Fig. 16);
 *                               none while a flow is unfinished
 * A spec starting "sum " adds the runs' values instead of averaging them (reproduce.c).
 * min and max: how many words may follow the name. */
static const struct metric_kind {
    const char *name;
    int min, max; /* words after the name */
    double (*fn)(const char *dir, int nw, char **w);
} kinds[] = {
    {"summary", 1, 2, m_summary},
    {"above", 2, 2, m_above},
    {"runs", 0, 0, m_deadlock},
    {"deadlocked", 0, 0, m_deadlock},
    {"deadlock_ms", 0, 0, m_deadlock},
    {"per", 2, 3, m_per},
    {"fct_pct", 2, 3, m_pct},
    {"sd_pct", 3, 3, m_pct},
    {"rp_law", 3, 3, m_rp},
    {"rp_cut", 3, 3, m_rp},
    {"rp_climb", 4, 4, m_rp_climb},
    {"q_mean", 3, 3, m_queue},
    {"q_max", 3, 3, m_queue},
    {"u_mean", 3, 3, m_u_mean},
    {"q_settle", 2, 2, m_q_settle},
    {"send_below", 2, 2, m_send_below},
    {"rate_mean", 3, 3, m_rate},
    {"recover", 4, 4, m_rate},
    {"flows_with", 1, 1, m_flows_with},
    {"flow", 2, 3, m_flow},
    {"pauses_to", 3, 3, m_pfc},
    {"paused_ms", 3, 3, m_pfc},
    {"pause_rate", 1, 1, m_pause_rate},
    {"fct_avg", 1, 1, m_fct_avg},
    {"goodput", 0, 0, m_goodput},
};

double exp_metric(const char *dir, const char *spec)
{
    char buf[512], *w[8];
    int nw = 0;
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *p = strtok(buf, " \t"); p && nw < 8; p = strtok(NULL, " \t"))
        w[nw++] = p;
    for (size_t i = 0; nw > 0 && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(w[0], kinds[i].name) == 0)
            return nw - 1 >= kinds[i].min && nw - 1 <= kinds[i].max ? kinds[i].fn(dir, nw, w) : NAN;
    return NAN;
}
