/* Topology generators (leaf-spine, fat-tree, dumbbell), the shared finishing
 * step that indexes hosts and ports, switch layers and link lookup. */
#include "topo/topo.h"
#include <stdlib.h>
#include <string.h>
#include "scenario/config.h"

#define TOPO_MAX_NODES ((1u << 28) - 1) /* keeps every node*host product well inside 64 bits */

void topo_free(struct topo *t)
{
    free(t->nodes);
    free(t->links);
    free(t->hosts);
    free(t->host_index);
    free(t->adj_off);
    free(t->adj_link);
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

/* Lower-layer end first, like ns-3's fat.txt ("host switch", "tor agg"). */
static void add_link(struct topo *t, uint32_t a, uint32_t b, uint64_t rate, simtime_t delay)
{
    t->links[t->n_links++] = (struct topo_link){.a = a, .b = b, .rate = rate, .delay = delay};
}

static int gen_leafspine(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    if (check_size(c->leaves, "leaves", e) || check_size(c->spines, "spines", e) ||
        check_size(c->hosts_per_leaf, "hosts_per_leaf", e))
        return -1;
    uint64_t nl = (uint64_t)c->leaves, ns = (uint64_t)c->spines, hpl = (uint64_t)c->hosts_per_leaf;
    uint64_t h = nl * hpl;
    if (topo_alloc(t, h + nl + ns, h + nl * ns, e))
        return -1;
    uint32_t leaf0 = (uint32_t)h, spine0 = (uint32_t)(h + nl);
    set_switches(t, leaf0, (uint32_t)nl, LAYER_EDGE);
    set_switches(t, spine0, (uint32_t)ns, LAYER_AGG);
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
    for (uint32_t i = 0; i < h; i++)
        add_link(t, i, i < ns ? s0 : s0 + 1, c->host_link, c->link_delay);
    add_link(t, s0, s0 + 1, c->fabric_link, c->link_delay);
    return 0;
}

int topo_generate(struct topo *t, const struct cfg_topology *c, struct err *e)
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
    default: return errf(e, "topology.type: unknown type %d", c->type);
    }
    return rc ? -1 : topo_finish(t, e);
}
