/* [sweep] values, points and resolved scenarios; see sweepspec.h. */
#include "scenario/sweepspec.h"
#include "scenario/load.h"
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/xalloc.h"

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void sweep_values_free(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static char *trimmed(const char *s, size_t len)
{
    while (len && isspace((unsigned char)*s))
        s++, len--;
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    char *r = xmalloc(len + 1);
    memcpy(r, s, len);
    r[len] = 0;
    return r;
}

/* A whole string as a number (strtod accepts leading blanks, we trimmed). */
static int full_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return *s && !*end && !errno && isfinite(*v) ? 0 : -1;
}

static int full_ll(const char *s, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return *s && !*end && !errno ? 0 : -1;
}

int sweep_values(const char *spec, char ***out, const char **why)
{
    *out = NULL;
    char *t = trimmed(spec, strlen(spec));
    const char *dots = strstr(t, "..");
    int colons = 0;
    for (const char *p = t; *p; p++)
        colons += *p == ':';
    char **v = NULL;
    int n = 0;
    if (!*t) {
        *why = "no values (expected a list a, b, c or a range LO:HI:STEP or LO..HI)";
        goto bad;
    }
    if (!strchr(t, ',') && dots) { /* LO..HI */
        long long lo, hi;
        char *a = trimmed(t, (size_t)(dots - t)), *b = trimmed(dots + 2, strlen(dots + 2));
        int ok = full_ll(a, &lo) == 0 && full_ll(b, &hi) == 0;
        free(a);
        free(b);
        if (!ok) {
            *why = "a range LO..HI needs two whole numbers";
            goto bad;
        }
        if (hi < lo || hi - lo >= SWEEP_MAX_VALUES) {
            *why = hi < lo ? "range LO..HI with HI < LO" : "range has too many values (at most 10000)";
            goto bad;
        }
        n = (int)(hi - lo + 1);
        v = xcalloc((size_t)n, sizeof *v);
        for (int i = 0; i < n; i++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%lld", lo + i);
            v[i] = xstrdup(buf);
        }
    } else if (!strchr(t, ',') && colons == 2) { /* LO:HI:STEP */
        char *c1 = strchr(t, ':'), *c2 = strchr(c1 + 1, ':');
        char *a = trimmed(t, (size_t)(c1 - t)), *b = trimmed(c1 + 1, (size_t)(c2 - c1 - 1)), *s = trimmed(c2 + 1, strlen(c2 + 1));
        double lo, hi, st;
        int ok = full_double(a, &lo) == 0 && full_double(b, &hi) == 0 && full_double(s, &st) == 0;
        free(a);
        free(b);
        free(s);
        if (!ok) {
            *why = "a range LO:HI:STEP needs three plain numbers (e.g. 0.3:0.8:0.1)";
            goto bad;
        }
        if (!(st > 0) || hi < lo) {
            *why = !(st > 0) ? "range step must be > 0" : "range LO:HI:STEP with HI < LO";
            goto bad;
        }
        /* HI is included when it is a whole number of steps from LO, give or take rounding. */
        double cnt = floor((hi - lo) / st + 1e-9) + 1;
        if (cnt > SWEEP_MAX_VALUES) {
            *why = "range has too many values (at most 10000)";
            goto bad;
        }
        n = (int)cnt;
        v = xcalloc((size_t)n, sizeof *v);
        for (int i = 0; i < n; i++) {
            char buf[48];
            snprintf(buf, sizeof buf, "%.10g", lo + i * st); /* 0.3+0.1*2 prints 0.5, not 0.5000000000000001 */
            v[i] = xstrdup(buf);
        }
    } else { /* a list (one value is a list of one) */
        for (const char *p = t;;) {
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            char *item = trimmed(p, len);
            if (!*item) {
                free(item);
                *why = "empty value in the list";
                goto bad;
            }
            if (n == SWEEP_MAX_VALUES) {
                free(item);
                *why = "list has too many values (at most 10000)";
                goto bad;
            }
            v = xrealloc(v, (size_t)(n + 1) * sizeof *v);
            v[n++] = item;
            if (!c)
                break;
            p = c + 1;
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++)
                if (strcmp(v[i], v[j]) == 0) {
                    *why = "a value is listed twice";
                    goto bad;
                }
    }
    free(t);
    *out = v;
    return n;
bad:
    sweep_values_free(v, n);
    free(t);
    return -1;
}

static char *read_all(const char *path, struct err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        errf(e, "%s: cannot open scenario file: %s", path, strerror(errno));
        return NULL;
    }
    size_t len = 0, cap = 4096;
    char *t = xmalloc(cap);
    size_t k;
    while ((k = fread(t + len, 1, cap - 1 - len, f)) > 0) {
        len += k;
        if (len + 1 == cap)
            t = xrealloc(t, cap *= 2);
    }
    fclose(f);
    t[len] = 0;
    return t;
}

/* Cuts an INI comment (';' anywhere, '#' at the start or after a blank). */
static void strip_comment(char *s)
{
    for (char *p = s; *p; p++)
        if (*p == ';' || (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t'))) {
            *p = 0;
            return;
        }
}

/* The key = value lines of [variant.NAME] in text, appended to *keys /
 * *vals (malloc'ed strings); returns how many, or -1 without such a section. */
static int variant_pairs(const char *text, const char *name, char ***keys, char ***vals, int *n)
{
    char want[300], sec[300] = "";
    snprintf(want, sizeof want, "variant.%s", name);
    int found = -1;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        char *l = trimmed(p, len);
        p += len + (p[len] == '\n');
        if (l[0] == '[' && strchr(l, ']')) {
            char *nm = trimmed(l + 1, (size_t)(strchr(l, ']') - l - 1));
            snprintf(sec, sizeof sec, "%s", nm);
            free(nm);
            if (strcmp(sec, want) == 0 && found < 0)
                found = 0;
        } else if (strcmp(sec, want) == 0 && l[0] && l[0] != ';' && l[0] != '#' && strchr(l, '=')) {
            char *eq = strchr(l, '=');
            strip_comment(eq + 1);
            *keys = xrealloc(*keys, (size_t)(*n + 1) * sizeof **keys);
            *vals = xrealloc(*vals, (size_t)(*n + 1) * sizeof **vals);
            (*keys)[*n] = trimmed(l, (size_t)(eq - l));
            (*vals)[*n] = trimmed(eq + 1, strlen(eq + 1));
            (*n)++;
            found++;
        }
        free(l);
    }
    return found;
}

int sweep_spec_load(struct sweep_spec *s, const char *path, struct err *e)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    if (!(s->text = read_all(path, e)))
        return -1;
    char sec[256] = "";
    int line = 0;
    for (const char *p = s->text; *p;) {
        size_t len = strcspn(p, "\n");
        char *l = trimmed(p, len);
        line++;
        p += len + (p[len] == '\n');
        if (l[0] == '[') {
            char *close = strchr(l, ']');
            if (close) {
                char *nm = trimmed(l + 1, (size_t)(close - l - 1));
                snprintf(sec, sizeof sec, "%s", nm);
                free(nm);
            }
        } else if (strcmp(sec, "sweep") == 0 && l[0] && l[0] != ';' && l[0] != '#') {
            char *eq = strpbrk(l, "=:");
            /* "0.3:0.8:0.1" holds ':' too: the key never does, so the first '=' wins when there is one. */
            if (strchr(l, '='))
                eq = strchr(l, '=');
            if (eq) {
                strip_comment(eq + 1);
                if (s->nk == SWEEP_MAX_KEYS) {
                    free(l);
                    sweep_spec_free(s);
                    return errf(e, "%s:%d: more than %d swept keys", path, line, SWEEP_MAX_KEYS);
                }
                struct sweep_key *k = &s->k[s->nk];
                const char *why;
                k->key = trimmed(l, (size_t)(eq - l));
                k->line = line;
                if ((k->n = sweep_values(eq + 1, &k->vals, &why)) < 0) {
                    free(k->key);
                    free(l);
                    sweep_spec_free(s);
                    return errf(e, "%s:%d: [sweep] %s", path, line, why);
                }
                s->nk++;
            }
        }
        free(l);
    }
    for (int i = 0; i < s->nk; i++) /* every variant named must have its section */
        for (int j = 0; sweep_is_variant_key(s->k[i].key) && j < s->k[i].n; j++) {
            char **vk = NULL, **vv = NULL;
            int nv = 0, found = variant_pairs(s->text, s->k[i].vals[j], &vk, &vv, &nv);
            sweep_values_free(vk, nv);
            sweep_values_free(vv, nv);
            if (found < 0) {
                int l = s->k[i].line;
                errf(e, "%s:%d: [sweep] variant '%.80s' has no [variant.%.80s] section", path, l, s->k[i].vals[j],
                     s->k[i].vals[j]);
                sweep_spec_free(s);
                return -1;
            }
        }
    s->npoints = 1;
    for (int i = 0; i < s->nk; i++) {
        if (s->npoints * (size_t)s->k[i].n > SWEEP_MAX_POINTS) {
            int l = s->k[i].line;
            sweep_spec_free(s);
            return errf(e, "%s:%d: [sweep] more than %d points in all", path, l, SWEEP_MAX_POINTS);
        }
        s->npoints *= (size_t)s->k[i].n;
    }
    return 0;
}

void sweep_spec_free(struct sweep_spec *s)
{
    for (int i = 0; i < s->nk; i++) {
        free(s->k[i].key);
        sweep_values_free(s->k[i].vals, s->k[i].n);
    }
    free(s->text);
    memset(s, 0, sizeof *s);
}

void sweep_point(const struct sweep_spec *s, size_t i, int *choice)
{
    for (int k = s->nk - 1; k >= 0; k--) {
        choice[k] = (int)(i % (size_t)s->k[k].n);
        i /= (size_t)s->k[k].n;
    }
}

static const char *short_key(const struct sweep_spec *s, int k)
{
    const char *dot = strrchr(s->k[k].key, '.');
    const char *tail = dot ? dot + 1 : s->k[k].key;
    for (int j = 0; j < s->nk; j++) {
        const char *d2 = strrchr(s->k[j].key, '.');
        if (j != k && strcmp(d2 ? d2 + 1 : s->k[j].key, tail) == 0)
            return s->k[k].key;
    }
    return tail;
}

void sweep_point_name(const struct sweep_spec *s, const int *choice, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    if (s->nk == 0) {
        snprintf(buf, n, "base");
        return;
    }
    for (int k = 0; k < s->nk && used + 1 < n; k++) {
        int w = snprintf(buf + used, n - used, "%s%s=%s", k ? "_" : "", short_key(s, k), s->k[k].vals[choice[k]]);
        if (w < 0)
            break;
        used += (size_t)w < n - used ? (size_t)w : n - used - 1;
    }
    for (char *p = buf; *p; p++)
        if (*p == '/' || isspace((unsigned char)*p))
            *p = '_';
}

/* ------------------------------------------------------------ resolving */

struct sbuf {
    char *s;
    size_t n, cap;
};

static void sb_put(struct sbuf *b, const char *s, size_t len)
{
    if (b->n + len + 1 > b->cap) {
        b->cap = (b->n + len + 1) * 2;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, len);
    b->n += len;
    b->s[b->n] = 0;
}

static void sb_str(struct sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

/* Index of the override for [sec] key, or -1. */
static int find_override(const char *const *keys, int n, const char *sec, const char *key)
{
    size_t sl = strlen(sec);
    for (int i = 0; i < n; i++)
        if (strncmp(keys[i], sec, sl) == 0 && keys[i][sl] == '.' && strcmp(keys[i] + sl + 1, key) == 0)
            return i;
    return -1;
}

/* Adds the overrides of section sec not placed yet. */
static void flush_section(struct sbuf *b, const char *sec, const char *const *keys, const char *const *vals, int n,
                          char *placed)
{
    size_t sl = strlen(sec);
    for (int i = 0; i < n; i++)
        if (!placed[i] && strncmp(keys[i], sec, sl) == 0 && keys[i][sl] == '.' && !strchr(keys[i] + sl + 1, '.')) {
            sb_str(b, keys[i] + sl + 1);
            sb_str(b, " = ");
            sb_str(b, vals[i]);
            sb_str(b, "   ; set by the sweep\n");
            placed[i] = 1;
        }
}

static bool skipped_section(const char *sec)
{
    return strcmp(sec, "sweep") == 0 || strncmp(sec, "variant.", 8) == 0;
}

static char *resolve(const char *text, const char *const *keys, const char *const *vals, int n);

bool sweep_is_variant_key(const char *key)
{
    return strcmp(key, "variant") == 0 || (strncmp(key, "variant_", 8) == 0 && key[8] && !strchr(key, '.'));
}

/* A `variant` key stands for its section's settings; keys the sweep sets
 * itself win over a variant's. */
char *sweep_resolve(const char *text, const char *const *keys, const char *const *vals, int n)
{
    char **k = NULL, **v = NULL;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!sweep_is_variant_key(keys[i])) {
            k = xrealloc(k, (size_t)(m + 1) * sizeof *k);
            v = xrealloc(v, (size_t)(m + 1) * sizeof *v);
            k[m] = xstrdup(keys[i]);
            v[m++] = xstrdup(vals[i]);
        }
    for (int i = 0; i < n; i++)
        if (sweep_is_variant_key(keys[i])) {
            char **vk = NULL, **vv = NULL;
            int nv = 0;
            variant_pairs(text, vals[i], &vk, &vv, &nv);
            for (int j = 0; j < nv; j++) {
                bool dup = false;
                for (int q = 0; q < m && !dup; q++)
                    dup = strcmp(k[q], vk[j]) == 0;
                if (dup || !strchr(vk[j], '.'))
                    continue;
                k = xrealloc(k, (size_t)(m + 1) * sizeof *k);
                v = xrealloc(v, (size_t)(m + 1) * sizeof *v);
                k[m] = xstrdup(vk[j]);
                v[m++] = xstrdup(vv[j]);
            }
            sweep_values_free(vk, nv);
            sweep_values_free(vv, nv);
        }
    char *r = resolve(text, (const char *const *)k, (const char *const *)v, m);
    sweep_values_free(k, m);
    sweep_values_free(v, m);
    return r;
}

static char *resolve(const char *text, const char *const *keys, const char *const *vals, int n)
{
    struct sbuf b = {0};
    char *placed = xcalloc((size_t)n + 1, 1);
    char sec[256] = "";
    sb_str(&b, "; resolved by rocesim sweep: the swept keys are set below, the [sweep] section is commented out\n");
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        const char *line = p;
        p += len + (p[len] == '\n');
        char *l = trimmed(line, len);
        if (l[0] == '[' && strchr(l, ']')) {
            if (!skipped_section(sec))
                flush_section(&b, sec, keys, vals, n, placed);
            char *nm = trimmed(l + 1, (size_t)(strchr(l, ']') - l - 1));
            snprintf(sec, sizeof sec, "%s", nm);
            free(nm);
        }
        if (skipped_section(sec)) {
            sb_str(&b, "; ");
            sb_put(&b, line, len);
            sb_str(&b, "\n");
            free(l);
            continue;
        }
        const char *eq = l[0] != '[' && l[0] != ';' && l[0] != '#' ? strpbrk(l, "=:") : NULL;
        int o = -1;
        if (eq) {
            char *key = trimmed(l, (size_t)(eq - l));
            o = find_override(keys, n, sec, key);
            if (o >= 0) {
                sb_str(&b, key);
                sb_str(&b, " = ");
                sb_str(&b, vals[o]);
                sb_str(&b, "   ; set by the sweep\n");
                placed[o] = 1;
            }
            free(key);
        }
        if (o < 0) {
            sb_put(&b, line, len);
            sb_str(&b, "\n");
        }
        free(l);
    }
    if (!skipped_section(sec))
        flush_section(&b, sec, keys, vals, n, placed);
    for (int i = 0; i < n; i++)
        if (!placed[i]) { /* a section the file does not have: one new section per key */
            const char *dot = strrchr(keys[i], '.');
            sb_str(&b, "\n[");
            sb_put(&b, keys[i], (size_t)(dot - keys[i]));
            sb_str(&b, "]\n");
            char s2[256];
            snprintf(s2, sizeof s2, "%.*s", (int)(dot - keys[i]), keys[i]);
            flush_section(&b, s2, keys, vals, n, placed);
        }
    free(placed);
    return b.s;
}

int sweep_file_load(struct sweep_spec *s, const char *path, char *name, size_t n, struct err *e)
{
    struct config c;
    memset(s, 0, sizeof *s);
    if (config_init(&c) < 0)
        return errf(e, "internal: bad built-in defaults");
    int rc = config_load_file(&c, path, e);
    if (rc == 0)
        snprintf(name, n, "%s", c.run.name);
    config_free(&c);
    return rc < 0 ? -1 : sweep_spec_load(s, path, e);
}
