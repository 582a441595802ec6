/* Paths as values: between two edge switches, the equal-cost paths along the
 * routing tables, enumerated on first use and kept per pair. A path word
 * holds one byte per switch hop from the source edge: the index into that
 * hop's candidate list (ascending by neighbour id), as CONGA's and ConWeave's
 * implementations pack them. A switch forwarding a packet that carries a word
 * uses byte p->lb.path_hop (switch.c). */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdlib.h>

#define PATH_MAX_HOPS 4

struct lb_paths {
    uint8_t state; /* 0 not enumerated, 1 being enumerated (a parallel run's other thread), 2 done */
    uint32_t n;
    uint32_t *word;
};

static void enumerate(struct sim *s, uint32_t node, uint32_t dst_edge, int hop, uint32_t word, struct lb_paths *ps,
                      uint32_t *cap)
{
    if (node == s->edge_node[dst_edge]) {
        if (ps->n == *cap) {
            *cap = *cap ? 2 * *cap : 8;
            ps->word = xrealloc(ps->word, *cap * sizeof *ps->word);
        }
        ps->word[ps->n++] = word;
        return;
    }
    if (hop >= PATH_MAX_HOPS)
        return; /* deeper than a word holds: not offered as a path */
    size_t ri = sim_route_entry(s, node, dst_edge);
    uint32_t n = s->route_cnt[ri];
    for (uint32_t i = 0; i < n && i < 256; i++) {
        uint32_t port = s->route_ports[s->route_off[ri] + i];
        enumerate(s, sim_peer_node(s, port), dst_edge, hop + 1, word | i << (8 * hop), ps, cap);
    }
}

void lb_paths_alloc(struct sim *s)
{
    if (!s->paths)
        s->paths = xcalloc((size_t)s->n_edges * s->n_edges, sizeof *s->paths);
}

/* A pair's first use. In a parallel run the table is shared (allocated
 * before the threads start, lb_paths_alloc) and two partitions may ask for
 * the same pair at once: one enumerates, the other waits for it. */
static __attribute__((noinline)) void pair_enumerate(struct sim *s, struct lb_paths *ps, uint32_t se, uint32_t de)
{
    uint8_t idle = 0;
    if (__atomic_compare_exchange_n(&ps->state, &idle, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
        uint32_t cap = 0;
        enumerate(s, s->edge_node[se], de, 0, 0, ps, &cap);
        __atomic_store_n(&ps->state, 2, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&ps->state, __ATOMIC_ACQUIRE) != 2)
        ;
}

static struct lb_paths *pair(struct sim *s, uint32_t se, uint32_t de)
{
    lb_paths_alloc(s);
    struct lb_paths *ps = &s->paths[(size_t)se * s->n_edges + de];
    if (__atomic_load_n(&ps->state, __ATOMIC_ACQUIRE) != 2)
        pair_enumerate(s, ps, se, de);
    return ps;
}

uint32_t lb_path_count(struct sim *s, uint32_t src_edge, uint32_t dst_edge) { return pair(s, src_edge, dst_edge)->n; }

uint32_t lb_path_word(struct sim *s, uint32_t src_edge, uint32_t dst_edge, uint32_t i)
{
    struct lb_paths *ps = pair(s, src_edge, dst_edge);
    return i < ps->n ? ps->word[i] : PATH_NONE;
}

int lb_path_ports(struct sim *s, uint32_t src_edge, uint32_t dst_edge, uint32_t word, uint32_t *ports, int max)
{
    int k = 0;
    for (uint32_t node = s->edge_node[src_edge]; node != s->edge_node[dst_edge] && k < max && k < PATH_MAX_HOPS;) {
        size_t ri = sim_route_entry(s, node, dst_edge);
        uint32_t n = s->route_cnt[ri];
        if (!n)
            break;
        uint32_t port = s->route_ports[s->route_off[ri] + ((word >> (8 * k)) & 0xffu) % n];
        ports[k++] = port;
        node = sim_peer_node(s, port);
    }
    return k;
}

void lb_paths_build(struct sim *s)
{
    for (uint32_t se = 0; se < s->n_edges; se++)
        for (uint32_t de = 0; de < s->n_edges; de++)
            pair(s, se, de);
}

uint32_t lb_path_epoch(const struct sim *s) { return s->paths_epoch; }

void lb_paths_free(struct sim *s)
{
    s->paths_epoch++; /* words cached by schemes may now mean other paths */
    if (!s->paths)
        return;
    for (size_t i = 0; i < (size_t)s->n_edges * s->n_edges; i++)
        free(s->paths[i].word);
    free(s->paths);
    s->paths = NULL;
}
