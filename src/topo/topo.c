/* The topology itself: freeing it, the shared finishing step that indexes
 * hosts and ports, switch layers, link lookup. The generators are in gen.c,
 * node names in names.c, per-link rates and failures in faults.c. */
#include "topo/topo.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"

void topo_free(struct topo *t)
{
    free(t->nodes);
    free(t->links);
    free(t->hosts);
    free(t->host_index);
    free(t->adj_off);
    free(t->adj_link);
    free(t->fails);
    free(t->gpu_nic);
    free(t->gpu_nvl);
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

