/* Config -> flow list: every generator section and every named flow.
 *
 * Sources, in this order: [traffic] (pattern=none turns it off), then each
 * [traffic.NAME] in the order the sections first appear (file order, then
 * --set), then each [flow.NAME] in the same order. The final list is their
 * union sorted stably by start time, so flows starting together keep that
 * source order; flow ids are the places in this list. One exception keeps
 * ns-3's numbering: when the only source is a flow file, its flows keep
 * file order (flow id = its line), sorted or not.
 *
 * Random streams: every generator has its own, seeded from run.seed and its
 * section: stream 1 for [traffic] (the stream it had before sections with
 * names existed), a 64-bit FNV-1a hash of "traffic.NAME" for the others, so
 * adding, removing or reordering a section never changes another's flows. */
#include "scenario/workload.h"
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"
#include "scenario/scenario.h"
#include "traffic/collective.h"
#include "traffic/simai.h"

uint64_t workload_stream(const char *section)
{
    if (strcmp(section, "traffic") == 0)
        return 1;
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *p = (const unsigned char *)section; *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    return h;
}

static int fail(struct wl_key *k, const char *sec, const char *key, const char *alt, struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* traffic.a2a_weights: "W,W,..." with W*N for N ranks of weight W, each W > 0
 * -> *w (malloc'ed, *n of them; NULL and 0 when empty). NULL, or why not. */
static const char *weights_parse(const char *spec, double **w, size_t *n)
{
    *w = NULL;
    *n = 0;
    size_t cap = 0;
    for (const char *p = spec; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || errno || !(x > 0) || x > 1e300)
            return free(*w), *w = NULL, *n = 0, "each weight is a number above 0, e.g. 4,1,1,1 or 4*2,1*6";
        unsigned long long rep = 1;
        p = end;
        if (*p == '*') {
            rep = strtoull(p + 1, &end, 10);
            if (end == p + 1 || rep == 0 || rep > 10000000)
                return free(*w), *w = NULL, *n = 0, "W*N needs a count N from 1 to 10000000";
            p = end;
        }
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p && *p != ',')
            return free(*w), *w = NULL, *n = 0, "weights are separated by commas, e.g. 4,1,1,1 or 4*2,1*6";
        if (*p)
            p++;
        if (*n + rep > 10000000)
            return free(*w), *w = NULL, *n = 0, "more than 10000000 weights";
        if (*n + rep > cap) {
            cap = (*n + rep) * 2;
            double *nw = realloc(*w, cap * sizeof *nw);
            if (!nw)
                return free(*w), *w = NULL, *n = 0, "out of memory";
            *w = nw;
        }
        for (unsigned long long i = 0; i < rep; i++)
            (*w)[(*n)++] = x;
    }
    return NULL;
}

/* Sets k to "sec.key" / "sec.alt" and e to "sec.<fmt>". */
static int fail(struct wl_key *k, const char *sec, const char *key, const char *alt, struct err *e, const char *fmt, ...)
{
    snprintf(k->key, sizeof k->key, "%s.%s", sec, key);
    if (alt)
        snprintf(k->alt, sizeof k->alt, "%s.%s", sec, alt);
    else
        k->alt[0] = 0;
    char msg[sizeof e->msg - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return errf(e, "%s.%s", sec, msg);
}

/* "" if node id is a host of t, else why not. */
static const char *not_host(const struct topo *t, int64_t id, char *buf, size_t n)
{
    if (id < 0 || id >= (int64_t)t->n_nodes)
        snprintf(buf, n, "node %" PRId64 " does not exist (the topology has nodes 0..%" PRIu32 ")", id,
                 t->n_nodes ? t->n_nodes - 1 : 0);
    else if (t->host_index[id] < 0)
        snprintf(buf, n, "node %" PRId64 " is a switch, not a host", id);
    else
        return "";
    return buf;
}

static bool uses_load(const struct cfg_traffic *g)
{
    return g->pattern == TRAFFIC_POISSON || (g->pattern == TRAFFIC_INCAST && g->repeat == REPEAT_POISSON);
}

static bool uses_topology(const struct cfg_traffic *g)
{
    return g->pattern == TRAFFIC_INCAST || g->pattern == TRAFFIC_PERMUTATION || g->pattern == TRAFFIC_BURST ||
           g->pattern == TRAFFIC_COLLECTIVE || g->pattern == TRAFFIC_SIMAI || (g->load_of == LOAD_OF_CORE && uses_load(g));
}

bool workload_needs_topology(const struct config *c)
{
    if (c->n_flows > 0 || uses_topology(&c->traffic))
        return true;
    if (c->topology.type == TOPO_RAIL && (c->topology.planes > 1 || c->topology.dual_tor))
        return true; /* (check_gen: which traffic multi-port NICs take) */
    for (int i = 0; i < c->n_traffic_x; i++)
        if (uses_topology(&c->traffic_x[i].t))
            return true;
    return false;
}

/* traffic.load_of = core: `load` of the fabric's core capacity, offered as
 * load x core / host capacity of every host link (and of the hosts' total),
 * which is what the generators take. 0 when the fabric has no core. */
static double gen_load(const struct cfg_traffic *g, const struct topo *t)
{
    if (g->load_of != LOAD_OF_CORE)
        return g->load;
    double host = traffic_host_capacity(t), core = traffic_core_capacity(t);
    return host > 0 && core > 0 ? g->load * core / host : 0;
}

static int check_gen(const struct config *c, const char *s, const struct cfg_traffic *g, const struct topo *t,
                     struct wl_key *k, struct err *e)
{
    char buf[160];
    uint32_t nh = t ? t->n_hosts : 0;
    if (t && g->load_of == LOAD_OF_CORE && uses_load(g)) {
        double l = gen_load(g, t);
        if (!(l > 0))
            return fail(k, s, "load_of", NULL, e, "load_of = core: the topology has no switch-to-switch links (no core)");
        if (l > 1)
            return fail(k, s, "load_of", "load", e, "load_of = core: load %g of the core (%.4g Gbps) is %.4g of the "
                        "host links (%.4g Gbps), more than they carry", g->load, traffic_core_capacity(t) / 1e9, l,
                        traffic_host_capacity(t) / 1e9);
    }
    if (t && t->nic_ports > 1 && g->pattern != TRAFFIC_NONE && g->pattern != TRAFFIC_FILE &&
        g->pattern != TRAFFIC_COLLECTIVE)
        return fail(k, s, "pattern", NULL, e, "pattern: the fabric's NICs have %" PRIu32 " ports each (topology.planes, "
                    "dual_tor), each port a host of its own; this pattern draws from every host, so its flows would "
                    "start on any port: not modelled. Collectives and flow files name GPUs and give each queue pair "
                    "a port", t->nic_ports);
    if (g->intra_rack < 0 && g->intra_rack != -1)
        return fail(k, s, "intra_rack", NULL, e, "intra_rack: %g: use -1 (uniform over all other hosts) or a share "
                    "between 0 and 1", g->intra_rack);
    switch (g->pattern) {
    case TRAFFIC_NONE:
        return 0;
    case TRAFFIC_FILE: {
        if (!g->file[0])
            return fail(k, s, "file", "pattern", e, "pattern=file needs %s.file%s", s,
                        c->ns3.active ? " (ns-3 FLOW_FILE)" : "");
        FILE *f = fopen(g->file, "r");
        if (!f)
            return fail(k, s, "file", NULL, e, "file '%.300s': cannot open: %s", g->file, strerror(errno));
        fclose(f);
        return 0;
    }
    case TRAFFIC_POISSON:
        if (g->duration <= 0)
            return fail(k, s, "duration", "pattern", e,
                        "duration must be > 0 for pattern=poisson (use pattern=none for no traffic)");
        if (!g->cdf[0])
            return fail(k, s, "cdf", "pattern", e, "cdf is empty (name a workload or a CDF file)");
        if (t && nh < 2)
            return fail(k, s, "pattern", NULL, e, "pattern=poisson needs at least 2 hosts, the topology has %" PRIu32, nh);
        {
            uint32_t lo, hi;
            const char *why;
            if (traffic_incast_ratio_parse(g->incast_ratio, &lo, &hi, &why) < 0)
                return fail(k, s, "incast_ratio", NULL, e, "incast_ratio: '%.60s': %s", g->incast_ratio, why);
            if (hi > 1 && g->intra_rack >= 0)
                return fail(k, s, "incast_ratio", "intra_rack", e, "incast_ratio: receiver-driven incasts do not "
                            "combine with intra_rack (leave it at -1)");
            if (t && hi > 1 && hi >= nh)
                return fail(k, s, "incast_ratio", NULL, e, "incast_ratio: %" PRIu32 " senders and a receiver need %"
                            PRIu32 " hosts, the topology has %" PRIu32, hi, hi + 1, nh);
        }
        return 0;
    case TRAFFIC_COLLECTIVE: {
        uint32_t *ids;
        size_t n;
        const char *why;
        if (host_list_parse(g->hosts, &ids, &n, &why) < 0)
            return fail(k, s, "hosts", NULL, e, "hosts: bad host list '%.100s': %s", g->hosts, why);
        int rc = 0;
        if (n == 1 || (n == 0 && g->group == 1))
            rc = fail(k, s, n ? "hosts" : "group", "pattern", e, "%s: a collective needs at least 2 hosts", n ? "hosts" : "group");
        else if (n > 0 && g->group > 0 && (size_t)g->group != n)
            rc = fail(k, s, "group", "hosts", e, "group: %" PRId64 " does not match the %zu hosts listed in %s.hosts", g->group,
                      n, s);
        else if (g->collective == COLL_HD_ALLREDUCE && ((n ? (int64_t)n : g->group) & ((n ? (int64_t)n : g->group) - 1)))
            rc = fail(k, s, n ? "hosts" : "group", "collective", e, "%s: hd_allreduce (recursive halving-doubling) needs a "
                      "power-of-two group, not %" PRId64 " hosts (use ring_allreduce)", n ? "hosts" : "group",
                      n ? (int64_t)n : g->group);
        else if (t && g->group > (int64_t)nh)
            rc = fail(k, s, "group", "pattern", e, "group: %" PRId64 " hosts, the topology has %" PRIu32, g->group, nh);
        for (size_t i = 0; t && !rc && i < n; i++)
            if (*not_host(t, ids[i], buf, sizeof buf))
                rc = fail(k, s, "hosts", NULL, e, "hosts: %s", buf);
        int64_t ranks = n ? (int64_t)n : g->group;
        double *w;
        size_t nw;
        const char *wrong = weights_parse(g->a2a_weights, &w, &nw);
        uint64_t rate;
        free(w);
        if (rc) {
        } else if (wrong) {
            rc = fail(k, s, "a2a_weights", NULL, e, "a2a_weights: '%.100s': %s", g->a2a_weights, wrong);
        } else if ((nw || g->a2a_zipf > 0) && g->collective != COLL_ALLTOALL) {
            rc = fail(k, s, nw ? "a2a_weights" : "a2a_zipf", "collective", e, "%s: skewed shares are for collective = "
                      "alltoall (MoE token routing)", nw ? "a2a_weights" : "a2a_zipf");
        } else if (nw && g->a2a_zipf > 0) {
            rc = fail(k, s, "a2a_zipf", "a2a_weights", e, "a2a_zipf: set either a2a_zipf or a2a_weights, not both");
        } else if (nw && ranks > 0 && (int64_t)nw != ranks) {
            rc = fail(k, s, "a2a_weights", "group", e, "a2a_weights: %zu weights for %" PRId64 " ranks (one per "
                      "destination rank, in rank order)", nw, ranks);
        } else if (g->slow_rank >= 0 && ranks > 0 && g->slow_rank >= ranks) {
            rc = fail(k, s, "slow_rank", "group", e, "slow_rank: rank %" PRId64 " of a job of %" PRId64 " ranks (0 to %"
                      PRId64 ", or -1: none)", g->slow_rank, ranks, ranks - 1);
        } else if (g->slow_nic[0] && g->slow_rank < 0) {
            rc = fail(k, s, "slow_nic", NULL, e, "slow_nic: whose NIC? set %s.slow_rank", s);
        } else if (g->slow_nic[0] && (wrong = parse_rate(g->slow_nic, &rate))) {
            rc = fail(k, s, "slow_nic", NULL, e, "slow_nic: '%.60s': %s", g->slow_nic, wrong);
        }
        free(ids);
        return rc;
    }
    case TRAFFIC_SIMAI: {
        if (!g->file[0])
            return fail(k, s, "file", "pattern", e, "pattern=simai needs %s.file, the SimAI workload", s);
        struct simai_workload w;
        if (simai_read(&w, g->file, e) < 0) {
            k->key[0] = k->alt[0] = 0; /* the message names the file and line */
            return -1;
        }
        uint32_t *ids = NULL;
        size_t n = 0;
        const char *why;
        int rc = 0;
        uint32_t ng = t ? topo_n_gpus(t) : 0;
        if (host_list_parse(g->hosts, &ids, &n, &why) < 0)
            rc = fail(k, s, "hosts", NULL, e, "hosts: bad host list '%.100s': %s", g->hosts, why);
        else if (n && n != w.all_gpus)
            rc = fail(k, s, "hosts", "file", e, "hosts: %zu GPUs listed, the workload has all_gpus: %" PRIu32, n, w.all_gpus);
        else if (t && w.all_gpus > ng)
            rc = fail(k, s, "file", NULL, e, "file: the workload needs %" PRIu32 " GPUs (all_gpus), the topology has %" PRIu32
                      "%s", w.all_gpus, ng, t->n_gpus ? "" : " (hosts; a SimAI topology counts GPUs)");
        for (size_t i = 0; t && !rc && i < n; i++) {
            bool gpu = false;
            for (uint32_t j = 0; j < ng && !gpu; j++)
                gpu = topo_gpu_nic(t, j) == ids[i];
            if (!gpu)
                rc = fail(k, s, "hosts", NULL, e, "hosts: node %" PRIu32 " is not a GPU's NIC host", ids[i]);
        }
        free(ids);
        simai_free(&w);
        return rc;
    }
    case TRAFFIC_PERMUTATION:
        if (t && nh < 2)
            return fail(k, s, "pattern", NULL, e, "pattern=permutation needs at least 2 hosts, the topology has %" PRIu32,
                        nh);
        return 0;
    case TRAFFIC_INCAST:
        if (g->repeat == REPEAT_POISSON && g->duration <= 0)
            return fail(k, s, "duration", "repeat", e, "duration must be > 0 for repeat=poisson (incasts are generated "
                        "during [start, start+duration))");
        if (!t)
            return 0;
        if (g->fan_in >= (int64_t)nh)
            return fail(k, s, "fan_in", "pattern", e, "fan_in: %" PRId64 " senders and a receiver need %" PRId64
                        " hosts, the topology has %" PRIu32, g->fan_in, g->fan_in + 1, nh);
        if (g->receiver >= 0 && *not_host(t, g->receiver, buf, sizeof buf))
            return fail(k, s, "receiver", NULL, e, "receiver: %s", buf);
        return 0;
    case TRAFFIC_BURST: {
        uint32_t *ids;
        size_t n;
        const char *why;
        if (host_list_parse(g->senders, &ids, &n, &why) < 0)
            return fail(k, s, "senders", NULL, e, "senders: bad host list '%.100s': %s", g->senders, why);
        int rc = 0;
        if (!t)
            goto done;
        for (size_t i = 0; i < n && !rc; i++)
            if (*not_host(t, ids[i], buf, sizeof buf))
                rc = fail(k, s, "senders", NULL, e, "senders: %s", buf);
        if (rc)
            goto done;
        if (g->receiver >= 0) {
            if (*not_host(t, g->receiver, buf, sizeof buf)) {
                rc = fail(k, s, "receiver", NULL, e, "receiver: %s", buf);
                goto done;
            }
            for (size_t i = 0; i < n; i++)
                if (ids[i] == g->receiver) {
                    rc = fail(k, s, "receiver", "senders", e, "receiver: host %" PRId64 " is also one of the senders",
                              g->receiver);
                    goto done;
                }
        }
        if (n == 0 && g->fan_in >= (int64_t)nh)
            rc = fail(k, s, "fan_in", "pattern", e, "fan_in: %" PRId64 " random senders and a receiver need %" PRId64
                      " hosts, the topology has %" PRIu32 " (or list the senders in %s.senders)", g->fan_in,
                      g->fan_in + 1, nh, s);
        else if (n >= nh)
            rc = fail(k, s, "senders", NULL, e, "senders: every host sends, so no host is left to receive");
    done:
        free(ids);
        return rc;
    }
    }
    return fail(k, s, "pattern", NULL, e, "pattern: unknown pattern %d", g->pattern);
}

static int check_flow(const struct cfg_flow *f, const struct topo *t, struct wl_key *k, struct err *e)
{
    char s[64], buf[160];
    snprintf(s, sizeof s, "flow.%s", f->name);
    static const char *const req = "every [flow.NAME] needs src, dst and size";
    if (f->src < 0)
        return fail(k, s, "src", "*", e, "src is missing (%s)", req);
    if (f->dst < 0)
        return fail(k, s, "dst", "*", e, "dst is missing (%s)", req);
    if (f->size == 0)
        return fail(k, s, "size", "*", e, "size is missing or 0 (%s)", req);
    if (f->src == f->dst)
        return fail(k, s, "dst", NULL, e, "dst: a flow from host %" PRId64 " to itself", f->dst);
    if (t && *not_host(t, f->src, buf, sizeof buf))
        return fail(k, s, "src", NULL, e, "src: %s", buf);
    if (t && *not_host(t, f->dst, buf, sizeof buf))
        return fail(k, s, "dst", NULL, e, "dst: %s", buf);
    return 0;
}

int workload_check(const struct config *c, const struct topo *t, struct wl_key *k, struct err *e)
{
    char s[64];
    if (check_gen(c, "traffic", &c->traffic, t, k, e) < 0)
        return -1;
    for (int i = 0; i < c->n_traffic_x; i++) {
        snprintf(s, sizeof s, "traffic.%s", c->traffic_x[i].name);
        if (check_gen(c, s, &c->traffic_x[i].t, t, k, e) < 0)
            return -1;
    }
    for (int i = 0; i < c->n_flows; i++)
        if (check_flow(&c->flows[i], t, k, e) < 0)
            return -1;
    return 0;
}

/* A SimAI job (traffic/simai.c): ranks on the listed GPUs or the lowest free ones. */
static int gen_simai(struct flow_list *out, const struct config *c, const char *s, const struct cfg_traffic *g,
                     const struct topo *t, uint8_t *taken, uint16_t pg, struct err *e)
{
    struct simai_workload w;
    if (simai_read(&w, g->file, e) < 0)
        return -1;
    uint32_t ng = topo_n_gpus(t), *ids = NULL, *gpus = calloc(w.all_gpus, sizeof *gpus);
    size_t n = 0;
    const char *why;
    int rc = 0;
    if (!gpus || host_list_parse(g->hosts, &ids, &n, &why) < 0) {
        rc = errf(e, "%s.hosts: bad host list or out of memory", s);
        goto out;
    }
    uint32_t k = 0;
    for (uint32_t j = 0; j < ng && k < w.all_gpus; j++) {
        uint32_t nic = topo_gpu_nic(t, j), nvl = topo_gpu_nvl(t, j);
        bool take = false;
        if (n) {
            for (size_t i = 0; i < n && !take; i++)
                if (ids[i] == nic) {
                    gpus[i] = j;
                    take = true;
                }
        } else if (!taken[t->host_index[nic]]) {
            gpus[k] = j;
            take = true;
        }
        if (!take)
            continue;
        k++;
        taken[t->host_index[nic]] = 1;
        if (nvl != UINT32_MAX)
            taken[t->host_index[nvl]] = 1;
    }
    if (k < w.all_gpus) {
        rc = errf(e, "%s.file: the workload needs %" PRIu32 " GPUs, %" PRIu32 " are free (earlier jobs took the rest)", s,
                  w.all_gpus, k);
        goto out;
    }
    struct simai_opts o = {.name = s, .iterations = (uint32_t)g->iterations, .chunks = (uint32_t)g->chunks,
                           .channels = (uint32_t)c->simai.channels, .rail_rings = c->simai.ring_order == SIMAI_RING_RAIL, .flow_qps = c->simai.qp == SIMAI_QP_FLOW, .recv_hold = c->simai.recv_hold, .start = g->start, .send_lat = c->simai.send_lat, .endpoint_delay = c->simai.endpoint_delay, .pg = pg, .gpus = gpus};
    rc = traffic_simai(out, t, &w, &o, e);
    if (rc < 0 && strcmp(s, "traffic") != 0) {
        struct err sub = *e;
        errf(e, "[%s] %s", s, sub.msg);
    }
out:
    free(ids);
    free(gpus);
    simai_free(&w);
    return rc;
}

/* One generator's flows, appended to out. Errors other than a flow file's
 * (which name the file and line) are prefixed with the section if not [traffic]. */
static int generate(struct flow_list *out, const struct config *c, const char *s, const struct cfg_traffic *g,
                    const struct topo *t, uint8_t *taken, struct err *e)
{
    struct rng r;
    struct err sub;
    rng_seed(&r, (uint64_t)c->run.seed, workload_stream(s));
    uint16_t pg = (uint16_t)(g->pg ? g->pg : c->transport.pg);
    int rc = 0;
    switch (g->pattern) {
    case TRAFFIC_NONE:
        return 0;
    case TRAFFIC_FILE: {
        size_t n0 = out->n;
        if (flowfile_read(out, g->file, t, e) < 0)
            return -1;
        /* run.ns3_timing (on for ns-3 configs): start where ns-3 starts a
         * flow file's flow, mostly 1 ns before the written time */
        for (size_t j = n0; c->run.ns3_timing && j < out->n; j++)
            out->v[j].start = flowfile_ns3_start(out->v[j].start);
        return 0;
    }
    case TRAFFIC_POISSON: {
        struct cdf cdf;
        if (cdf_load(&cdf, g->cdf, workloads_dir(), &sub) < 0) {
            rc = -1;
            break;
        }
        uint32_t lo = 1, hi = 1;
        const char *why;
        if (traffic_incast_ratio_parse(g->incast_ratio, &lo, &hi, &why) < 0)
            rc = errf(&sub, "traffic.incast_ratio: '%.60s': %s", g->incast_ratio, why);
        else if (hi > 1) /* "1" keeps the sender-driven generator and its random draws */
            rc = traffic_poisson_incast(out, t, &cdf, g->cdf_sampling, gen_load(g, t), lo, hi, g->start, g->duration, pg, &r,
                                        &sub);
        else
            rc = traffic_poisson_rack(out, t, &cdf, g->cdf_sampling, gen_load(g, t), g->intra_rack, g->start, g->duration,
                                      pg, &r, &sub);
        cdf_free(&cdf);
        break;
    }
    case TRAFFIC_INCAST: {
        struct incast_opts o = {
            .fan_in = (uint32_t)g->fan_in,
            .size = g->size,
            .receiver = g->receiver,
            .start = g->start,
            .duration = g->duration,
            .load = g->repeat == REPEAT_POISSON ? gen_load(g, t) : 0,
            .pg = pg,
        };
        rc = traffic_incast(out, t, &o, &r, &sub);
        break;
    }
    case TRAFFIC_PERMUTATION:
        rc = traffic_permutation(out, t, g->size, g->start, pg, &r, &sub);
        break;
    case TRAFFIC_BURST: {
        uint32_t *ids;
        size_t n;
        const char *why;
        if (host_list_parse(g->senders, &ids, &n, &why) < 0) {
            rc = errf(&sub, "traffic.senders: bad host list '%.100s': %s", g->senders, why);
            break;
        }
        struct burst_opts o = {
            .senders = ids,
            .n_senders = n,
            .fan_in = (uint32_t)g->fan_in,
            .receiver = g->receiver,
            .count = (uint64_t)g->count,
            .size = g->size,
            .start = g->start,
            .interval = g->interval,
            .duration = g->duration,
            .pg = pg,
        };
        rc = traffic_burst(out, t, &o, &r, &sub);
        free(ids);
        break;
    }
    case TRAFFIC_COLLECTIVE: {
        uint32_t *ids;
        size_t n;
        const char *why;
        if (host_list_parse(g->hosts, &ids, &n, &why) < 0) {
            rc = errf(&sub, "traffic.hosts: bad host list '%.100s': %s", g->hosts, why);
            break;
        }
        double *w;
        size_t nw;
        if ((why = weights_parse(g->a2a_weights, &w, &nw))) {
            free(ids);
            rc = errf(&sub, "traffic.a2a_weights: '%.100s': %s", g->a2a_weights, why);
            break;
        }
        uint64_t nic = 0;
        if (g->slow_nic[0] && (why = parse_rate(g->slow_nic, &nic))) {
            free(ids), free(w);
            rc = errf(&sub, "traffic.slow_nic: '%.60s': %s", g->slow_nic, why);
            break;
        }
        struct coll_opts o = {
            .name = s,
            .algo = g->collective,
            .placement = g->placement,
            .a2a = g->alltoall,
            .hierarchy = g->hierarchy,
            .group = (uint32_t)g->group,
            .size = g->size,
            .iterations = (uint32_t)g->iterations,
            .chunks = (uint32_t)g->chunks,
            .channels = (uint32_t)g->channels,
            .start = g->start,
            .gap = g->compute_gap,
            .pg = pg,
            .hosts = n ? ids : NULL,
            .n_hosts = n,
            .taken = taken,
            .gap_dist = g->gap_dist,
            .gap_spread = g->gap_spread,
            .slow = g->slow_rank >= 0,
            .slow_rank = g->slow_rank >= 0 ? (uint32_t)g->slow_rank : 0,
            .slow_factor = g->slow_factor,
            .slow_nic = nic,
            .a2a_weights = w,
            .n_weights = nw,
            .a2a_zipf = g->a2a_zipf,
        };
        rc = traffic_collective(out, t, &o, &r, &sub);
        free(ids);
        free(w);
        break;
    }
    case TRAFFIC_SIMAI:
        return gen_simai(out, c, s, g, t, taken, pg, e);
    default:
        rc = errf(&sub, "traffic.pattern: unknown pattern %d", g->pattern);
    }
    if (rc < 0)
        return strcmp(s, "traffic") == 0 ? errf(e, "%s", sub.msg) : errf(e, "[%s] %s", s, sub.msg);
    return 0;
}

int workload_build(struct flow_list *out, const struct config *c, const struct topo *t, struct err *e)
{
    struct wl_key k;
    char s[64];
    if (workload_check(c, t, &k, e) < 0)
        return -1;
    size_t n0 = out->n;
    int sources = 0;
    bool file = false;
    /* hosts of the collective jobs so far: a later job's placement skips them */
    uint8_t *taken = calloc(t && t->n_hosts ? t->n_hosts : 1, 1);
    if (!taken)
        return errf(e, "out of memory");
    if (c->traffic.pattern != TRAFFIC_NONE) {
        sources++;
        file = c->traffic.pattern == TRAFFIC_FILE;
        if (generate(out, c, "traffic", &c->traffic, t, taken, e) < 0) {
            free(taken);
            return -1;
        }
        for (size_t j = n0; j < out->n; j++)
            out->v[j].source = 0;
    }
    for (int i = 0; i < c->n_traffic_x; i++) {
        const struct cfg_traffic *g = &c->traffic_x[i].t;
        if (g->pattern == TRAFFIC_NONE)
            continue;
        sources++;
        file = g->pattern == TRAFFIC_FILE;
        snprintf(s, sizeof s, "traffic.%s", c->traffic_x[i].name);
        size_t before = out->n;
        if (generate(out, c, s, g, t, taken, e) < 0) {
            free(taken);
            return -1;
        }
        for (size_t j = before; j < out->n; j++) /* fct.csv names the section each flow came from */
            out->v[j].source = (uint16_t)(1 + i);
    }
    for (int i = 0; i < c->n_flows; i++) {
        const struct cfg_flow *f = &c->flows[i];
        struct flow_spec fs = {
            .src = (uint32_t)f->src,
            .dst = (uint32_t)f->dst,
            .size = f->size,
            .start = f->start,
            .pg = (uint16_t)(f->pg ? f->pg : c->transport.pg),
            .dport = 100,
            .source = FLOW_SOURCE_NAMED,
        };
        sources += i == 0;
        file = false;
        if (flow_list_push_named(out, &fs, f->name) < 0) {
            out->n = n0;
            free(taken);
            return errf(e, "flow.%s: out of memory", f->name);
        }
    }
    free(taken);
    if (!(sources == 1 && file))
        flow_list_sort(out);
    return 0;
}
