/* Reading a run folder back (report.h): fct.csv, summary.json,
 * pfc_ports.csv, imbalance.csv, or an ns-3 fct.txt, into a struct
 * report_run; a small strict CSV reader with FILE:LINE errors. The
 * statistics and tables over it are report.c's. */
#include "stats/report.h"
#include "stats/csvread.h"
#include "core/xalloc.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include "stats/collective.h"
#include "stats/output.h" /* percentile() */

/* ---------------------------------------------------------------- CSV */

void csv_close(struct csv *c)
{
    if (c->f)
        fclose(c->f);
    free(c->buf);
    free(c->hdrbuf);
    memset(c, 0, sizeof *c);
}

/* Reads one line into c->buf without its end of line; 0 at EOF. */
static int csv_getline(struct csv *c)
{
    ssize_t n = getline(&c->buf, &c->cap, c->f);
    if (n < 0)
        return 0;
    c->line++;
    while (n > 0 && (c->buf[n - 1] == '\n' || c->buf[n - 1] == '\r'))
        c->buf[--n] = 0;
    return 1;
}

static int split(struct csv *c, char *s, char **out, struct err *e)
{
    int n = 0;
    for (;;) {
        if (n == CSV_MAXF)
            return errf(e, "%s:%d: more than %d fields", c->path, c->line, CSV_MAXF);
        out[n++] = s;
        char *comma = strchr(s, ',');
        if (!comma)
            break;
        *comma = 0;
        s = comma + 1;
    }
    return n;
}

int csv_open(struct csv *c, const char *path, struct err *e)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    if (!(c->f = fopen(path, "r")))
        return errf(e, "%s: cannot open: %s", path, strerror(errno));
    if (!csv_getline(c) || !c->buf[0]) {
        errf(e, "%s:1: empty file (expected a header line)", path);
        csv_close(c);
        return -1;
    }
    if (!(c->hdrbuf = strdup(c->buf))) {
        csv_close(c);
        return errf(e, "out of memory");
    }
    if ((c->nh = split(c, c->hdrbuf, c->hdr, e)) < 0) {
        csv_close(c);
        return -1;
    }
    return 0;
}

/* 1: a row in c->fld, 0: end of file, -1: error. */
int csv_next(struct csv *c, struct err *e)
{
    if (!csv_getline(c))
        return 0;
    if (!c->buf[0])
        return errf(e, "%s:%d: empty line", c->path, c->line);
    if ((c->nf = split(c, c->buf, c->fld, e)) < 0)
        return -1;
    if (c->nf != c->nh)
        return errf(e, "%s:%d: %d field%s, the header has %d", c->path, c->line, c->nf, c->nf == 1 ? "" : "s", c->nh);
    return 1;
}

static int csv_col(const struct csv *c, const char *name, struct err *e)
{
    for (int i = 0; i < c->nh; i++)
        if (strcmp(c->hdr[i], name) == 0)
            return i;
    return errf(e, "%s:1: the header has no column '%s'", c->path, name);
}

int csv_col_opt(const struct csv *c, const char *name)
{
    for (int i = 0; i < c->nh; i++)
        if (strcmp(c->hdr[i], name) == 0)
            return i;
    return -1;
}

static int get_u64(const struct csv *c, int col, uint64_t *v, struct err *e)
{
    const char *s = c->fld[col];
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9' || (*v = strtoull(s, &end, 10), *end) || errno)
        return errf(e, "%s:%d: %s: '%.40s' is not a whole number", c->path, c->line, c->hdr[col], s);
    return 0;
}

static int get_dbl(const struct csv *c, int col, double *v, struct err *e)
{
    const char *s = c->fld[col];
    char *end;
    *v = strtod(s, &end);
    if (!*s || *end || !isfinite(*v) || *v < 0)
        return errf(e, "%s:%d: %s: '%.40s' is not a number >= 0", c->path, c->line, c->hdr[col], s);
    return 0;
}

static void *grow(void *p, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return p;
    size_t nc = *cap ? 2 * *cap : 256;
    void *q = xrealloc(p, nc * sz);
    *cap = nc;
    return q;
}

/* ---------------------------------------------------------------- inputs */

int report_read_fct(struct report_run *r, const char *path, struct err *e)
{
    struct csv c;
    if (csv_open(&c, path, e) < 0)
        return -1;
    int cid, csize, cfinish, cfct, csd, rc;
    size_t cap = 0;
    if ((cid = csv_col(&c, "flow_id", e)) < 0 || (csize = csv_col(&c, "size_bytes", e)) < 0 ||
        (cfinish = csv_col(&c, "finish_ns", e)) < 0 || (cfct = csv_col(&c, "fct_ns", e)) < 0 ||
        (csd = csv_col(&c, "slowdown", e)) < 0)
        goto fail;
    /* load-balancing columns (optional: older runs lack them) */
    static const char *const lbn[] = {"ooo", "ooo_max", "flowlets", "path_switches"};
    int clb[4];
    r->has_lb = true;
    for (int k = 0; k < 4; k++)
        r->has_lb &= (clb[k] = csv_col_opt(&c, lbn[k])) >= 0;
    int csrc = csv_col_opt(&c, "source");
    r->n_sources = 1; /* index 0: a row without a source (older runs, ns-3 files) */
    r->sources[0][0] = 0;
    while ((rc = csv_next(&c, e)) > 0) {
        r->flows = grow(r->flows, &cap, r->n_flows, sizeof *r->flows);
        struct report_flow *f = &r->flows[r->n_flows];
        memset(f, 0, sizeof *f);
        uint64_t id;
        if (get_u64(&c, cid, &id, e) < 0 || get_u64(&c, csize, &f->size, e) < 0)
            goto fail;
        if (id > UINT32_MAX) {
            errf(e, "%s:%d: flow_id: %llu is too large", path, c.line, (unsigned long long)id);
            goto fail;
        }
        f->id = (uint32_t)id;
        if (csrc >= 0 && c.fld[csrc][0]) {
            size_t k = 1;
            while (k < r->n_sources && strncmp(r->sources[k], c.fld[csrc], REPORT_SOURCE_LEN - 1) != 0)
                k++;
            if (k == r->n_sources && k < REPORT_SOURCES)
                snprintf(r->sources[r->n_sources++], REPORT_SOURCE_LEN, "%s", c.fld[csrc]);
            f->source = (uint16_t)(k < REPORT_SOURCES ? k : REPORT_SOURCES - 1);
        }
        if (r->has_lb) {
            uint32_t *dst[4] = {&f->ooo, &f->ooo_max, &f->flowlets, &f->path_switches};
            for (int k = 0; k < 4; k++) {
                uint64_t x;
                if (get_u64(&c, clb[k], &x, e) < 0)
                    goto fail;
                *dst[k] = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
            }
        }
        bool has_finish = c.fld[cfinish][0], has_fct = c.fld[cfct][0], has_sd = c.fld[csd][0];
        if (has_finish != has_fct || has_fct != has_sd) {
            errf(e, "%s:%d: finish_ns, fct_ns and slowdown must be all empty (unfinished flow) or all set", path,
                 c.line);
            goto fail;
        }
        if (has_fct) {
            uint64_t fct;
            if (get_u64(&c, cfct, &fct, e) < 0 || get_dbl(&c, csd, &f->slowdown, e) < 0)
                goto fail;
            f->fct_ns = (double)fct;
            f->done = true;
        }
        r->n_flows++;
    }
    if (rc < 0)
        goto fail;
    csv_close(&c);
    return 0;
fail:
    csv_close(&c);
    return -1;
}

int report_read_ports(struct report_run *r, const char *path, struct err *e)
{
    static const char *const layers[] = {"host", "edge", "agg", "core"};
    struct csv c;
    if (csv_open(&c, path, e) < 0)
        return -1;
    int cn, cp, cl, cf, cu, rc;
    size_t cap = 0;
    if ((cn = csv_col(&c, "node", e)) < 0 || (cp = csv_col(&c, "port", e)) < 0 || (cl = csv_col(&c, "layer", e)) < 0 ||
        (cf = csv_col(&c, "pause_frames_received", e)) < 0 || (cu = csv_col(&c, "paused_us", e)) < 0)
        goto fail;
    while ((rc = csv_next(&c, e)) > 0) {
        r->ports = grow(r->ports, &cap, r->n_ports, sizeof *r->ports);
        struct report_port *p = &r->ports[r->n_ports];
        uint64_t node, port;
        if (get_u64(&c, cn, &node, e) < 0 || get_u64(&c, cp, &port, e) < 0 || get_u64(&c, cf, &p->frames, e) < 0 ||
            get_dbl(&c, cu, &p->paused_us, e) < 0)
            goto fail;
        if (node > UINT32_MAX || port > UINT32_MAX) {
            errf(e, "%s:%d: node or port out of range", path, c.line);
            goto fail;
        }
        p->node = (uint32_t)node;
        p->port = (uint32_t)port;
        p->layer = -1;
        for (int l = 0; l < 4; l++)
            if (strcmp(c.fld[cl], layers[l]) == 0)
                p->layer = l;
        if (p->layer < 0) {
            errf(e, "%s:%d: layer: '%.40s' is not host, edge, agg or core", path, c.line, c.fld[cl]);
            goto fail;
        }
        r->n_ports++;
    }
    if (rc < 0)
        goto fail;
    r->has_ports = true;
    csv_close(&c);
    return 0;
fail:
    csv_close(&c);
    return -1;
}

static int line_of(const char *text, const char *at)
{
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Only what the report needs: pfc_pause_frames_by_layer, if there. */
int report_read_summary(struct report_run *r, const char *path, struct err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return errf(e, "%s: cannot open: %s", path, strerror(errno));
    char *text = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        text = grow(text, &cap, n + 4096, 1);
        size_t got = fread(text + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    text[n] = 0;
    int rc = 0;
    const char *p = skip_ws(text);
    if (*p != '{') {
        rc = errf(e, "%s:%d: not a JSON object (expected '{')", path, line_of(text, p));
        goto out;
    }
    const char *intr = strstr(text, "\"interrupted\":");
    r->interrupted = intr && strncmp(skip_ws(intr + 14), "true", 4) == 0;
    const char *key = "\"pfc_pause_frames_by_layer\"";
    const char *k = strstr(text, key);
    if (!k)
        goto out; /* an older run: no figures by layer */
    p = skip_ws(k + strlen(key));
    if (*p++ != ':' || *(p = skip_ws(p)) != '{') {
        rc = errf(e, "%s:%d: pfc_pause_frames_by_layer: expected {\"edge\": N, ...}", path, line_of(text, p));
        goto out;
    }
    p++;
    static const char *const names[] = {"host", "edge", "agg", "core"};
    for (;;) {
        p = skip_ws(p);
        if (*p == '}')
            break;
        char name[16];
        const char *q = p + 1;
        size_t l = *p == '"' ? strcspn(q, "\"") : 0;
        if (*p != '"' || !l || l >= sizeof name || q[l] != '"') {
            rc = errf(e, "%s:%d: pfc_pause_frames_by_layer: expected a quoted layer name", path, line_of(text, p));
            goto out;
        }
        snprintf(name, sizeof name, "%.*s", (int)l, q);
        p = skip_ws(q + l + 1);
        char *end;
        if (*p++ != ':' || (p = skip_ws(p), *p < '0' || *p > '9')) {
            rc = errf(e, "%s:%d: pfc_pause_frames_by_layer: %s: expected a whole number", path, line_of(text, p), name);
            goto out;
        }
        unsigned long long v = strtoull(p, &end, 10);
        p = end;
        for (int i = 0; i < 4; i++)
            if (strcmp(name, names[i]) == 0)
                r->pause_sent[i] = v;
        p = skip_ws(p);
        if (*p == ',')
            p++;
        else if (*p != '}') {
            rc = errf(e, "%s:%d: pfc_pause_frames_by_layer: expected ',' or '}'", path, line_of(text, p));
            goto out;
        }
    }
    r->has_layers = true;
out:
    free(text);
    return rc;
}

static int read_imbalance(struct report_run *r, const char *path, struct err *e)
{
    struct csv c;
    if (csv_open(&c, path, e) < 0)
        return -1;
    int col = csv_col(&c, "imbalance", e), rc = -1;
    size_t cap = 0;
    if (col < 0)
        goto out;
    while ((rc = csv_next(&c, e)) > 0) {
        r->imbalance = grow(r->imbalance, &cap, r->n_imbalance, sizeof *r->imbalance);
        if (get_dbl(&c, col, &r->imbalance[r->n_imbalance++], e) < 0) {
            rc = -1;
            break;
        }
    }
out:
    csv_close(&c);
    return rc < 0 ? -1 : 0;
}

static bool exists(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f != NULL;
}

/* One whitespace-separated token from *p, or NULL at the end of the line. */
static char *ns3_tok(char **p)
{
    char *s = *p + strspn(*p, " \t");
    if (!*s)
        return NULL;
    char *end = s + strcspn(s, " \t");
    if (*end)
        *end++ = 0;
    *p = end;
    return s;
}

int report_read_ns3_fct(struct report_run *r, const char *path, struct err *e)
{
    static const char *const names[8] = {"sip", "dip", "sport", "dport", "size", "start_ns", "fct_ns",
                                         "standalone_fct_ns"};
    struct csv c; /* only its line reader */
    memset(&c, 0, sizeof c);
    c.path = path;
    if (!(c.f = fopen(path, "r")))
        return errf(e, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 0;
    while (csv_getline(&c)) {
        char *p = c.buf, *tok[9];
        int nt = 0;
        while (nt < 9 && (tok[nt] = ns3_tok(&p)) != NULL)
            nt++;
        if (nt != 8) {
            errf(e, "%s:%d: %s fields, expected 8 (ns-3 fct.txt: sip dip sport dport size start_ns fct_ns "
                    "standalone_fct_ns)", path, c.line, nt > 8 ? "more than 8" : nt == 0 ? "no" : "too few");
            goto fail;
        }
        uint64_t v[8];
        for (int i = 0; i < 8; i++) {
            char *end;
            errno = 0;
            v[i] = strtoull(tok[i], &end, i < 2 ? 16 : 10);
            if (!isxdigit((unsigned char)tok[i][0]) || (i >= 2 && !(tok[i][0] >= '0' && tok[i][0] <= '9')) || *end ||
                errno) {
                errf(e, "%s:%d: %s: '%.40s' is not a %s number", path, c.line, names[i], tok[i],
                     i < 2 ? "hexadecimal" : "whole");
                goto fail;
            }
        }
        if (v[7] == 0) {
            errf(e, "%s:%d: standalone_fct_ns is 0 (no slowdown)", path, c.line);
            goto fail;
        }
        r->flows = grow(r->flows, &cap, r->n_flows, sizeof *r->flows);
        struct report_flow *f = &r->flows[r->n_flows];
        memset(f, 0, sizeof *f); /* ns-3 has no per-flow LB counters */
        f->id = (uint32_t)r->n_flows;
        f->size = v[4];
        f->done = true;
        f->fct_ns = (double)v[6];
        f->slowdown = (double)v[6] / (double)v[7];
        r->n_flows++;
    }
    if (c.line == 0) {
        errf(e, "%s: empty file (an ns-3 fct.txt has one line per finished flow)", path);
        goto fail;
    }
    csv_close(&c);
    return 0;
fail:
    csv_close(&c);
    return -1;
}

int report_load(struct report_run *r, const char *dir, struct err *e)
{
    memset(r, 0, sizeof *r);
    char path[1200];
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISREG(st.st_mode))
        return report_read_ns3_fct(r, dir, e);
    snprintf(path, sizeof path, "%s/fct.csv", dir);
    if (!exists(path)) {
        snprintf(path, sizeof path, "%s/fct.txt", dir);
        if (exists(path))
            return report_read_ns3_fct(r, path, e);
        snprintf(path, sizeof path, "%s/fct.csv", dir);
    }
    if (report_read_fct(r, path, e) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    if (exists(path) && report_read_summary(r, path, e) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/pfc_ports.csv", dir);
    if (exists(path) && report_read_ports(r, path, e) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/imbalance.csv", dir);
    if (exists(path) && read_imbalance(r, path, e) < 0)
        return -1;
    return 0;
}

void report_free(struct report_run *r)
{
    free(r->flows);
    free(r->imbalance);
    free(r->ports);
    memset(r, 0, sizeof *r);
}
