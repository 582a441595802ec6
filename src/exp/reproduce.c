/* `rocesim reproduce NAME [--quick] [--out DIR]` and `--list`: a shipped
 * experiment (experiments/NAME.exp) names a sweep file (and a reduced one
 * for --quick), the metrics to read from each run, the table's rows, and
 * what the paper states. It runs the sweep, draws the figures and prints
 * the table with the paper's numbers beside ours (also DIR/table.md). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/err.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "exp/exp.h"
#include "scenario/sweepspec.h"
#include "stats/report.h"

#define MAXM 24
#define MAXROWS 64

const char *exp_experiments_dir(void)
{
    const char *env = getenv("ROCESIM_EXPERIMENTS");
    if (env && *env)
        return env;
    if (access("experiments", R_OK) == 0)
        return "experiments";
    return ROCESIM_SOURCE_DIR "/experiments";
}

struct kv {
    char sec[64], key[128], *val;
    int line;
};

struct expdef {
    char path[1024];
    struct kv *kv;
    int n;
};

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t l = strlen(s);
    while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r' || s[l - 1] == '\n'))
        s[--l] = 0;
    return s;
}

/* Sections and key = value lines; whole-line comments (# or ;) only, so the
 * paper's text may hold any character. */
static int exp_load(struct expdef *x, const char *path)
{
    memset(x, 0, sizeof *x);
    snprintf(x->path, sizeof x->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char sec[64] = "", *line = NULL;
    size_t cap = 0;
    int ln = 0, rc = 0;
    while (getline(&line, &cap, f) >= 0) {
        ln++;
        char *s = trim(line);
        if (!*s || *s == '#' || *s == ';')
            continue;
        if (*s == '[') {
            char *e = strchr(s, ']');
            if (!e) {
                fprintf(stderr, "%s:%d: expected [section]\n", path, ln);
                rc = -1;
                break;
            }
            *e = 0;
            snprintf(sec, sizeof sec, "%s", trim(s + 1));
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq || !*sec) {
            fprintf(stderr, "%s:%d: expected key = value inside a [section]\n", path, ln);
            rc = -1;
            break;
        }
        *eq = 0;
        x->kv = xrealloc(x->kv, (size_t)(x->n + 1) * sizeof *x->kv);
        struct kv *k = &x->kv[x->n++];
        snprintf(k->sec, sizeof k->sec, "%s", sec);
        snprintf(k->key, sizeof k->key, "%s", trim(s));
        k->val = strdup(trim(eq + 1));
        k->line = ln;
    }
    free(line);
    fclose(f);
    return rc;
}

static void exp_free(struct expdef *x)
{
    for (int i = 0; i < x->n; i++)
        free(x->kv[i].val);
    free(x->kv);
}

static const char *get(const struct expdef *x, const char *sec, const char *key)
{
    for (int i = 0; i < x->n; i++)
        if (strcmp(x->kv[i].sec, sec) == 0 && strcmp(x->kv[i].key, key) == 0)
            return x->kv[i].val;
    return NULL;
}

/* For page.c (exp.h): an experiment file as an opaque handle. */
struct exp_def {
    struct expdef x;
};

struct exp_def *exp_def_open(const char *path)
{
    struct exp_def *d = xcalloc(1, sizeof *d);
    if (exp_load(&d->x, path) < 0) {
        exp_free(&d->x);
        free(d);
        return NULL;
    }
    return d;
}

void exp_def_close(struct exp_def *d)
{
    if (d)
        exp_free(&d->x);
    free(d);
}

const char *exp_def_get(const struct exp_def *d, const char *sec, const char *key)
{
    return get(&d->x, sec, key);
}

int exp_def_item(const struct exp_def *d, int i, const char **sec, const char **key, const char **val)
{
    if (i < 0 || i >= d->x.n)
        return -1;
    *sec = d->x.kv[i].sec;
    *key = d->x.kv[i].key;
    *val = d->x.kv[i].val;
    return d->x.kv[i].line;
}

/* ------------------------------------------------------------ metrics */


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

/* fct.csv by column name: what 0 = % of flows whose COL is > 0, 1 = the
 * value of COL in flow FLOW's row (NAN if empty: unfinished). */
static double fct_column(const char *dir, const char *col, long flow, int what)
{
    char p[2048], *line = NULL;
    size_t cap = 0;
    snprintf(p, sizeof p, "%s/fct.csv", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return NAN;
    int ci = -1, k = 0;
    if (getline(&line, &cap, f) > 0)
        for (char *q = strtok(line, ",\n"); q; q = strtok(NULL, ",\n"), k++)
            if (strcmp(q, col) == 0)
                ci = k;
    double n = 0, hit = 0, res = NAN;
    while (ci >= 0 && getline(&line, &cap, f) > 0) {
        const char *q = line; /* strsep-like walk: empty fields (unfinished flows) count */
        for (k = 0; k < ci && q; k++) {
            q = strchr(q, ',');
            q = q ? q + 1 : NULL;
        }
        if (!q)
            continue;
        bool empty = *q == ',' || *q == '\n' || !*q;
        double v = strtod(q, NULL);
        if (what == 1 && strtol(line, NULL, 10) == flow) {
            res = empty ? NAN : v;
            break;
        }
        n++;
        hit += v > 0;
    }
    free(line);
    fclose(f);
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
    char p[2048], line[1024];
    snprintf(p, sizeof p, "%s/fct.csv", dir);
    FILE *f = fopen(p, "r");
    if (!f || !fgets(line, sizeof line, f)) {
        if (f)
            fclose(f);
        return NAN;
    }
    int csize = -1, cstart = -1, cfin = -1, c = 0; /* columns by name: fct.csv gains columns over time */
    for (char *q = strtok(line, ",\n"); q; q = strtok(NULL, ",\n"), c++)
        if (strcmp(q, "size_bytes") == 0)
            csize = c;
        else if (strcmp(q, "start_ns") == 0)
            cstart = c;
        else if (strcmp(q, "finish_ns") == 0)
            cfin = c;
    double bytes = 0, first = INFINITY, last = -INFINITY;
    bool ok = csize >= 0 && cstart >= 0 && cfin >= 0;
    while (ok && fgets(line, sizeof line, f)) {
        double v[3] = {NAN, NAN, NAN};
        c = 0;
        for (char *q = line, *e; q && *q && *q != '\n'; c++) { /* strsep-like: empty fields count */
            e = strchr(q, ',');
            if (c == csize || c == cstart || c == cfin)
                v[c == csize ? 0 : c == cstart ? 1 : 2] = (e ? e > q : *q && *q != '\n') ? strtod(q, NULL) : NAN;
            q = e ? e + 1 : NULL;
        }
        if (isnan(v[2]) || isnan(v[1]) || isnan(v[0])) {
            ok = false;
            break;
        }
        bytes += v[0];
        first = v[1] < first ? v[1] : first;
        last = v[2] > last ? v[2] : last;
    }
    fclose(f);
    return ok && last > first ? bytes * 8 / (last - first) : NAN;
}

/* One metric of one run; NAN when it cannot be computed. Kinds:
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
 * A spec starting "sum " adds the runs' values instead of averaging them. */
static double metric(const char *dir, const char *spec)
{
    char buf[512], *w[8];
    int nw = 0;
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *p = strtok(buf, " \t"); p && nw < 8; p = strtok(NULL, " \t"))
        w[nw++] = p;
    if ((nw == 2 || nw == 3) && strcmp(w[0], "summary") == 0)
        return json_num(dir, w[1]) * (nw == 3 ? strtod(w[2], NULL) : 1.0);
    if (nw == 3 && strcmp(w[0], "above") == 0) {
        double v = json_num(dir, w[1]);
        return isnan(v) ? NAN : v > strtod(w[2], NULL);
    }
    if (nw == 1 && (strcmp(w[0], "runs") == 0 || strcmp(w[0], "deadlocked") == 0 || strcmp(w[0], "deadlock_ms") == 0)) {
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
    if ((nw == 3 || nw == 4) && strcmp(w[0], "per") == 0) {
        double a = json_num(dir, w[1]), b = json_num(dir, w[2]);
        return b > 0 ? a / b * (nw == 4 ? strtod(w[3], NULL) : 1.0) : NAN;
    }
    if (((nw == 3 || nw == 4) && strcmp(w[0], "fct_pct") == 0) || (nw == 4 && strcmp(w[0], "sd_pct") == 0)) {
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
    if (nw == 4 && (strcmp(w[0], "rp_law") == 0 || strcmp(w[0], "rp_cut") == 0))
        return rp_law(dir, strtol(w[1], NULL, 10), strtod(w[2], NULL), strtod(w[3], NULL), 0.999, w[0][3] == 'l' ? 0 : 2);
    if (nw == 4 && (strcmp(w[0], "q_mean") == 0 || strcmp(w[0], "q_max") == 0)) {
        char *colon = strchr(w[1], ':');
        return colon ? queue_metric(dir, strtol(w[1], NULL, 10), strtol(colon + 1, NULL, 10), ms_of(w[2]), ms_of(w[3]), 0,
                                    w[0][3] == 'e' ? 0 : 1)
                     : NAN;
    }
    if (nw == 4 && strcmp(w[0], "u_mean") == 0) { /* util.csv's share, in % (queue_metric's KB is /1e3) */
        char *colon = strchr(w[1], ':');
        return colon ? 1e5 * queue_metric_in(dir, "util.csv", strtol(w[1], NULL, 10), strtol(colon + 1, NULL, 10),
                                             ms_of(w[2]), ms_of(w[3]), 0, 0)
                     : NAN;
    }
    if (nw == 3 && strcmp(w[0], "q_settle") == 0) {
        char *colon = strchr(w[1], ':');
        uint64_t lv;
        return colon && !parse_size(w[2], &lv)
                   ? queue_metric(dir, strtol(w[1], NULL, 10), strtol(colon + 1, NULL, 10), 0, 0, (double)lv, 2)
                   : NAN;
    }
    if (nw == 3 && strcmp(w[0], "send_below") == 0) {
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
    if (nw == 5 && strcmp(w[0], "rp_climb") == 0)
        return rp_law(dir, strtol(w[1], NULL, 10), strtod(w[2], NULL), strtod(w[3], NULL), strtod(w[4], NULL), 1);
    if ((nw == 4 && strcmp(w[0], "rate_mean") == 0) || (nw == 5 && strcmp(w[0], "recover") == 0)) {
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
    if (nw == 2 && strcmp(w[0], "flows_with") == 0)
        return fct_column(dir, w[1], 0, 0);
    if ((nw == 3 || nw == 4) && strcmp(w[0], "flow") == 0)
        return fct_column(dir, w[1], strtol(w[2], NULL, 10), 1) * (nw == 4 ? strtod(w[3], NULL) : 1.0);
    if (nw == 4 && (strcmp(w[0], "pauses_to") == 0 || strcmp(w[0], "paused_ms") == 0)) {
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
    if (nw == 2 && strcmp(w[0], "pause_rate") == 0) {
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
    if (nw == 2 && strcmp(w[0], "fct_avg") == 0) {
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
    if (nw == 1 && strcmp(w[0], "goodput") == 0)
        return goodput_gbps(dir);
    return NAN;
}

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
        if (exp_load(&x, p) == 0) {
            const char *t = get(&x, "experiment", "title");
            printf("    %-14s %s\n", names[i], t ? t : "");
        }
        exp_free(&x);
        free(names[i]);
    }
    return 0;
}

static const char repro_usage[] =
    "usage: rocesim reproduce NAME [--quick] [--out DIR] [--jobs N] [--no-run] [--no-title]\n"
    "       rocesim reproduce --list\n"
    "       rocesim reproduce --page [--out FILE] [--results DIR]\n"
    "Runs a shipped experiment (experiments/NAME.exp: a sweep, its metrics and\n"
    "the paper's numbers), draws its figures (gnuplot) and prints its table with\n"
    "the paper's numbers beside ours; writes DIR/table.md, DIR/figures/ and the\n"
    "runs in DIR/runs/ (default results/reproduce/NAME[-quick]). Reruns resume.\n"
    "--no-run: no sweep and no figures, only the table of the runs already in DIR.\n"
    "--no-title: figures without titles (for a paper's captions).\n"
    "--page: the verdict page (docs/reproductions.md) of every experiment, from\n"
    "its [verdict] section and its runs under DIR (default results/reproduce).\n";

int exp_reproduce(int argc, char **argv)
{
    const char *name = NULL, *out = NULL, *jobs = NULL;
    bool quick = false, no_run = false, titles = true;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0)
            return list_experiments();
        if (strcmp(argv[i], "--page") == 0)
            return exp_page(argc, argv);
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--no-run") == 0)
            no_run = true;
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
    if (exp_load(&x, path) < 0) {
        exp_free(&x);
        return EXIT_BADINPUT;
    }
    const char *sw = get(&x, "experiment", quick ? "quick" : "sweep");
    const char *rowkey = get(&x, "experiment", "rows"), *colkey = get(&x, "experiment", "columns");
    if (!sw || !rowkey) {
        fprintf(stderr, "%s: [experiment] needs %s and rows\n", path, quick ? "quick" : "sweep");
        exp_free(&x);
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
    const char *title = get(&x, "experiment", "title"), *paper = get(&x, "experiment", "paper");
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
    sargv[sa] = NULL;
    int rc = no_run ? 0 : exp_sweep(sa, sargv, NULL);
    if (rc == EXIT_BADINPUT || rc == 130) {
        exp_free(&x);
        return rc;
    }

    /* Rows (and columns) from the sweep's points; metrics averaged over the rest (seeds). */
    struct sweep_spec s;
    struct err e;
    if (sweep_spec_load(&s, swpath, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        exp_free(&x);
        return EXIT_BADINPUT;
    }
    int rk = -1, ck = -1, pk = -1;
    const char *pankey = get(&x, "experiment", "panels");
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
        exp_free(&x);
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
            mspec[nm] = trim(x.kv[i].val);
            msum[nm] = strncmp(mspec[nm], "sum ", 4) == 0;
            if (msum[nm])
                mspec[nm] = trim((char *)mspec[nm] + 4);
            mhead[nm] = trim(mh[nm]);
            nm++;
        }
    double sum[MAXROWS][4][MAXM], vlo[MAXROWS][4][MAXM], vhi[MAXROWS][4][MAXM]; /* vlo/vhi: over seeds, for the figures */
    int cnt[MAXROWS][4][MAXM];
    memset(sum, 0, sizeof sum);
    memset(cnt, 0, sizeof cnt);
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
        for (int m = 0; m < nm; m++) {
            double v = metric(rdbuf[nrd - 1], mspec[m]);
            if (isnan(v))
                continue;
            vlo[r][c][m] = !cnt[r][c][m] || v < vlo[r][c][m] ? v : vlo[r][c][m];
            vhi[r][c][m] = !cnt[r][c][m] || v > vhi[r][c][m] ? v : vhi[r][c][m];
            sum[r][c][m] += v, cnt[r][c][m]++;
        }
    }

    /* The table: markdown, to stdout and DIR/table.md. With layout = stacked
     * a line per (row, column) value instead of a column group per column
     * value (for many metrics); with baseline = ROWVALUE and relative = M, ...
     * also each listed metric's change against that row (same column value),
     * the form papers state their gains in (with panels, against that row
     * of the same panel). */
    const char *layout = get(&x, "experiment", "layout"), *base = get(&x, "experiment", "baseline");
    const char *rel = get(&x, "experiment", "relative");
    /* relative_form = baseline: the baseline's change against each row
     * instead ("FLB cuts AFCT by 29 % vs Proteus", as FLB's paper states it) */
    const char *rform = get(&x, "experiment", "relative_form");
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
    const char *blabel = brow >= 0 && get(&x, "labels", base) ? get(&x, "labels", base) : base;
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
                const char *label = get(&x, "labels", lk);
                if (pk >= 0) {
                    const char *pl = get(&x, "labels", s.k[pk].vals[r / nrow]);
                    fprintf(f, "| %s ", pl ? pl : s.k[pk].vals[r / nrow]);
                }
                fprintf(f, "| %s |", label ? label : lk);
                if (stacked) {
                    const char *cl = get(&x, "labels", s.k[ck].vals[cs]);
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
                            fprintf(f, " - |");
                        else if (m >= nm)
                            fprintf(f, " %+.1f |", v);
                        else
                            fprintf(f, fabs(v) >= 100 || v == floor(v) ? " %.0f |" : fabs(v) >= 10 ? " %.1f |" : " %.2f |", v);
                    }
                /* the paper's numbers: for "row/column" (stacked) or "row/panel"
                 * first, then for the row (on its first line) */
                snprintf(pkey, sizeof pkey, "%s/%s", lk, stacked ? s.k[ck].vals[cs] : pk >= 0 ? s.k[pk].vals[r / nrow] : "");
                const char *pv = stacked || pk >= 0 ? get(&x, "paper", pkey) : NULL;
                if (!pv && (!stacked || cs == 0) && r < nrow)
                    pv = get(&x, "paper", lk);
                fprintf(f, " %s |\n", pv ? pv : "");
            }
        const char *note = get(&x, "experiment", "note");
        if (note)
            fprintf(f, "\n%s\n", note);
    }
    if (tf)
        fclose(tf);

    /* Figures: of every run (each a line), and of the sweep table. */
    int made = 0;
    const char *figs_of = get(&x, "experiment", "figures");
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
    const char *bm = get(&x, "experiment", "figure");
    for (int m = 0; bm && !no_run && m < nm && exp_have_gnuplot(); m++) {
        if (strcmp(mkey[m], bm) != 0)
            continue;
        const char *rl[MAXROWS], *cl[4];
        double *v = xcalloc((size_t)(nrows * ncol) + 1, sizeof *v), *lo = xcalloc((size_t)(nrows * ncol) + 1, sizeof *lo),
               *hi = xcalloc((size_t)(nrows * ncol) + 1, sizeof *hi);
        char (*pl)[160] = xcalloc((size_t)nrows + 1, sizeof *pl);
        for (int r = 0; r < nrows && r < MAXROWS; r++) {
            const char *label = get(&x, "labels", s.k[rk].vals[r % nrow]);
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
            const char *cv = ck >= 0 ? get(&x, "labels", s.k[ck].vals[c]) : NULL;
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
            const char *label = get(&x, "labels", s.k[rk].vals[r]);
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
            const char *cl = ck >= 0 ? get(&x, "labels", s.k[ck].vals[c]) : NULL;
            snprintf(fname, sizeof fname, "%s-%s%s%s", name, x.kv[i].key, ck >= 0 ? "-" : "", ck >= 0 ? s.k[ck].vals[c] : "");
            snprintf(ftitle, sizeof ftitle, "%s%s%s", title ? title : name, ck >= 0 ? ": " : "",
                     ck >= 0 ? (cl ? cl : s.k[ck].vals[c]) : "");
            if (exp_plot_bars(figs, fname, ftitle, bar ? trim(bar) : x.kv[i].key, ng, gl, nr, rl, v, lo, hi) == 0) {
                made++;
                printf("figure: %s/%s.png\n", figs, fname);
            }
            free(v);
            free(lo);
            free(hi);
        }
    }
    printf("\n%d figure%s -> %s/ (PNG and SVG); table -> %s\n", made, made == 1 ? "" : "s", figs, tpath);
    free(rundirs);
    free(rdbuf);
    sweep_spec_free(&s);
    exp_free(&x);
    return rc;
}
