/* ns-3 HPCC topology files: "N S L", the S switch ids, then L links
 * "a b rate delay error_rate". ns-3 reads them with `>>`, so line breaks are
 * just whitespace; we accept the same token stream but turn everything ns-3
 * would silently misread into "fname:line: what is wrong". */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"
#include "topo/topo.h"

#define NS3_MAX_NODES ((1u << 28) - 1)

struct lexer {
    const char *p;
    long line;      /* line of the current position */
    long last_line; /* line of the last token returned (1 before any) */
};

struct tok {
    const char *s;
    size_t n;
    long line;
};

static bool next_tok(struct lexer *lx, struct tok *t)
{
    for (;;) {
        unsigned char c = (unsigned char)*lx->p;
        if (c == '\n')
            lx->line++;
        else if (!c || !isspace(c))
            break;
        lx->p++;
    }
    if (!*lx->p)
        return false;
    t->s = lx->p;
    t->line = lx->last_line = lx->line;
    while (*lx->p && !isspace((unsigned char)*lx->p))
        lx->p++;
    t->n = (size_t)(lx->p - t->s);
    return true;
}

/* A token for messages: at most 32 bytes, non-printing bytes as '?'. */
static const char *shown(const struct tok *t, char *buf, size_t cap)
{
    size_t n = t->n < cap - 4 ? t->n : cap - 4, i;
    for (i = 0; i < n; i++)
        buf[i] = isprint((unsigned char)t->s[i]) ? t->s[i] : '?';
    if (n < t->n)
        buf[i++] = '.', buf[i++] = '.', buf[i++] = '.';
    buf[i] = 0;
    return buf;
}

/* Unsigned decimal; false on anything else or a value above `max`. */
static bool tok_uint(const struct tok *t, uint32_t max, uint32_t *v)
{
    uint64_t x = 0;
    if (t->n == 0)
        return false;
    for (size_t i = 0; i < t->n; i++) {
        if (!isdigit((unsigned char)t->s[i]))
            return false;
        x = x * 10 + (uint64_t)(t->s[i] - '0');
        if (x > max)
            return false;
    }
    *v = (uint32_t)x;
    return true;
}

/* Open-addressing map from a 64-bit key to a link index. Sets keyed by node
 * id or node pair let the parser check everything as it reads, in file order,
 * with memory bounded by the file's size rather than by the header's claims. */
struct idmap {
    uint64_t *key; /* stored as key + 1; 0 = empty */
    uint32_t *val;
    size_t mask;
};

static int idmap_init(struct idmap *m, uint64_t n)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    m->key = calloc(cap, sizeof *m->key);
    m->val = malloc(cap * sizeof *m->val);
    m->mask = cap - 1;
    return m->key && m->val ? 0 : -1;
}

static void idmap_free(struct idmap *m)
{
    free(m->key);
    free(m->val);
}

static size_t idmap_slot(const struct idmap *m, uint64_t key)
{
    size_t h = (size_t)(((key + 1) * 0x9e3779b97f4a7c15ULL) >> 20) & m->mask;
    while (m->key[h] && m->key[h] != key + 1)
        h = (h + 1) & m->mask;
    return h;
}

/* The value stored under key, or -1. */
static int64_t idmap_find(const struct idmap *m, uint64_t key)
{
    size_t h = idmap_slot(m, key);
    return m->key[h] ? (int64_t)m->val[h] : -1;
}

/* Inserts key -> val and returns -1, or returns the value already there. */
static int64_t idmap_add(struct idmap *m, uint64_t key, uint32_t val)
{
    size_t h = idmap_slot(m, key);
    if (m->key[h])
        return m->val[h];
    m->key[h] = key + 1;
    m->val[h] = val;
    return -1;
}

static const char *const link_field[5] = {"first node", "second node", "rate", "delay", "error rate"};

/* Copies a unit token into buf for the units.h parsers; false if too long. */
static bool tok_str(const struct tok *t, char *buf, size_t cap)
{
    if (t->n >= cap)
        return false;
    memcpy(buf, t->s, t->n);
    buf[t->n] = 0;
    return true;
}

int topo_parse_ns3(struct topo *t, const char *text, const char *fname, struct err *e)
{
    memset(t, 0, sizeof *t);
    struct lexer lx = {.p = text, .line = 1, .last_line = 1};
    struct tok tk;
    char sb[40], val[64];
    uint32_t hdr[3];
    static const char *const hdr_name[3] = {"node count", "switch count", "link count"};
    for (int i = 0; i < 3; i++) {
        if (!next_tok(&lx, &tk))
            return errf(e, "%s:%ld: file ends early: expected the %s (the first line is \"nodes switches links\")",
                        fname, lx.last_line, hdr_name[i]);
        if (!tok_uint(&tk, UINT32_MAX, &hdr[i]))
            return errf(e, "%s:%ld: %s: expected a whole number, got \"%s\"", fname, tk.line, hdr_name[i],
                        shown(&tk, sb, sizeof sb));
    }
    uint32_t n = hdr[0], ns = hdr[1], nl = hdr[2];
    long hline = tk.line;
    if (n == 0)
        return errf(e, "%s:%ld: the file declares 0 nodes", fname, hline);
    if (n > NS3_MAX_NODES)
        return errf(e, "%s:%ld: %u nodes is too many (at most %u)", fname, hline, n, NS3_MAX_NODES);
    if (ns > n)
        return errf(e, "%s:%ld: %u switches but only %u nodes", fname, hline, ns, n);
    /* Every host needs its link and a link has two ends. Once the links are
     * read, this also bounds the node count by the file's size. */
    if ((uint64_t)(n - ns) > 2 * (uint64_t)nl)
        return errf(e, "%s:%ld: %u nodes with %u switches means %u hosts, but %u links can connect at most %llu "
                    "of them (rocesim models one NIC per host: every host needs exactly one link)",
                    fname, hline, n, ns, n - ns, nl, 2 * (unsigned long long)nl);

    /* Size everything by what the file can hold, not by what the header says. */
    uint64_t ntok = 0;
    for (struct lexer c = lx; next_tok(&c, &tk);)
        ntok++;
    uint64_t max_sw = ns < ntok ? ns : ntok, max_links = nl < ntok / 5 ? nl : ntok / 5;

    /* ns-3 reads the links as a stream of tokens (line breaks are free), and
     * so do we; but every ns-3 topology file writes a link per line, and a
     * line that lacks a field makes every later link read shifted, so the
     * error shows lines later. An error in the links after one whose fields
     * spanned lines is reported at that line first. */
    struct split {
        long line;
        uint32_t link;
        int fields;
    } split = {0, 0, 0};
    bool in_links = false;
    struct idmap sw = {0}, host = {0}, pair = {0}; /* switch ids; host -> its link; node pair -> link */
    uint32_t *lline = malloc((max_links + 1) * sizeof *lline); /* line of each link, for messages */
    t->links = calloc(max_links + 1, sizeof *t->links);
    int rc = -1;
    if (!lline || !t->links || idmap_init(&sw, max_sw) || idmap_init(&host, 2 * max_links) ||
        idmap_init(&pair, max_links)) {
        errf(e, "%s: out of memory for %u switches and %u links", fname, ns, nl);
        goto out;
    }

    for (uint32_t i = 0; i < ns; i++) {
        uint32_t id;
        if (!next_tok(&lx, &tk)) {
            errf(e, "%s:%ld: file ends early: expected switch id %u of %u", fname, lx.last_line, i + 1, ns);
            goto out;
        }
        if (!tok_uint(&tk, UINT32_MAX, &id)) {
            errf(e, "%s:%ld: switch id %u of %u: expected a node id, got \"%s\"", fname, tk.line, i + 1, ns,
                 shown(&tk, sb, sizeof sb));
            goto out;
        }
        if (id >= n) {
            errf(e, "%s:%ld: switch id %u does not exist (the file declares %u nodes, 0..%u)", fname, tk.line, id, n,
                 n - 1);
            goto out;
        }
        if (idmap_add(&sw, id, 0) >= 0) {
            errf(e, "%s:%ld: switch %u is listed twice", fname, tk.line, id);
            goto out;
        }
    }

    in_links = true;
    uint32_t odd_rates = 0; /* links below 1 Mbps or above 10 Tbps: a unit slip, surely */
    long odd_line = 0;
    char odd_val[64] = "";
    for (uint32_t i = 0; i < nl; i++) {
        struct topo_link *l = &t->links[i];
        struct tok f[5];
        uint32_t ends[2];
        const char *why;
        for (int j = 0; j < 5; j++) {
            if (!next_tok(&lx, &f[j])) {
                errf(e, "%s:%ld: file ends early: link %u of %u is missing its %s", fname, lx.last_line, i + 1, nl,
                     link_field[j]);
                goto out;
            }
            if (j > 0 && f[j].line != f[0].line && !split.line) /* the first link not on one line */
                split = (struct split){f[0].line, i + 1, j};
            if (j < 2 && !tok_uint(&f[j], UINT32_MAX, &ends[j])) {
                errf(e, "%s:%ld: link %u: %s: expected a node id, got \"%s\"", fname, f[j].line, i + 1,
                     link_field[j], shown(&f[j], sb, sizeof sb));
                goto out;
            }
            if (j < 2 && ends[j] >= n) {
                errf(e, "%s:%ld: link %u: node %u does not exist (the file declares %u nodes)", fname, f[j].line,
                     i + 1, ends[j], n);
                goto out;
            }
            if (j == 1 && ends[0] == ends[1]) {
                errf(e, "%s:%ld: link %u joins node %u to itself", fname, f[0].line, i + 1, ends[0]);
                goto out;
            }
            if (j >= 2 && !tok_str(&f[j], val, sizeof val)) {
                errf(e, "%s:%ld: link %u: %s \"%s\" is too long", fname, f[j].line, i + 1, link_field[j],
                     shown(&f[j], sb, sizeof sb));
                goto out;
            }
            if (j == 2 && (why = parse_rate_ns3(val, &l->rate))) {
                errf(e, "%s:%ld: link %u: bad rate \"%s\": %s", fname, f[j].line, i + 1, shown(&f[j], sb, sizeof sb),
                     why);
                goto out;
            }
            if (j == 2 && (l->rate < 1000000 || l->rate > 10000000000000ULL) && !odd_rates++) {
                odd_line = f[j].line;
                snprintf(odd_val, sizeof odd_val, "%.60s", val);
            }
            if (j == 3 && (why = parse_time(val, &l->delay))) {
                errf(e, "%s:%ld: link %u: bad delay \"%s\": %s", fname, f[j].line, i + 1,
                     shown(&f[j], sb, sizeof sb), why);
                goto out;
            }
            /* Longer than a second is surely a unit slip; the cap also keeps
             * path sums and event times far from overflow. */
            if (j == 3 && l->delay > T_SEC) {
                errf(e, "%s:%ld: link %u: delay \"%s\" is longer than 1 s", fname, f[j].line, i + 1,
                     shown(&f[j], sb, sizeof sb));
                goto out;
            }
            if (j == 4 && (parse_double(val, &l->error_rate) || !(l->error_rate >= 0 && l->error_rate < 1))) {
                errf(e, "%s:%ld: link %u: error rate \"%s\" must be a number from 0 to below 1 (at 1 every packet "
                        "is lost and no flow across the link could finish)", fname, f[j].line,
                     i + 1, shown(&f[j], sb, sizeof sb));
                goto out;
            }
        }
        uint32_t a = ends[0], b = ends[1];
        l->a = a;
        l->b = b;
        lline[i] = (uint32_t)(f[0].line > (long)UINT32_MAX ? UINT32_MAX : f[0].line);
        int64_t dup = idmap_add(&pair, (uint64_t)(a < b ? a : b) * n + (a < b ? b : a), i);
        if (dup >= 0) {
            errf(e, "%s:%ld: link %u joins nodes %u and %u again (link %lld, line %u, already does)", fname,
                 f[0].line, i + 1, a, b, (long long)dup + 1, lline[dup]);
            goto out;
        }
        for (int j = 0; j < 2; j++) {
            uint32_t h = ends[j], o = ends[1 - j];
            if (idmap_find(&sw, h) >= 0)
                continue;
            int64_t prev = idmap_add(&host, h, i);
            if (prev >= 0) {
                const struct topo_link *p = &t->links[prev];
                errf(e, "%s:%ld: host %u has a second link (to %u; its link to %u is on line %u): rocesim models "
                     "one NIC per host (or is %u missing from the switch ids?)",
                     fname, f[j].line, h, o, p->a == h ? p->b : p->a, lline[prev], h);
                goto out;
            }
        }
        t->n_links++;
    }
    in_links = false;
    /* ns-3 stops reading after the L links the header declares, and HPCC's own
     * topology.txt relies on that (it lists more, then prose). Read as ns-3
     * does, but say so. */
    if (next_tok(&lx, &tk))
        warnf("%s:%ld: ignoring everything after the %u links the header (line %ld) declares, as ns-3 does", fname,
              tk.line, nl, hline);
    /* All links read, so n <= ns + 2 * nl is bounded by the file's size. */
    t->n_nodes = n;
    t->nodes = calloc(n, sizeof *t->nodes);
    if (!t->nodes) {
        errf(e, "%s: out of memory for %u nodes", fname, n);
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        t->nodes[i].is_switch = idmap_find(&sw, i) >= 0;
        if (!t->nodes[i].is_switch && idmap_find(&host, i) < 0) {
            errf(e, "%s:%ld: host %u (not among the switch ids) has no link: rocesim models one NIC per host, so "
                 "every host needs exactly one link", fname, hline, i);
            goto out;
        }
    }
    static char warned[600]; /* the file is read by validation and again to build: warn once */
    char key[600];
    snprintf(key, sizeof key, "%.500s:%ld", fname, odd_line);
    if (odd_rates && strcmp(warned, key) != 0) {
        uint64_t r;
        snprintf(warned, sizeof warned, "%s", key);
        bool bare = odd_val[strspn(odd_val, "0123456789.")] == 0;
        warnf("%s:%ld: %u link%s an implausible rate, the first \"%s\" (%s)%s", fname, odd_line, odd_rates,
              odd_rates == 1 ? " has" : "s have", odd_val,
              parse_rate_ns3(odd_val, &r) ? "?" : (r < 1000000 ? "below 1 Mbps" : "above 10 Tbps"),
              bare ? ": ns-3 reads a bare number as bits per second; write the unit, e.g. 100Gbps" : "");
    }
    rc = topo_finish(t, e);
    if (rc == 0)
        topo_assign_layers(t);
out:
    if (rc && in_links && split.line) {
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s:%ld: link %u has %d of its 5 fields (first node, second node, rate, delay, error "
                 "rate) on this line: is its %s missing? (read on as ns-3 would: %.600s)", fname, split.line,
                 split.link, split.fields, link_field[split.fields], e->msg);
        memcpy(e->msg, msg, sizeof msg);
    }
    if (rc)
        topo_free(t);
    free(lline);
    idmap_free(&sw);
    idmap_free(&host);
    idmap_free(&pair);
    return rc;
}

/* Whole file as a NUL-terminated string; NUL bytes inside are refused since
 * the parser would silently stop there. */
static char *read_all(const char *path, struct err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        errf(e, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t n = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            errf(e, "%s: out of memory reading the file", path);
            break;
        }
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (ferror(f)) {
            errf(e, "%s: read error: %s", path, strerror(errno));
            break;
        }
        if (feof(f)) {
            fclose(f);
            buf[n] = 0;
            char *z = memchr(buf, 0, n);
            if (z) {
                long line = 1;
                for (const char *p = buf; p < z; p++)
                    line += *p == '\n';
                errf(e, "%s:%ld: NUL byte in the file (not a text file?)", path, line);
                free(buf);
                return NULL;
            }
            return buf;
        }
        if (n + 1 >= cap) {
            char *nb = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!nb)
                free(buf);
            buf = nb;
            cap *= 2;
        }
    }
    free(buf);
    fclose(f);
    return NULL;
}

int topo_read_ns3(struct topo *t, const char *path, struct err *e)
{
    memset(t, 0, sizeof *t);
    char *text = read_all(path, e);
    if (!text)
        return -1;
    int rc = topo_looks_simai(text) ? topo_parse_simai(t, text, path, e) : topo_parse_ns3(t, text, path, e);
    free(text);
    return rc;
}
