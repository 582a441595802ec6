/* All-pairs equal-cost next hops with the answers of ns-3 HPCC's
 * CalculateRoute (one BFS per destination host that expands only switches, so
 * no path transits a host; `now` is a next hop of `next` whenever
 * dis[next] == dis[now] + 1). A host has one link, so its distances are its
 * edge switch's plus one and every switch's next hops toward it are those
 * toward that edge: one BFS per edge switch gives the same tables, kept per
 * (node, edge). Two passes: the counts, then the lists, each distinct list of
 * a node once in one flat nbr[] (entries with equal lists share it). */
#include <stdlib.h>
#include <string.h>
#include "core/setup.h"
#include "topo/topo.h"

struct bfs {
    const struct topo *t;
    uint32_t *nb_off, *nb; /* neighbours of each node, ascending by id */
    int32_t *dis;
    uint32_t *q;
    uint32_t *pos; /* ns3_hop_order: each expanded node's place in the BFS queue */
    uint64_t *key; /* ns3_hop_order: sort keys of one neighbour list */
};

static void bfs_run(struct bfs *b, uint32_t src)
{
    const struct topo *t = b->t;
    memset(b->dis, 0xff, (size_t)t->n_nodes * sizeof *b->dis); /* -1: not reached */
    uint32_t qn = 0;
    b->dis[src] = 0;
    b->pos[src] = qn;
    b->q[qn++] = src;
    for (uint32_t i = 0; i < qn; i++) {
        uint32_t u = b->q[i];
        for (uint32_t p = b->nb_off[u]; p < b->nb_off[u + 1]; p++) {
            uint32_t v = b->nb[p];
            if (b->dis[v] < 0) {
                b->dis[v] = b->dis[u] + 1;
                if (t->nodes[v].is_switch) { /* hosts are reached, never transited */
                    b->pos[v] = qn;
                    b->q[qn++] = v;
                }
            }
        }
    }
}

/* Next hops of node x toward the BFS source: neighbours one step closer that
 * the BFS expanded (switches, or the source itself). Ascending since nb is;
 * with ns3_hop_order, in BFS queue order, as ns-3's CalculateRoute appends
 * `now` to nextHop[next] while it expands `now` (insertion sort: a handful). */
static uint32_t next_hops(const struct bfs *b, uint32_t src, uint32_t x, uint32_t *out)
{
    uint32_t c = 0;
    int32_t d = b->dis[x];
    if (d <= 0)
        return 0;
    for (uint32_t p = b->nb_off[x]; p < b->nb_off[x + 1]; p++) {
        uint32_t y = b->nb[p];
        if (b->dis[y] == d - 1 && (b->t->nodes[y].is_switch || y == src)) {
            if (out) {
                uint32_t k = c;
                if (b->t->ns3_hop_order)
                    for (; k > 0 && b->pos[out[k - 1]] > b->pos[y]; k--)
                        out[k] = out[k - 1];
                out[k] = y;
            }
            c++;
        }
    }
    return c;
}

/* Distinct lists of next hops, per node: nbr[] holds each once; a hash
 * table of (node, list) finds an equal one. Set-up only. */
struct lists {
    uint32_t *nbr;
    size_t n, cap;
    struct lslot {
        uint64_t h;
        uint32_t off, node;
        uint16_t cnt;
        bool used;
    } *slot;
    size_t nslot, used;
};

static void lists_free(struct lists *L)
{
    free(L->nbr);
    free(L->slot);
    memset(L, 0, sizeof *L);
}

static int lists_grow(struct lists *L, size_t nslot)
{
    struct lslot *s = calloc(nslot, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < L->nslot; i++)
        if (L->slot[i].used) {
            size_t j = L->slot[i].h & (nslot - 1);
            while (s[j].used)
                j = (j + 1) & (nslot - 1);
            s[j] = L->slot[i];
        }
    free(L->slot);
    L->slot = s;
    L->nslot = nslot;
    return 0;
}

/* Where node's list hops[0 .. c) starts in nbr[], adding it if new; -1 when
 * out of memory or past 2^32 entries. */
static int64_t lists_put(struct lists *L, uint32_t node, const uint32_t *hops, uint16_t c)
{
    uint64_t h = 1469598103934665603ULL ^ node;
    for (uint16_t k = 0; k < c; k++)
        h = (h ^ hops[k]) * 1099511628211ULL;
    h ^= h >> 29;
    size_t j = h & (L->nslot - 1);
    for (; L->slot[j].used; j = (j + 1) & (L->nslot - 1)) {
        const struct lslot *q = &L->slot[j];
        if (q->h == h && q->node == node && q->cnt == c && memcmp(L->nbr + q->off, hops, c * sizeof *hops) == 0)
            return q->off;
    }
    if (L->n + c > UINT32_MAX)
        return -1;
    if (L->n + c > L->cap) {
        size_t cap = 2 * (L->n + c) + 1024;
        uint32_t *nb = realloc(L->nbr, cap * sizeof *nb);
        if (!nb)
            return -1;
        L->nbr = nb;
        L->cap = cap;
    }
    memcpy(L->nbr + L->n, hops, c * sizeof *hops);
    L->slot[j] = (struct lslot){.h = h, .off = (uint32_t)L->n, .node = node, .cnt = c, .used = true};
    L->n += c;
    if (++L->used * 2 > L->nslot && lists_grow(L, 2 * L->nslot) < 0)
        return -1;
    return (int64_t)(L->n - c);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* ns-3 keeps a node's neighbours in a std::map keyed by Ptr<Node>, so its BFS
 * visits them in address order. A SwitchNode holds a 2 MB array
 * (m_bytes[257][257][8]), above glibc's mmap threshold: each switch gets its
 * own mapping, placed below the previous one, so switches sort by descending
 * node id, above every host (small objects on the heap, ascending). Measured
 * on fat.txt: every path of ns-3's packet trace matches this order. */
static inline uint64_t ns3_key(const struct topo *t, uint32_t x)
{
    return t->nodes[x].is_switch ? (1ull << 32) | (UINT32_MAX - x) : x;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sort nb[0..n) into ns-3's order via keys (key[] has room for n). */
static void sort_ns3(const struct topo *t, uint32_t *nb, uint32_t n, uint64_t *key)
{
    for (uint32_t i = 0; i < n; i++)
        key[i] = ns3_key(t, nb[i]);
    qsort(key, n, sizeof *key, cmp_u64);
    for (uint32_t i = 0; i < n; i++)
        nb[i] = key[i] >> 32 ? UINT32_MAX - (uint32_t)key[i] : (uint32_t)key[i];
}

void routes_free(struct routes *r)
{
    free(r->edge_node);
    free(r->edge_index);
    free(r->host_edge);
    free(r->host_node);
    free(r->host_nbr);
    free(r->host_index);
    free(r->off);
    free(r->cnt);
    free(r->nbr);
    memset(r, 0, sizeof *r);
}

const uint32_t *routes_next(const struct routes *r, uint32_t node, uint32_t hi, int *n)
{
    uint32_t dst = r->host_node[hi], e = r->host_edge[hi];
    *n = 0;
    if (node == dst)
        return r->host_node;
    int32_t xi = r->host_index[node];
    if (xi >= 0) { /* a host: its one link, if the far end gets there */
        uint32_t nb = r->host_nbr[xi];
        if (nb == dst || (nb != UINT32_MAX && e != UINT32_MAX && r->edge_index[nb] >= 0 &&
                          (r->edge_node[e] == nb || r->cnt[routes_entry(r, nb, e)])))
            *n = 1;
        return &r->host_nbr[xi];
    }
    if (e == UINT32_MAX)
        return r->host_node;
    if (r->edge_node[e] == node) { /* the destination's own switch */
        *n = 1;
        return &r->host_node[hi];
    }
    return routes_next_edge(r, node, e, n);
}

/* The far end of host h's failed link, or UINT32_MAX: a host keeps its edge
 * switch (so edge indices stay put) while its link is down. */
static uint32_t failed_nbr(const struct topo *t, uint32_t h)
{
    for (uint32_t l = 0; l < t->n_links; l++)
        if (t->links[l].down && (t->links[l].a == h || t->links[l].b == h))
            return t->links[l].a == h ? t->links[l].b : t->links[l].a;
    return UINT32_MAX;
}

int routes_build(struct routes *r, const struct topo *t, struct err *e)
{
    memset(r, 0, sizeof *r);
    uint32_t n = t->n_nodes, nh = t->n_hosts;
    r->n_nodes = n;
    r->n_hosts = nh;
    struct bfs b = {.t = t};
    b.nb_off = calloc((size_t)n + 1, sizeof *b.nb_off);
    b.nb = malloc(((size_t)t->n_links * 2 + 1) * sizeof *b.nb);
    b.dis = malloc(((size_t)n + 1) * sizeof *b.dis);
    b.q = calloc((size_t)n + 1, sizeof *b.q);
    b.pos = malloc(((size_t)n + 1) * sizeof *b.pos);
    b.key = malloc(((size_t)t->n_links * 2 + 1) * sizeof *b.key);
    r->edge_index = malloc(((size_t)n + 1) * sizeof *r->edge_index);
    r->edge_node = malloc(((size_t)n + 1) * sizeof *r->edge_node);
    r->host_edge = malloc(((size_t)nh + 1) * sizeof *r->host_edge);
    r->host_node = malloc(((size_t)nh + 1) * sizeof *r->host_node);
    r->host_nbr = malloc(((size_t)nh + 1) * sizeof *r->host_nbr);
    r->host_index = malloc(((size_t)n + 1) * sizeof *r->host_index);
    int rc = -1;
    if (!b.nb_off || !b.nb || !b.dis || !b.q || !b.pos || !b.key || !r->edge_index || !r->edge_node || !r->host_edge || !r->host_node ||
        !r->host_nbr || !r->host_index) {
        errf(e, "routing: out of memory (%u nodes)", n);
        goto out;
    }
    /* Sorted neighbour lists (CSR); ns-3 keys neighbours in a map, we order by id.
     * A failed link is no neighbour (as ns-3's TakeDownLink, which recomputes). */
    for (uint32_t l = 0; l < t->n_links; l++) {
        if (t->links[l].down)
            continue;
        b.nb_off[t->links[l].a + 1]++;
        b.nb_off[t->links[l].b + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        b.nb_off[i + 1] += b.nb_off[i];
    for (uint32_t l = 0; l < t->n_links; l++) { /* the (zeroed) queue doubles as fill cursor */
        if (t->links[l].down)
            continue;
        uint32_t x = t->links[l].a, y = t->links[l].b;
        b.nb[b.nb_off[x] + b.q[x]++] = y;
        b.nb[b.nb_off[y] + b.q[y]++] = x;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t *v = b.nb + b.nb_off[i], d = b.nb_off[i + 1] - b.nb_off[i];
        if (t->ns3_hop_order)
            sort_ns3(t, v, d, b.key);
        else
            qsort(v, d, sizeof *v, cmp_u32);
    }

    /* Edge switches: those with a host on a link, numbered by node id. */
    for (uint32_t i = 0; i < n; i++)
        r->edge_index[i] = r->host_index[i] = -1;
    for (uint32_t hi = 0; hi < nh; hi++) {
        uint32_t h = t->hosts[hi];
        r->host_node[hi] = h;
        r->host_index[h] = (int32_t)hi;
        r->host_nbr[hi] = b.nb_off[h + 1] > b.nb_off[h] ? b.nb[b.nb_off[h]] : failed_nbr(t, h);
        uint32_t sw = r->host_nbr[hi];
        if (sw != UINT32_MAX && t->nodes[sw].is_switch)
            r->edge_index[sw] = 0;
    }
    for (uint32_t i = 0; i < n; i++)
        if (r->edge_index[i] >= 0) {
            r->edge_node[r->n_edges] = i;
            r->edge_index[i] = (int32_t)r->n_edges++;
        }
    for (uint32_t hi = 0; hi < nh; hi++) {
        uint32_t sw = r->host_nbr[hi], h = t->hosts[hi];
        bool live = b.nb_off[h + 1] > b.nb_off[h]; /* a host whose link failed is unreachable */
        r->host_edge[hi] = live && sw != UINT32_MAX && r->edge_index[sw] >= 0 ? (uint32_t)r->edge_index[sw] : UINT32_MAX;
    }
    r->row0 = n;
    uint32_t row_end = 0;
    for (uint32_t x = 0; x < n; x++)
        if (t->nodes[x].is_switch) {
            r->row0 = x < r->row0 ? x : r->row0;
            row_end = x + 1;
        }
    if (row_end == 0)
        r->row0 = 0;
    r->nrows = row_end - r->row0;
    uint64_t entries = (uint64_t)r->nrows * r->n_edges;
    if (entries >= UINT32_MAX) {
        errf(e, "routing: %u nodes x %u edge switches is too many routing entries", n, r->n_edges);
        goto out;
    }
    r->off = malloc((size_t)(entries + 1) * sizeof *r->off);
    r->cnt = calloc((size_t)(entries + 1), sizeof *r->cnt);
    if (!r->off || !r->cnt) {
        errf(e, "routing: out of memory (%u nodes x %u edge switches)", n, r->n_edges);
        goto out;
    }
    /* Pass 1: counts. Only switches other than the edge itself get entries
     * (a host's next hop is its one neighbour; the edge's is the host). */
    for (uint32_t ei = 0; ei < r->n_edges; ei++) {
        uint32_t src = r->edge_node[ei];
        if (setup_progress("routing tables", ei, 2 * (uint64_t)r->n_edges)) {
            setup_stopped(e);
            goto out;
        }
        bfs_run(&b, src);
        for (uint32_t x = r->row0; x < row_end; x++) {
            if (!t->nodes[x].is_switch || x == src)
                continue;
            uint32_t c = next_hops(&b, src, x, NULL);
            if (c > UINT16_MAX) {
                errf(e, "routing: node %u has %u equal-cost next hops toward switch %u (at most %u)", x, c, src,
                     UINT16_MAX);
                goto out;
            }
            r->cnt[routes_entry(r, x, ei)] = (uint16_t)c;
        }
    }
    /* Pass 2: the same BFS again, writing each list of hops once per node:
     * a switch's lists toward most edges are the same (a leaf's uplinks
     * toward every other leaf), and entries with the same list share it. */
    struct lists L = {0};
    uint32_t *hops = malloc((UINT16_MAX + 1) * sizeof *hops);
    if (!hops || lists_grow(&L, 1u << 12) < 0) {
        free(hops);
        lists_free(&L);
        errf(e, "routing: out of memory");
        goto out;
    }
    for (uint32_t ei = 0; ei < r->n_edges; ei++) {
        uint32_t src = r->edge_node[ei];
        if (setup_progress("routing tables", r->n_edges + (uint64_t)ei, 2 * (uint64_t)r->n_edges)) {
            setup_stopped(e);
            free(hops);
            lists_free(&L);
            goto out;
        }
        bfs_run(&b, src);
        for (uint32_t x = r->row0; x < row_end; x++) {
            size_t i = routes_entry(r, x, ei);
            if (!r->cnt[i])
                continue;
            next_hops(&b, src, x, hops);
            int64_t at = lists_put(&L, x, hops, r->cnt[i]);
            if (at < 0) {
                errf(e, "routing: out of memory, or more than 2^32 next-hop entries (%u nodes x %u edge switches)", n,
                     r->n_edges);
                free(hops);
                lists_free(&L);
                goto out;
            }
            r->off[i] = (uint32_t)at;
        }
    }
    free(hops);
    r->off[entries] = (uint32_t)L.n; /* the hops held, nbr's length */
    r->nbr = L.nbr;
    L.nbr = NULL;
    lists_free(&L);
    rc = 0;
out:
    free(b.nb_off);
    free(b.nb);
    free(b.dis);
    free(b.q);
    free(b.pos);
    free(b.key);
    if (rc)
        routes_free(r);
    return rc;
}

static simtime_t sat_add(simtime_t a, simtime_t b)
{
    return a > T_NEVER - b ? T_NEVER : a + b;
}

void path_info_add_link(struct path_info *p, const struct topo_link *l, uint32_t payload)
{
    p->delay = sat_add(p->delay, l->delay);
    /* tx_time itself would wrap for absurd payload/rate pairs */
    unsigned __int128 bits = (unsigned __int128)payload * 8u * 1000000000000ULL;
    p->tx_delay = sat_add(p->tx_delay, bits / l->rate >= (unsigned __int128)T_NEVER ? T_NEVER : tx_time(payload, l->rate));
    if (l->rate < p->bw)
        p->bw = l->rate;
    p->hops++;
}

/* The first-candidate walk from `from` to node `to`: toward host index `key`
 * (routes_next), or toward edge switch index `key` (routes_next_edge). */
static int walk(const struct routes *r, const struct topo *t, uint32_t from, uint32_t to, uint32_t key, bool edge,
                uint32_t payload, struct path_info *out)
{
    struct path_info p = {.bw = UINT64_MAX};
    for (uint32_t cur = from; cur != to;) {
        int c;
        const uint32_t *nx = edge ? routes_next_edge(r, cur, key, &c) : routes_next(r, cur, key, &c);
        if (c == 0 || p.hops >= (int)t->n_nodes) /* hop bound: BFS distance strictly drops, so never hit */
            return -1;
        const struct topo_link *l = topo_link_between(t, cur, nx[0]);
        if (!l)
            return -1;
        path_info_add_link(&p, l, payload);
        cur = nx[0];
    }
    *out = p;
    return 0;
}

int routes_path(const struct routes *r, const struct topo *t, uint32_t src, uint32_t dst, uint32_t payload,
                struct path_info *out)
{
    if (src >= t->n_nodes || dst >= t->n_nodes || src == dst || t->host_index[dst] < 0 || !r->cnt)
        return -1;
    return walk(r, t, src, dst, (uint32_t)t->host_index[dst], false, payload, out);
}

int routes_edge_path(const struct routes *r, const struct topo *t, uint32_t from, uint32_t edge, uint32_t payload,
                     struct path_info *out)
{
    return walk(r, t, from, r->edge_node[edge], edge, true, payload, out);
}
