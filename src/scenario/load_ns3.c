/* Scenario input: ns-3 HPCC config.txt files, read as ns-3's third.cc reads
 * them and mapped onto our sections. See load.h. */
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
#include "traffic/traffic.h"

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
    return parse_whole(s, max, v);
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
    if (cfg_origin_set(c, "switch", "ecn_map", where) < 0)
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
        if (cfg_set_key(c, sec, k->key, val, where, present, e) < 0)
            return -1;
    }
    return took;
}

/* SimAI.conf (ns-3-alibabacloud's ReadConf) adds these keys to the ns-3 set:
 * read, checked for a value, and not modelled. */
static const char *const simai_only[] = {"BW_MON_FILE", "RATE_MON_FILE", "CNP_MON_FILE", "MON_START", "MON_END",
                                         "QP_MON_INTERVAL", "BW_MON_INTERVAL", "QLEN_MON_INTERVAL",
                                         "NIC_TOTAL_PAUSE_TIME"};

static bool simai_only_key(const char *tok)
{
    for (size_t i = 0; i < sizeof simai_only / sizeof simai_only[0]; i++)
        if (strcmp(tok, simai_only[i]) == 0)
            return true;
    return false;
}

/* simai: a SimAI.conf, read as SimAI's ReadConf/SetupNetwork use it: the
 * topology and flows come from elsewhere (TOPOLOGY_FILE, FLOW_FILE ignored),
 * its output paths and SIMULATOR_STOP_TIME are not used, GLOBAL_T is always 1. */
static int load_ns3(struct config *c, const char *text, const char *fname, bool simai, struct err *e)
{
    char *buf = strdup(text);
    struct ns3_val *vals = calloc(NS3_NKEYS, sizeof *vals);
    int rc = -1;
    if (!buf || !vals) {
        errf(e, "%s: out of memory", fname);
        goto out;
    }
    cfg_set_source(c, fname);
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
            if (ki < 0 && simai && simai_only_key(tok)) {
                char *v = next_tok(&p);
                if (!v) {
                    errf(e, "%s:%d: %s needs a value", fname, line, tok);
                    goto out;
                }
                warnf("%s:%d: %s is not modelled (SimAI's monitors and pause budget; use the output.* monitors)", fname,
                      line, tok);
                break;
            }
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
    if (cfg_set_key(c, "switch", "pfc", "on", fname, false, e) < 0 || cfg_set_key(c, "transport", "recovery", "gbn", fname, false, e) < 0 ||
        cfg_set_key(c, "transport", "cnp", "flag", fname, false, e) < 0 ||
        /* a user of an ns-3 config expects ns-3's numbers, which come from its whole-ns truncation */
        cfg_set_key(c, "run", "ns3_timing", "on", fname, false, e) < 0 ||
        /* and ns-3's paths: its ECMP indexes next hops in the order its BFS builds */
        cfg_set_key(c, "topology", "next_hop_order", "ns3", fname, false, e) < 0 ||
        /* and its NIC's wake-ups, which slow a paced QP beside a window-bound one */
        cfg_set_key(c, "transport", "nic_wake", simai ? "simai" : "ns3", fname, false, e) < 0)
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
        if (simai) { /* what SimAI's frontend does not take from its conf */
            if (k->sp == S_TOPO || k->sp == S_FLOW || k->sp == S_FCT || k->sp == S_PFC || k->sp == S_QFILE ||
                k->sp == S_QSTART || k->sp == S_QEND || strcmp(k->name, "SIMULATOR_STOP_TIME") == 0)
                continue;
            if (strcmp(k->name, "GLOBAL_T") == 0) { /* ReadConf: conf >> global_t; global_t = 1; */
                if (present && u != 1)
                    warnf("%s: GLOBAL_T %llu: SimAI always uses 1 (the largest pair's BDP as every window)", where,
                          (unsigned long long)u);
                tok = "1";
            }
        }
        switch (k->act) {
        case A_SET:
            if (ns3_conv(val, sizeof val, tok, k->conv) < 0) {
                errf(e, "%s: %s: value too long", where, k->name);
                goto out;
            }
            if (cfg_set_key(c, k->sec, k->key, val, where, present, e) < 0)
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
                if (cfg_set_key(c, "transport", "cc", selected, where, present, e) < 0)
                    goto out;
                break;
            }
            case S_TOPO:
            case S_FLOW: { /* ns-3 always reads both files; relative paths are taken from the cwd, as ns-3 does */
                const char *sec = k->sp == S_TOPO ? "topology" : "traffic";
                if (cfg_set_key(c, sec, k->sp == S_TOPO ? "type" : "pattern", "file", where, present, e) < 0 ||
                    (present && cfg_set_key(c, sec, "file", tok, where, true, e) < 0))
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
                if (present && cfg_origin_set(c, "ns3", k->sp == S_FCT ? "fct_file" : "pfc_file", where) < 0) {
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
                if (cfg_set_key(c, "transport", "ack_interval", "1", where, true, e) < 0)
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
                if (cfg_set_key(c, "topology", "loss", tok, where, true, e) < 0) /* a per-packet loss on every link */
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
                if (cfg_origin_set(c, "ns3", "qlen_mon_file", where) < 0) {
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
                if (cfg_origin_set(c, "ns3", "link_down", where) < 0) {
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
    if (!simai) {
        c->ns3.active = true;
        cfg_default_name(c, fname, true);
    }
    rc = 0;
out:
    free(buf);
    free(vals);
    return rc;
}

int config_load_ns3(struct config *c, const char *text, const char *fname, struct err *e)
{
    return load_ns3(c, text, fname, false, e);
}

int config_load_simai_conf(struct config *c, const char *path, struct err *e)
{
    char *text;
    if (read_text_file(path, &text, e) < 0)
        return -1;
    const char *source = c->source[0] ? c->source : NULL;
    char keep[PARAM_STR_MAX];
    snprintf(keep, sizeof keep, "%s", source ? source : "");
    int rc = load_ns3(c, text, path, true, e);
    if (source)
        cfg_set_source(c, keep); /* the scenario stays the workload or INI file */
    free(text);
    return rc;
}
