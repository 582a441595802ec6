/* Scenario input: INI files (via inih), --set options, the origin of every
 * key, and config_load_file (INI or ns-3 by content). See load.h. */
#include <ini.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"
#include "net/cc.h"
#include "net/lb.h"
#include "scenario/load_impl.h"
#include "scenario/sweepspec.h"
#include "traffic/simai.h"

/* ---------------------------------------------------------------- origins */

static bool key_is(const char *full, const char *sec, const char *key)
{
    size_t sl = strlen(sec);
    return strncmp(full, sec, sl) == 0 && full[sl] == '.' && strcmp(full + sl + 1, key) == 0;
}

int cfg_origin_set(struct config *c, const char *sec, const char *key, const char *where)
{
    struct origins *o = c->origins;
    if (!o && !(o = c->origins = calloc(1, sizeof *o)))
        return -1;
    char *w = strdup(where);
    if (!w)
        return -1;
    for (size_t i = 0; i < o->n; i++)
        if (key_is(o->v[i].key, sec, key)) {
            free(o->v[i].where);
            o->v[i].where = w;
            return 0;
        }
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 32;
        struct origin *v = realloc(o->v, cap * sizeof *v);
        if (!v) {
            free(w);
            return -1;
        }
        o->v = v;
        o->cap = cap;
    }
    size_t kl = strlen(sec) + strlen(key) + 2;
    char *k = malloc(kl);
    if (!k) {
        free(w);
        return -1;
    }
    snprintf(k, kl, "%s.%s", sec, key);
    o->v[o->n++] = (struct origin){k, w};
    return 0;
}

const char *config_origin(const struct config *c, const char *section_key)
{
    const struct origins *o = c->origins;
    for (size_t i = 0; o && i < o->n; i++)
        if (strcmp(o->v[i].key, section_key) == 0)
            return o->v[i].where;
    return NULL;
}

void config_load_free(struct config *c)
{
    struct origins *o = c->origins;
    for (size_t i = 0; o && i < o->n; i++) {
        free(o->v[i].key);
        free(o->v[i].where);
    }
    if (o)
        free(o->v);
    free(o);
    c->origins = NULL;
}

/* ------------------------------------------------------- setting one key */

static int edit_distance(const char *a, const char *b);
static bool near_word(const char *a, const char *b);

void cfg_scheme_names(char *buf, size_t n, bool lb, bool sections, const char *typed)
{
    size_t used = 0;
    int best = 99;
    const char *near = NULL;
    buf[0] = 0;
#define ADD(...) (used += used < n ? (size_t)snprintf(buf + used, n - used, __VA_ARGS__) : 0)
    for (int i = 0; lb ? lb_registry[i] != NULL : cc_registry[i] != NULL; i++) { /* the nearest name a typo may mean */
        const char *name = lb ? lb_registry[i]->name : cc_registry[i]->name;
        int d = typed ? edit_distance(typed, name) : 99;
        if (d < best && near_word(typed, name) && (lb || sections || !cc_registry[i]->companion))
            best = d, near = name;
    }
    if (near)
        ADD("did you mean `%s`? ", near);
    ADD("known: ");
    bool first = true;
    for (int i = 0; lb ? lb_registry[i] != NULL : cc_registry[i] != NULL; i++) {
        if (!lb && !sections && cc_registry[i]->companion)
            continue;
        ADD("%s%s", first ? "" : ", ", lb ? lb_registry[i]->name : cc_registry[i]->name);
        first = false;
    }
    if (!lb && !sections && cc_companions[0]) { /* companions run beside a CC, switched on by their own key */
        ADD("; beside one of them run ");
        for (int k = 0; k < CC_COMPANIONS_MAX && cc_companions[k]; k++)
            ADD("%s%s", k ? ", " : "", cc_companions[k]->name);
        ADD(", each switched on by transport.NAME = on");
    }
#undef ADD
    if (used >= n && n > 4)
        strcpy(buf + n - 4, "...");
}

/* Edit distance (Damerau: a swap of two letters is one edit) of two short words (longer ones: a large number). */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < c)
                c = d[i - 2][j - 2] + 1; /* two letters swapped */
            d[i][j] = c;
        }
    return d[la][lb];
}

/* Near enough to be a typo: at most 1 edit for short words, 2 for longer. */
static bool near_word(const char *a, const char *b)
{
    size_t l = strlen(a);
    return edit_distance(a, b) <= (l <= 4 ? 1 : 2);
}

/* " (did you mean `KEY`?)" for an unknown key: the nearest key of the same
 * section, else the section that has exactly this key; "" if none. */
static void key_hint(const struct param *tab, const char *sec, const char *key, char *buf, size_t n)
{
    buf[0] = 0;
    int best = 99;
    for (const struct param *p = tab; p && p->name; p++) {
        int d = edit_distance(key, p->name);
        if (d < best && near_word(key, p->name)) {
            best = d;
            snprintf(buf, n, " (did you mean `%s`?)", p->name);
        }
    }
    if (buf[0])
        return;
    for (const struct cfg_section *s = cfg_sections; s->name; s++)
        if (strcmp(s->name, sec) != 0 && param_find(s->params, key)) {
            snprintf(buf, n, " (did you mean [%s] %s?)", s->name, key);
            return;
        }
}

/* " (did you mean [traffic]?)" for an unknown section; "" if none is near. */
static void section_hint(const char *sec, char *buf, size_t n)
{
    buf[0] = 0;
    int best = 99;
    for (const struct cfg_section *s = cfg_sections; s->name; s++) {
        int d = edit_distance(sec, s->name);
        if (d < best && near_word(sec, s->name)) {
            best = d;
            snprintf(buf, n, " (did you mean [%s]?)", s->name);
        }
    }
}

/* The param table of a section (may be NULL for a scheme without
 * parameters), or -1 with an error naming the section. */
static int section_params(const char *sec, const char *where, const struct param **tab, struct err *e)
{
    char names[512];
    if (strncmp(sec, "cc.", 3) == 0) {
        int i = cc_index(sec + 3);
        if (i >= 0)
            return *tab = cc_registry[i]->params, 0;
        cfg_scheme_names(names, sizeof names, false, true, sec + 3);
        return errf(e, "%s: unknown section [%.80s]: no congestion control '%.80s' (%s)", where, sec, sec + 3, names);
    }
    if (strncmp(sec, "lb.", 3) == 0) {
        int i = lb_index(sec + 3);
        if (i >= 0)
            return *tab = lb_registry[i]->params, 0;
        cfg_scheme_names(names, sizeof names, true, true, sec + 3);
        return errf(e, "%s: unknown section [%.80s]: no load balancer '%.80s' (%s)", where, sec, sec + 3, names);
    }
    const char *why;
    int dyn = config_dynamic_section(sec, tab, &why);
    if (dyn < 0)
        return errf(e, "%s: bad section name [%.80s]: %s", where, sec, why);
    if (dyn > 0)
        return 0;
    for (const struct cfg_section *s = cfg_sections; s->name; s++)
        if (strcmp(s->name, sec) == 0)
            return *tab = s->params, 0;
    char hint[128];
    section_hint(sec, hint, sizeof hint);
    return errf(e, "%s: unknown section [%.80s]%s", where, sec, hint);
}

/* [traffic.NAME] / [flow.NAME]: create it and remember where it starts (the
 * first place it appears), as the pseudo-key "SECTION.*", so checks of a key
 * left unset can point at the section. Other sections: nothing to do. */
static int note_section(struct config *c, const char *sec, const char *where, struct err *e)
{
    const struct param *tab;
    const char *why;
    if (config_dynamic_section(sec, &tab, &why) <= 0)
        return 0;
    if (config_section_add(c, sec, &why) < 0)
        return errf(e, "%s: [%.80s]: %s", where, sec, why);
    char k[128];
    snprintf(k, sizeof k, "%s.*", sec);
    if (!config_origin(c, k) && cfg_origin_set(c, sec, "*", where) < 0)
        return errf(e, "%s: out of memory", where);
    return 0;
}

static const char *type_word(enum ptype t)
{
    static const char *const w[] = {"boolean", "integer", "number", "rate", "time", "size", "value", "choice", "window", "byte count"};
    return (unsigned)t < sizeof w / sizeof w[0] ? w[t] : "value";
}

/* Set [sec] key = val; errors start with `where`. The origin is recorded
 * only when `record` (ns-3 defaults have no line to point at). */
int cfg_set_key(struct config *c, const char *sec, const char *key, const char *val, const char *where, bool record,
                   struct err *e)
{
    const struct param *tab, *p;
    if (section_params(sec, where, &tab, e) < 0)
        return -1;
    if (!(p = param_find(tab, key))) {
        char hint[160];
        key_hint(tab, sec, key, hint, sizeof hint);
        return errf(e, "%s: unknown key '%.80s' in [%.80s]%s", where, key, sec, hint);
    }
    char names[512];
    if (strcmp(sec, "transport") == 0 && strcmp(key, "cc") == 0 && !cc_find(val)) {
        cfg_scheme_names(names, sizeof names, false, false, val);
        return errf(e, "%s: unknown congestion control '%.80s' (%s)", where, val, names);
    }
    if (strcmp(sec, "lb") == 0 && strcmp(key, "scheme") == 0 && !lb_find(val)) {
        cfg_scheme_names(names, sizeof names, true, false, val);
        return errf(e, "%s: unknown load balancer '%.80s' (%s)", where, val, names);
    }
    const char *why;
    if (config_set(c, sec, key, val, &why) < 0)
        return errf(e, "%s: %s.%s: bad %s '%.100s': %s", where, sec, key, type_word(p->type), val, why);
    if (record && cfg_origin_set(c, sec, key, where) < 0)
        return errf(e, "%s: out of memory", where);
    if (record && note_section(c, sec, where, e) < 0)
        return -1;
    if (strcmp(sec, "simai") == 0 && strcmp(key, "conf") == 0 && *val) { /* its keys take effect here: later keys override them */
        struct err sub;
        if (config_load_simai_conf(c, val, &sub) < 0)
            return errf(e, "%s: simai.conf: %s", where, sub.msg); /* names this line, then the conf's */
    }
    return 0;
}

/* [sweep] section.key = values (scenario/sweepspec.h): the key must exist and
 * every value must be valid for it, checked on a scratch config; running
 * the values is `rocesim sweep`'s job, `rocesim run` keeps the base ones. */
static int sweep_entry(const char *key, const char *val, const char *where, struct err *e)
{
    const char *dot = strrchr(key, '.'), *why;
    if (sweep_is_variant_key(key)) { /* names of [variant.NAME] sections, checked by sweep_spec_load */
        char **v;
        int n = sweep_values(val, &v, &why);
        sweep_values_free(v, n);
        return n < 0 ? errf(e, "%s: [sweep] %s: %s", where, key, why) : 0;
    }
    if (!dot || dot == key || !dot[1] || dot - key >= 128)
        return errf(e, "%s: [sweep] key '%.80s' is not section.key (e.g. transport.cc)", where, key);
    char sec[128], **v;
    snprintf(sec, sizeof sec, "%.*s", (int)(dot - key), key);
    if (strcmp(sec, "sweep") == 0)
        return errf(e, "%s: [sweep] cannot sweep itself", where);
    int n = sweep_values(val, &v, &why);
    if (n < 0)
        return errf(e, "%s: [sweep] %.80s: %s", where, key, why);
    struct config scratch;
    int rc = config_init(&scratch) < 0 ? errf(e, "%s: internal: bad built-in defaults", where) : 0;
    for (int i = 0; rc == 0 && i < n; i++)
        rc = cfg_set_key(&scratch, sec, dot + 1, v[i], where, false, e);
    config_free(&scratch);
    sweep_values_free(v, n);
    return rc;
}

/* [variant.NAME] section.key = value: one bundle of settings a sweep's
 * `variant = NAME, ...` applies together; checked here like a [sweep] key
 * with one value, ignored by `rocesim run`. */
static bool is_variant(const char *sec)
{
    return strncmp(sec, "variant.", 8) == 0 && sec[8];
}

static int variant_entry(const char *sec, const char *key, const char *val, const char *where, struct err *e)
{
    const char *dot = strrchr(key, '.');
    if (!dot || dot == key || !dot[1] || dot - key >= 128)
        return errf(e, "%s: [%s] key '%.80s' is not section.key (e.g. lb.scheme)", where, sec, key);
    char ks[128];
    snprintf(ks, sizeof ks, "%.*s", (int)(dot - key), key);
    if (strcmp(ks, "sweep") == 0 || is_variant(ks))
        return errf(e, "%s: [%s] cannot set [%s]", where, sec, ks);
    struct config scratch;
    int rc = config_init(&scratch) < 0 ? errf(e, "%s: internal: bad built-in defaults", where)
                                       : cfg_set_key(&scratch, ks, dot + 1, val, where, false, e);
    config_free(&scratch);
    return rc;
}

/* run.name from a path: base name without extension; for ns-3's habit of
 * naming every config "config.txt", the directory name instead. */
void cfg_default_name(struct config *c, const char *path, bool dir_if_config)
{
    char buf[PARAM_STR_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    snprintf(buf, sizeof buf, "%s", base);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf)
        *dot = 0;
    if (dir_if_config && strcmp(buf, "config") == 0 && slash && slash != path) {
        const char *d = slash;
        while (d > path && d[-1] != '/')
            d--;
        int len = (int)(slash - d);
        if (len > 0 && !(len == 1 && *d == '.') && !(len == 2 && d[0] == '.' && d[1] == '.'))
            snprintf(buf, sizeof buf, "%.*s", len, d);
    }
    const char *why;
    if (buf[0])
        config_set(c, "run", "name", buf, &why); /* only fails if too long: keep "" then */
}

void cfg_set_source(struct config *c, const char *fname)
{
    snprintf(c->source, sizeof c->source, "%s", fname);
}

/* ------------------------------------------------------ paths in a file */

bool cfg_is_path(const char *sec, const char *key, const char *val)
{
    bool traffic = strcmp(sec, "traffic") == 0 || strncmp(sec, "traffic.", 8) == 0;
    bool cdf = traffic && strcmp(key, "cdf") == 0;
    bool conf = strcmp(sec, "simai") == 0 && strcmp(key, "conf") == 0;
    if (!(cdf || conf || (strcmp(key, "file") == 0 && (traffic || strcmp(sec, "topology") == 0))))
        return false;
    size_t l = strlen(val);
    if (cdf && !strchr(val, '/') && !(l > 4 && (strcmp(val + l - 4, ".cdf") == 0 || strcmp(val + l - 4, ".txt") == 0)))
        return false; /* a workload's name (traffic/cdf.c cdf_load tells them apart the same way) */
    return val[0] != 0;
}

void cfg_path_join(char *out, size_t n, const char *file, const char *val)
{
    const char *slash = strrchr(file, '/');
    size_t dl = slash ? (size_t)(slash - file) : 0; /* file[0 .. dl): its folder */
    while (strncmp(val, "./", 2) == 0)
        val += 2;
    while (dl > 0) { /* "../x" against folder "a/b" is "a/x", lexically; "./" parts of the folder go */
        size_t k = dl;
        while (k > 0 && file[k - 1] != '/')
            k--;
        bool dot = dl - k == 1 && file[k] == '.';
        if (!dot && (strncmp(val, "../", 3) != 0 || (dl - k == 2 && strncmp(file + k, "..", 2) == 0)))
            break;
        if (!dot)
            val += 3;
        dl = k ? k - 1 : 0;
    }
    if (dl == 0)
        snprintf(out, n, slash && file[0] == '/' ? "/%s" : "%s", val);
    else
        snprintf(out, n, "%.*s/%s", (int)dl, file, val);
}

/* -------------------------------------------------------------------- INI */

struct ini_ctx {
    struct config *c;
    const char *fname, *pos;
    struct err *e;
    int line;      /* of the line the reader returned last = the line inih is handling */
    int fail_line; /* > 0: our error (in e) at that line; parsing stops */
    bool name_set;
    struct seen {
        char *key;
        int line;
    } *seen;
    size_t nseen, capseen;
};

/* dst may be s itself. */
static void trim_into(char *dst, size_t n, const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t l = strlen(s);
    if (l >= n)
        l = n - 1;
    memmove(dst, s, l);
    dst[l] = 0;
    while (l && isspace((unsigned char)dst[l - 1]))
        dst[--l] = 0;
}

/* inih's line source. Libinih is built without INI_HANDLER_LINENO, so we
 * count lines here: inih calls the handler for a line before reading the
 * next one. Leading blanks are dropped, because inih would otherwise take an
 * indented "key = value" for a continuation of the previous value. Section
 * lines are checked here too: inih calls no handler for an empty section. */
static char *ini_read(char *str, int num, void *stream)
{
    struct ini_ctx *x = stream;
    if (x->fail_line || !*x->pos)
        return NULL;
    const char *s = x->pos, *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) + 1 : strlen(s);
    x->pos = s + len;
    x->line++;
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    if (len + 1 > (size_t)num) {
        x->fail_line = x->line;
        errf(x->e, "%s:%d: line too long (at most %d characters)", x->fname, x->line, num - 2);
        return NULL;
    }
    memcpy(str, s, len);
    str[len] = 0;
    const char *t = str;
    if (x->line == 1 && strncmp(t, "\xEF\xBB\xBF", 3) == 0) /* UTF-8 BOM, which inih skips */
        t += 3;
    while (*t == ' ' || *t == '\t')
        t++;
    const char *close = *t == '[' ? strchr(t, ']') : NULL;
    if (close) { /* no ']' is inih's parse error, reported by the caller */
        char sec[200], raw[200], where[WHERE_MAX];
        snprintf(raw, sizeof raw, "%.*s", (int)(close - t - 1), t + 1);
        trim_into(sec, sizeof sec, raw);
        snprintf(where, sizeof where, "%s:%d", x->fname, x->line);
        const struct param *tab;
        if (strcmp(sec, "sweep") != 0 && !is_variant(sec) &&
            (section_params(sec, where, &tab, x->e) < 0 || note_section(x->c, sec, where, x->e) < 0)) {
            x->fail_line = x->line;
            return NULL;
        }
    }
    return str;
}

static int ini_fail(struct ini_ctx *x)
{
    x->fail_line = x->line;
    return 0;
}

static int ini_on_key(void *user, const char *section, const char *name, const char *value)
{
    struct ini_ctx *x = user;
    char where[WHERE_MAX], sec[64], val[INI_MAX_LINE + 1];
    if (x->fail_line)
        return 0;
    snprintf(where, sizeof where, "%s:%d", x->fname, x->line);
    trim_into(sec, sizeof sec, section);
    if (!*sec)
        return errf(x->e, "%s: key '%.80s' outside any section (put it under e.g. [run])", where, name), ini_fail(x);
    if (!*name)
        return errf(x->e, "%s: missing key name before '='", where), ini_fail(x);
    for (size_t i = 0; i < x->nseen; i++)
        if (key_is(x->seen[i].key, sec, name))
            return errf(x->e, "%s: duplicate key '%.80s' in [%s] (first set at line %d)", where, name, sec,
                        x->seen[i].line),
                   ini_fail(x);
    /* inih strips "; comment"; strip "# comment" after a blank the same way. */
    snprintf(val, sizeof val, "%s", value);
    for (char *h = val; (h = strchr(h, '#')) != NULL; h++)
        if (h > val && (h[-1] == ' ' || h[-1] == '\t')) {
            *h = 0;
            trim_into(val, sizeof val, val);
            break;
        }
    if (strcmp(sec, "sweep") != 0 && !is_variant(sec) && cfg_is_path(sec, name, val) && val[0] != '/') { /* from the file's folder */
        char joined[sizeof val];
        cfg_path_join(joined, sizeof joined, x->fname, val);
        snprintf(val, sizeof val, "%s", joined);
    }
    if (strcmp(sec, "sweep") == 0 ? sweep_entry(name, val, where, x->e) < 0
        : is_variant(sec)         ? variant_entry(sec, name, val, where, x->e) < 0
                                  : cfg_set_key(x->c, sec, name, val, where, true, x->e) < 0)
        return ini_fail(x);
    if (x->nseen == x->capseen) {
        size_t cap = x->capseen ? 2 * x->capseen : 32;
        struct seen *v = realloc(x->seen, cap * sizeof *v);
        if (!v)
            return errf(x->e, "%s: out of memory", where), ini_fail(x);
        x->seen = v;
        x->capseen = cap;
    }
    size_t kl = strlen(sec) + strlen(name) + 2;
    char *k = malloc(kl);
    if (!k)
        return errf(x->e, "%s: out of memory", where), ini_fail(x);
    snprintf(k, kl, "%s.%s", sec, name);
    x->seen[x->nseen++] = (struct seen){k, x->line};
    if (strcmp(sec, "run") == 0 && strcmp(name, "name") == 0)
        x->name_set = true;
    return 1;
}

/* The text of line n (1-based), shortened, for parse-error messages. */
static void line_text(const char *text, int n, char *buf, size_t size)
{
    for (int i = 1; i < n && text; i++)
        if ((text = strchr(text, '\n')))
            text++;
    if (!text) {
        buf[0] = 0;
        return;
    }
    size_t len = strcspn(text, "\r\n");
    while (len && isspace((unsigned char)*text))
        text++, len--;
    if (len > 60)
        len = 60;
    snprintf(buf, size, "%.*s", (int)len, text);
}

int config_load_ini(struct config *c, const char *text, const char *fname, struct err *e)
{
    struct ini_ctx x = {.c = c, .fname = fname, .pos = text, .e = e};
    cfg_set_source(c, fname);
    int r = ini_parse_stream(ini_read, &x, ini_on_key, &x);
    for (size_t i = 0; i < x.nseen; i++)
        free(x.seen[i].key);
    free(x.seen);
    if (r > 0 && (!x.fail_line || r < x.fail_line)) {
        char t[64];
        line_text(text, r, t, sizeof t);
        return errf(e, "%s:%d: cannot parse '%s' (expected [section], key = value, or a # comment)", fname, r, t);
    }
    if (x.fail_line)
        return -1;
    if (r < 0)
        return errf(e, "%s: out of memory", fname);
    if (!x.name_set)
        cfg_default_name(c, fname, false);
    return 0;
}

/* ---------------------------------------------------------- file, --set */

/* INI if the first meaningful line is "[section]" or "key = value" / "key: value"; ns-3 if it is "UPPER_KEY value". */
static bool looks_ns3(const char *t)
{
    while (*t) {
        t += strspn(t, " \t\r\n\f\v");
        if (strncmp(t, "\xEF\xBB\xBF", 3) == 0)
            t += 3;
        if (*t == '#' || *t == ';') {
            t += strcspn(t, "\n");
            continue;
        }
        if (!*t)
            break;
        if (!isupper((unsigned char)*t))
            return false;
        while (isupper((unsigned char)*t) || isdigit((unsigned char)*t) || *t == '_')
            t++;
        if (*t && !isspace((unsigned char)*t))
            return false; /* "KEY=v", "KEY:v", "Key" */
        t += strspn(t, " \t");
        return *t != '=' && *t != ':';
    }
    return false;
}

int config_load_file(struct config *c, const char *path, struct err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errf(e, "%s: cannot open scenario file: %s", path, strerror(errno));
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    int rc = -1;
    while (text) {
        if (len + 1 >= cap) {
            char *t = cap < ((size_t)64 << 20) ? realloc(text, cap * 2) : NULL;
            if (!t) {
                errf(e, "%s: file too large for a scenario (over 64 MiB) or out of memory", path);
                goto out;
            }
            text = t;
            cap *= 2;
        }
        size_t n = fread(text + len, 1, cap - 1 - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (!text) {
        errf(e, "%s: out of memory", path);
        goto out;
    }
    if (ferror(f)) {
        errf(e, "%s: cannot read: %s", path, strerror(errno));
        goto out;
    }
    text[len] = 0;
    if (strlen(text) != len) {
        int line = 1;
        for (const char *p = text; *p; p++)
            line += *p == '\n';
        errf(e, "%s:%d: NUL byte: not a text file", path, line);
        goto out;
    }
    rc = simai_looks_workload(text) ? config_load_simai(c, text, path, e)
         : looks_ns3(text)          ? config_load_ns3(c, text, path, e)
                                    : config_load_ini(c, text, path, e);
out:
    free(text);
    fclose(f);
    return rc;
}

int config_apply_set(struct config *c, const char *opt, struct err *e)
{
    char where[400], sec[128], key[128];
    snprintf(where, sizeof where, "--set %.300s", opt);
    const char *eq = strchr(opt, '=');
    if (!eq)
        return errf(e, "%s: expected section.key=value", where);
    const char *dot = NULL;
    for (const char *p = opt; p < eq; p++)
        if (*p == '.')
            dot = p;
    if (!dot)
        return errf(e, "%s: expected section.key=value (no '.' between section and key)", where);
    if (dot == opt)
        return errf(e, "%s: empty section name", where);
    if (dot + 1 == eq)
        return errf(e, "%s: empty key name", where);
    if (!eq[1])
        return errf(e, "%s: empty value", where);
    if (dot - opt >= (long)sizeof sec || eq - dot - 1 >= (long)sizeof key)
        return errf(e, "%s: section or key name too long", where);
    snprintf(sec, sizeof sec, "%.*s", (int)(dot - opt), opt);
    snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    return cfg_set_key(c, sec, key, eq + 1, where, true, e);
}
