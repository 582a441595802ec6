/* Partitioning for a parallel run: the rule is in partition.h. */
#include "topo/partition.h"
#include <stdlib.h>
#include <string.h>
#include "core/xalloc.h"

static uint32_t auto_parts(const struct topo *t, uint32_t n_edge)
{
    if (t->naming == NAMES_PODS && t->n_edge_pp && t->n_edge % t->n_edge_pp == 0)
        return t->n_edge / t->n_edge_pp;
    return n_edge;
}

static uint32_t other_end(const struct topo_link *l, uint32_t n) { return l->a == n ? l->b : l->a; }

int topo_partition(struct partition *pt, const struct topo *t, uint32_t want, struct err *e)
{
    memset(pt, 0, sizeof *pt);
    uint32_t n_edge = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        n_edge += t->nodes[i].is_switch && t->nodes[i].layer == LAYER_EDGE;
    if (!n_edge)
        return errf(e, "partitioning: the topology has no switch with hosts to group by");
    uint32_t P = want ? want : auto_parts(t, n_edge);
    if (P > n_edge)
        P = n_edge;
    pt->n_parts = P;
    pt->part = xmalloc(t->n_nodes * sizeof *pt->part);
    for (uint32_t i = 0; i < t->n_nodes; i++)
        pt->part[i] = UINT32_MAX;
    /* 1. edge switches in id order, contiguous runs */
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].is_switch && t->nodes[i].layer == LAYER_EDGE)
            pt->part[i] = (uint32_t)((uint64_t)k++ * P / n_edge);
    /* 2. other switches by layer, then id: majority of placed neighbours,
     * ties to the fewest of this layer so far, then the lowest number */
    uint32_t *votes = xcalloc(P, sizeof *votes), *placed = xcalloc(P, sizeof *placed);
    for (unsigned layer = LAYER_AGG; layer <= LAYER_CORE; layer++) {
        memset(placed, 0, P * sizeof *placed);
        for (uint32_t i = 0; i < t->n_nodes; i++) {
            if (!t->nodes[i].is_switch || t->nodes[i].layer != layer)
                continue;
            memset(votes, 0, P * sizeof *votes);
            for (uint32_t a = t->adj_off[i]; a < t->adj_off[i + 1]; a++) {
                uint32_t m = other_end(&t->links[t->adj_link[a]], i);
                if (pt->part[m] != UINT32_MAX)
                    votes[pt->part[m]]++;
            }
            uint32_t best = 0;
            for (uint32_t p = 1; p < P; p++)
                if (votes[p] > votes[best] || (votes[p] == votes[best] && placed[p] < placed[best]))
                    best = p;
            pt->part[i] = best;
            placed[best]++;
        }
    }
    free(votes);
    free(placed);
    /* 3. hosts follow their switch */
    for (uint32_t h = 0; h < t->n_hosts; h++) {
        uint32_t n = t->hosts[h], to = 0;
        if (t->adj_off[n + 1] > t->adj_off[n]) {
            uint32_t m = other_end(&t->links[t->adj_link[t->adj_off[n]]], n);
            if (t->nodes[m].is_switch)
                to = pt->part[m];
        }
        pt->part[n] = to;
    }
    for (uint32_t i = 0; i < t->n_nodes; i++) /* switches of an unexpected layer */
        if (pt->part[i] == UINT32_MAX)
            pt->part[i] = 0;
    pt->nodes = xcalloc(P, sizeof *pt->nodes);
    pt->hosts = xcalloc(P, sizeof *pt->hosts);
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        pt->nodes[pt->part[i]]++;
        pt->hosts[pt->part[i]] += !t->nodes[i].is_switch;
    }
    pt->lookahead = T_NEVER;
    pt->cut = xmalloc((t->n_links ? t->n_links : 1) * sizeof *pt->cut);
    for (uint32_t l = 0; l < t->n_links; l++)
        if (pt->part[t->links[l].a] != pt->part[t->links[l].b]) {
            pt->cut[pt->n_cut++] = l;
            if (t->links[l].delay < pt->lookahead)
                pt->lookahead = t->links[l].delay;
        }
    /* 4. a GPU server whose GPUs lie in several partitions: its NVSwitch is cut */
    for (uint32_t G = t->gpus_per_server, m = 0; G > 1 && m < t->n_hosts / G; m++)
        for (uint32_t i = 1; i < G; i++)
            if (pt->part[t->hosts[m * G + i]] != pt->part[t->hosts[m * G]]) {
                pt->n_split_servers++;
                if (t->nvlink_delay < pt->lookahead)
                    pt->lookahead = t->nvlink_delay;
                break;
            }
    return 0;
}

void partition_free(struct partition *pt)
{
    free(pt->part);
    free(pt->cut);
    free(pt->nodes);
    free(pt->hosts);
    memset(pt, 0, sizeof *pt);
}
