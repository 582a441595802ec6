/* Topology generators (leaf-spine, fat-tree, Clos, dumbbell), the shared
 * finishing step that indexes hosts and ports, switch layers, link lookup,
 * node names, per-link rate overrides and link failures. */
#include "topo/topo.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"

#define TOPO_MAX_NODES ((1u << 28) - 1) /* keeps every node*host product well inside 64 bits */

void topo_free(struct topo *t)
{
    free(t->nodes);
    free(t->links);
    free(t->hosts);
    free(t->host_index);
    free(t->adj_off);
    free(t->adj_link);
    free(t->fails);
    memset(t, 0, sizeof *t);
}

int topo_finish(struct topo *t, struct err *e)
{
    if (t->n_links > UINT32_MAX / 2) {
        topo_free(t);
        return errf(e, "topology: too many links (%u)", t->n_links);
    }
    uint32_t n = t->n_nodes;
    t->host_index = malloc((size_t)(n ? n : 1) * sizeof *t->host_index);
    t->adj_off = calloc((size_t)n + 1, sizeof *t->adj_off);
    t->adj_link = malloc((size_t)(t->n_links ? 2 * t->n_links : 1) * sizeof *t->adj_link);
    uint32_t h = 0;
    for (uint32_t i = 0; i < n; i++)
        h += !t->nodes[i].is_switch;
    t->hosts = malloc((size_t)(h ? h : 1) * sizeof *t->hosts);
    if (!t->host_index || !t->adj_off || !t->adj_link || !t->hosts) {
        topo_free(t);
        return errf(e, "topology: out of memory (%u nodes)", n);
    }
    t->n_hosts = h;
    h = 0;
    for (uint32_t i = 0; i < n; i++) {
        t->host_index[i] = t->nodes[i].is_switch ? -1 : (int32_t)h;
        if (!t->nodes[i].is_switch)
            t->hosts[h++] = i;
    }
    /* Ports: count degrees, prefix-sum, then place links in file order. */
    for (uint32_t l = 0; l < t->n_links; l++) {
        t->adj_off[t->links[l].a + 1]++;
        t->adj_off[t->links[l].b + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        t->adj_off[i + 1] += t->adj_off[i];
    uint32_t *fill = calloc((size_t)(n ? n : 1), sizeof *fill);
    if (!fill) {
        topo_free(t);
        return errf(e, "topology: out of memory (%u nodes)", n);
    }
    for (uint32_t l = 0; l < t->n_links; l++) {
        uint32_t a = t->links[l].a, b = t->links[l].b;
        t->adj_link[t->adj_off[a] + fill[a]++] = l;
        t->adj_link[t->adj_off[b] + fill[b]++] = l;
    }
    free(fill);
    return 0;
}

const struct topo_link *topo_link_between(const struct topo *t, uint32_t a, uint32_t b)
{
    if (a >= t->n_nodes || b >= t->n_nodes)
        return NULL;
    if (!t->adj_off) { /* a hand-built topo without the index */
        for (uint32_t l = 0; l < t->n_links; l++)
            if ((t->links[l].a == a && t->links[l].b == b) || (t->links[l].a == b && t->links[l].b == a))
                return &t->links[l];
        return NULL;
    }
    for (uint32_t p = t->adj_off[a]; p < t->adj_off[a + 1]; p++) {
        const struct topo_link *l = &t->links[t->adj_link[p]];
        if ((l->a == a ? l->b : l->a) == b)
            return l;
    }
    return NULL;
}

void topo_assign_layers(struct topo *t)
{
    uint32_t n = t->n_nodes;
    for (uint32_t i = 0; i < n; i++)
        t->nodes[i].layer = t->nodes[i].is_switch ? LAYER_CORE : LAYER_HOST;
    int32_t *dist = malloc((size_t)(n ? n : 1) * sizeof *dist);
    uint32_t *q = malloc((size_t)(n ? n : 1) * sizeof *q);
    uint32_t qn = 0;
    for (uint32_t i = 0; i < n; i++)
        if (dist)
            dist[i] = -1;
    /* Edge switches: those with a host neighbour. */
    for (uint32_t l = 0; l < t->n_links; l++) {
        const struct topo_link *k = &t->links[l];
        uint32_t ends[2][2] = {{k->a, k->b}, {k->b, k->a}};
        for (int j = 0; j < 2; j++) {
            uint32_t s = ends[j][0], o = ends[j][1];
            if (t->nodes[s].is_switch && !t->nodes[o].is_switch && t->nodes[s].layer != LAYER_EDGE) {
                t->nodes[s].layer = LAYER_EDGE;
                if (dist && q) {
                    dist[s] = 0;
                    q[qn++] = s;
                }
            }
        }
    }
    /* Without memory for the BFS (or the index), non-edge switches stay core. */
    if (dist && q && t->adj_off) {
        for (uint32_t i = 0; i < qn; i++) {
            uint32_t u = q[i];
            for (uint32_t p = t->adj_off[u]; p < t->adj_off[u + 1]; p++) {
                const struct topo_link *k = &t->links[t->adj_link[p]];
                uint32_t v = k->a == u ? k->b : k->a;
                if (!t->nodes[v].is_switch || dist[v] >= 0)
                    continue;
                dist[v] = dist[u] + 1;
                t->nodes[v].layer = dist[v] == 1 ? LAYER_AGG : LAYER_CORE;
                q[qn++] = v;
            }
        }
    }
    free(dist);
    free(q);
}

/* ---- generators ---- */

static int check_size(int64_t v, const char *key, struct err *e)
{
    if (v < 1)
        return errf(e, "topology.%s: must be at least 1 (got %lld)", key, (long long)v);
    if (v > TOPO_MAX_NODES)
        return errf(e, "topology.%s: %lld is too large", key, (long long)v);
    return 0;
}

static int topo_alloc(struct topo *t, uint64_t n_nodes, uint64_t n_links, struct err *e)
{
    if (n_nodes > TOPO_MAX_NODES || n_links > UINT32_MAX / 2)
        return errf(e, "topology: %llu nodes and %llu links is too large (at most %u nodes)",
                    (unsigned long long)n_nodes, (unsigned long long)n_links, TOPO_MAX_NODES);
    t->n_nodes = (uint32_t)n_nodes;
    t->n_links = 0;
    t->nodes = calloc(n_nodes, sizeof *t->nodes);
    t->links = calloc(n_links ? n_links : 1, sizeof *t->links);
    if (!t->nodes || !t->links) {
        topo_free(t);
        return errf(e, "topology: out of memory (%llu nodes)", (unsigned long long)n_nodes);
    }
    return 0;
}

static void set_switches(struct topo *t, uint32_t first, uint32_t n, uint8_t layer)
{
    for (uint32_t i = first; i < first + n; i++)
        t->nodes[i] = (struct topo_node){.is_switch = true, .layer = layer};
}

static void set_names(struct topo *t, int naming, uint32_t first_edge, uint32_t n_edge, uint32_t edge_pp,
                      uint32_t first_agg, uint32_t n_agg, uint32_t agg_pp, uint32_t n_core)
{
    t->naming = naming;
    t->first_edge = first_edge, t->n_edge = n_edge, t->n_edge_pp = edge_pp;
    t->first_agg = first_agg, t->n_agg = n_agg, t->n_agg_pp = agg_pp;
    t->first_core = first_agg + n_agg, t->n_core = n_core;
}

/* Lower-layer end first, like ns-3's fat.txt ("host switch", "tor agg"). */
static void add_link(struct topo *t, uint32_t a, uint32_t b, uint64_t rate, simtime_t delay)
{
    t->links[t->n_links++] = (struct topo_link){.a = a, .b = b, .rate = rate, .delay = delay};
}

/* topology.oversubscription: hosts per edge switch = ratio x uplink capacity
 * / host rate, which must come out whole (3 x 10 x 40G / 40G = 30). */
static int oversub_hosts(const struct cfg_topology *c, int64_t uplinks, const char *key, int64_t *hosts, struct err *e)
{
    double h = c->oversubscription * (double)uplinks * (double)c->fabric_link / (double)c->host_link;
    double r = floor(h + 0.5);
    if (r < 1 || fabs(h - r) > 1e-6 * r)
        return errf(e, "topology.oversubscription: %g x %lld uplinks x fabric_link / host_link = %g hosts per edge "
                       "switch, not a whole number (or set topology.%s instead)",
                    c->oversubscription, (long long)uplinks, h, key);
    if (r > TOPO_MAX_NODES)
        return errf(e, "topology.oversubscription: %g hosts per edge switch is too many", r);
    *hosts = (int64_t)r;
    return 0;
}

static int gen_leafspine(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    int64_t hosts = c->hosts_per_leaf;
    if (check_size(c->leaves, "leaves", e) || check_size(c->spines, "spines", e) ||
        (c->oversubscription > 0 && oversub_hosts(c, c->spines, "hosts_per_leaf", &hosts, e)) ||
        check_size(hosts, "hosts_per_leaf", e))
        return -1;
    uint64_t nl = (uint64_t)c->leaves, ns = (uint64_t)c->spines, hpl = (uint64_t)hosts;
    uint64_t h = nl * hpl;
    if (topo_alloc(t, h + nl + ns, h + nl * ns, e))
        return -1;
    uint32_t leaf0 = (uint32_t)h, spine0 = (uint32_t)(h + nl);
    set_switches(t, leaf0, (uint32_t)nl, LAYER_EDGE);
    set_switches(t, spine0, (uint32_t)ns, LAYER_AGG);
    set_names(t, NAMES_LEAFSPINE, leaf0, (uint32_t)nl, 0, spine0, (uint32_t)ns, 0, 0);
    for (uint32_t i = 0; i < h; i++)
        add_link(t, i, leaf0 + (uint32_t)(i / hpl), c->host_link, c->link_delay);
    for (uint32_t l = 0; l < nl; l++)
        for (uint32_t s = 0; s < ns; s++)
            add_link(t, leaf0 + l, spine0 + s, c->fabric_link, c->link_delay);
    return 0;
}

/* k pods of k/2 edge + k/2 agg switches, (k/2)^2 cores, k/2 hosts per edge.
 * Numbering: hosts, edges (pod-major), aggs (pod-major), cores. */
static int gen_fattree(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    if (c->k < 2 || c->k > 1024)
        return errf(e, "topology.k: must be between 2 and 1024 (got %lld)", (long long)c->k);
    if (c->k % 2)
        return errf(e, "topology.k must be even (got %lld)", (long long)c->k);
    uint32_t k = (uint32_t)c->k, hk = k / 2;
    uint64_t h = (uint64_t)k * k * k / 4, ne = (uint64_t)k * hk, nc = (uint64_t)hk * hk;
    if (topo_alloc(t, h + 2 * ne + nc, h + ne * hk + ne * hk, e))
        return -1;
    uint32_t edge0 = (uint32_t)h, agg0 = (uint32_t)(h + ne), core0 = (uint32_t)(h + 2 * ne);
    set_switches(t, edge0, (uint32_t)ne, LAYER_EDGE);
    set_switches(t, agg0, (uint32_t)ne, LAYER_AGG);
    set_switches(t, core0, (uint32_t)nc, LAYER_CORE);
    set_names(t, NAMES_PODS, edge0, (uint32_t)ne, hk, agg0, (uint32_t)ne, hk, (uint32_t)nc);
    for (uint32_t i = 0; i < h; i++)
        add_link(t, i, edge0 + i / hk, c->host_link, c->link_delay);
    for (uint32_t p = 0; p < k; p++)
        for (uint32_t x = 0; x < hk; x++)
            for (uint32_t j = 0; j < hk; j++)
                add_link(t, edge0 + p * hk + x, agg0 + p * hk + j, c->fabric_link, c->link_delay);
    for (uint32_t p = 0; p < k; p++)
        for (uint32_t j = 0; j < hk; j++)
            for (uint32_t i = 0; i < hk; i++)
                add_link(t, agg0 + p * hk + j, core0 + j * hk + i, c->fabric_link, c->link_delay);
    return 0;
}

/* A general 3-tier Clos: P pods of E edge and A aggregation switches (every
 * edge linked to every aggregation of its pod), H hosts per edge, C cores.
 * Standard striping: aggregation j of each pod links to the C/A cores
 * j*C/A .. (j+1)*C/A - 1, so pods meet at every core and each aggregation
 * has C/A uplinks. With E = A = k/2, H = k/2, C = k^2/4 this is the k-ary
 * fat-tree, link for link. Numbering as the fat-tree: hosts, edges, aggs
 * (pod-major), cores. */
static int gen_clos(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    int64_t hosts = c->hosts_per_edge;
    if (check_size(c->pods, "pods", e) || check_size(c->edges_per_pod, "edges_per_pod", e) ||
        check_size(c->aggs_per_pod, "aggs_per_pod", e) || check_size(c->cores, "cores", e) ||
        (c->oversubscription > 0 && oversub_hosts(c, c->aggs_per_pod, "hosts_per_edge", &hosts, e)) ||
        check_size(hosts, "hosts_per_edge", e))
        return -1;
    if (c->cores % c->aggs_per_pod)
        return errf(e, "topology.cores: %lld cores cannot be striped evenly over %lld aggregation switches per pod "
                       "(cores must be a multiple of aggs_per_pod)",
                    (long long)c->cores, (long long)c->aggs_per_pod);
    uint64_t np = (uint64_t)c->pods, ep = (uint64_t)c->edges_per_pod, ap = (uint64_t)c->aggs_per_pod;
    uint64_t nc = (uint64_t)c->cores, hpe = (uint64_t)hosts, up = nc / ap;
    uint64_t ne = np * ep, na = np * ap, h = ne * hpe;
    if (ne > TOPO_MAX_NODES || na > TOPO_MAX_NODES || h > TOPO_MAX_NODES)
        return errf(e, "topology: clos with %llu hosts and %llu switches is too large", (unsigned long long)h,
                    (unsigned long long)(ne + na + nc));
    if (topo_alloc(t, h + ne + na + nc, h + ne * ap + na * up, e))
        return -1;
    uint32_t edge0 = (uint32_t)h, agg0 = (uint32_t)(h + ne), core0 = (uint32_t)(h + ne + na);
    set_switches(t, edge0, (uint32_t)ne, LAYER_EDGE);
    set_switches(t, agg0, (uint32_t)na, LAYER_AGG);
    set_switches(t, core0, (uint32_t)nc, LAYER_CORE);
    set_names(t, NAMES_PODS, edge0, (uint32_t)ne, (uint32_t)ep, agg0, (uint32_t)na, (uint32_t)ap, (uint32_t)nc);
    for (uint32_t i = 0; i < h; i++)
        add_link(t, i, edge0 + (uint32_t)(i / hpe), c->host_link, c->link_delay);
    for (uint32_t p = 0; p < np; p++)
        for (uint32_t x = 0; x < ep; x++)
            for (uint32_t j = 0; j < ap; j++)
                add_link(t, edge0 + p * (uint32_t)ep + x, agg0 + p * (uint32_t)ap + j, c->fabric_link, c->link_delay);
    for (uint32_t p = 0; p < np; p++)
        for (uint32_t j = 0; j < ap; j++)
            for (uint32_t i = 0; i < up; i++)
                add_link(t, agg0 + p * (uint32_t)ap + j, core0 + j * (uint32_t)up + i, c->fabric_link, c->link_delay);
    return 0;
}

/* PCN's Fig. 1: senders on S0, receivers on S1, one S0-S1 bottleneck. */
static int gen_dumbbell(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    if (check_size(c->senders, "senders", e) || check_size(c->receivers, "receivers", e))
        return -1;
    uint64_t ns = (uint64_t)c->senders, h = ns + (uint64_t)c->receivers;
    if (topo_alloc(t, h + 2, h + 1, e))
        return -1;
    uint32_t s0 = (uint32_t)h;
    set_switches(t, s0, 2, LAYER_EDGE);
    set_names(t, NAMES_DUMBBELL, s0, 2, 0, 0, 0, 0, 0);
    for (uint32_t i = 0; i < h; i++)
        add_link(t, i, i < ns ? s0 : s0 + 1, c->host_link, c->link_delay);
    add_link(t, s0, s0 + 1, c->fabric_link, c->link_delay);
    return 0;
}

/* PCN's Fig. 19(a) parking lot: switches s0 - s1 - ... - s(n-1) in a chain,
 * hosts_per_switch hosts on each (numbered switch by switch), so a flow from
 * s0 to the last switch crosses every chain link and others cross one. */
static int gen_parkinglot(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    if (c->chain < 2 || c->chain > 4096)
        return errf(e, "topology.chain: must be between 2 and 4096 (got %lld)", (long long)c->chain);
    if (check_size(c->hosts_per_switch, "hosts_per_switch", e))
        return -1;
    uint64_t ns = (uint64_t)c->chain, hps = (uint64_t)c->hosts_per_switch, h = ns * hps;
    if (topo_alloc(t, h + ns, h + ns - 1, e))
        return -1;
    uint32_t s0 = (uint32_t)h;
    set_switches(t, s0, (uint32_t)ns, LAYER_EDGE);
    set_names(t, NAMES_DUMBBELL, s0, (uint32_t)ns, 0, 0, 0, 0, 0);
    for (uint32_t i = 0; i < h; i++)
        add_link(t, i, s0 + (uint32_t)(i / hps), c->host_link, c->link_delay);
    for (uint32_t i = 0; i + 1 < ns; i++)
        add_link(t, s0 + i, s0 + i + 1, c->fabric_link, c->link_delay);
    return 0;
}

static int topo_base(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    memset(t, 0, sizeof *t);
    if (c->type == TOPO_FILE) {
        if (!c->file[0])
            return errf(e, "topology.file: needed for type=file (an ns-3 HPCC topology file)");
        return topo_read_ns3(t, c->file, e);
    }
    if (c->host_link == 0)
        return errf(e, "topology.host_link: must be a positive rate");
    if (c->fabric_link == 0)
        return errf(e, "topology.fabric_link: must be a positive rate");
    if (c->link_delay < 0)
        return errf(e, "topology.link_delay: must not be negative");
    int rc;
    switch (c->type) {
    case TOPO_LEAFSPINE: rc = gen_leafspine(t, c, e); break;
    case TOPO_FATTREE: rc = gen_fattree(t, c, e); break;
    case TOPO_DUMBBELL: rc = gen_dumbbell(t, c, e); break;
    case TOPO_CLOS: rc = gen_clos(t, c, e); break;
    case TOPO_PARKINGLOT: rc = gen_parkinglot(t, c, e); break;
    default: return errf(e, "topology.type: unknown type %d", c->type);
    }
    return rc ? -1 : topo_finish(t, e);
}

int topo_generate(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    if (topo_base(t, c, e) < 0)
        return -1;
    if (topo_set_link_rates(t, c->link_rate, e) < 0 || topo_parse_fails(t, c->fail, e) < 0 ||
        topo_parse_flaps(t, c->flap, e) < 0 || topo_parse_switch_fails(t, c->switch_fail, e) < 0 ||
        topo_parse_slows(t, c->slow, e) < 0) {
        topo_free(t);
        return -1;
    }
    return 0;
}

/* ---- names ---- */

/* Digits only, no sign or blanks, at most 10 of them; advances *p. */
static bool take_uint(const char **p, uint32_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int n = 0;
    while (*s >= '0' && *s <= '9' && n < 11) {
        x = x * 10 + (uint64_t)(*s++ - '0');
        n++;
    }
    if (n == 0 || n > 10 || x > UINT32_MAX)
        return false;
    *v = (uint32_t)x;
    *p = s;
    return true;
}

/* "PREFIX<i>" (pods == 0) or "PREFIX<p>.<i>" (i < per_pod), in [0, count). */
static bool take_named(const char *name, const char *prefix, uint32_t count, uint32_t per_pod, uint32_t *idx)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return false;
    const char *s = name + pl;
    uint32_t a, b;
    if (!take_uint(&s, &a))
        return false;
    if (per_pod) {
        if (*s++ != '.' || !take_uint(&s, &b) || b >= per_pod || (uint64_t)a * per_pod + b >= count)
            return false;
        a = a * per_pod + b;
    }
    if (*s || a >= count)
        return false;
    *idx = a;
    return true;
}

int topo_node_find(const struct topo *t, const char *name, uint32_t *id)
{
    const char *s = name;
    uint32_t i;
    if (take_uint(&s, &i) && !*s)
        return i < t->n_nodes ? (*id = i, 0) : -1;
    bool pods = t->naming == NAMES_PODS;
    if (t->naming == NAMES_IDS)
        return -1;
    if (take_named(name, "host", t->n_hosts, 0, &i))
        return *id = t->hosts[i], 0;
    if (t->naming == NAMES_DUMBBELL)
        return take_named(name, "s", t->n_edge, 0, &i) ? (*id = t->first_edge + i, 0) : -1;
    if (take_named(name, pods ? "edge" : "leaf", t->n_edge, pods ? t->n_edge_pp : 0, &i))
        return *id = t->first_edge + i, 0;
    if (take_named(name, pods ? "agg" : "spine", t->n_agg, pods ? t->n_agg_pp : 0, &i))
        return *id = t->first_agg + i, 0;
    if (pods && take_named(name, "core", t->n_core, 0, &i))
        return *id = t->first_core + i, 0;
    return -1;
}

void topo_node_name(const struct topo *t, uint32_t id, char *buf, size_t n)
{
    bool pods = t->naming == NAMES_PODS;
    if (t->naming == NAMES_IDS || id >= t->n_nodes)
        snprintf(buf, n, "%u", id);
    else if (!t->nodes[id].is_switch)
        snprintf(buf, n, "host%d", t->host_index[id]);
    else if (t->naming == NAMES_DUMBBELL)
        snprintf(buf, n, "s%u", id - t->first_edge);
    else if (id - t->first_edge < t->n_edge)
        pods ? snprintf(buf, n, "edge%u.%u", (id - t->first_edge) / t->n_edge_pp, (id - t->first_edge) % t->n_edge_pp)
             : snprintf(buf, n, "leaf%u", id - t->first_edge);
    else if (id - t->first_agg < t->n_agg)
        pods ? snprintf(buf, n, "agg%u.%u", (id - t->first_agg) / t->n_agg_pp, (id - t->first_agg) % t->n_agg_pp)
             : snprintf(buf, n, "spine%u", id - t->first_agg);
    else
        snprintf(buf, n, "core%u", id - t->first_core);
}

static const char *naming_help(const struct topo *t)
{
    switch (t->naming) {
    case NAMES_LEAFSPINE: return "node ids, hostN, leafN, spineN";
    case NAMES_PODS: return "node ids, hostN, edgeP.N, aggP.N, coreN (P = pod)";
    case NAMES_DUMBBELL: return "node ids, hostN, sN";
    default: return "node ids";
    }
}

/* ---- per-link rates and failures ---- */

/* Copies [b, end) into item without blanks ("leaf0 - spine1 : 25G" reads as
 * one item); false if it does not fit. */
static bool copy_item(char *item, size_t n, const char *b, const char *end)
{
    size_t k = 0;
    for (; b < end; b++)
        if (*b != ' ' && *b != '\t') {
            if (k + 1 >= n)
                return false;
            item[k++] = *b;
        }
    item[k] = 0;
    return true;
}

/* One list item, blanks trimmed: [*b, *e). Returns false at the end. */
static bool next_item(const char **p, const char **b, const char **end)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == ',')
        s++;
    if (!*s)
        return false;
    const char *c = strchr(s, ',');
    const char *x = c ? c : s + strlen(s);
    *p = x;
    while (x > s && (x[-1] == ' ' || x[-1] == '\t'))
        x--;
    *b = s;
    *end = x;
    return true;
}

/* "A-B" (node names contain no '-') -> link index. */
static int find_link(const struct topo *t, const char *key, const char *item, const char *ab, uint32_t *li, struct err *e)
{
    const char *dash = strchr(ab, '-');
    if (!dash || dash == ab || !dash[1])
        return errf(e, "topology.%s: '%s': expected NODE-NODE (%s)", key, item, naming_help(t));
    char a[64], b[64];
    if ((size_t)(dash - ab) >= sizeof a || strlen(dash + 1) >= sizeof b)
        return errf(e, "topology.%s: '%s': node name too long", key, item);
    snprintf(a, sizeof a, "%.*s", (int)(dash - ab), ab);
    snprintf(b, sizeof b, "%s", dash + 1);
    uint32_t x, y;
    if (topo_node_find(t, a, &x) < 0)
        return errf(e, "topology.%s: '%s': no node '%s' (names: %s)", key, item, a, naming_help(t));
    if (topo_node_find(t, b, &y) < 0)
        return errf(e, "topology.%s: '%s': no node '%s' (names: %s)", key, item, b, naming_help(t));
    const struct topo_link *l = topo_link_between(t, x, y);
    if (!l)
        return errf(e, "topology.%s: '%s': no link between %s (node %u) and %s (node %u)", key, item, a, x, b, y);
    *li = (uint32_t)(l - t->links);
    return 0;
}

int topo_set_link_rates(struct topo *t, const char *spec, struct err *e)
{
    const char *p = spec, *b, *end;
    char item[256];
    while (next_item(&p, &b, &end)) {
        if (!copy_item(item, sizeof item, b, end))
            return errf(e, "topology.link_rate: item too long: '%.60s...'", b);
        char *colon = strrchr(item, ':');
        if (!colon)
            return errf(e, "topology.link_rate: '%s': expected NODE-NODE:RATE, e.g. leaf0-spine1:25Gbps", item);
        *colon = 0;
        uint64_t rate;
        const char *why = parse_rate(colon + 1, &rate);
        if (why || rate == 0) {
            *colon = ':';
            return errf(e, "topology.link_rate: '%s': %s", item, why ? why : "a rate must be positive");
        }
        uint32_t li;
        if (find_link(t, "link_rate", item, item, &li, e) < 0)
            return -1;
        t->links[li].rate = rate;
    }
    return 0;
}

static int fail_append(struct topo *t, uint32_t li, simtime_t down, simtime_t up, uint64_t rate, const char *where,
                       struct err *e);

int topo_add_fail(struct topo *t, uint32_t a, uint32_t b, simtime_t down, simtime_t up, const char *where,
                  struct err *e)
{
    const struct topo_link *l = topo_link_between(t, a, b);
    if (!l)
        return errf(e, "%s: no link between node %u and node %u", where, a, b);
    uint32_t li = (uint32_t)(l - t->links);
    if (up <= down)
        return errf(e, "%s: the link comes back up before it fails", where);
    for (uint32_t i = 0; i < t->n_fails; i++)
        if (t->fails[i].link == li && !t->fails[i].rate && down < t->fails[i].up && t->fails[i].down < up)
            return errf(e, "%s: overlaps an earlier failure of the same link", where);
    return fail_append(t, li, down, up, 0, where, e);
}

static int fail_append(struct topo *t, uint32_t li, simtime_t down, simtime_t up, uint64_t rate, const char *where,
                       struct err *e)
{
    if ((t->n_fails & (t->n_fails - 1)) == 0) { /* grow at powers of two */
        void *v = realloc(t->fails, (t->n_fails ? 2 * (size_t)t->n_fails : 1) * sizeof *t->fails);
        if (!v)
            return errf(e, "%s: out of memory", where);
        t->fails = v;
    }
    t->fails[t->n_fails++] = (struct topo_fail){.link = li, .down = down, .up = up, .rate = rate};
    return 0;
}

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

int topo_check_fails_connected(const struct topo *t, struct err *e)
{
    bool permanent = false;
    for (uint32_t i = 0; i < t->n_fails; i++)
        permanent |= t->fails[i].up == T_NEVER && !t->fails[i].rate;
    if (!permanent || t->n_hosts < 2)
        return 0;
    /* union-find over the links that stay up; hosts have one link, so no path transits a host */
    uint32_t *up = malloc((size_t)t->n_nodes * sizeof *up);
    bool *dead = calloc(t->n_links ? t->n_links : 1, sizeof *dead);
    if (!up || !dead) {
        free(up);
        free(dead);
        return errf(e, "topology: out of memory");
    }
    for (uint32_t i = 0; i < t->n_fails; i++)
        if (t->fails[i].up == T_NEVER && !t->fails[i].rate)
            dead[t->fails[i].link] = true;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        up[i] = i;
    for (uint32_t l = 0; l < t->n_links; l++)
        if (!dead[l])
            up[uf_find(up, t->links[l].a)] = uf_find(up, t->links[l].b);
    int rc = 0;
    uint32_t root = uf_find(up, t->hosts[0]);
    for (uint32_t h = 1; h < t->n_hosts && !rc; h++)
        if (uf_find(up, t->hosts[h]) != root) {
            char a[32], b[32];
            topo_node_name(t, t->hosts[0], a, sizeof a);
            topo_node_name(t, t->hosts[h], b, sizeof b);
            rc = errf(e, "failures that never recover cut %s off from %s, so flows between them could never "
                         "finish: give a recovery time (A-B@DOWN-UP) or set run.stop", b, a);
        }
    free(up);
    free(dead);
    return rc;
}

int topo_parse_fails(struct topo *t, const char *spec, struct err *e)
{
    const char *p = spec, *b, *end;
    char item[256], where[300];
    while (next_item(&p, &b, &end)) {
        if (!copy_item(item, sizeof item, b, end))
            return errf(e, "topology.fail: item too long: '%.60s...'", b);
        char *at = strchr(item, '@');
        if (!at)
            return errf(e, "topology.fail: '%s': expected NODE-NODE@TIME or NODE-NODE@DOWN-UP, e.g. leaf0-spine1@1ms",
                        item);
        *at = 0;
        char *times = at + 1, *dash = strchr(times, '-');
        if (dash)
            *dash = 0;
        simtime_t down, up = T_NEVER;
        const char *why = parse_time(times, &down);
        if (!why && dash)
            why = parse_time(dash + 1, &up);
        if (dash)
            *dash = '-';
        *at = '@';
        if (why)
            return errf(e, "topology.fail: '%s': %s", item, why);
        *at = 0;
        uint32_t li;
        int rc = find_link(t, "fail", item, item, &li, e);
        *at = '@';
        if (rc < 0)
            return -1;
        snprintf(where, sizeof where, "topology.fail: '%s'", item);
        if (topo_add_fail(t, t->links[li].a, t->links[li].b, down, up, where, e) < 0)
            return -1;
    }
    return 0;
}

/* "T" or "T1-T2" (in place; T2 = T_NEVER when absent): NULL or why not. */
static const char *parse_window(char *times, simtime_t *down, simtime_t *up)
{
    char *dash = strchr(times, '-');
    if (dash)
        *dash = 0;
    *up = T_NEVER;
    const char *why = parse_time(times, down);
    if (!why && dash)
        why = parse_time(dash + 1, up);
    if (dash)
        *dash = '-';
    return why;
}

/* A flapping link: outages [FROM + i*PERIOD, + TIME) while they start before
 * UNTIL, the last cut at UNTIL. UNTIL is required: a flapping link with no
 * end would need events generated for ever. */
#define FLAP_MAX_OUTAGES 100000
int topo_parse_flaps(struct topo *t, const char *spec, struct err *e)
{
    const char *p = spec, *b, *end;
    char item[256], where[300];
    static const char form[] = "expected NODE-NODE@FROM-UNTIL:every=PERIOD[:down=TIME], e.g. leaf0-spine1@1ms-2ms:every=100us";
    while (next_item(&p, &b, &end)) {
        if (!copy_item(item, sizeof item, b, end))
            return errf(e, "topology.flap: item too long: '%.60s...'", b);
        char link[256];
        snprintf(link, sizeof link, "%s", item);
        char *at = strchr(link, '@'), *colon = at ? strchr(at, ':') : NULL;
        if (!at || !colon)
            return errf(e, "topology.flap: '%s': %s", item, form);
        *at = *colon = 0;
        simtime_t from, until, period = 0, down = 0;
        const char *why = parse_window(at + 1, &from, &until);
        if (why)
            return errf(e, "topology.flap: '%s': %s", item, why);
        if (until == T_NEVER)
            return errf(e, "topology.flap: '%s': give the end of the flapping: @FROM-UNTIL", item);
        if (until <= from)
            return errf(e, "topology.flap: '%s': UNTIL must be after FROM", item);
        for (char *opt = colon + 1; opt && *opt;) {
            char *next = strchr(opt, ':');
            if (next)
                *next++ = 0;
            simtime_t *dst = strncmp(opt, "every=", 6) == 0 ? &period : strncmp(opt, "down=", 5) == 0 ? &down : NULL;
            if (!dst)
                return errf(e, "topology.flap: '%s': unknown option '%s' (every=PERIOD, down=TIME)", item, opt);
            why = parse_time(strchr(opt, '=') + 1, dst);
            if (why)
                return errf(e, "topology.flap: '%s': %s: %s", item, opt, why);
            opt = next;
        }
        if (period <= 0)
            return errf(e, "topology.flap: '%s': every=PERIOD is required and must be positive", item);
        if (!down)
            down = period / 2;
        if (down <= 0 || down >= period)
            return errf(e, "topology.flap: '%s': down=TIME must be positive and shorter than every=PERIOD (the link must come up between outages)", item);
        if ((until - from) / period >= FLAP_MAX_OUTAGES)
            return errf(e, "topology.flap: '%s': more than %d outages: a longer PERIOD or a shorter window", item,
                        FLAP_MAX_OUTAGES);
        uint32_t li;
        if (find_link(t, "flap", item, link, &li, e) < 0)
            return -1;
        snprintf(where, sizeof where, "topology.flap: '%s'", item);
        for (uint32_t i = 0; i < t->n_fails; i++) /* the whole window against earlier failures, once */
            if (t->fails[i].link == li && !t->fails[i].rate && from < t->fails[i].up && t->fails[i].down < until)
                return errf(e, "%s: overlaps an earlier failure of the same link", where);
        for (simtime_t s0 = from; s0 < until; s0 += period)
            if (fail_append(t, li, s0, s0 + down < until ? s0 + down : until, 0, where, e) < 0)
                return -1;
    }
    return 0;
}

int topo_parse_switch_fails(struct topo *t, const char *spec, struct err *e)
{
    const char *p = spec, *b, *end;
    char item[256], where[300];
    while (next_item(&p, &b, &end)) {
        if (!copy_item(item, sizeof item, b, end))
            return errf(e, "topology.switch_fail: item too long: '%.60s...'", b);
        char name[256];
        snprintf(name, sizeof name, "%s", item);
        char *at = strchr(name, '@');
        if (!at)
            return errf(e, "topology.switch_fail: '%s': expected SWITCH@TIME or SWITCH@DOWN-UP, e.g. spine0@1ms-3ms", item);
        *at = 0;
        simtime_t down, up;
        const char *why = parse_window(at + 1, &down, &up);
        if (why)
            return errf(e, "topology.switch_fail: '%s': %s", item, why);
        uint32_t n;
        if (topo_node_find(t, name, &n) < 0)
            return errf(e, "topology.switch_fail: '%s': no node '%s' (names: %s)", item, name, naming_help(t));
        if (!t->nodes[n].is_switch)
            return errf(e, "topology.switch_fail: '%s': node %s is a host, not a switch (topology.fail takes its link)", item,
                        name);
        snprintf(where, sizeof where, "topology.switch_fail: '%s'", item);
        for (uint32_t k = t->adj_off[n]; k < t->adj_off[n + 1]; k++) {
            const struct topo_link *l = &t->links[t->adj_link[k]];
            if (topo_add_fail(t, l->a, l->b, down, up, where, e) < 0)
                return -1;
        }
    }
    return 0;
}

int topo_parse_slows(struct topo *t, const char *spec, struct err *e)
{
    const char *p = spec, *b, *end;
    char item[256], where[300];
    while (next_item(&p, &b, &end)) {
        if (!copy_item(item, sizeof item, b, end))
            return errf(e, "topology.slow: item too long: '%.60s...'", b);
        char link[256];
        snprintf(link, sizeof link, "%s", item);
        char *at = strchr(link, '@'), *colon = strchr(link, ':');
        if (!at || !colon || colon > at)
            return errf(e, "topology.slow: '%s': expected NODE-NODE:RATE@TIME or NODE-NODE:RATE@FROM-UNTIL, e.g. leaf0-spine1:25Gbps@1ms", item);
        *at = *colon = 0;
        uint64_t rate;
        const char *why = parse_rate(colon + 1, &rate);
        if (!why && rate == 0)
            why = "a rate must be positive (a dead link is topology.fail)";
        simtime_t down, up;
        if (!why)
            why = parse_window(at + 1, &down, &up);
        if (why)
            return errf(e, "topology.slow: '%s': %s", item, why);
        if (up <= down)
            return errf(e, "topology.slow: '%s': the link is restored before it slows", item);
        uint32_t li;
        if (find_link(t, "slow", item, link, &li, e) < 0)
            return -1;
        /* below the link's own rate: the PFC headroom sized for that rate then covers it */
        if (rate >= t->links[li].rate)
            return errf(e, "topology.slow: '%s': %s is not below the link's rate (%llu bps): only cuts are modelled", item,
                        colon + 1, (unsigned long long)t->links[li].rate);
        for (uint32_t i = 0; i < t->n_fails; i++)
            if (t->fails[i].link == li && t->fails[i].rate && down < t->fails[i].up && t->fails[i].down < up)
                return errf(e, "topology.slow: '%s': overlaps an earlier slowdown of the same link", item);
        snprintf(where, sizeof where, "topology.slow: '%s'", item);
        if (fail_append(t, li, down, up, rate, where, e) < 0)
            return -1;
    }
    return 0;
}
