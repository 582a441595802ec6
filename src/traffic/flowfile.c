/* ns-3 HPCC flow files: "N", then N lines "src dst pg dport size start_s",
 * and our optional seventh field, the flow's dependencies: "-" (none) or
 * prerequisite flow ids (0 = the file's first record) separated by commas,
 * optionally "+DELAY_S", e.g. "0,3+0.000002": the flow starts 2 us after
 * flows 0 and 3 have both finished, and not before start_s. An id with an
 * "s" ("2s") waits only until that flow's last byte has left its sender, as
 * a NIC takes a queue pair's next work request (collective chunks). Unknown ids, a
 * flow waiting for itself and cycles are errors naming the line.
 *
 * ns-3 reads whitespace-separated tokens, so it would take records split or
 * joined across lines; we require one record per line so every error can name
 * its line. Like ns-3 we read exactly N records and ignore what follows them
 * (the shipped ns3-reference/flow.txt announces 2 flows, then lists 256 and
 * some prose), but warn once, since extra lines usually mean a wrong count.
 * Records keep file order (flow ids are file order); nothing is sorted. */
#include "traffic/traffic.h"
#include <inttypes.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include "core/ns3time.h"
#include "topo/topo.h"

#define FLOW_MAX_SIZE 1000000000000000ULL /* 1 PB */
#define MAXTOK 8
#define DEPS_TOK 6 /* kept at full length */

struct lex {
    const char *s;
    int line; /* number of the line last returned (or the last line at EOF) */
};

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* The next non-blank line's tokens (at most MAXTOK are recorded, the count
 * goes one past to flag extras); -1 at end of text. */
static int next_line(struct lex *lx, const char **tok, int *tlen)
{
    while (*lx->s) {
        const char *eol = strchr(lx->s, '\n');
        if (!eol)
            eol = lx->s + strlen(lx->s);
        lx->line++;
        int nt = 0;
        for (const char *q = lx->s; q < eol && nt < MAXTOK;) {
            if (is_space(*q)) {
                q++;
                continue;
            }
            const char *b = q;
            while (q < eol && !is_space(*q))
                q++;
            tok[nt] = b;
            tlen[nt++] = (int)(q - b > 40 ? 40 : q - b); /* only printed or parsed up to here */
            if (q - b > 40)
                tlen[nt - 1] = nt - 1 == DEPS_TOK && q - b < (1 << 30) ? (int)(q - b) : 41; /* too long for any other field */
        }
        lx->s = *eol ? eol + 1 : eol;
        if (nt)
            return nt;
    }
    return -1;
}

/* Non-negative decimal integer <= max: 0 ok, -1 not an integer, -2 too big. */
static int parse_uint(const char *s, int len, uint64_t max, uint64_t *v)
{
    if (len <= 0 || len > 40)
        return -1;
    uint64_t r = 0;
    for (int i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (r > (max - d) / 10)
            return -2;
        r = r * 10 + d;
    }
    *v = r;
    return 0;
}

/* Decimal seconds ("2", "2.000000123", "1.5e-3") to exact picoseconds,
 * rounded half up past the 12th decimal; NULL or what is wrong. */
static const char *parse_seconds(const char *s, int len, simtime_t *out)
{
    char dig[48];
    int nd = 0, nint = 0, i = 0, any = 0;
    long exp = 0;
    if (len > 40)
        return "is too long";
    if (i < len && s[i] == '-')
        return "is negative";
    if (i < len && s[i] == '+')
        i++;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, any = 1)
        if (nd || s[i] != '0') /* leading zeros carry no digits */
            dig[nd++] = s[i], nint++;
    if (i < len && s[i] == '.')
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, any = 1) {
            if (nd || s[i] != '0')
                dig[nd++] = s[i];
            else
                nint--; /* 0.00x: the first digit sits further right */
        }
    if (!any)
        return "is not a number of seconds";
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        int sign = 1, edig = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            sign = s[i++] == '-' ? -1 : 1;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, edig++)
            if (exp < 100000)
                exp = exp * 10 + (s[i] - '0');
        if (!edig)
            return "is not a number of seconds";
        exp *= sign;
    }
    if (i != len)
        return "is not a number of seconds";
    /* dig[k] weighs 10^(nint + exp - 1 - k) seconds = 10^(w - k) ps. */
    long w = nint + exp + 11;
    uint64_t v = 0;
    int k;
    for (k = 0; k < nd && w - k >= 0; k++) {
        if (v > (UINT64_MAX - 9) / 10)
            return "is too large";
        v = v * 10 + (uint64_t)(dig[k] - '0');
    }
    for (long z = nd ? w - (nd - 1) : 0; k == nd && z > 0; z--) { /* trailing zeros */
        if (v > UINT64_MAX / 10)
            return "is too large";
        v *= 10;
    }
    if (k < nd && w - k == -1 && dig[k] >= '5')
        v++;
    if (v > (uint64_t)INT64_MAX)
        return "is too large";
    *out = (simtime_t)v;
    return NULL;
}

static int check_node(const struct topo *t, uint64_t id, const char *dir, const char *fname, int line,
                      struct err *e)
{
    if (!t)
        return id > UINT32_MAX ? errf(e, "%s:%d: node id %" PRIu64 " is too large", fname, line, id) : 0;
    if (id >= t->n_nodes)
        return errf(e, "%s:%d: node %" PRIu64 " does not exist (the topology has %" PRIu32 " nodes)", fname, line,
                    id, t->n_nodes);
    if (t->host_index[id] < 0)
        return errf(e, "%s:%d: flow %s node %" PRIu64 ", which is a switch", fname, line, dir, id);
    if ((uint32_t)t->host_index[id] >= topo_traffic_hosts(t)) /* multi-port NICs (topo.h) */
        return errf(e, "%s:%d: flow %s node %" PRIu64 " is port %" PRIu32 " of GPU %" PRIu32 "'s NIC: name the GPU "
                    "(host %" PRIu32 "); each queue pair takes a port of its own (topology.planes, dual_tor)", fname, line,
                    dir, id, (uint32_t)t->host_index[id] / t->gpu_hosts, (uint32_t)t->host_index[id] % t->gpu_hosts,
                    t->hosts[(uint32_t)t->host_index[id] % t->gpu_hosts]);
    return 0;
}

static int parse_record(struct flow_spec *f, const char **tok, const int *tlen, const char *fname, int line,
                        const struct topo *t, struct err *e)
{
    static const char *const what[5] = {"src", "dst", "pg", "dport", "size"};
    uint64_t v[5];
    for (int i = 0; i < 5; i++) {
        int rc = parse_uint(tok[i], tlen[i], UINT64_MAX, &v[i]);
        if (rc == -2 && i < 2)
            return errf(e, "%s:%d: node %.*s does not exist", fname, line, tlen[i], tok[i]);
        if (rc)
            return errf(e, "%s:%d: %s '%.*s' is %s", fname, line, what[i], tlen[i], tok[i],
                        rc == -2 ? "too large" : tok[i][0] == '-' ? "negative" : "not a non-negative integer");
    }
    if (check_node(t, v[0], "from", fname, line, e) || check_node(t, v[1], "to", fname, line, e))
        return -1;
    if (v[0] == v[1])
        return errf(e, "%s:%d: flow from host %" PRIu64 " to itself", fname, line, v[0]);
    if (v[2] > 7)
        return errf(e, "%s:%d: priority group %" PRIu64 " is out of range 0..7", fname, line, v[2]);
    if (v[3] > 65535)
        return errf(e, "%s:%d: dport %" PRIu64 " is out of range 0..65535", fname, line, v[3]);
    if (v[4] == 0)
        return errf(e, "%s:%d: flow size is 0 bytes", fname, line);
    if (v[4] > FLOW_MAX_SIZE)
        return errf(e, "%s:%d: flow size %" PRIu64 " is over 1 PB", fname, line, v[4]);
    const char *why = parse_seconds(tok[5], tlen[5], &f->start);
    if (why)
        return errf(e, "%s:%d: start time '%.*s' %s", fname, line, tlen[5], tok[5], why);
    f->src = (uint32_t)v[0];
    f->dst = (uint32_t)v[1];
    f->pg = (uint16_t)v[2];
    f->dport = (uint16_t)v[3];
    f->size = v[4];
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The seventh field of record k (of count): prerequisites appended to out->deps
 * as indices from base; f->ndeps / dep0 / dep_delay set. */
static int parse_deps(struct flow_list *out, struct flow_spec *f, const char *s, int len, uint64_t k, uint64_t count,
                      size_t base, const char *fname, int line, struct err *e)
{
    f->ndeps = f->dep0 = 0;
    f->dep_delay = 0;
    if (len == 1 && s[0] == '-')
        return 0;
    const char *plus = memchr(s, '+', (size_t)len), *end = plus ? plus : s + len;
    if (plus) {
        const char *why = parse_seconds(plus + 1, (int)(s + len - plus - 1), &f->dep_delay);
        if (why)
            return errf(e, "%s:%d: dependency delay '%.*s' %s", fname, line, (int)(s + len - plus - 1 > 40 ? 40 : s + len - plus - 1),
                        plus + 1, why);
    }
    size_t at = out->n_deps;
    for (const char *p = s; p < end;) {
        const char *c = memchr(p, ',', (size_t)(end - p)), *q = c ? c : end;
        uint32_t flag = 0; /* s: sent, r: received, q: the same queue pair's previous message, b: began */
        if (q > p + 1)
            flag = q[-1] == 's'   ? FLOW_DEP_SENT
                   : q[-1] == 'r' ? FLOW_DEP_RECV
                   : q[-1] == 'q' ? FLOW_DEP_QP
                   : q[-1] == 'b' ? FLOW_DEP_START
                                  : 0;
        uint64_t id;
        int rc = parse_uint(p, (int)(q - p - (flag != 0)), UINT64_MAX, &id);
        if (rc == -1)
            return errf(e, "%s:%d: dependency '%.*s' is not a flow id (use ID[s|r|q|b],...[+DELAY_S] or -)", fname, line,
                        (int)(q - p > 40 ? 40 : q - p), p);
        if (rc == -2 || id >= count)
            return errf(e, "%s:%d: waits for flow %.*s, which does not exist (the file has flows 0..%" PRIu64 ")", fname,
                        line, (int)(q - p > 40 ? 40 : q - p), p, count - 1);
        if (id == k)
            return errf(e, "%s:%d: flow %" PRIu64 " waits for itself", fname, line, k);
        uint32_t v = (uint32_t)(base + id) | flag;
        if (base + id > FLOW_DEP_ID || flow_list_add_deps(out, &v, 1) < 0)
            return errf(e, "%s:%d: out of memory", fname, line);
        p = c ? c + 1 : end;
        if (c && p == end)
            return errf(e, "%s:%d: dependency list '%.*s' ends with a comma", fname, line, len > 40 ? 40 : len, s);
    }
    if (out->n_deps == at)
        return errf(e, "%s:%d: dependency field '%.*s' names no flow (use - for none)", fname, line, len > 40 ? 40 : len, s);
    size_t m = out->n_deps - at; /* a flow named twice: sorted copy, neighbours */
    uint32_t *ids = malloc(m * sizeof *ids);
    if (!ids)
        return errf(e, "%s:%d: out of memory", fname, line);
    for (size_t j = 0; j < m; j++)
        ids[j] = out->deps[at + j] & FLOW_DEP_ID;
    qsort(ids, m, sizeof *ids, cmp_u32);
    for (size_t j = 1; j < m; j++)
        if (ids[j] == ids[j - 1]) {
            uint32_t dup = ids[j];
            free(ids);
            return errf(e, "%s:%d: waits for flow %" PRIu64 " twice", fname, line, (uint64_t)(dup - base));
        }
    free(ids);
    f->dep0 = (uint32_t)at;
    f->ndeps = (uint32_t)(out->n_deps - at);
    return 0;
}

int flowfile_parse(struct flow_list *out, const char *text, const char *fname, const struct topo *t,
                   struct err *e)
{
    int rc = 0;
    int *lines = NULL; /* per record, its line: a cycle is reported where one of its flows is */
    size_t nlines = 0, caplines = 0;
    bool any_deps = false;
    struct lex lx = {text, 0};
    const char *tok[MAXTOK];
    int tlen[MAXTOK];
    size_t n0 = out->n, d0 = out->n_deps;
    int nt = next_line(&lx, tok, tlen);
    if (nt < 0)
        return errf(e, "%s:%d: empty flow file (expected the flow count)", fname, lx.line ? lx.line : 1);
    uint64_t count;
    rc = parse_uint(tok[0], tlen[0], UINT64_MAX, &count);
    if (rc)
        return errf(e, "%s:%d: flow count '%.*s' is %s", fname, lx.line, tlen[0], tok[0],
                    rc == -2 ? "too large" : tok[0][0] == '-' ? "negative" : "not a non-negative integer");
    if (nt > 1)
        return errf(e, "%s:%d: extra field '%.*s' after the flow count (one flow per line)", fname, lx.line,
                    tlen[1], tok[1]);
    for (uint64_t k = 0; k < count; k++) {
        nt = next_line(&lx, tok, tlen);
        if (nt < 0) {
            rc = errf(e, "%s:%d: expected %" PRIu64 " flows, found %" PRIu64, fname, lx.line ? lx.line : 1, count, k);
            goto fail;
        }
        struct flow_spec f = {0};
        if (nt < 6 || nt > 7) {
            if (nt > 7)
                rc = errf(e, "%s:%d: extra field '%.*s' after 'src dst pg dport size start_s [deps]' (one flow per line)",
                          fname, lx.line, tlen[7], tok[7]);
            else
                rc = errf(e, "%s:%d: expected 6 fields 'src dst pg dport size start_s', found %d",
                          fname, lx.line, nt);
            goto fail;
        }
        if (parse_record(&f, tok, tlen, fname, lx.line, t, e) ||
            (nt == 7 && parse_deps(out, &f, tok[DEPS_TOK], tlen[DEPS_TOK], k, count, n0, fname, lx.line, e))) {
            rc = -1;
            goto fail;
        }
        any_deps |= f.ndeps > 0;
        if (nlines == caplines) {
            size_t nc = caplines ? 2 * caplines : 256;
            int *nl = realloc(lines, nc * sizeof *nl);
            if (!nl) {
                rc = errf(e, "%s:%d: out of memory", fname, lx.line);
                goto fail;
            }
            lines = nl;
            caplines = nc;
        }
        lines[nlines++] = lx.line;
        if (flow_list_push(out, &f)) {
            rc = errf(e, "%s:%d: out of memory", fname, lx.line);
            goto fail;
        }
    }
    if (any_deps) {
        size_t bad;
        const char *why;
        if (flow_list_check_deps(out, n0, &bad, &why) < 0) {
            rc = errf(e, "%s:%d: flow %zu %s", fname, lines[bad - n0], bad - n0, why);
            goto fail;
        }
    }
    if (next_line(&lx, tok, tlen) >= 0)
        warnf("%s:%d: ignoring what follows the %" PRIu64 " flows the first line announces (as ns-3 does)", fname,
              lx.line, count);
    free(lines);
    return 0;
fail:
    out->n = n0;
    out->n_deps = d0;
    free(lines);
    return rc;
}

int flowfile_read(struct flow_list *out, const char *path, const struct topo *t, struct err *e)
{
    char *text;
    if (read_text_file(path, &text, e))
        return -1;
    int rc = flowfile_parse(out, text, path, t, e);
    free(text);
    return rc;
}

void flowfile_write(FILE *f, const struct flow_list *l)
{
    fprintf(f, "%zu\n", l->n);
    for (size_t i = 0; i < l->n; i++) {
        const struct flow_spec *s = &l->v[i];
        /* Integer seconds and fraction printed apart: %.9f of a double would
         * lose digits past ~10^7 s. Sub-ns starts get 12 decimals (exact). */
        uint64_t a = s->start < 0 ? 0 - (uint64_t)s->start : (uint64_t)s->start;
        uint64_t sec = a / (uint64_t)T_SEC, frac = a % (uint64_t)T_SEC;
        fprintf(f, "%" PRIu32 " %" PRIu32 " %u %u %" PRIu64 " %s%" PRIu64, s->src, s->dst, (unsigned)s->pg,
                (unsigned)s->dport, s->size, s->start < 0 ? "-" : "", sec);
        if (frac % 1000 == 0)
            fprintf(f, ".%09" PRIu64, frac / 1000);
        else
            fprintf(f, ".%012" PRIu64, frac);
        if (s->ndeps) { /* our dependency column: ids are places in this list, as the file's are */
            for (uint32_t k = 0; k < s->ndeps; k++)
                fprintf(f, "%c%" PRIu32 "%s", k ? ',' : ' ', l->deps[s->dep0 + k] & FLOW_DEP_ID,
                        l->deps[s->dep0 + k] & FLOW_DEP_SENT  ? "s"
                        : l->deps[s->dep0 + k] & FLOW_DEP_RECV ? "r"
                        : l->deps[s->dep0 + k] & FLOW_DEP_QP   ? "q"
                        : l->deps[s->dep0 + k] & FLOW_DEP_START ? "b"
                                                               : "");
            if (s->dep_delay > 0) {
                uint64_t d = (uint64_t)s->dep_delay;
                fprintf(f, "+%" PRIu64 ".%012" PRIu64, d / (uint64_t)T_SEC, d % (uint64_t)T_SEC);
            }
        } else if (l->n_deps) {
            fputs(" -", f);
        }
        fputc('\n', f);
    }
}

/* HPCC's third.cc reads start_s with `>> double` (correctly rounded) and
 * schedules at Seconds(start_s) (core/ns3time.h). (double)ps / 1e12 is
 * correctly rounded too, so it is strtod's double of the text whenever the
 * text has at most 12 decimals and ps < 2^53 (9007 s). Checked against
 * ns-3's fct.txt starts of 3 902 flows (docs/validation.md, Round 4b). */
simtime_t flowfile_ns3_start(simtime_t start)
{
    if (start <= 0 || start >= ((simtime_t)1 << 53))
        return start;
    return ns3_seconds((double)start / 1e12);
}
