/* Scenario input: INI files (via inih), ns-3 HPCC config.txt files, --set
 * options, and the whole-config checks. See config_load.h. */
#include "cli/config_load.h"
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"
#include "net/cc.h"
#include "net/lb.h"
#include "exp/sweepspec.h"
#include "scenario/workload.h"

#define WHERE_MAX (PARAM_STR_MAX + 64)

/* ---------------------------------------------------------------- origins */

/* "section.key" -> "file:line" or "--set OPT", hung off c->origins. */
struct origin {
    char *key, *where;
};
struct origins {
    struct origin *v;
    size_t n, cap;
};

static bool key_is(const char *full, const char *sec, const char *key)
{
    size_t sl = strlen(sec);
    return strncmp(full, sec, sl) == 0 && full[sl] == '.' && strcmp(full + sl + 1, key) == 0;
}

static int origin_set(struct config *c, const char *sec, const char *key, const char *where)
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

static void scheme_names(char *buf, size_t n, bool lb)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; lb ? lb_registry[i] != NULL : cc_registry[i] != NULL; i++) {
        int k = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", lb ? lb_registry[i]->name : cc_registry[i]->name);
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
}

/* The param table of a section (may be NULL for a scheme without
 * parameters), or -1 with an error naming the section. */
static int section_params(const char *sec, const char *where, const struct param **tab, struct err *e)
{
    char names[256];
    if (strncmp(sec, "cc.", 3) == 0) {
        int i = cc_index(sec + 3);
        if (i >= 0)
            return *tab = cc_registry[i]->params, 0;
        scheme_names(names, sizeof names, false);
        return errf(e, "%s: unknown section [%.80s]: no congestion control '%.80s' (known: %s)", where, sec, sec + 3, names);
    }
    if (strncmp(sec, "lb.", 3) == 0) {
        int i = lb_index(sec + 3);
        if (i >= 0)
            return *tab = lb_registry[i]->params, 0;
        scheme_names(names, sizeof names, true);
        return errf(e, "%s: unknown section [%.80s]: no load balancer '%.80s' (known: %s)", where, sec, sec + 3, names);
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
    return errf(e, "%s: unknown section [%.80s]", where, sec);
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
    if (!config_origin(c, k) && origin_set(c, sec, "*", where) < 0)
        return errf(e, "%s: out of memory", where);
    return 0;
}

static const char *type_word(enum ptype t)
{
    static const char *const w[] = {"boolean", "integer", "number", "rate", "time", "size", "value", "choice", "window"};
    return (unsigned)t < sizeof w / sizeof w[0] ? w[t] : "value";
}

/* Set [sec] key = val; errors start with `where`. The origin is recorded
 * only when `record` (ns-3 defaults have no line to point at). */
static int set_key(struct config *c, const char *sec, const char *key, const char *val, const char *where, bool record,
                   struct err *e)
{
    const struct param *tab, *p;
    if (section_params(sec, where, &tab, e) < 0)
        return -1;
    if (!(p = param_find(tab, key)))
        return errf(e, "%s: unknown key '%.80s' in [%.80s]", where, key, sec);
    char names[256];
    if (strcmp(sec, "transport") == 0 && strcmp(key, "cc") == 0 && !cc_find(val)) {
        scheme_names(names, sizeof names, false);
        return errf(e, "%s: unknown congestion control '%.80s' (known: %s)", where, val, names);
    }
    if (strcmp(sec, "lb") == 0 && strcmp(key, "scheme") == 0 && !lb_find(val)) {
        scheme_names(names, sizeof names, true);
        return errf(e, "%s: unknown load balancer '%.80s' (known: %s)", where, val, names);
    }
    const char *why;
    if (config_set(c, sec, key, val, &why) < 0)
        return errf(e, "%s: %s.%s: bad %s '%.100s': %s", where, sec, key, type_word(p->type), val, why);
    if (record && origin_set(c, sec, key, where) < 0)
        return errf(e, "%s: out of memory", where);
    return record ? note_section(c, sec, where, e) : 0;
}

/* [sweep] section.key = values (exp/sweepspec.h): the key must exist and
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
        rc = set_key(&scratch, sec, dot + 1, v[i], where, false, e);
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
                                       : set_key(&scratch, ks, dot + 1, val, where, false, e);
    config_free(&scratch);
    return rc;
}

/* run.name from a path: base name without extension; for ns-3's habit of
 * naming every config "config.txt", the directory name instead. */
static void set_default_name(struct config *c, const char *path, bool dir_if_config)
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

static void set_source(struct config *c, const char *fname)
{
    snprintf(c->source, sizeof c->source, "%s", fname);
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
    if (strcmp(sec, "sweep") == 0 ? sweep_entry(name, val, where, x->e) < 0
        : is_variant(sec)         ? variant_entry(sec, name, val, where, x->e) < 0
                                  : set_key(x->c, sec, name, val, where, true, x->e) < 0)
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
    set_source(c, fname);
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
        set_default_name(c, fname, false);
    return 0;
}

/* ------------------------------------------------------------ ns-3 config */

enum vk { V_U32, V_U64, V_DBL, V_STR, V_MAP, V_LINK };
enum act { A_SET, A_CC, A_WARN, A_SPECIAL };
enum conv { C_RAW, C_BOOL, C_BOOL1, C_US, C_S, C_MIB, C_WIN, C_RATE, C_ACKPRIO };
enum when { W_PRESENT, W_ZERO, W_NONZERO }; /* A_WARN: warn when the value is ... */
enum special { S_NONE, S_CCMODE, S_TOPO, S_FLOW, S_FCT, S_PFC, S_ACKINT, S_ERR, S_LINK, S_KMAX, S_KMIN, S_PMAX,
               S_QFILE, S_QSTART, S_QEND };

struct ns3_key {
    const char *name;
    unsigned char vk, act, conv, when, sp;
    const char *sec; /* A_SET: our section; A_CC: the CCs (space-separated) whose RdmaHw code uses the key */
    const char *key; /* our parameter */
    const char *def; /* value when the file is silent: third.cc's global, or RdmaHw's attribute default
                        where third.cc's would be unusable (rp_timer 0, rate_ai "") */
};

/* Order matters only where a handler reads an earlier result (L2_ACK_INTERVAL reads the mtu). */
static const struct ns3_key ns3_keys[] = {
    {"CC_MODE", V_U32, A_SPECIAL, 0, 0, S_CCMODE, NULL, NULL, "1"},
    {"TOPOLOGY_FILE", V_STR, A_SPECIAL, 0, 0, S_TOPO, NULL, NULL, NULL},
    {"FLOW_FILE", V_STR, A_SPECIAL, 0, 0, S_FLOW, NULL, NULL, NULL},
    {"FCT_OUTPUT_FILE", V_STR, A_SPECIAL, 0, 0, S_FCT, NULL, NULL, "fct.txt"},
    {"PFC_OUTPUT_FILE", V_STR, A_SPECIAL, 0, 0, S_PFC, NULL, NULL, "pfc.txt"},
    {"SIMULATOR_STOP_TIME", V_DBL, A_SET, C_S, 0, 0, "run", "stop", "3.01"},
    {"PACKET_PAYLOAD_SIZE", V_U32, A_SET, C_RAW, 0, 0, "transport", "mtu", "1000"},
    {"BUFFER_SIZE", V_U32, A_SET, C_MIB, 0, 0, "switch", "buffer", "16"},
    {"ENABLE_QCN", V_U32, A_SET, C_BOOL, 0, 0, "switch", "ecn", "1"},
    {"L2_ACK_INTERVAL", V_U32, A_SPECIAL, 0, 0, S_ACKINT, NULL, NULL, "0"},
    {"L2_CHUNK_SIZE", V_U32, A_SET, C_RAW, 0, 0, "transport", "chunk", "0"},
    {"L2_BACK_TO_ZERO", V_U32, A_SET, C_BOOL, 0, 0, "transport", "back_to_zero", "0"},
    {"HAS_WIN", V_U32, A_SET, C_WIN, 0, 0, "transport", "window", "1"},
    {"GLOBAL_T", V_U32, A_SET, C_BOOL1, 0, 0, "transport", "window_global", "1"},
    {"VAR_WIN", V_U32, A_SET, C_BOOL, 0, 0, "transport", "var_win", "0"},
    {"ACK_HIGH_PRIO", V_U32, A_SET, C_ACKPRIO, 0, 0, "transport", "ack_high_prio", "0"},
    {"ALPHA_RESUME_INTERVAL", V_DBL, A_CC, C_US, 0, 0, "dcqcn", "alpha_resume_interval", "55"},
    {"RATE_DECREASE_INTERVAL", V_DBL, A_CC, C_US, 0, 0, "dcqcn", "rate_decrease_interval", "4"},
    {"CLAMP_TARGET_RATE", V_U32, A_CC, C_BOOL, 0, 0, "dcqcn", "clamp_target_rate", "0"},
    {"RP_TIMER", V_DBL, A_CC, C_US, 0, 0, "dcqcn", "rp_timer", "1500"},
    {"EWMA_GAIN", V_DBL, A_CC, C_RAW, 0, 0, "dcqcn dctcp", "ewma_gain", "0.0625"}, /* RdmaHw::m_g serves both */
    {"FAST_RECOVERY_TIMES", V_U32, A_CC, C_RAW, 0, 0, "dcqcn", "fast_recovery_times", "5"},
    {"RATE_AI", V_STR, A_CC, C_RATE, 0, 0, "dcqcn hpcc hpcc-pint timely", "rate_ai", "5Mb/s"},
    {"RATE_HAI", V_STR, A_CC, C_RATE, 0, 0, "dcqcn timely", "rate_hai", "50Mb/s"},
    {"MIN_RATE", V_STR, A_CC, C_RATE, 0, 0, "dcqcn hpcc hpcc-pint timely dctcp", "min_rate", "100Mb/s"},
    {"U_TARGET", V_DBL, A_CC, C_RAW, 0, 0, "hpcc hpcc-pint", "u_target", "0.95"},
    {"MI_THRESH", V_U32, A_CC, C_RAW, 0, 0, "hpcc hpcc-pint", "mi_thresh", "5"},
    {"INT_MULTI", V_U32, A_CC, C_RAW, 0, 0, "hpcc", "int_multi", "1"},
    {"MULTI_RATE", V_U32, A_CC, C_BOOL, 0, 0, "hpcc", "multi_rate", "1"},
    {"FAST_REACT", V_U32, A_CC, C_BOOL, 0, 0, "hpcc hpcc-pint", "fast_react", "1"},
    {"SAMPLE_FEEDBACK", V_U32, A_CC, C_BOOL, 0, 0, "hpcc", "sample_feedback", "0"},
    {"PINT_LOG_BASE", V_DBL, A_CC, C_RAW, 0, 0, "hpcc-pint", "pint_log_base", "1.05"},
    {"PINT_PROB", V_DBL, A_CC, C_RAW, 0, 0, "hpcc-pint", "pint_prob", "1.0"},
    {"DCTCP_RATE_AI", V_STR, A_CC, C_RATE, 0, 0, "dctcp", "rate_ai", "1000Mb/s"},
    {"ERROR_RATE_PER_LINK", V_DBL, A_SPECIAL, 0, 0, S_ERR, NULL, NULL, NULL},
    {"LINK_DOWN", V_LINK, A_SPECIAL, 0, 0, S_LINK, NULL, NULL, NULL},
    {"KMAX_MAP", V_MAP, A_SPECIAL, 0, 0, S_KMAX, NULL, NULL, NULL},
    {"KMIN_MAP", V_MAP, A_SPECIAL, 0, 0, S_KMIN, NULL, NULL, NULL},
    {"PMAX_MAP", V_MAP, A_SPECIAL, 0, 0, S_PMAX, NULL, NULL, NULL},
    /* Parsed, checked, and not modelled: one warning each. `sec` holds the reason. */
    {"USE_DYNAMIC_PFC_THRESHOLD", V_U32, A_WARN, 0, W_ZERO, 0, "we always use the dynamic PFC threshold", NULL, NULL},
    {"RATE_BOUND", V_U32, A_WARN, 0, W_ZERO, 0, "senders are always paced at their rate", NULL, NULL},
    /* ns-3 puts PAUSE_TIME in the PAUSE frame but its receivers only test it for > 0, so only 0 differs:
     * there every PAUSE reads as a RESUME. */
    {"PAUSE_TIME", V_DBL, A_WARN, 0, W_ZERO, 0, "in ns-3 that makes every PAUSE a RESUME; we pause as usual", NULL, NULL},
    {"DATA_RATE", V_STR, A_WARN, 0, W_PRESENT, 0, "ns-3 ignores it too; link rates come from the topology file", NULL, NULL},
    {"LINK_DELAY", V_STR, A_WARN, 0, W_PRESENT, 0, "ns-3 ignores it too; delays come from the topology file", NULL, NULL},
    {"TRACE_FILE", V_STR, A_WARN, 0, W_PRESENT, 0, "packet traces are not written", NULL, NULL},
    {"TRACE_OUTPUT_FILE", V_STR, A_WARN, 0, W_PRESENT, 0, "packet traces are not written", NULL, NULL},
    {"ENABLE_TRACE", V_U32, A_WARN, 0, W_NONZERO, 0, "packet traces are not written", NULL, NULL},
    /* third.cc's monitor_buffer (stats/monitor.c); times in ns, third.cc's defaults */
    {"QLEN_MON_FILE", V_STR, A_SPECIAL, 0, 0, S_QFILE, NULL, NULL, NULL},
    {"QLEN_MON_START", V_U64, A_SPECIAL, 0, 0, S_QSTART, NULL, NULL, "2000000000"},
    {"QLEN_MON_END", V_U64, A_SPECIAL, 0, 0, S_QEND, NULL, NULL, "2100000000"},
};
#define NS3_NKEYS (sizeof ns3_keys / sizeof ns3_keys[0])
#define NS3_MAXV (1 + 2 * ECN_MAP_MAX)

struct ns3_val {
    int line; /* 0: absent */
    int nv;
    const char *v[NS3_MAXV];
};

/* RdmaHw's CC_MODE numbers; any other value runs without congestion control there. */
static const struct {
    unsigned mode;
    const char *cc;
} cc_modes[] = {{1, "dcqcn"}, {3, "hpcc"}, {7, "timely"}, {8, "dctcp"}, {10, "hpcc-pint"}};

static int ns3_key_index(const char *tok)
{
    for (size_t i = 0; i < NS3_NKEYS; i++)
        if (strcmp(ns3_keys[i].name, tok) == 0)
            return (int)i;
    return -1;
}

static int ns3_index_of(int sp)
{
    for (size_t i = 0; i < NS3_NKEYS; i++)
        if (ns3_keys[i].sp == sp)
            return (int)i;
    return -1;
}

/* Whitespace-separated tokens, as C++ `conf >> key` reads them. */
static char *next_tok(char **p)
{
    char *s = *p;
    while (*s && isspace((unsigned char)*s))
        s++;
    if (!*s) {
        *p = s;
        return NULL;
    }
    char *t = s;
    while (*s && !isspace((unsigned char)*s))
        s++;
    if (*s)
        *s++ = 0;
    *p = s;
    return t;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* Unsigned integer as ns-3 reads it into uint32_t/uint64_t (no sign, no fraction). */
static bool tok_uint(const char *s, uint64_t max, uint64_t *v)
{
    if (!all_digits(s))
        return false;
    errno = 0;
    unsigned long long x = strtoull(s, NULL, 10);
    if (errno == ERANGE || x > max)
        return false;
    *v = x;
    return true;
}

static bool tok_double(const char *s, double *v)
{
    for (const char *p = s; *p; p++) /* decimal only: strtod would also take hex, inf and nan */
        if (!isdigit((unsigned char)*p) && !strchr(".eE+-", *p))
            return false;
    return parse_double(s, v) == NULL;
}

static int check_tok(const char *fname, int line, const char *key, const char *tok, int vk, struct err *e)
{
    uint64_t u;
    double d;
    switch (vk) {
    case V_U32:
        if (!tok_uint(tok, UINT32_MAX, &u))
            return errf(e, "%s:%d: %s: bad value '%.60s' (expected a whole number 0..4294967295)", fname, line, key, tok);
        break;
    case V_U64:
        if (!tok_uint(tok, UINT64_MAX, &u))
            return errf(e, "%s:%d: %s: bad value '%.60s' (expected a whole number)", fname, line, key, tok);
        break;
    case V_DBL:
        if (!tok_double(tok, &d))
            return errf(e, "%s:%d: %s: bad value '%.60s' (expected a number)", fname, line, key, tok);
        break;
    }
    return 0;
}

/* Reads one key's values from the rest of its line (values must share the
 * key's line: ns-3 would read on, but every config writes one key a line and
 * this keeps a forgotten value from swallowing the next key). */
static int ns3_read_values(const char *fname, int line, const struct ns3_key *k, char **p, struct ns3_val *v,
                           struct err *e)
{
    int need = k->vk == V_LINK ? 3 : 1;
    v->nv = 0;
    for (int i = 0; i < need; i++) {
        char *t = next_tok(p);
        if (!t) {
            if (k->vk == V_MAP && i > 0)
                return errf(e, "%s:%d: %s: %d entries need %d more values on this line", fname, line, k->name,
                            (need - 1) / 2, need - i);
            return errf(e, "%s:%d: %s needs %s", fname, line, k->name, need == 3 ? "3 values" : "a value");
        }
        int vk = k->vk;
        if (vk == V_LINK)
            vk = i == 0 ? V_U64 : V_U32;
        if (vk == V_MAP) {
            uint64_t n;
            double d;
            if (i == 0) {
                if (!tok_uint(t, UINT32_MAX, &n))
                    return errf(e, "%s:%d: %s: bad entry count '%.60s'", fname, line, k->name, t);
                if (n > ECN_MAP_MAX)
                    return errf(e, "%s:%d: %s: %llu entries, at most %d supported", fname, line, k->name,
                                (unsigned long long)n, ECN_MAP_MAX);
                need = 1 + 2 * (int)n;
            } else if (i % 2) {
                if (!tok_uint(t, UINT64_MAX, &n) || n == 0)
                    return errf(e, "%s:%d: %s: bad rate '%.60s' (expected bits per second, e.g. 100000000000)", fname,
                                line, k->name, t);
            } else if (k->sp == S_PMAX) {
                if (!tok_double(t, &d) || d < 0 || d > 1)
                    return errf(e, "%s:%d: %s: bad probability '%.60s' (expected 0..1)", fname, line, k->name, t);
            } else if (!tok_uint(t, UINT32_MAX, &n)) {
                return errf(e, "%s:%d: %s: bad threshold '%.60s' (expected whole KB)", fname, line, k->name, t);
            }
        } else if (check_tok(fname, line, k->name, t, vk, e) < 0) {
            return -1;
        }
        v->v[v->nv++] = t;
    }
    v->line = line;
    return 0;
}

/* The value ns-3 would act on, in our syntax. */
static int ns3_conv(char *out, size_t n, const char *tok, int conv)
{
    int r;
    switch (conv) {
    case C_BOOL: r = snprintf(out, n, "%s", strtoull(tok, NULL, 10) ? "on" : "off"); break;
    case C_BOOL1: r = snprintf(out, n, "%s", strtoull(tok, NULL, 10) == 1 ? "on" : "off"); break;
    case C_WIN: r = snprintf(out, n, "%s", strtoull(tok, NULL, 10) ? "bdp" : "off"); break;
    /* third.cc turns ACK_HIGH_PRIO into the NICs' ACK class only; its switches never see it */
    case C_ACKPRIO: r = snprintf(out, n, "%s", strtoull(tok, NULL, 10) ? "nic" : "off"); break;
    case C_US: r = snprintf(out, n, "%sus", tok); break;
    case C_S: r = snprintf(out, n, "%ss", tok); break;
    case C_MIB: r = snprintf(out, n, "%sMiB", tok); break;
    case C_RATE: /* ns-3's DataRate reads a bare number as bits per second; our keys want the unit */
        r = snprintf(out, n, *tok && strspn(tok, "0123456789.") == strlen(tok) ? "%sbps" : "%s", tok);
        break;
    default: r = snprintf(out, n, "%s", tok); break;
    }
    return r >= 0 && (size_t)r < n ? 0 : -1;
}

/* The three *_MAP keys, merged by rate into sw.ecn_map. ns-3 keeps three
 * separate maps and asserts each port rate is in all three, so rates that
 * disagree are an error here rather than a crash later. */
static int ns3_maps(struct config *c, const char *fname, const struct ns3_val *vals, struct err *e)
{
    const struct ns3_val *m[3] = {&vals[ns3_index_of(S_KMAX)], &vals[ns3_index_of(S_KMIN)], &vals[ns3_index_of(S_PMAX)]};
    static const char *const nm[3] = {"KMAX_MAP", "KMIN_MAP", "PMAX_MAP"};
    int have = !!m[0]->line + !!m[1]->line + !!m[2]->line;
    if (have == 0) {
        warnf("%s: no KMAX_MAP/KMIN_MAP/PMAX_MAP (ns-3 would abort): using switch.kmin/kmax/pmax scaled by port rate",
              fname);
        return 0;
    }
    for (int i = 0; i < 3; i++)
        if (!m[i]->line)
            for (int j = 0; j < 3; j++)
                if (m[j]->line)
                    return errf(e, "%s:%d: %s without %s: ns-3 needs KMAX_MAP, KMIN_MAP and PMAX_MAP together", fname,
                                m[j]->line, nm[j], nm[i]);
    struct cfg_switch *sw = &c->sw;
    bool got[3][ECN_MAP_MAX] = {{false}};
    sw->n_ecn_map = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 1; j + 1 < m[i]->nv; j += 2) {
            uint64_t rate = strtoull(m[i]->v[j], NULL, 10);
            int at = 0;
            while (at < sw->n_ecn_map && sw->ecn_map[at].rate != rate)
                at++;
            if (at == sw->n_ecn_map) {
                if (i > 0)
                    return errf(e, "%s:%d: %s has rate %llu, which KMAX_MAP (line %d) lacks", fname, m[i]->line, nm[i],
                                (unsigned long long)rate, m[0]->line);
                sw->ecn_map[sw->n_ecn_map++] = (struct ecn_entry){.rate = rate};
            }
            struct ecn_entry *en = &sw->ecn_map[at];
            got[i][at] = true; /* a repeated rate overwrites, as in ns-3's map */
            if (i == 2)
                en->pmax = strtod(m[i]->v[j + 1], NULL);
            else if (i == 1)
                en->kmin = 1000 * strtoull(m[i]->v[j + 1], NULL, 10); /* KB, as ns-3's ConfigEcn */
            else
                en->kmax = 1000 * strtoull(m[i]->v[j + 1], NULL, 10);
        }
    for (int i = 1; i < 3; i++)
        for (int at = 0; at < sw->n_ecn_map; at++)
            if (!got[i][at])
                return errf(e, "%s:%d: %s lacks rate %llu, which KMAX_MAP (line %d) has", fname, m[i]->line, nm[i],
                            (unsigned long long)sw->ecn_map[at].rate, m[0]->line);
    for (int at = 0; at < sw->n_ecn_map; at++)
        if (sw->ecn_map[at].kmin > sw->ecn_map[at].kmax)
            return errf(e, "%s:%d: KMIN_MAP: at rate %llu kmin %llu KB > kmax %llu KB", fname, m[1]->line,
                        (unsigned long long)sw->ecn_map[at].rate, (unsigned long long)sw->ecn_map[at].kmin / 1000,
                        (unsigned long long)sw->ecn_map[at].kmax / 1000);
    char where[WHERE_MAX];
    snprintf(where, sizeof where, "%s:%d", fname, m[0]->line);
    if (origin_set(c, "switch", "ecn_map", where) < 0)
        return errf(e, "%s: out of memory", fname);
    return 0;
}

/* Sets key in every registered CC of k->sec that has it. Returns 1 if some
 * CC took it, 0 if none is registered, -1 on error. */
static int ns3_cc_key(struct config *c, const struct ns3_key *k, const char *tok, const char *where, bool present,
                      const char *selected, struct err *e)
{
    char list[128], sec[80], val[PARAM_STR_MAX + 8];
    int took = 0;
    snprintf(list, sizeof list, "%s", k->sec);
    for (char *p = list, *name; (name = next_tok(&p)) != NULL;) {
        int i = cc_index(name);
        if (i < 0)
            continue;
        took = 1;
        if (!param_find(cc_registry[i]->params, k->key)) {
            if (present && strcmp(name, selected) == 0)
                warnf("%s: %s: cc.%s has no parameter %s (ignored)", where, k->name, name, k->key);
            continue;
        }
        snprintf(sec, sizeof sec, "cc.%s", name);
        if (ns3_conv(val, sizeof val, tok, k->conv) < 0)
            return errf(e, "%s: %s: value too long", where, k->name);
        if (set_key(c, sec, k->key, val, where, present, e) < 0)
            return -1;
    }
    return took;
}

int config_load_ns3(struct config *c, const char *text, const char *fname, struct err *e)
{
    char *buf = strdup(text);
    struct ns3_val *vals = calloc(NS3_NKEYS, sizeof *vals);
    int rc = -1;
    if (!buf || !vals) {
        errf(e, "%s: out of memory", fname);
        goto out;
    }
    set_source(c, fname);
    /* Pass 1: tokens -> the last value given for each key (keys in any order, last wins, as in ns-3). */
    int line = 0;
    for (char *ln = buf, *next; ln; ln = next) {
        line++;
        if ((next = strchr(ln, '\n')))
            *next++ = 0;
        char *p = ln, *tok;
        while ((tok = next_tok(&p)) != NULL) {
            if (*tok == '#') /* not in ns-3 (where it is just an unknown key); a comment here */
                break;
            int ki = ns3_key_index(tok);
            if (ki < 0) {
                warnf("%s:%d: unknown ns-3 key %.60s (ignored, as ns-3 does)", fname, line, tok);
                break;
            }
            if (vals[ki].line)
                warnf("%s:%d: %s given again (first at line %d); the last one wins, as in ns-3", fname, line, tok,
                      vals[ki].line);
            if (ns3_read_values(fname, line, &ns3_keys[ki], &p, &vals[ki], e) < 0)
                goto out;
        }
    }

    /* Pass 2: ns-3's defaults where the file is silent, then the mapping. */
    char where[WHERE_MAX], val[PARAM_STR_MAX + 8];
    if (set_key(c, "switch", "pfc", "on", fname, false, e) < 0 || set_key(c, "transport", "recovery", "gbn", fname, false, e) < 0 ||
        set_key(c, "transport", "cnp", "flag", fname, false, e) < 0 ||
        /* a user of an ns-3 config expects ns-3's numbers, which come from its whole-ns truncation */
        set_key(c, "run", "ns3_timing", "on", fname, false, e) < 0 ||
        /* and ns-3's paths: its ECMP indexes next hops in the order its BFS builds */
        set_key(c, "topology", "next_hop_order", "ns3", fname, false, e) < 0 ||
        /* and its NIC's wake-ups, which slow a paced QP beside a window-bound one */
        set_key(c, "transport", "nic_wake", "ns3", fname, false, e) < 0)
        goto out;
    const char *selected = "none";
    char others[512] = "";
    for (size_t ki = 0; ki < NS3_NKEYS; ki++) {
        const struct ns3_key *k = &ns3_keys[ki];
        const struct ns3_val *v = &vals[ki];
        bool present = v->line > 0;
        const char *tok = present ? v->v[0] : k->def;
        if (present)
            snprintf(where, sizeof where, "%s:%d", fname, v->line);
        else
            snprintf(where, sizeof where, "%s", fname);
        uint64_t u = tok && all_digits(tok) ? strtoull(tok, NULL, 10) : 0;
        switch (k->act) {
        case A_SET:
            if (ns3_conv(val, sizeof val, tok, k->conv) < 0) {
                errf(e, "%s: %s: value too long", where, k->name);
                goto out;
            }
            if (set_key(c, k->sec, k->key, val, where, present, e) < 0)
                goto out;
            break;
        case A_CC: {
            int took = ns3_cc_key(c, k, tok, where, present, selected, e);
            if (took < 0)
                goto out;
            if (!took && present && strlen(others) + strlen(k->name) + 3 < sizeof others)
                strcat(strcat(others, *others ? ", " : ""), k->name);
            break;
        }
        case A_WARN:
            if (present && (k->when == W_PRESENT || (k->when == W_ZERO) == (u == 0)))
                warnf("%s: %s %.60s is not modelled (%s)", where, k->name, tok, k->sec);
            break;
        case A_SPECIAL:
            switch (k->sp) {
            case S_CCMODE: {
                selected = "none";
                for (size_t i = 0; i < sizeof cc_modes / sizeof cc_modes[0]; i++)
                    if (u == cc_modes[i].mode)
                        selected = cc_modes[i].cc;
                if (strcmp(selected, "none") == 0)
                    warnf("%s: CC_MODE %llu is no congestion control in ns-3's RdmaHw: using none", where,
                          (unsigned long long)u);
                if (!cc_find(selected)) {
                    if (present)
                        errf(e, "%s: CC_MODE %llu (%s) is not implemented yet", where, (unsigned long long)u, selected);
                    else
                        errf(e, "%s: no CC_MODE, so ns-3's default 1 (%s), which is not implemented yet", where, selected);
                    goto out;
                }
                if (set_key(c, "transport", "cc", selected, where, present, e) < 0)
                    goto out;
                break;
            }
            case S_TOPO:
            case S_FLOW: { /* ns-3 always reads both files; relative paths are taken from the cwd, as ns-3 does */
                const char *sec = k->sp == S_TOPO ? "topology" : "traffic";
                if (set_key(c, sec, k->sp == S_TOPO ? "type" : "pattern", "file", where, present, e) < 0 ||
                    (present && set_key(c, sec, "file", tok, where, true, e) < 0))
                    goto out;
                break;
            }
            case S_FCT:
            case S_PFC: {
                char *dst = k->sp == S_FCT ? c->ns3.fct_file : c->ns3.pfc_file;
                if (strlen(tok) >= PARAM_STR_MAX) {
                    errf(e, "%s: %s: path too long", where, k->name);
                    goto out;
                }
                strcpy(dst, tok);
                if (present && origin_set(c, "ns3", k->sp == S_FCT ? "fct_file" : "pfc_file", where) < 0) {
                    errf(e, "%s: out of memory", where);
                    goto out;
                }
                break;
            }
            case S_ACKINT:
                /* ns-3 sets the receiver's ACK milestone back to L2_ACK_INTERVAL bytes on every packet, so any
                 * value up to one packet ACKs every packet; 0 makes its senders ignore ACKs, so no flow finishes. */
                if (u == 0) {
                    if (present)
                        errf(e, "%s: L2_ACK_INTERVAL 0 turns ACKs off in ns-3, so no flow could finish (use 1)", where);
                    else
                        errf(e, "%s: no L2_ACK_INTERVAL: ns-3's default 0 turns ACKs off, so no flow could finish "
                                "(add L2_ACK_INTERVAL 1)", where);
                    goto out;
                }
                if (u > (uint64_t)c->transport.mtu)
                    warnf("%s: L2_ACK_INTERVAL %llu: ns-3 resets its ACK milestone every packet, so it ACKs every "
                          "packet after the first %llu bytes; we ACK every packet", where, (unsigned long long)u,
                          (unsigned long long)u);
                if (set_key(c, "transport", "ack_interval", "1", where, true, e) < 0)
                    goto out;
                break;
            case S_ERR: {
                if (!present)
                    break;
                double d = strtod(tok, NULL);
                if (d < 0 || d > 1) {
                    errf(e, "%s: ERROR_RATE_PER_LINK %.60s is not a probability (0..1)", where, tok);
                    goto out;
                }
                c->ns3.error_rate = d;
                if (set_key(c, "topology", "loss", tok, where, true, e) < 0) /* a per-packet loss on every link */
                    goto out;
                break;
            }
            case S_QFILE:
                if (!present)
                    break;
                if (strlen(tok) >= PARAM_STR_MAX) {
                    errf(e, "%s: %s: path too long", where, k->name);
                    goto out;
                }
                strcpy(c->ns3.qlen_mon_file, tok);
                if (origin_set(c, "ns3", "qlen_mon_file", where) < 0) {
                    errf(e, "%s: out of memory", where);
                    goto out;
                }
                break;
            case S_QSTART:
            case S_QEND:
                if (u > (uint64_t)(INT64_MAX / T_NS)) {
                    errf(e, "%s: %s %.60s: time out of range (ns)", where, k->name, tok);
                    goto out;
                }
                *(k->sp == S_QSTART ? &c->ns3.qlen_mon_start : &c->ns3.qlen_mon_end) = (simtime_t)u * T_NS;
                break;
            case S_LINK: /* checked against the topology in config_validate */
                if (!present || u == 0)
                    break;
                if (u > (uint64_t)(INT64_MAX / T_US) - 2000000) {
                    errf(e, "%s: LINK_DOWN %.60s: time out of range (us after 2 s)", where, tok);
                    goto out;
                }
                c->ns3.link_down_us = u;
                c->ns3.link_down_a = (uint32_t)strtoul(v->v[1], NULL, 10);
                c->ns3.link_down_b = (uint32_t)strtoul(v->v[2], NULL, 10);
                if (origin_set(c, "ns3", "link_down", where) < 0) {
                    errf(e, "%s: out of memory", where);
                    goto out;
                }
                break;
            }
            break;
        }
    }
    if (*others)
        warnf("%s: ignored keys for CC modes not implemented yet (CC_MODE here is %s): %s", fname, selected, others);
    if (ns3_maps(c, fname, vals, e) < 0)
        goto out;
    c->ns3.active = true;
    set_default_name(c, fname, true);
    rc = 0;
out:
    free(buf);
    free(vals);
    return rc;
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
    rc = looks_ns3(text) ? config_load_ns3(c, text, path, e) : config_load_ini(c, text, path, e);
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
    return set_key(c, sec, key, eq + 1, where, true, e);
}

/* ------------------------------------------------------------- validate */

static const char *where_of(const struct config *c, const char *k)
{
    const char *w = config_origin(c, k);
    return w ? w : c->source;
}

/* The origin of whichever of two related keys was set (a, else b). */
static const char *where_of2(const struct config *c, const char *a, const char *b)
{
    const char *w = config_origin(c, a);
    return w ? w : where_of(c, b);
}

static int check_file(const struct config *c, const char *key, const char *path, struct err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return errf(e, "%s: %s '%.300s': cannot open: %s", where_of(c, key), key, path, strerror(errno));
    fclose(f);
    return 0;
}

/* Traffic checks that need the topology (host ids, fan-ins), built here
 * only when some source has host ids or counts to check. */
static int validate_workload_hosts(const struct config *c, struct err *e)
{
    /* generators are cheap to run, so always check them here, where keys have places */
    bool lists = c->topology.link_rate[0] || c->topology.fail[0] || c->ns3.link_down_us || c->topology.flap[0] ||
                 c->topology.switch_fail[0] || c->topology.slow[0];
    if (!workload_needs_topology(c) && !lists && c->topology.type == TOPO_FILE)
        return 0;
    struct topo t;
    struct err sub;
    struct wl_key wk;
    /* the generator's own keys first, then each list key, so errors blame the right line */
    struct cfg_topology base = c->topology;
    base.link_rate[0] = base.fail[0] = 0;
    base.flap[0] = base.switch_fail[0] = base.slow[0] = 0;
    if (topo_generate(&t, &base, &sub)) {
        if (c->topology.type == TOPO_FILE)
            return errf(e, "%s", sub.msg); /* names the file and line */
        /* generator messages start with the key at fault: "topology.KEY: ..." */
        char key[64];
        size_t n = strcspn(sub.msg, ": ");
        snprintf(key, sizeof key, "%.*s", (int)(n < sizeof key ? n : sizeof key - 1), sub.msg);
        return errf(e, "%s: %s", where_of2(c, key, "topology.type"), sub.msg);
    }
    int rc = 0;
    if (topo_set_link_rates(&t, c->topology.link_rate, &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "topology.link_rate"), sub.msg);
    else if (topo_parse_fails(&t, c->topology.fail, &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "topology.fail"), sub.msg);
    else if (c->ns3.link_down_us &&
             topo_add_fail(&t, c->ns3.link_down_a, c->ns3.link_down_b, 2 * T_SEC + (simtime_t)c->ns3.link_down_us * T_US,
                           T_NEVER, "LINK_DOWN", &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "ns3.link_down"), sub.msg);
    else if (topo_parse_flaps(&t, c->topology.flap, &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "topology.flap"), sub.msg);
    else if (topo_parse_switch_fails(&t, c->topology.switch_fail, &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "topology.switch_fail"), sub.msg);
    else if (topo_parse_slows(&t, c->topology.slow, &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "topology.slow"), sub.msg);
    else if (c->run.stop == 0 && c->topology.switch_fail[0] && topo_check_fails_connected(&t, &sub) < 0)
        rc = errf(e, "%s: topology.switch_fail: %s", where_of2(c, "topology.switch_fail", "topology.fail"), sub.msg);
    else if (c->run.stop == 0 && topo_check_fails_connected(&t, &sub) < 0)
        rc = errf(e, "%s: topology.fail: %s", where_of2(c, "topology.fail", "ns3.link_down"), sub.msg);
    else if (workload_needs_topology(c) && workload_check(c, &t, &wk, &sub) < 0)
        rc = errf(e, "%s: %s", where_of2(c, wk.key, wk.alt), sub.msg);
    topo_free(&t);
    return rc;
}

/* [cc.NAME] / [lb.NAME] keys the user set for a scheme that is not selected
 * do nothing: warn, naming where each was set (a typo'd transport.cc or a
 * leftover section). ns-3 configs set every CC's keys by design: not those. */
static void warn_unused_scheme_keys(const struct config *c)
{
    const struct origins *o = c->origins;
    size_t src_len = strlen(c->source);
    for (size_t i = 0; o && i < o->n; i++) {
        const char *k = o->v[i].key, *w = o->v[i].where;
        bool cc = strncmp(k, "cc.", 3) == 0, lb = strncmp(k, "lb.", 3) == 0;
        const char *dot = (cc || lb) ? strrchr(k, '.') : NULL;
        if (!dot || dot == k + 2)
            continue;
        if (c->ns3.active && strncmp(w, c->source, src_len) == 0 && w[src_len] == ':')
            continue;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(dot - k - 3), k + 3);
        const char *sel = cc ? c->transport.cc : c->lb.scheme;
        if (strcmp(name, sel) == 0 || (cc && c->transport.pbfs && strcmp(name, "pbfs") == 0) ||
            (cc && c->transport.hf2t && strcmp(name, "hf2t") == 0) ||
            (cc && c->transport.slowstart && strcmp(name, "slowstart") == 0))
            continue;
        warnf("%s: %s is set, but %s is %s: [%s.%s] is not used", w, k, cc ? "transport.cc" : "lb.scheme", sel,
              cc ? "cc" : "lb", name);
    }
}

int config_validate(struct config *c, struct err *e)
{
    char names[256], a[32], b[32];
    const char *ns3 = c->ns3.active ? " (ns-3 TOPOLOGY_FILE)" : "";
    if (c->topology.type == TOPO_FILE) {
        if (!c->topology.file[0])
            return errf(e, "%s: topology.type=file needs topology.file%s", where_of2(c, "topology.file", "topology.type"), ns3);
        if (check_file(c, "topology.file", c->topology.file, e) < 0)
            return -1;
    }
    if (c->topology.type == TOPO_FATTREE && c->topology.k % 2)
        return errf(e, "%s: topology.k must be even for a fat-tree (got %lld)", where_of2(c, "topology.k", "topology.type"),
                    (long long)c->topology.k);
    struct wl_key wk;
    struct err sub;
    if (workload_check(c, NULL, &wk, &sub) < 0) /* [traffic], [traffic.NAME], [flow.NAME]; the topology comes last */
        return errf(e, "%s: %s", where_of2(c, wk.key, wk.alt), sub.msg);
    if (!cc_find(c->transport.cc)) {
        scheme_names(names, sizeof names, false);
        return errf(e, "%s: transport.cc: unknown congestion control '%.80s' (known: %s)", where_of(c, "transport.cc"),
                    c->transport.cc, names);
    }
    if (!lb_find(c->lb.scheme)) {
        scheme_names(names, sizeof names, true);
        return errf(e, "%s: lb.scheme: unknown load balancer '%.80s' (known: %s)", where_of(c, "lb.scheme"), c->lb.scheme, names);
    }
    if (c->sw.kmin > c->sw.kmax) {
        fmt_size(a, sizeof a, c->sw.kmin);
        fmt_size(b, sizeof b, c->sw.kmax);
        return errf(e, "%s: switch.kmin (%s) > switch.kmax (%s)", where_of2(c, "switch.kmin", "switch.kmax"), a, b);
    }
    for (int i = 0; i < c->sw.n_ecn_map && i < ECN_MAP_MAX; i++) {
        const struct ecn_entry *m = &c->sw.ecn_map[i];
        if (m->kmin > m->kmax || !(m->pmax >= 0 && m->pmax <= 1))
            return errf(e, "%s: ECN map at rate %llu: need kmin <= kmax and 0 <= pmax <= 1", where_of(c, "switch.ecn_map"),
                        (unsigned long long)m->rate);
    }
    if (c->sw.pfc_threshold && (c->sw.pfc_threshold <= c->sw.reserve || c->sw.pfc_threshold >= UINT32_MAX)) {
        fmt_size(a, sizeof a, c->sw.pfc_threshold);
        fmt_size(b, sizeof b, c->sw.reserve);
        return errf(e, "%s: switch.pfc_threshold (%s) must exceed switch.reserve (%s) and be below 4 GiB",
                    where_of2(c, "switch.pfc_threshold", "switch.reserve"), a, b);
    }
    if (c->transport.recovery == REC_IRN && c->sw.pfc)
        return errf(e, "%s: transport.recovery=irn needs switch.pfc=off (IRN is for lossy fabrics)",
                    where_of2(c, "transport.recovery", "switch.pfc"));
    if (cc_find(c->transport.cc)->multipath) { /* MP-RDMA: paths by UDP source port, the bitmap receiver */
        const char *cc = c->transport.cc;
        if (strcmp(c->lb.scheme, "ecmp") != 0)
            return errf(e, "%s: transport.cc=%s picks each packet's path at the sender (its UDP source port, which ECMP "
                           "hashes): it needs lb.scheme=ecmp, not %s", where_of2(c, "lb.scheme", "transport.cc"), cc, c->lb.scheme);
        if (c->transport.recovery == REC_IRN)
            return errf(e, "%s: transport.cc=%s recovers losses itself (bounded-window receiver, go back on NACK): "
                           "it cannot run with transport.recovery=irn", where_of2(c, "transport.recovery", "transport.cc"), cc);
        if (config_origin(c, "transport.reorder") && c->transport.reorder != REORDER_BITMAP)
            return errf(e, "%s: transport.cc=%s needs the bounded-window receiver: transport.reorder=bitmap (the default "
                           "with it), not %s", where_of(c, "transport.reorder"), cc,
                        c->transport.reorder == REORDER_GBN ? "gbn" : "buffer");
        c->transport.reorder = REORDER_BITMAP;
    }
    if (c->transport.back_to_zero && c->transport.chunk == 0)
        return errf(e, "%s: transport.back_to_zero needs transport.chunk > 0 (it goes back to the chunk start)",
                    where_of2(c, "transport.back_to_zero", "transport.chunk"));
    if (validate_workload_hosts(c, e) < 0)
        return -1;
    warn_unused_scheme_keys(c);
    if (c->ns3.active && c->run.ns3_timing && !config_origin(c, "run.ns3_timing"))
        warnf("%s: ns-3 config: run.ns3_timing = on (serialisation, pacing and flow starts truncated to whole ns, as ns-3 "
              "does, so results match ns-3's; --set run.ns3_timing=off for exact picoseconds)",
              c->source);
    if (c->ns3.active && c->topology.next_hop_order == HOP_ORDER_NS3 && !config_origin(c, "topology.next_hop_order"))
        warnf("%s: ns-3 config: topology.next_hop_order = ns3 (equal-cost next hops in the order ns-3 builds them, so "
              "flows take ns-3's ECMP paths; --set topology.next_hop_order=id for ascending node ids)",
              c->source);
    if (c->ns3.active && c->transport.nic_wake == NIC_WAKE_NS3 && !config_origin(c, "transport.nic_wake"))
        warnf("%s: ns-3 config: transport.nic_wake = ns3 (the NIC wakes for paced QPs as ns-3's does, which holds "
              "them while a window-bound QP is due; --set transport.nic_wake=exact to wake at each QP's time)",
              c->source);
    return 0;
}
