/* SimAI topology files, as astra-sim-alibabacloud/inputs/topo/
 * gen_Topo_Template.py writes them and SimAI's ns-3 frontend (common.h,
 * SetupNetwork) reads them:
 *   line 1  N GPUS_PER_SERVER NVSWITCHES SWITCHES LINKS GPU_TYPE
 *   line 2  the NVSWITCHES NVSwitch ids, then the SWITCHES switch ids
 *   then    LINKS lines "a b rate delay error_rate" (ns-3 units: 400Gbps, 0.0005ms)
 * GPUs are nodes 0 .. G-1 (G = N - NVSWITCHES - SWITCHES); GPU g belongs to
 * server g / GPUS_PER_SERVER. A GPU has a link to its server's NVSwitch and
 * one to a fabric switch (its NIC).
 *
 * How it is modelled: rocesim's hosts have one NIC, so a GPU becomes two
 * one-link hosts: its NIC, which keeps the GPU's id, and its NVLink port, a
 * host of its own with id N + g on the NVSwitch link. The NVSwitch is a
 * switch (non-blocking: output-queued, the NVLink rate per port, the
 * configured buffer, PFC as every switch). SimAI routes a flow between two
 * GPUs of one server through the NVSwitch and any other through the NICs
 * (CalculateRoute keeps NVSwitch next hops only where one exists); the SimAI
 * workload makes its flows between the NVLink hosts or the NIC hosts in the
 * same way (traffic/simai.c). The file is checked by turning it into the
 * ns-3 format line for line (topo_parse_ns3 then reports errors at the
 * file's own lines). Not modelled: a GPU with two NIC links (the dual-ToR
 * templates) or with links to several NVSwitches (nv_switch_per_server > 1). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topo/topo.h"

struct stok {
    const char *s;
    size_t n;
};

static const char *skip_ws(const char *p, int *line)
{
    while (*p && isspace((unsigned char)*p)) {
        if (*p == '\n')
            (*line)++;
        p++;
    }
    return p;
}

static bool num(const char *s, size_t n, uint32_t *v)
{
    uint64_t x = 0;
    if (n == 0 || n > 10)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    if (x > UINT32_MAX)
        return false;
    *v = (uint32_t)x;
    return true;
}

/* The first line's tokens (at most max); how many. */
static int first_line(const char *text, struct stok *t, int max)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        while (*p != '\n' && isspace((unsigned char)*p)) /* every blank the token loop stops at (\f, \v too) */
            p++;
        if (!*p || *p == '\n')
            return n;
        const char *s = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (n < max)
            t[n] = (struct stok){s, (size_t)(p - s)};
        n++;
    }
}

bool topo_looks_simai(const char *text)
{
    struct stok t[7];
    uint32_t v;
    if (first_line(text, t, 7) != 6)
        return false;
    for (int i = 0; i < 5; i++)
        if (!num(t[i].s, t[i].n, &v))
            return false;
    return !num(t[5].s, t[5].n, &v);
}

uint32_t topo_n_gpus(const struct topo *t)
{
    return t->n_gpus ? t->n_gpus : t->n_hosts;
}

uint32_t topo_gpu_nic(const struct topo *t, uint32_t g)
{
    return t->n_gpus ? t->gpu_nic[g] : t->hosts[g];
}

uint32_t topo_gpu_nvl(const struct topo *t, uint32_t g)
{
    return t->n_gpus && t->gpu_nvl ? t->gpu_nvl[g] : UINT32_MAX;
}

uint32_t topo_gpu_server(const struct topo *t, uint32_t g)
{
    return t->n_gpus && t->simai_gps ? g / t->simai_gps : g;
}

/* Appends s[0..n) to the buffer. */
static int put(char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = *cap ? *cap : 4096;
        while (*len + n + 1 > nc)
            nc *= 2;
        char *nb = realloc(*b, nc);
        if (!nb)
            return -1;
        *b = nb, *cap = nc;
    }
    memcpy(*b + *len, s, n);
    *len += n;
    (*b)[*len] = 0;
    return 0;
}

int topo_parse_simai(struct topo *t, const char *text, const char *fname, struct err *e)
{
    memset(t, 0, sizeof *t);
    static const char *const hname[6] = {"node count", "GPUs per server", "NVSwitch count", "switch count",
                                         "link count", "GPU type"};
    struct stok h[7];
    int nh = first_line(text, h, 7);
    if (nh != 6)
        return errf(e, "%s:1: %d fields; a SimAI topology's first line is \"nodes gpus_per_server nvswitches switches "
                       "links gpu_type\"", fname, nh);
    uint32_t v[5];
    for (int i = 0; i < 5; i++)
        if (!num(h[i].s, h[i].n, &v[i]))
            return errf(e, "%s:1: %s: expected a whole number, got \"%.*s\"", fname, hname[i], (int)(h[i].n > 32 ? 32 : h[i].n),
                        h[i].s);
    uint32_t n = v[0], gps = v[1], nv = v[2], ns = v[3], nl = v[4];
    if ((uint64_t)nv + ns >= n)
        return errf(e, "%s:1: %u NVSwitches and %u switches leave no GPU among %u nodes", fname, nv, ns, n);
    uint32_t G = n - nv - ns;
    if (gps == 0 || G % gps)
        return errf(e, "%s:1: %u GPUs are not whole servers of %u GPUs", fname, G, gps);
    if (nv && nv != G / gps)
        return errf(e, "%s:1: %u NVSwitches for %u servers: rocesim models one NVSwitch per server "
                       "(nv_switch_per_server 1)", fname, nv, G / gps);
    if (n > (1u << 27))
        return errf(e, "%s:1: %u nodes is too many", fname, n);

    /* The rest as tokens, written out as an ns-3 file on the same lines, with
     * each GPU's end of its NVSwitch link renamed to its NVLink host. */
    int32_t *nvsw_of = malloc((size_t)G * sizeof *nvsw_of); /* GPU -> its NVSwitch, -1 */
    uint8_t *is_nv = calloc(n, 1);
    struct ltok {
        const char *s;
        size_t n;
        int line;
        uint32_t rename; /* UINT32_MAX, or the id written instead */
    } *tk = NULL;
    char *out = NULL;
    size_t len = 0, cap = 0, ntk = 0;
    int rc = -1, line = 1;
    if (!nvsw_of || !is_nv) {
        errf(e, "%s: out of memory", fname);
        goto done;
    }
    for (uint32_t g = 0; g < G; g++)
        nvsw_of[g] = -1;
    const char *p = text;
    while (*p && *p != '\n')
        p++;
    for (int pass = 0; pass < 2; pass++) { /* count, then record */
        const char *q = p;
        int ln = 1;
        size_t m = 0;
        for (;;) {
            q = skip_ws(q, &ln);
            if (!*q)
                break;
            const char *s0 = q;
            while (*q && !isspace((unsigned char)*q))
                q++;
            if (pass)
                tk[m] = (struct ltok){s0, (size_t)(q - s0), ln, UINT32_MAX};
            m++;
        }
        if (!pass) {
            ntk = m;
            if (!(tk = malloc((m ? m : 1) * sizeof *tk)))
                goto oom;
        }
    }
    uint64_t nsw = (uint64_t)nv + ns;
    for (size_t k = 0; k < ntk && k < nsw; k++) {
        uint32_t id;
        if (!num(tk[k].s, tk[k].n, &id))
            continue; /* topo_parse_ns3 says what is wrong with it */
        if (id >= n) { /* the translation's NVLink hosts are n.. */
            errf(e, "%s:%d: switch id %u: the file has nodes 0..%u", fname, tk[k].line, id, n - 1);
            goto done;
        }
        if (id < G) {
            errf(e, "%s:%d: switch id %u is a GPU's: SimAI numbers GPUs 0..%u first, then NVSwitches and switches",
                 fname, tk[k].line, id, G - 1);
            goto done;
        }
        if (k < nv)
            is_nv[id] = 1;
    }
    char hdr[96];
    snprintf(hdr, sizeof hdr, "%u %u %u", nv ? n + G : n, nv + ns, nl);
    if (put(&out, &len, &cap, hdr, strlen(hdr)) < 0)
        goto oom;
    for (size_t k = 0; k < ntk; k++) {
        char sub[16];
        const char *ts = tk[k].s;
        size_t tn = tk[k].n;
        if (k >= nsw && k + 1 < ntk && (k - nsw) % 5 == 0 && k - nsw < 5ull * nl) { /* a link's two ends */
            uint32_t a, b;
            bool na = num(tk[k].s, tk[k].n, &a), nb = num(tk[k + 1].s, tk[k + 1].n, &b);
            if ((na && a >= n) || (nb && b >= n)) { /* would name an NVLink host of the translation */
                errf(e, "%s:%d: link end %u: the file has nodes 0..%u", fname, tk[k].line, na && a >= n ? a : b, n - 1);
                goto done;
            }
            if (na && nb) { /* both below n, as just checked */
                if (a < G && b < G) {
                    errf(e, "%s:%d: link %u-%u joins two GPUs: SimAI's GPUs meet through NVSwitches and switches",
                         fname, tk[k].line, a, b);
                    goto done;
                }
                if ((a < G && is_nv[b]) || (b < G && is_nv[a])) {
                    uint32_t gpu = a < G ? a : b, sw = a < G ? b : a;
                    if (nvsw_of[gpu] >= 0) {
                        errf(e, "%s:%d: GPU %u has a second NVSwitch link (to %u; the first to %d): rocesim models "
                                "one NVSwitch per server", fname, tk[k].line, gpu, sw, nvsw_of[gpu]);
                        goto done;
                    }
                    nvsw_of[gpu] = (int32_t)sw;
                    tk[gpu == a ? k : k + 1].rename = n + gpu;
                }
            }
        }
        if (tk[k].rename != UINT32_MAX) {
            snprintf(sub, sizeof sub, "%u", tk[k].rename);
            ts = sub, tn = strlen(sub);
        }
        while (line < tk[k].line) {
            if (put(&out, &len, &cap, "\n", 1) < 0)
                goto oom;
            line++;
        }
        if (put(&out, &len, &cap, " ", 1) < 0 || put(&out, &len, &cap, ts, tn) < 0)
            goto oom;
    }
    for (uint32_t g = 0; nv && g < G; g++) {
        int32_t want = nvsw_of[g - g % gps];
        if (nvsw_of[g] < 0) {
            errf(e, "%s: GPU %u has no NVSwitch link, though the file has NVSwitches", fname, g);
            goto done;
        }
        if (nvsw_of[g] != want) {
            errf(e, "%s: GPU %u (server %u) links to NVSwitch %d, GPU %u of its server to %d: SimAI's servers have "
                    "one NVSwitch for all their GPUs", fname, g, g / gps, nvsw_of[g], g - g % gps, want);
            goto done;
        }
    }
    if (topo_parse_ns3(t, out, fname, e) < 0)
        goto done;
    t->n_gpus = G;
    t->simai_gps = gps;
    for (uint32_t i = 0; i < n; i++)
        t->nodes[i].no_ecn = is_nv[i]; /* SimAI's NVSwitchNode has no ECN: a property of this switch */
    snprintf(t->gpu_type, sizeof t->gpu_type, "%.*s", (int)(h[5].n < 15 ? h[5].n : 15), h[5].s);
    t->gpu_nic = malloc((size_t)G * sizeof *t->gpu_nic);
    t->gpu_nvl = malloc((size_t)G * sizeof *t->gpu_nvl);
    if (!t->gpu_nic || !t->gpu_nvl) {
        topo_free(t);
        goto oom;
    }
    for (uint32_t g = 0; g < G; g++) {
        t->gpu_nic[g] = g;
        t->gpu_nvl[g] = nv ? n + g : UINT32_MAX;
    }
    rc = 0;
    goto done;
oom:
    errf(e, "%s: out of memory", fname);
done:
    free(nvsw_of);
    free(is_nv);
    free(tk);
    free(out);
    return rc;
}
