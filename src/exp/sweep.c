/* `rocesim sweep FILE`: the cross product of a scenario's [sweep] values,
 * one `rocesim run` child per point, on every core; resumable; one table. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/proc.h"
#include "scenario/load.h"
#include "core/err.h"
#include "core/xalloc.h"
#include "exp/sweep.h"
#include "exp/util.h"
#include "scenario/sweepspec.h"
#include "stats/report.h"

#define DIRBUF 1600

const char *exp_self(void)
{
    static char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return "rocesim";
    self[n] = 0;
    return self;
}


/* Relative paths of the sweep file are read from its folder (scenario/load.h
 * cfg_is_path); a point's scenario.ini lives in the point's folder, so they
 * are written there absolute: those the file sets (exp_paths_of) and swept
 * values of path keys (swept_path_abs). */
static void abs_of(char *out, size_t n, const char *p)
{
    char cwd[2048];
    if (p[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(out, n, "%s", p);
    else
        snprintf(out, n, "%s/%s", cwd, p);
}

static void abs_add(struct exp_paths *ap, const struct config *c, const char *sec, const char *key, const char *val)
{
    char k[128], v[PARAM_STR_MAX + 2048];
    snprintf(k, sizeof k, "%s.%s", sec, key);
    if (!config_origin(c, k) || !cfg_is_path(sec, key, val))
        return;
    abs_of(v, sizeof v, val);
    ap->key = xrealloc(ap->key, (size_t)(ap->n + 1) * sizeof *ap->key);
    ap->val = xrealloc(ap->val, (size_t)(ap->n + 1) * sizeof *ap->val);
    ap->key[ap->n] = strdup(k);
    ap->val[ap->n++] = strdup(v);
}

void exp_paths_of(const char *file, struct exp_paths *ap)
{
    struct config c;
    struct err e;
    if (config_init(&c) == 0 && config_load_file(&c, file, &e) == 0) {
        abs_add(ap, &c, "topology", "file", c.topology.file);
        abs_add(ap, &c, "traffic", "file", c.traffic.file);
        abs_add(ap, &c, "traffic", "cdf", c.traffic.cdf);
        for (int i = 0; i < c.n_traffic_x; i++) {
            char sec[64];
            snprintf(sec, sizeof sec, "traffic.%s", c.traffic_x[i].name);
            abs_add(ap, &c, sec, "file", c.traffic_x[i].t.file);
            abs_add(ap, &c, sec, "cdf", c.traffic_x[i].t.cdf);
        }
    }
    config_load_free(&c);
    config_free(&c);
}

void exp_paths_free(struct exp_paths *ap)
{
    for (int i = 0; i < ap->n; i++)
        free(ap->key[i]), free(ap->val[i]);
    free(ap->key);
    free(ap->val);
}

static bool swept_path_abs(const char *file, const char *key, const char *val, char *out, size_t n)
{
    const char *dot = strrchr(key, '.');
    char sec[128], joined[PARAM_STR_MAX + 1100];
    if (!dot || dot - key >= (long)sizeof sec)
        return false;
    snprintf(sec, sizeof sec, "%.*s", (int)(dot - key), key);
    if (!cfg_is_path(sec, dot + 1, val) || val[0] == '/')
        return false;
    cfg_path_join(joined, sizeof joined, file, val);
    abs_of(out, n, joined);
    return true;
}

char *exp_point_text(const char *file, const struct sweep_spec *s, const int *choice, const struct exp_paths *ap,
                     const char *name)
{
    const char **keys = xcalloc(SWEEP_MAX_KEYS + 2 + (size_t)ap->n, sizeof *keys);
    const char **vals = xcalloc(SWEEP_MAX_KEYS + 2 + (size_t)ap->n, sizeof *vals);
    char(*swept_path)[PARAM_STR_MAX] = xcalloc(SWEEP_MAX_KEYS, sizeof *swept_path);
    bool name_swept = false;
    int nk = 0;
    for (int k = 0; k < s->nk; k++, nk++) {
        keys[nk] = s->k[k].key;
        vals[nk] = s->k[k].vals[choice[k]];
        if (swept_path_abs(file, keys[nk], vals[nk], swept_path[k], sizeof swept_path[k]))
            vals[nk] = swept_path[k];
        name_swept |= strcmp(s->k[k].key, "run.name") == 0;
    }
    for (int k = 0; k < ap->n; k++) { /* the file's own relative paths, unless swept */
        bool swept = false;
        for (int j = 0; j < s->nk; j++)
            swept |= strcmp(s->k[j].key, ap->key[k]) == 0;
        if (!swept)
            keys[nk] = ap->key[k], vals[nk++] = ap->val[k];
    }
    if (!name_swept) { /* the runs keep the sweep's name, not "scenario" */
        keys[nk] = "run.name";
        vals[nk++] = name;
    }
    char *text = sweep_resolve(s->text, keys, vals, nk);
    free(keys);
    free(vals);
    free(swept_path);
    return text;
}


/* A run is complete when its summary.json (written last, after fct.csv) is
 * whole — a closing brace — and does not say the run was interrupted. */
static bool run_complete(const char *dir)
{
    char path[DIRBUF + 32];
    snprintf(path, sizeof path, "%s/fct.csv", dir);
    if (access(path, R_OK) != 0)
        return false;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *t = exp_slurp(path, NULL);
    if (!t)
        return false;
    size_t n = strlen(t);
    while (n && (t[n - 1] == '\n' || t[n - 1] == ' ' || t[n - 1] == '\r'))
        n--;
    bool ok = n > 1 && t[0] == '{' && t[n - 1] == '}' && !strstr(t, "\"interrupted\": true");
    free(t);
    return ok;
}

/* ------------------------------------------------- stale results
 * A complete run is reused only if it ran what would run now: the same
 * effective configuration (summary.json's "config", every key after the
 * file and the swept values) and the same binary (its "rocesim_version"). */

const char *exp_version = "unknown";

/* A JSON string at p (at its opening quote) into out; returns what follows it. */
static const char *jstr(const char *p, char *out, size_t n)
{
    size_t k = 0;
    if (*p != '"')
        return NULL;
    for (p++; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1])
            p++;
        if (k + 1 < n)
            out[k++] = *p;
    }
    out[k] = 0;
    return *p ? p + 1 : NULL;
}

struct kv {
    char key[160];
    char val[PARAM_STR_MAX + 8];
};

/* "section.key" = value pairs of a config JSON as config_write_json writes
 * it (one section a line: "name": {"key": "value", ...}, or "name": [...]). */
static size_t config_pairs(const char *t, struct kv **out)
{
    size_t n = 0, cap = 0;
    struct kv *v = NULL;
    char sec[96], key[64];
    for (const char *line = t; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *p = line + strspn(line, " {");
        if (*p != '"' || !(p = jstr(p, sec, sizeof sec)) || strncmp(p, ": ", 2) != 0)
            continue;
        p += 2;
        if (*p == '[') { /* a list: the whole line is one value */
            if (n == cap)
                v = xrealloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
            snprintf(v[n].key, sizeof v[n].key, "%s", sec);
            snprintf(v[n].val, sizeof v[n].val, "%.*s", (int)strcspn(p, "\n"), p);
            n++;
            continue;
        }
        if (*p++ != '{')
            continue;
        while (*p == '"') {
            if (n == cap)
                v = xrealloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
            if (!(p = jstr(p, key, sizeof key)) || strncmp(p, ": ", 2) != 0 || !(p = jstr(p + 2, v[n].val, sizeof v[n].val)))
                break;
            snprintf(v[n].key, sizeof v[n].key, "%s.%s", sec, key);
            n++;
            p += strspn(p, ", ");
        }
    }
    *out = v;
    return n;
}

static const struct kv *find_kv(const struct kv *v, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].key, key) == 0)
            return &v[i];
    return NULL;
}

/* The built-in defaults' pairs, made once: a key newer than a run's
 * summary.json (absent from its "config") that is at its default is no
 * difference, since a new option's default keeps what runs did before it. */
static const struct kv *default_pairs(size_t *n)
{
    static struct kv *v;
    static size_t nv;
    static bool made;
    if (!made) {
        made = true;
        struct config c;
        char *t = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&t, &len);
        if (m && config_init(&c) == 0) {
            config_write_json(m, &c, 2);
            config_free(&c);
        }
        if (m)
            fclose(m);
        nv = t ? config_pairs(t, &v) : 0;
        free(t);
    }
    *n = nv;
    return v;
}

/* Two absolute paths naming regular files of the same bytes: a run made in
 * another checkout (or before its folder moved) read the same input, so a
 * key whose value is a path differs only in where the file lies. */
static bool same_file_bytes(const char *a, const char *b)
{
    if (a[0] != '/' || b[0] != '/' || !exp_is_file(a) || !exp_is_file(b))
        return false;
    size_t la = 0, lb = 0;
    char *x = exp_slurp(a, &la), *y = x ? exp_slurp(b, &lb) : NULL;
    bool same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

/* Why the complete run in dir is not what pc would run now ("" if it is):
 * "the binary (VERSION -> VERSION)" or "section.key OLD -> NEW". */
void exp_run_stale(const char *dir, const struct config *pc, bool binary, char *why, size_t n)
{
    char path[DIRBUF + 32], ver[128] = "?";
    why[0] = 0;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *js = exp_slurp(path, NULL);
    const char *p = js ? strstr(js, "\"rocesim_version\": ") : NULL;
    if (p)
        jstr(p + strlen("\"rocesim_version\": "), ver, sizeof ver);
    const char *oldcfg = js ? strstr(js, "\n  \"config\": ") : NULL;
    char *now = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&now, &len);
    if (m) {
        config_write_json(m, pc, 2);
        fclose(m);
    }
    if (!oldcfg && !p) {
        /* no saved config and no version: not written by `rocesim run` (results made by hand or
         * imported): nothing to compare, so kept as they are */
    } else if (!oldcfg || !now) {
        snprintf(why, n, "its summary.json has no \"config\"");
    } else {
        struct kv *a, *b;
        size_t na = config_pairs(oldcfg + strlen("\n  \"config\": "), &a), nb = config_pairs(now, &b), nd = 0, used = 0;
        char d[400];
        for (size_t i = 0; i < nb + na; i++) { /* changed or new keys, then keys gone */
            const struct kv *x = i < nb ? &b[i] : &a[i - nb];
            /* how the run was computed, not what: a parallel run's outputs are the serial run's
             * (run.partitions does shape the partition report's files) */
            if (strcmp(x->key, "run.threads") == 0 ||
                (strcmp(x->key, "run.partitions") == 0 && !pc->output.partition_report))
                continue;
            const struct kv *o = find_kv(i < nb ? a : b, i < nb ? na : nb, x->key);
            if (i < nb ? o && (strcmp(o->val, x->val) == 0 || same_file_bytes(o->val, x->val)) : o != NULL)
                continue;
            if (i < nb && !o) { /* a key the run's binary did not have */
                size_t ndef;
                const struct kv *dv = default_pairs(&ndef), *df = find_kv(dv, ndef, x->key);
                const char *dot = strrchr(x->key, '.');
                char base[200];
                if (!df && strncmp(x->key, "traffic.", 8) == 0 && dot > x->key + 8) { /* [traffic.NAME]: [traffic]'s */
                    snprintf(base, sizeof base, "traffic%s", dot);
                    df = find_kv(dv, ndef, base);
                }
                if (df && strcmp(df->val, x->val) == 0)
                    continue;
            }
            if (i < nb)
                snprintf(d, sizeof d, "%.100s %.140s -> %.140s", x->key, o ? o->val : "(not set)", x->val);
            else
                snprintf(d, sizeof d, "%.100s %.140s -> (not set)", x->key, x->val);
            if (nd++ < 3 && used + strlen(d) + 3 < n)
                used += (size_t)snprintf(why + used, n - used, "%s%s", nd > 1 ? ", " : "", d);
        }
        if (nd > 3 && used + 20 < n)
            snprintf(why + used, n - used, " and %zu more", nd - 3);
        free(a);
        free(b);
    }
    if (binary && !why[0] && p && strcmp(ver, exp_version) != 0)
        snprintf(why, n, "the binary (rocesim %s -> %s)", ver, exp_version);
    free(now);
    free(js);
}

/* A number after "key": in summary.json, or NAN. */
static double json_num(const char *t, const char *key)
{
    char k[80];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = t ? strstr(t, k) : NULL;
    return p ? strtod(p + strlen(k), NULL) : NAN;
}

/* ------------------------------------------------------------ the table */

static const char *const bucket_names[REPORT_FIXED] = {"", "_small", "_medium", "_large"};
static const char *const layer_names[4] = {"host", "edge", "agg", "core"};

static void csv_field(char **row, size_t *len, size_t *cap, const char *s)
{
    bool q = strpbrk(s, ",\"\n") != NULL;
    size_t need = *len + 2 * strlen(s) + 4;
    if (need > *cap)
        *row = xrealloc(*row, *cap = need * 2);
    char *o = *row + *len;
    if (*len)
        *o++ = ',';
    if (q)
        *o++ = '"';
    for (; *s; s++) {
        if (*s == '"')
            *o++ = '"';
        *o++ = *s;
    }
    if (q)
        *o++ = '"';
    *o = 0;
    *len = (size_t)(o - *row);
}

static void csv_num(char **row, size_t *len, size_t *cap, double v, int prec)
{
    char b[64];
    if (isnan(v))
        b[0] = 0;
    else
        snprintf(b, sizeof b, "%.*f", prec, v);
    csv_field(row, len, cap, b);
}

static char *table_header(const struct sweep_spec *s)
{
    char *row = NULL;
    size_t len = 0, cap = 0;
    char b[96];
    csv_field(&row, &len, &cap, "run");
    for (int k = 0; k < s->nk; k++)
        csv_field(&row, &len, &cap, s->k[k].key);
    static const char *const head[] = {"status", "flows", "finished", "afct_us", "fct_p50_us", "fct_p99_us"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        csv_field(&row, &len, &cap, head[i]);
    for (int b2 = 0; b2 < REPORT_FIXED; b2++)
        for (int p = 0; p < 3; p++) {
            snprintf(b, sizeof b, "sd%s_%s", bucket_names[b2], p == 0 ? "p50" : p == 1 ? "p95" : "p99");
            csv_field(&row, &len, &cap, b);
        }
    csv_field(&row, &len, &cap, "pause_frames");
    for (int l = 0; l < 4; l++) {
        snprintf(b, sizeof b, "pause_frames_%s", layer_names[l]);
        csv_field(&row, &len, &cap, b);
    }
    for (int l = 0; l < 4; l++) {
        snprintf(b, sizeof b, "paused_us_%s", layer_names[l]);
        csv_field(&row, &len, &cap, b);
    }
    /* iter_us .. busbw_GBps: the collectives (collective.csv; empty without
     * one): iteration time mean and p99, busbw mean. wall_s, the one column
     * that differs between identical runs, stays last. */
    static const char *const tail[] = {"drops",       "timeouts",   "ecn_marks", "sim_ms", "iter_us",
                                       "iter_p99_us", "busbw_GBps", "wall_s"};
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
        csv_field(&row, &len, &cap, tail[i]);
    return row;
}

/* Why a point has no result: its run failed, was cut short by a signal
 * (Ctrl-C), or was not started. */
enum unrun { UNRUN_FAILED, UNRUN_INTERRUPTED, UNRUN_PENDING };

/* One row of sweep.csv from a run folder (status failed, interrupted or
 * pending, with empty statistics, when the run did not complete or its
 * files do not parse). */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A run's collective iterations (every job's, collective.csv's finished
 * rows): out = {mean, p99 of the iteration time in us, busbw in GB/s}, NaN
 * without collective.csv or a finished iteration. busbw is the job's, by
 * nccl-tests' time per iteration (job_busbw_GBps, as summary.json's), averaged
 * over the rows (so over jobs, weighted by their finished iterations); an
 * older collective.csv without that column gives its iterations' mean. */
static void collective_stats(const char *dir, double out[3])
{
    out[0] = out[1] = out[2] = NAN;
    char path[DIRBUF + 32];
    snprintf(path, sizeof path, "%s/collective.csv", dir);
    char *t = exp_slurp(path, NULL);
    if (!t)
        return;
    double *v = NULL, bus = 0;
    size_t n = 0;
    char *save = NULL;
    strtok_r(t, "\n", &save); /* the header */
    for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        /* job,collective,hosts,size_bytes,chunks,iteration,start_ns,end_ns,time_ns,algbw_GBps,busbw_GBps,...,job_busbw_GBps */
        char *f[30];
        int k = 0;
        for (char *p = line; p && k < 30; k++) {
            f[k] = p;
            p = strchr(p, ',');
            if (p)
                *p++ = 0;
        }
        if (k < 11 || !*f[8])
            continue;
        v = xrealloc(v, (n + 1) * sizeof *v);
        v[n++] = strtod(f[8], NULL) / 1e3;
        bus += strtod(k == 30 && *f[29] ? f[29] : f[10], NULL);
    }
    if (n) {
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += v[i];
        qsort(v, n, sizeof *v, cmp_double);
        out[0] = sum / (double)n;
        out[1] = v[(size_t)((double)n * 0.99)];
        out[2] = bus / (double)n;
    }
    free(v);
    free(t);
}

static char *table_row(const struct sweep_spec *s, const int *choice, const char *name, const char *dir, enum unrun why)
{
    char *row = NULL;
    size_t len = 0, cap = 0;
    csv_field(&row, &len, &cap, name);
    for (int k = 0; k < s->nk; k++)
        csv_field(&row, &len, &cap, s->k[k].vals[choice[k]]);
    struct report_run r;
    struct err e;
    bool ok = run_complete(dir) && report_load(&r, dir, &e) == 0;
    if (!ok) {
        csv_field(&row, &len, &cap, why == UNRUN_FAILED ? "failed" : why == UNRUN_INTERRUPTED ? "interrupted" : "pending");
        for (int i = 0; i < 5 + 3 * REPORT_FIXED + 9 + 8; i++)
            csv_field(&row, &len, &cap, "");
        return row;
    }
    struct report_summary sm;
    report_compute(&r, &sm);
    char path[DIRBUF + 32];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *js = exp_slurp(path, NULL);
    csv_field(&row, &len, &cap, "ok");
    csv_num(&row, &len, &cap, (double)sm.flows, 0);
    csv_num(&row, &len, &cap, (double)sm.finished, 0);
    csv_num(&row, &len, &cap, sm.afct_us, 3);
    csv_num(&row, &len, &cap, sm.fct[0].p50, 3);
    csv_num(&row, &len, &cap, sm.fct[0].p99, 3);
    for (int b = 0; b < REPORT_FIXED; b++) {
        csv_num(&row, &len, &cap, sm.sd[b].p50, 4);
        csv_num(&row, &len, &cap, sm.sd[b].p95, 4);
        csv_num(&row, &len, &cap, sm.sd[b].p99, 4);
    }
    csv_num(&row, &len, &cap, json_num(js, "pfc_pause_frames"), 0);
    for (int l = 0; l < 4; l++)
        csv_num(&row, &len, &cap, r.has_layers ? (double)r.pause_sent[l] : NAN, 0);
    double paused[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < r.n_ports; i++)
        if (r.ports[i].layer >= 0 && r.ports[i].layer < 4)
            paused[r.ports[i].layer] += r.ports[i].paused_us;
    for (int l = 0; l < 4; l++)
        csv_num(&row, &len, &cap, r.has_ports ? paused[l] : NAN, 3);
    csv_num(&row, &len, &cap, json_num(js, "packets_dropped"), 0);
    csv_num(&row, &len, &cap, json_num(js, "timeouts"), 0);
    csv_num(&row, &len, &cap, json_num(js, "ecn_marks"), 0);
    csv_num(&row, &len, &cap, json_num(js, "sim_time_ns") / 1e6, 6);
    double coll[3];
    collective_stats(dir, coll);
    csv_num(&row, &len, &cap, coll[0], 3);
    csv_num(&row, &len, &cap, coll[1], 3);
    csv_num(&row, &len, &cap, coll[2], 4);
    csv_num(&row, &len, &cap, json_num(js, "wall_seconds"), 3);
    free(js);
    report_free(&r);
    return row;
}

/* ------------------------------------------------------------- running */

struct point {
    size_t index;
    int choice[SWEEP_MAX_KEYS];
    char name[512];
    char dir[DIRBUF];
    pid_t pid;
    double t0;
    int status; /* 0 pending, 1 running, 2 ok, 3 failed, 4 skipped (complete before), 5 interrupted */
};

static void fmt_dur(char *b, size_t n, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(b, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(b, n, "%ld:%02ld", t / 60, t % 60);
}

static pid_t launch(const char *self, struct point *p)
{
    char scen[DIRBUF + 32], log[DIRBUF + 32];
    snprintf(scen, sizeof scen, "%s/scenario.ini", p->dir);
    snprintf(log, sizeof log, "%s/run.log", p->dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) {
            dup2(nul, STDIN_FILENO);
            close(nul);
        }
        /* one run of its own: under mpirun this process is a rank of the
         * sweep, and the run must not take itself for one (cli/dist_mpi.c) */
        setenv("ROCESIM_SWEEP_CHILD", "1", 1);
        execl(self, "rocesim", "run", scen, "--out", p->dir, "--quiet", (char *)NULL);
        fprintf(stderr, "rocesim sweep: cannot run %s: %s\n", self, strerror(errno));
        _exit(127);
    }
    return pid;
}

struct progress {
    bool tty, quiet;
    size_t total, done, failed, skipped, running;
    double t0;
};

static void progress_line(const struct progress *g, const struct point *p, bool final)
{
    if (g->quiet)
        return;
    size_t finished = g->done + g->failed;
    size_t left = g->total - g->skipped - finished;
    double el = proc_wall() - g->t0;
    char eta[32] = "?", els[32];
    fmt_dur(els, sizeof els, el);
    if (finished) /* the runs finished so far, with as many running at once as now, set the pace */
        fmt_dur(eta, sizeof eta, el / (double)finished * (double)left);
    if (g->tty) {
        fprintf(stderr, "\rsweep: %zu/%zu runs done (%zu skipped, %zu failed), %zu running, %s elapsed, ETA %s   ",
                finished + g->skipped, g->total, g->skipped, g->failed, g->running, els, eta);
        if (final)
            fputc('\n', stderr);
    } else if (p) {
        fprintf(stderr, "sweep: [%zu/%zu] %s %s (%s elapsed, ETA %s)\n", finished + g->skipped, g->total, p->name,
                p->status == 2 ? "ok" : "FAILED", els, eta);
    }
}

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig)
{
    stop_signal = sig;
}

static int run_points(struct point *pts, size_t n, int jobs, const char *self, struct progress *g)
{
    size_t next = 0;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    double last = 0;
    while (!stop_signal) {
        while ((int)g->running < jobs && next < n && !stop_signal) {
            struct point *p = &pts[next++];
            if (p->status != 0)
                continue;
            p->t0 = proc_wall();
            if ((p->pid = launch(self, p)) < 0) {
                fprintf(stderr, "rocesim sweep: fork: %s\n", strerror(errno));
                p->status = 3;
                g->failed++;
                continue;
            }
            p->status = 1;
            g->running++;
        }
        if (!g->running)
            break;
        int st;
        pid_t w = waitpid(-1, &st, 0);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (size_t i = 0; i < n; i++)
            if (pts[i].status == 1 && pts[i].pid == w) {
                struct point *p = &pts[i];
                g->running--;
                /* a run stopped on a PFC deadlock (exit 3) or by the watchdog (4) is a result, not a failure */
                bool ok = WIFEXITED(st) &&
                          (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == EXIT_DEADLOCK || WEXITSTATUS(st) == EXIT_STALLED) &&
                          run_complete(p->dir);
                p->status = ok ? 2 : 3;
                ok ? g->done++ : g->failed++;
                if (!ok && !g->quiet) {
                    char why[64];
                    if (WIFSIGNALED(st))
                        snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(st));
                    else
                        snprintf(why, sizeof why, "exit code %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
                    fprintf(stderr, "%ssweep: run %s failed (%s), see %s/run.log\n", g->tty ? "\n" : "", p->name, why,
                            p->dir);
                }
                if (!g->tty || proc_wall() - last > 0.2) {
                    progress_line(g, p, false);
                    last = proc_wall();
                }
            }
    }
    if (stop_signal) { /* pass it on, wait, and let the next sweep redo what was cut short */
        for (size_t i = 0; i < n; i++)
            if (pts[i].status == 1) {
                kill(pts[i].pid, SIGTERM);
                pts[i].status = 5;
            }
        while (g->running && waitpid(-1, NULL, 0) > 0)
            g->running--;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (g->tty)
        progress_line(g, NULL, true);
    return stop_signal ? -1 : 0;
}

/* ----------------------------------------------- reading a sweep folder */

int exp_sweep_runs(const char *dir, char ***paths, const char *who)
{
    char csv[DIRBUF + 32], p[DIRBUF + 600];
    snprintf(csv, sizeof csv, "%s/sweep.csv", dir);
    FILE *f = fopen(csv, "r");
    *paths = NULL;
    if (!f)
        return -1;
    char *line = NULL, **names = NULL;
    size_t cap = 0;
    int n = 0, nn = 0, status_col = -1, skipped = 0;
    for (int r = 0; getline(&line, &cap, f) >= 0; r++) {
        line[strcspn(line, "\r\n")] = 0;
        /* the run column is first and never quoted (folder names have no comma) */
        char *c = strchr(line, ',');
        if (!c)
            continue;
        *c = 0;
        if (r == 0) { /* the header: which column is status */
            int k = 1;
            for (char *q = c + 1; q; q = strchr(q, ','), k++) {
                q += *q == ',';
                if (strncmp(q, "status,", 7) == 0 || strcmp(q, "status") == 0) {
                    status_col = k;
                    break;
                }
            }
            continue;
        }
        names = xrealloc(names, (size_t)(nn + 1) * sizeof *names);
        names[nn++] = strdup(line);
        const char *st = c + 1;
        for (int k = 1; k < status_col && st; k++)
            st = strchr(st, ',') ? strchr(st, ',') + 1 : NULL;
        if (!st || strncmp(st, "ok,", 3) != 0) {
            skipped++;
            continue;
        }
        snprintf(p, sizeof p, "%s/%s", dir, line);
        *paths = xrealloc(*paths, (size_t)(n + 1) * sizeof **paths);
        (*paths)[n++] = strdup(p);
    }
    free(line);
    fclose(f);
    if (who && skipped)
        fprintf(stderr, "%s: %s: %d run%s not ok in sweep.csv (failed, interrupted or pending) left out\n", who, csv, skipped,
                skipped == 1 ? "" : "s");
    /* folders of runs that are not rows of the table: an earlier grid's */
    DIR *d = who ? opendir(dir) : NULL;
    struct dirent *de;
    int nf = 0;
    char first[256] = "";
    while (d && (de = readdir(d))) {
        snprintf(p, sizeof p, "%s/%s/scenario.ini", dir, de->d_name);
        if (de->d_name[0] == '.' || access(p, F_OK) != 0)
            continue;
        bool listed = false;
        for (int i = 0; i < nn && !listed; i++)
            listed = strcmp(names[i], de->d_name) == 0;
        if (!listed && !nf++)
            snprintf(first, sizeof first, "%.255s", de->d_name);
    }
    if (d)
        closedir(d);
    if (nf)
        fprintf(stderr, "%s: %s/: %d folder%s not in sweep.csv (an earlier grid's?) left out, e.g. %s\n", who, dir, nf,
                nf == 1 ? "" : "s", first);
    for (int i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    return n;
}

/* ---------------------------------------------------------------- main */

static const char sweep_usage[] =
    "usage: rocesim sweep FILE [--jobs N] [--out DIR] [--shard I/N] [--any-binary] [--quiet]\n"
    "Runs the cross product of FILE's [sweep] section (keys section.key, values\n"
    "`a, b, c`, `LO:HI:STEP` or `LO..HI`), one `rocesim run` process per point,\n"
    "N at a time (default: every core, divided by the most run.threads a point\n"
    "uses). Each run goes to DIR/<params>/ with its\n"
    "resolved scenario.ini; DIR/sweep.csv has one row per run. A rerun skips\n"
    "complete runs whose saved configuration and binary version are what would\n"
    "run now (others are rerun, saying what differs); --any-binary keeps complete\n"
    "runs another rocesim binary made when their configuration is what would run\n"
    "now (each run's summary.json names its binary). --shard I/N runs every N-th point from the I-th (0-based)\n"
    "and writes DIR/sweep.shard-I-of-N.csv; under mpirun the points are shared\n"
    "among the ranks and rank 0 writes sweep.csv.\n";

static int parse_int(const char *s, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return *s && !*end && !errno ? 0 : -1;
}

static int cmp_rows(const void *a, const void *b)
{
    size_t x = strtoull(*(char *const *)a, NULL, 10), y = strtoull(*(char *const *)b, NULL, 10);
    return x < y ? -1 : x > y;
}

/* Folders in outdir with a scenario.ini that are not points of this grid:
 * an earlier grid's runs. They are not in sweep.csv (so not in plots or
 * the HTML page either); say so rather than leave them unexplained. */
static void report_foreign(const struct sweep_spec *s, const char *outdir)
{
    DIR *d = opendir(outdir);
    if (!d)
        return;
    struct dirent *de;
    size_t n = 0;
    char first[3][256], path[DIRBUF + 300], name[512];
    int choice[SWEEP_MAX_KEYS];
    while ((de = readdir(d))) {
        snprintf(path, sizeof path, "%s/%s/scenario.ini", outdir, de->d_name);
        if (de->d_name[0] == '.' || access(path, F_OK) != 0)
            continue;
        bool mine = false;
        for (size_t i = 0; i < s->npoints && !mine; i++) {
            sweep_point(s, i, choice);
            sweep_point_name(s, choice, name, sizeof name);
            mine = strcmp(name, de->d_name) == 0;
        }
        if (!mine && n < 3)
            snprintf(first[n], sizeof first[n], "%.255s", de->d_name);
        n += !mine;
    }
    closedir(d);
    if (n)
        fprintf(stderr, "sweep: %zu folder%s in %s/ %s not point%s of this grid (an earlier grid's?) and %s left out of "
                        "sweep.csv, plots and reports: %s%s%s%s%s%s\n",
                n, n == 1 ? "" : "s", outdir, n == 1 ? "is" : "are", n == 1 ? "" : "s", n == 1 ? "is" : "are", first[0],
                n > 1 ? ", " : "", n > 1 ? first[1] : "", n > 2 ? ", " : "", n > 2 ? first[2] : "", n > 3 ? ", ..." : "");
}

/* [cc.NAME] / [lb.NAME] keys of the sweep file that no point runs: a sweep
 * whose variants switch schemes sets keys that only some points use, so each
 * point stays quiet and the sweep warns once of keys every point leaves
 * unused (config_unused_scheme_keys). */
struct unused_key {
    char key[80], where[DIRBUF + 48], why[200];
    size_t points;
};
struct unused_tally {
    struct unused_key *v;
    size_t n, cap;
};

static void tally_unused(void *ctx, const char *key, const char *where, const char *why)
{
    struct unused_tally *t = ctx;
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i].key, key) == 0) {
            t->v[i].points++;
            return;
        }
    if (t->n == t->cap)
        t->v = xrealloc(t->v, (t->cap = t->cap ? 2 * t->cap : 8) * sizeof *t->v);
    struct unused_key *u = &t->v[t->n++];
    snprintf(u->key, sizeof u->key, "%s", key);
    snprintf(u->where, sizeof u->where, "%s", where);
    snprintf(u->why, sizeof u->why, "%s", why);
    u->points = 1;
}

int exp_sweep(int argc, char **argv, const struct exp_dist *d)
{
    const char *file = NULL, *out = NULL;
    long jobs = 0, shard_i = 0, shard_n = 1;
    bool quiet = false, any_binary = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if ((strcmp(a, "--jobs") == 0 || strcmp(a, "-j") == 0) && more) {
            if (parse_int(argv[++i], &jobs) < 0 || jobs < 1 || jobs > 4096) {
                fprintf(stderr, "--jobs %s: expected a whole number of processes, 1..4096\n", argv[i]);
                return EXIT_BADINPUT;
            }
        } else if ((strcmp(a, "--out") == 0 || strcmp(a, "-o") == 0) && more) {
            out = argv[++i];
        } else if (strcmp(a, "--shard") == 0 && more) {
            const char *v = argv[++i], *sl = strchr(v, '/');
            char ib[32];
            snprintf(ib, sizeof ib, "%.*s", sl ? (int)(sl - v) : 0, v);
            if (!sl || parse_int(ib, &shard_i) < 0 || parse_int(sl + 1, &shard_n) < 0 || shard_n < 1 || shard_i < 0 ||
                shard_i >= shard_n) {
                fprintf(stderr, "--shard %s: expected I/N with 0 <= I < N (e.g. 0/4 ... 3/4)\n", v);
                return EXIT_BADINPUT;
            }
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = true;
        } else if (strcmp(a, "--any-binary") == 0) {
            any_binary = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(sweep_usage, stdout);
            return 0;
        } else if (a[0] == '-' || file) {
            fprintf(stderr, "rocesim sweep: %s %s\n%s", a[0] == '-' ? "unknown option or missing value:" : "more than one file:", a,
                    sweep_usage);
            return EXIT_BADINPUT;
        } else {
            file = a;
        }
    }
    if (!file) {
        fputs(sweep_usage, stderr);
        return EXIT_BADINPUT;
    }
    int rank = d ? d->rank : 0, size = d ? d->size : 1;
    bool jobs_auto = !jobs;
    if (!jobs)
        jobs = size > 1 ? 1 : sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    int64_t max_threads = 1; /* the most run.threads any point asks for */

    /* The base scenario, with its [sweep] section checked key by key; the
     * whole-scenario checks apply to each point (the base may be invalid
     * alone, e.g. a kmin that only some points keep below kmax). */
    struct err e;
    char name[PARAM_STR_MAX];
    struct sweep_spec s;
    if (sweep_file_load(&s, file, name, sizeof name, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        return EXIT_BADINPUT;
    }
    if (s.nk == 0) { /* an ns-3 config.txt, or an INI file without [sweep] */
        fprintf(stderr, "%s: no [sweep] section: nothing to sweep (add e.g. [sweep] transport.cc = dcqcn, hpcc; "
                        "one run is `rocesim run`)\n", file);
        sweep_spec_free(&s);
        return EXIT_BADINPUT;
    }
    char outdir[1024];
    snprintf(outdir, sizeof outdir, "%s", out ? out : "");
    if (!out)
        snprintf(outdir, sizeof outdir, "results/%s-sweep", name);
    if (exp_mkdirs(outdir) < 0) {
        fprintf(stderr, "%s: cannot create folder: %s\n", outdir, strerror(errno));
        sweep_spec_free(&s);
        return 1;
    }

    /* Mine: every shard_n-th point from shard_i, and of those every size-th from rank. */
    size_t n = 0;
    struct point *pts = xcalloc(s.npoints / (size_t)shard_n + 1, sizeof *pts);
    struct exp_paths ap = {0};
    exp_paths_of(file, &ap);
    int rc = 0;
    size_t n_stale = 0, n_other_binary = 0;
    struct unused_tally unused = {0};
    for (size_t i = (size_t)shard_i, j = 0; i < s.npoints; i += (size_t)shard_n, j++) {
        if (j % (size_t)size != (size_t)rank)
            continue;
        struct point *p = &pts[n++];
        p->index = i;
        sweep_point(&s, i, p->choice);
        sweep_point_name(&s, p->choice, p->name, sizeof p->name);
        snprintf(p->dir, sizeof p->dir, "%s/%s", outdir, p->name);
        char *text = exp_point_text(file, &s, p->choice, &ap, name);
        char scen[DIRBUF + 32];
        snprintf(scen, sizeof scen, "%s/scenario.ini", p->dir);
        /* Every point must be a valid scenario before anything runs: a bad combination is an input error. */
        struct config pc;
        struct err pe;
        int bad = config_init(&pc) < 0;
        pc.sweep_point = true;
        bad = bad || config_load_ini(&pc, text, scen, &pe) < 0 || config_validate(&pc, &pe) < 0;
        if (!bad)
            config_unused_scheme_keys(&pc, tally_unused, &unused);
        if (!bad && pc.run.threads > max_threads)
            max_threads = pc.run.threads;
        char why[600] = "";
        bool complete = !bad && run_complete(p->dir);
        if (complete)
            exp_run_stale(p->dir, &pc, true, why, sizeof why);
        if (any_binary && strncmp(why, "the binary (", 12) == 0) { /* only the binary differs: kept, as asked */
            n_other_binary++;
            why[0] = 0;
        }
        config_load_free(&pc);
        config_free(&pc);
        if (why[0]) { /* complete, but not what would run now: run it again */
            if (!n_stale++ && !quiet)
                fprintf(stderr, "sweep: %s/ holds results of another configuration or binary: %s; rerunning it\n",
                        p->dir, why);
            complete = false;
        }
        if (bad) {
            /* Point at the sweep file's [sweep] line, not at a resolved file never written. */
            const char *why = pe.msg;
            if (strncmp(why, scen, strlen(scen)) == 0 && strstr(why, ": "))
                why = strstr(why, ": ") + 2;
            fprintf(stderr, "%s:%d: [sweep] point %s: %s\n", file, s.nk ? s.k[0].line : 1, p->name, why);
            free(text);
            rc = EXIT_BADINPUT;
            break;
        }
        if (complete) {
            p->status = 4;
        } else {
            FILE *f = NULL;
            char sj[DIRBUF + 32];
            snprintf(sj, sizeof sj, "%s/summary.json", p->dir);
            if (exp_mkdirs(p->dir) < 0 || (unlink(sj) < 0 && errno != ENOENT) || !(f = fopen(scen, "w")) ||
                fputs(text, f) < 0 || fclose(f) != 0) {
                fprintf(stderr, "%s: cannot write: %s\n", scen, strerror(errno));
                rc = 1;
            }
        }
        free(text);
        if (rc)
            break;
    }
    exp_paths_free(&ap);
    for (size_t i = 0; !rc && rank == 0 && i < unused.n; i++)
        if (unused.v[i].points == n)
            warnf("%s: %s is set, but none of the %zu point%s run here uses it (%s)", unused.v[i].where,
                  unused.v[i].key, n, n == 1 ? "" : "s", unused.v[i].why);
    free(unused.v);
    if (rc) {
        free(pts);
        sweep_spec_free(&s);
        return rc;
    }

    /* points that run on several threads each (run.threads): as many at once as the cores hold */
    if (jobs_auto && max_threads > 1)
        jobs = jobs / max_threads > 1 ? jobs / max_threads : 1;
    struct progress g = {.tty = isatty(STDERR_FILENO) && rank == 0, .quiet = quiet, .total = n, .t0 = proc_wall()};
    for (size_t i = 0; i < n; i++)
        g.skipped += pts[i].status == 4;
    if (!quiet && n_other_binary)
        fprintf(stderr, "sweep: %zu complete point%s made by another rocesim binary kept (--any-binary; each run's "
                        "summary.json names its binary)\n", n_other_binary, n_other_binary == 1 ? "" : "s");
    if (!quiet && n_stale > 1)
        fprintf(stderr, "sweep: %zu points in all hold results of another configuration or binary; rerunning them\n",
                n_stale);
    if (!quiet && rank == 0) {
        fprintf(stderr, "sweep: %zu points%s, %zu here (%zu complete already), %ld at a time%s -> %s/\n", s.npoints,
                shard_n > 1 ? " in all" : "", n, g.skipped, jobs, size > 1 ? " per rank" : "", outdir);
        report_foreign(&s, outdir);
    }
    int interrupted = run_points(pts, n, (int)jobs, exp_self(), &g) < 0;

    /* The table: my rows ("INDEX\tROW\n"), gathered on rank 0 in point order. */
    size_t tcap = 1024, tlen = 0;
    char *mine = xmalloc(tcap);
    mine[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int st = pts[i].status;
        char *row = table_row(&s, pts[i].choice, pts[i].name, pts[i].dir,
                              st == 5 ? UNRUN_INTERRUPTED : st == 2 || st == 3 ? UNRUN_FAILED : UNRUN_PENDING);
        size_t need = tlen + strlen(row) + 32;
        if (need > tcap)
            mine = xrealloc(mine, tcap = need * 2);
        tlen += (size_t)sprintf(mine + tlen, "%zu\t%s\n", pts[i].index, row);
        free(row);
    }
    char *all = d && d->gather ? d->gather(mine) : mine;
    if (all) {
        size_t nrows = 0, cap = 64;
        char **rows = xmalloc(cap * sizeof *rows);
        for (char *p = strtok(all, "\n"); p; p = strtok(NULL, "\n")) {
            if (nrows == cap)
                rows = xrealloc(rows, (cap *= 2) * sizeof *rows);
            rows[nrows++] = p;
        }
        qsort(rows, nrows, sizeof *rows, cmp_rows);
        char csv[1200];
        if (shard_n > 1)
            snprintf(csv, sizeof csv, "%s/sweep.shard-%ld-of-%ld.csv", outdir, shard_i, shard_n);
        else
            snprintf(csv, sizeof csv, "%s/sweep.csv", outdir);
        char tmp[1300];
        snprintf(tmp, sizeof tmp, "%s.tmp", csv);
        FILE *f = fopen(tmp, "w");
        char *hdr = table_header(&s);
        size_t ok = 0, failed = 0, interrupted = 0, pending = 0;
        if (f) {
            fprintf(f, "%s\n", hdr);
            for (size_t i = 0; i < nrows; i++) {
                const char *r = strchr(rows[i], '\t') + 1;
                fprintf(f, "%s\n", r);
                ok += strstr(r, ",ok,") != NULL;
                failed += strstr(r, ",failed,") != NULL;
                interrupted += strstr(r, ",interrupted,") != NULL;
                pending += strstr(r, ",pending,") != NULL;
            }
        }
        free(hdr);
        if (!f || fclose(f) != 0 || rename(tmp, csv) != 0) {
            fprintf(stderr, "%s: cannot write: %s\n", csv, strerror(errno));
            rc = 1;
        } else if (!quiet) { /* what ran, what was cut short, what is still to run */
            char here[96] = "";
            if (size == 1)
                snprintf(here, sizeof here, " (%zu run now, %zu complete before)", g.done, g.skipped);
            fprintf(stderr, "sweep: %zu runs: %zu ok%s, %zu failed, %zu interrupted, %zu pending%s -> %s\n", nrows, ok, here,
                    failed, interrupted, pending, interrupted || pending ? " (rerun the sweep to finish them)" : "", csv);
        }
        if (failed || interrupted || pending)
            rc = 1;
        free(rows);
        if (all != mine)
            free(all);
    }
    if (interrupted)
        rc = 130;
    free(mine);
    free(pts);
    sweep_spec_free(&s);
    return rc;
}
