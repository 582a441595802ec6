/* Flow-size CDFs: parsing both file formats, the two means, and sampling.
 *
 * Conventions (see also traffic.h):
 *  - Format: "size p" per line, '#' starts a comment. A CDF whose last p is
 *    100 is ns-3 traffic_gen's percent format and is divided by 100 (unless
 *    every earlier point is at most 1: fractions ending at 100 are refused).
 *  - Sizes and probabilities may repeat (non-decreasing, unlike ns-3's strict
 *    testCdf): an equal size with a higher p is an atom (that exact size has
 *    probability p_i - p_{i-1}); an equal p with a higher size is a gap with
 *    no probability. Sampling skips zero-probability segments.
 *  - A first point with p > 0 (Homa's discrete CDFs: web_server.cdf,
 *    cache_follower.cdf) is an atom at that size: the point (x0, 0) is put in
 *    front, which reproduces the means in those files' headers. ns-3 rejects
 *    such files; we accept them because they ship in our workloads folder.
 *  - Linear sampling is ns-3's getValueFromPercentile (interpolate inside the
 *    first segment whose upper p is >= u, u in [0,1), truncate like int());
 *    step sampling takes the size of the first point with p >= u, u in (0,1].
 *    Each has the matching mean, and the result is at least 1 byte. */
#include "traffic/traffic.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CDF_MAX_SIZE 1e15 /* 1 PB: keeps every sample and mean exact in a double and a uint64 */

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* A token [s, s+len) as a finite double; only decimal notation is taken
 * (strtod alone would also accept "inf", "nan" and hex). */
static int token_number(const char *s, size_t len, double *v)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    for (size_t i = 0; i < len; i++)
        if (!strchr("0123456789.eE+-", s[i]) || s[i] == '\0')
            return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    *v = strtod(buf, &end);
    return (*end || errno == ERANGE || !isfinite(*v)) ? -1 : 0;
}

static void set_name(struct cdf *c, const char *fname)
{
    const char *b = strrchr(fname, '/');
    b = b ? b + 1 : fname;
    const char *dot = strrchr(b, '.');
    size_t n = dot && dot > b ? (size_t)(dot - b) : strlen(b);
    if (n >= sizeof c->name)
        n = sizeof c->name - 1;
    memcpy(c->name, b, n);
    c->name[n] = '\0';
}

int cdf_parse(struct cdf *c, const char *text, const char *fname, struct err *e)
{
    memset(c, 0, sizeof *c);
    size_t cap = 0, n = 0;
    double *x = NULL, *p = NULL;
    int line = 0, last_line = 1;
    int rc = -1;

    /* One slot is kept free in front for the (x0, 0) point added below. */
    for (const char *s = text; *s;) {
        const char *eol = strchr(s, '\n');
        if (!eol)
            eol = s + strlen(s);
        line++;
        const char *tok[3];
        size_t tlen[3];
        int nt = 0;
        for (const char *q = s; q < eol && *q != '#';) {
            if (is_space(*q)) {
                q++;
                continue;
            }
            const char *b = q;
            while (q < eol && !is_space(*q) && *q != '#')
                q++;
            if (nt == 3)
                break;
            tok[nt] = b;
            tlen[nt++] = (size_t)(q - b);
        }
        s = *eol ? eol + 1 : eol;
        if (nt == 0)
            continue;
        if (nt == 1) {
            errf(e, "%s:%d: expected 'size probability', found only '%.*s'", fname, line, (int)tlen[0] > 40 ? 40 : (int)tlen[0], tok[0]);
            goto out;
        }
        if (nt == 3) {
            errf(e, "%s:%d: extra field '%.*s' after 'size probability'", fname, line, (int)tlen[2] > 40 ? 40 : (int)tlen[2], tok[2]);
            goto out;
        }
        double xv, pv;
        if (token_number(tok[0], tlen[0], &xv)) {
            errf(e, "%s:%d: size '%.*s' is not a number", fname, line, (int)tlen[0] > 40 ? 40 : (int)tlen[0], tok[0]);
            goto out;
        }
        if (token_number(tok[1], tlen[1], &pv)) {
            errf(e, "%s:%d: probability '%.*s' is not a number", fname, line, (int)tlen[1] > 40 ? 40 : (int)tlen[1], tok[1]);
            goto out;
        }
        if (xv < 0) {
            errf(e, "%s:%d: size %g is negative", fname, line, xv);
            goto out;
        }
        if (xv > CDF_MAX_SIZE) {
            errf(e, "%s:%d: size %g is over 1 PB", fname, line, xv);
            goto out;
        }
        if (pv < 0) {
            errf(e, "%s:%d: probability %g is negative", fname, line, pv);
            goto out;
        }
        if (n > 0 && pv < p[n]) {
            errf(e, "%s:%d: probability %g is below the previous point's %g (a CDF never decreases)", fname, line, pv, p[n]);
            goto out;
        }
        if (n > 0 && xv < x[n]) {
            errf(e, "%s:%d: size %g is below the previous point's %g (sizes must not decrease)", fname, line, xv, x[n]);
            goto out;
        }
        if (n + 2 > cap) {
            if (n > 100000000) {
                errf(e, "%s:%d: more than 10^8 points", fname, line);
                goto out;
            }
            size_t nc = cap ? cap * 2 : 32;
            double *nx = realloc(x, nc * sizeof *x);
            if (nx)
                x = nx;
            double *np = nx ? realloc(p, nc * sizeof *p) : NULL;
            if (!np) {
                errf(e, "%s:%d: out of memory", fname, line);
                goto out;
            }
            p = np;
            cap = nc;
        }
        n++;
        x[n] = xv;
        p[n] = pv;
        last_line = line;
    }
    if (n < 2) {
        errf(e, "%s:%d: a CDF needs at least 2 points, found %zu", fname, line ? line : 1, n);
        goto out;
    }
    double scale;
    if (fabs(p[n] - 100) <= 1e-9 && n >= 3 && p[n - 1] <= 1) { /* 99 %+ of flows in the last segment? */
        errf(e, "%s:%d: the CDF ends at 100 (ns-3's percent format) but every earlier point is at most 1 (the one "
                "before the last is %g): fractions with a last point of 100? End it at 1 for fractions, or write every "
                "point in percent", fname, last_line, p[n - 1]);
        goto out;
    }
    if (fabs(p[n] - 100) <= 1e-9)
        scale = 100;
    else if (fabs(p[n] - 1) <= 1e-9)
        scale = 1;
    else {
        errf(e, "%s:%d: CDF must end at 1 (or 100 in ns-3 percent format), not %g", fname, last_line, p[n]);
        goto out;
    }
    for (size_t i = 1; i <= n; i++)
        p[i] = fmin(p[i] / scale, 1.0);
    p[n] = 1.0;
    /* Slot 0: the (x0, 0) point, used only when the file starts above 0. */
    size_t first = 1;
    if (p[1] > 0) {
        x[0] = x[1];
        p[0] = 0;
        first = 0;
    }
    c->n = (int)(n + 1 - first);
    c->x = malloc((size_t)c->n * sizeof *c->x);
    c->p = malloc((size_t)c->n * sizeof *c->p);
    if (!c->x || !c->p) {
        cdf_free(c);
        errf(e, "%s: out of memory", fname);
        goto out;
    }
    memcpy(c->x, x + first, (size_t)c->n * sizeof *x);
    memcpy(c->p, p + first, (size_t)c->n * sizeof *p);
    /* custom_rand.getAvg (trapezoids) and the discrete mean. */
    for (int i = 1; i < c->n; i++) {
        double dp = c->p[i] - c->p[i - 1];
        c->mean_linear += (c->x[i] + c->x[i - 1]) / 2.0 * dp;
        c->mean_step += c->x[i] * dp;
    }
    set_name(c, fname);
    rc = 0;
out:
    free(x);
    free(p);
    return rc;
}

void cdf_free(struct cdf *c)
{
    free(c->x);
    free(c->p);
    c->x = c->p = NULL;
    c->n = 0;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* "traffic.cdf: no workload named ..." with the .cdf names found in `dir`. */
static int unknown_workload(const char *spec, const char *dir, struct err *e)
{
    char known[768] = "";
    size_t n = 0, cap = 0;
    char **names = NULL;
    DIR *d = dir ? opendir(dir) : NULL;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (!ends_with(de->d_name, ".cdf") || strlen(de->d_name) == 4)
            continue;
        if (n == cap) {
            char **nn = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof *names);
            if (!nn)
                break;
            names = nn;
        }
        if (!(names[n] = strdup(de->d_name)))
            break;
        names[n++][strlen(de->d_name) - 4] = '\0';
    }
    if (d)
        closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(names[i]);
        if (len + l + 8 >= sizeof known) {
            strcpy(known + len, ", ...");
            break;
        }
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", names[i]);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (!dir)
        return errf(e, "traffic.cdf: no workload named '%.100s' (no workloads folder given)", spec);
    if (n == 0)
        return errf(e, "traffic.cdf: no workload named '%.100s' (no .cdf files in %.200s)", spec, dir);
    return errf(e, "traffic.cdf: no workload named '%.100s' (known: %s)", spec, known);
}

int cdf_load(struct cdf *c, const char *spec, const char *workloads_dir, struct err *e)
{
    memset(c, 0, sizeof *c);
    char path[4096];
    int by_name = !(strchr(spec, '/') || ends_with(spec, ".cdf") || ends_with(spec, ".txt"));
    if (!by_name)
        snprintf(path, sizeof path, "%s", spec);
    else if (!*spec || !workloads_dir ||
             (size_t)snprintf(path, sizeof path, "%s/%s.cdf", workloads_dir, spec) >= sizeof path)
        return unknown_workload(spec, workloads_dir, e);
    char *text;
    if (read_text_file(path, &text, e)) {
        if (by_name && access(path, F_OK) != 0 && errno == ENOENT)
            return unknown_workload(spec, workloads_dir, e);
        return -1;
    }
    int rc = cdf_parse(c, text, path, e);
    free(text);
    if (rc == 0 && by_name)
        snprintf(c->name, sizeof c->name, "%s", spec);
    return rc;
}

/* First index i in [lo, n) with p[i] >= u (p is sorted; p[n-1] = 1 >= u). */
static int lower_bound(const double *p, int lo, int n, double u)
{
    int hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (p[mid] >= u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

uint64_t cdf_sample(const struct cdf *c, struct rng *r, int sampling)
{
    double v;
    if (sampling == 1) {
        double u = 1.0 - rng_uniform(r); /* (0, 1]: p[0] = 0 is never chosen */
        v = c->x[lower_bound(c->p, 0, c->n, u)];
    } else {
        double u = rng_uniform(r);
        int i = lower_bound(c->p, 1, c->n, u);
        while (c->p[i] == c->p[i - 1]) /* only a leading zero-probability gap with u = 0 */
            i++;
        double x0 = c->x[i - 1], p0 = c->p[i - 1];
        v = x0 + (c->x[i] - x0) / (c->p[i] - p0) * (u - p0);
        if (v > c->x[i]) /* rounding */
            v = c->x[i];
    }
    uint64_t s = (uint64_t)v; /* truncation like ns-3's int() */
    return s ? s : 1;
}

double cdf_mean(const struct cdf *c, int sampling) { return sampling == 1 ? c->mean_step : c->mean_linear; }
