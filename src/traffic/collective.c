/* Collective communication as flows with dependencies.
 *
 * A job is a group of n hosts (ranks 0..n-1 in placement order) running one
 * collective `iterations` times. Each iteration is a sequence of steps; in a
 * step every rank sends to its partners (one flow per transfer). S is the
 * per-host buffer as NCCL's tests count it (nccl-tests PERFORMANCE.md): the
 * vector each rank reduces (all-reduce), each rank's output buffer
 * (all-gather: it receives n-1 pieces of S/n), each rank's input
 * (reduce-scatter), each rank's send buffer (all-to-all: S/n to each peer, the
 * piece for itself is not sent). With u = ceil(S/n):
 *   ring_allreduce  2(n-1) steps, rank r -> r+1, u bytes each (reduce-scatter
 *                   then all-gather around the ring)
 *   hd_allreduce    recursive halving then doubling (Rabenseifner; Thakur et
 *                   al., IJHPCA 2005): 2 log2 n steps, step k < log2 n with
 *                   partner r xor n/2^(k+1) and u*n/2^(k+1) bytes, then
 *                   partner r xor 2^j with u*2^j bytes. n must be a power of
 *                   two (an error otherwise: use ring_allreduce).
 *   allgather, reducescatter  n-1 ring steps of u bytes
 *   alltoall        pairwise: n-1 steps, step s sends r -> r+s (mod n);
 *                   all: one step with all n(n-1) transfers at once
 * Each rank sends (n-1)/n S (2(n-1)/n S for all-reduce), so on an idle
 * non-blocking fabric bus bandwidth reaches the link rate less headers.
 *
 * Channels (NCCL's): every transfer is split over C queue pairs per peer,
 * each carrying its share of the bytes with its own dependencies; hierarchy
 * (GPU servers, topology.type = rail) gives each channel NCCL's rail-aligned
 * ring, or runs the hierarchical all-reduce (hier_xfers).
 *
 * Dependencies (a step starts when its data is there, at that host), after
 * NCCL's proxy and htsim's recv_done triggers: the flow of step s from rank a
 * on channel ch carrying bytes [x0, x1) waits until a's receiver has the
 * pieces of step s-1 (same channel) that hold those bytes (FLOW_DEP_RECV:
 * the data arrived, not the sender's ACK; the byte map is step_map's), and
 * until the previous message on its queue pair (a, peer, ch) has left a's
 * NIC (FLOW_DEP_QP: back to back, as a NIC takes a QP's next work request;
 * the message continues that QP: same source port, CC and balancer state).
 * Step 0 of iteration i > 0: its first piece waits until every piece of a's
 * last step of iteration i-1 arrived and a's own last pieces left (every
 * channel), plus compute_gap; later pieces follow it on the QP. With chunks
 * = c > 1 every transfer of a channel is c pipelined pieces (NCCL's slices),
 * so piece p of step s+1 travels while later pieces of step s do. Flows are
 * listed iteration by iteration, step by step, piece by piece, channel by
 * channel, rank by rank; all start no earlier than traffic.start. A flow is
 * finished when its sender has the last ACK; an iteration ends when the last
 * of its data arrived (stats/collective.c). docs/collectives.md has the
 * model and what it leaves out (NCCL's FIFO credits, LL/LL128, tree, NVLS). */
#include "traffic/collective.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "topo/topo.h"

#define COLL_MAX_FLOWS (1u << 25)

const char *coll_name(int algo)
{
    static const char *const names[] = {"ring_allreduce", "hd_allreduce", "allgather", "reducescatter", "alltoall"};
    return algo >= 0 && algo <= COLL_ALLTOALL ? names[algo] : "?";
}

static uint32_t log2u(uint32_t n)
{
    uint32_t m = 0;
    while ((1u << m) < n)
        m++;
    return m;
}

uint32_t coll_steps(int algo, int a2a, uint32_t n)
{
    switch (algo) {
    case COLL_RING_ALLREDUCE:
        return 2 * (n - 1);
    case COLL_HD_ALLREDUCE:
        return 2 * log2u(n);
    case COLL_ALLTOALL:
        return a2a == COLL_A2A_ALL ? 1 : n - 1;
    default:
        return n - 1;
    }
}

double coll_busbw_factor(int algo, uint32_t n)
{
    double f = (double)(n - 1) / (double)n;
    return algo == COLL_RING_ALLREDUCE || algo == COLL_HD_ALLREDUCE ? 2 * f : f;
}

struct xfer {
    uint32_t src, dst; /* ranks */
    uint64_t bytes;
};

/* hierarchy = server: n = M servers x G GPUs, rank m G + g on GPU g of
 * server m. Phase 1, G-1 steps: reduce-scatter around each server's ring
 * (g -> g+1, S/G each); phase 2, 2(M-1) steps: ring all-reduce of those S/G
 * across the servers, one ring per rail (m -> m+1, S/(G M) each); phase 3,
 * G-1 steps: all-gather around each server's ring (S/G each). */
static uint32_t hier_steps(uint32_t G, uint32_t M) { return 2 * (G - 1) + 2 * (M - 1); }

static size_t hier_xfers(const struct coll_opts *o, uint32_t G, uint32_t M, uint32_t s, struct xfer *x)
{
    uint64_t u1 = (o->size + G - 1) / G, u2 = (u1 + M - 1) / M;
    bool across = s >= G - 1 && s < G - 1 + 2 * (M - 1);
    size_t k = 0;
    for (uint32_t m = 0; m < M; m++)
        for (uint32_t g = 0; g < G; g++)
            x[k++] = across ? (struct xfer){m * G + g, (m + 1) % M * G + g, u2}
                            : (struct xfer){m * G + g, m * G + (g + 1) % G, u1};
    return k;
}

/* Hierarchical all-to-all (hierarchy = server), intra-server first: phase 1
 * gathers on GPU g of each server everything its server sends to GPU g of
 * any server ((m, g') -> (m, g): the blocks for (m*, g), every m*), over
 * NVLink; phase 2 delivers across servers on each rail ((m, g) -> (m*, g):
 * the blocks of all G GPUs of server m for (m*, g)). Pairwise: G-1 then M-1
 * steps (offset s+1 in the server, then across servers); all: one step per
 * phase. b(d): the bytes each rank sends destination d (wb, else u). */
static uint32_t a2a_phase1(int a2a, uint32_t G) { return a2a == COLL_A2A_ALL ? 1 : G - 1; }
static uint32_t a2a_hier_steps(int a2a, uint32_t G, uint32_t M)
{
    return a2a_phase1(a2a, G) + (M < 2 ? 0 : a2a == COLL_A2A_ALL ? 1 : M - 1);
}

static size_t hier_a2a_xfers(const struct coll_opts *o, uint32_t G, uint32_t M, uint32_t s, const uint64_t *wb,
                             uint64_t u, struct xfer *x)
{
    uint32_t P1 = a2a_phase1(o->a2a, G);
    bool all = o->a2a == COLL_A2A_ALL, intra = s < P1;
    uint32_t lo = all ? 1 : (intra ? s : s - P1) + 1, hi = all ? (intra ? G : M) : lo + 1;
    size_t k = 0;
    for (uint32_t m = 0; m < M; m++)
        for (uint32_t g = 0; g < G; g++)
            for (uint32_t off = lo; off < hi; off++) {
                uint64_t b = 0;
                if (intra) { /* every block for GPU (g + off) mod G of any server */
                    uint32_t g2 = (g + off) % G;
                    for (uint32_t m2 = 0; m2 < M; m2++)
                        b += wb ? wb[m2 * G + g2] : u;
                    x[k++] = (struct xfer){m * G + g, m * G + g2, b};
                } else { /* the server's G blocks for (m + off, g) */
                    uint32_t d = (m + off) % M * G + g;
                    x[k++] = (struct xfer){m * G + g, d, G * (wb ? wb[d] : u)};
                }
            }
    return k;
}

/* Step s's transfers into x; their count. G > 0: hierarchical (hier_xfers,
 * hier_a2a_xfers). wb: an all-to-all's bytes per destination, or NULL. */
static size_t step_xfers(const struct coll_opts *o, uint32_t n, uint32_t G, uint32_t s, const uint64_t *wb,
                         struct xfer *x)
{
    uint64_t u = (o->size + n - 1) / n;
    if (G)
        return o->algo == COLL_ALLTOALL ? hier_a2a_xfers(o, G, n / G, s, wb, u, x) : hier_xfers(o, G, n / G, s, x);
    size_t k = 0;
    if (o->algo == COLL_HD_ALLREDUCE) {
        uint32_t m = log2u(n);
        uint32_t d = s < m ? n >> (s + 1) : 1u << (s - m);
        for (uint32_t r = 0; r < n; r++)
            x[k++] = (struct xfer){r, r ^ d, u * d};
    } else if (o->algo == COLL_ALLTOALL && o->a2a == COLL_A2A_ALL) {
        for (uint32_t r = 0; r < n; r++)
            for (uint32_t off = 1; off < n; off++)
                x[k++] = (struct xfer){r, (r + off) % n, wb ? wb[(r + off) % n] : u};
    } else {
        uint32_t off = o->algo == COLL_ALLTOALL ? s + 1 : 1;
        for (uint32_t r = 0; r < n; r++)
            x[k++] = (struct xfer){r, (r + off) % n, wb ? wb[(r + off) % n] : u};
    }
    return k;
}

/* For each rank, the transfers of a step it sends or receives: CSR. */
static void step_index(const struct xfer *x, size_t T, uint32_t n, uint32_t *off, uint32_t *idx)
{
    memset(off, 0, ((size_t)n + 1) * sizeof *off);
    for (size_t j = 0; j < T; j++)
        off[x[j].src + 1]++, off[x[j].dst + 1]++;
    for (uint32_t a = 0; a < n; a++)
        off[a + 1] += off[a];
    for (size_t j = 0; j < T; j++) { /* off[a] is a cursor here, restored below */
        idx[off[x[j].src]++] = (uint32_t)j;
        idx[off[x[j].dst]++] = (uint32_t)j;
    }
    for (uint32_t a = n; a > 0; a--)
        off[a] = off[a - 1];
    off[0] = 0;
}

/* Ranks -> host node ids. */
static int place(const struct topo *t, const struct coll_opts *o, uint32_t n, uint32_t *rank, struct rng *r,
                 struct err *e)
{
    uint32_t nh = t->n_hosts, free_n = 0;
    if (o->hosts) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t h = o->hosts[i];
            if (h >= t->n_nodes || t->host_index[h] < 0)
                return errf(e, "traffic.hosts: node %" PRIu32 " is not a host", h);
            for (uint32_t j = 0; j < i; j++)
                if (rank[j] == h)
                    return errf(e, "traffic.hosts: host %" PRIu32 " listed twice", h);
            rank[i] = h;
        }
        for (uint32_t i = 0; o->taken && i < n; i++) /* later placements skip them */
            o->taken[t->host_index[rank[i]]] = 1;
        return 0;
    }
    uint32_t *pool = malloc((nh ? nh : 1) * sizeof *pool);
    if (!pool)
        return errf(e, "out of memory");
    for (uint32_t i = 0; i < nh; i++)
        if (!o->taken || !o->taken[i])
            pool[free_n++] = i;
    if (free_n < n) {
        free(pool);
        return errf(e, "traffic.group: %" PRIu32 " hosts wanted, %" PRIu32 " are free (the topology has %" PRIu32
                    ", earlier collective jobs took the rest)", n, free_n, nh);
    }
    if (o->placement == COLL_RAIL) { /* whole free servers in id order, GPU order inside */
        uint32_t G = t->gpus_per_server, k = 0;
        if (G < 2) {
            free(pool);
            return errf(e, "traffic.placement: rail needs GPU servers (topology.type = rail)");
        }
        if (n % G) {
            free(pool);
            return errf(e, "traffic.group: placement = rail takes whole servers: %" PRIu32 " is not a multiple of "
                        "%" PRIu32 " GPUs", n, G);
        }
        for (uint32_t i = 0; i + G <= free_n && k < n;) {
            uint32_t srv = pool[i] / G;
            bool whole = pool[i] % G == 0 && pool[i + G - 1] == pool[i] + G - 1; /* pool is ascending */
            if (whole) {
                for (uint32_t g = 0; g < G; g++)
                    pool[k++] = srv * G + g;
                i += G;
            } else {
                i++;
            }
        }
        if (k < n) {
            free(pool);
            return errf(e, "traffic.group: placement = rail: %" PRIu32 " whole servers wanted, %" PRIu32 " are free",
                        n / G, k / G);
        }
    } else if (o->placement == COLL_RANDOM) {
        for (uint32_t i = 0; i < n; i++) { /* partial Fisher-Yates */
            uint32_t j = i + (uint32_t)rng_below(r, free_n - i), tmp = pool[i];
            pool[i] = pool[j];
            pool[j] = tmp;
        }
    } else if (o->placement == COLL_SPREAD) {
        /* one host per rack (ToR) in turn: racks in order of their first
         * free host, each rack's free hosts in id order */
        uint32_t *rack = malloc(nh * sizeof *rack), *out = malloc(free_n * sizeof *out);
        uint8_t *used = calloc(free_n, 1);
        if (!rack || !out || !used) {
            free(rack), free(out), free(used), free(pool);
            return errf(e, "out of memory");
        }
        traffic_racks(t, rack);
        uint32_t k = 0;
        while (k < free_n) {
            uint32_t before = k;
            for (uint32_t i = 0; i < free_n; i++) {
                if (used[i])
                    continue;
                bool seen = false; /* this rack already gave a host this round? */
                for (uint32_t j = before; j < k && !seen; j++)
                    seen = rack[out[j]] == rack[pool[i]];
                if (!seen) {
                    out[k++] = pool[i];
                    used[i] = 1;
                }
            }
        }
        memcpy(pool, out, free_n * sizeof *pool);
        free(rack), free(out), free(used);
    }
    for (uint32_t i = 0; i < n; i++) {
        rank[i] = t->hosts[pool[i]];
        if (o->taken)
            o->taken[pool[i]] = 1;
    }
    free(pool);
    return 0;
}

/* The byte range of piece p (of c) of a channel's share of b bytes: [lo, hi). */
static uint64_t chan_bytes(uint64_t b, uint32_t ch, uint32_t C) { return b * (ch + 1) / C - b * ch / C; }
static uint64_t piece_lo(uint64_t L, uint32_t p, uint32_t c) { return L * p / c; }

/* What a step's data comes from (s > 0): the same bytes of what the rank
 * received in the step before (ring, all-gather, reduce-scatter: the block it
 * forwards; HD's first doubling step: its reduced block), the lower half of
 * it (HD halving: the half it sends on is the half of what it kept), or,
 * doubling, its own block of the step before followed by what it received
 * (HD doubling: it sends what it has, now twice as much). */
enum coll_map {
    MAP_IDENT, MAP_HALF, MAP_DOUBLE,
    MAP_BARRIER,    /* every piece of what arrived */
    MAP_BARRIER_A2A /* and, pairwise, the rank's own last sends (which waited for its earlier receives) */
};

static int step_map(const struct coll_opts *o, uint32_t n, uint32_t G, uint32_t s)
{
    if (G && o->algo == COLL_ALLTOALL) /* phase 2 forwards what phase 1 gathered */
        return s == a2a_phase1(o->a2a, G) ? MAP_BARRIER_A2A : MAP_IDENT;
    if (G) /* hierarchical: a phase starts once the last one's data is all there */
        return s == G - 1 || s == G - 1 + 2 * (n / G - 1) ? MAP_BARRIER : MAP_IDENT;
    if (o->algo != COLL_HD_ALLREDUCE)
        return MAP_IDENT;
    uint32_t m = log2u(n);
    return s < m ? MAP_HALF : s == m ? MAP_IDENT : MAP_DOUBLE;
}

/* The queue pairs of a job: (sender rank, receiver rank, channel) -> the last
 * message listed on it, an open-addressing table used while listing. */
struct qp_tab {
    uint64_t *key; /* 1 + (src * n + dst) * C + ch; 0 = empty */
    uint32_t *last;
    size_t cap;
};

static uint32_t *qp_last(struct qp_tab *q, uint64_t key)
{
    size_t h = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (q->cap - 1);
    while (q->key[h] && q->key[h] != key)
        h = (h + 1) & (q->cap - 1);
    if (!q->key[h]) {
        q->key[h] = key;
        q->last[h] = UINT32_MAX;
    }
    return &q->last[h];
}

/* Appends to dl the pieces of flow list range `first` (piece q at first + q *
 * stride, q < c) whose bytes [L q/c, L (q+1)/c) meet [x0, x1), with flag. */
static uint32_t add_overlap(uint32_t *dl, uint32_t nd, size_t first, size_t stride, uint64_t L, uint32_t c,
                            uint64_t x0, uint64_t x1, uint32_t flag)
{
    if (x1 > L)
        x1 = L;
    for (uint32_t q = 0; q < c && x0 < x1; q++)
        if (piece_lo(L, q + 1, c) > x0 && piece_lo(L, q, c) < x1)
            dl[nd++] = (uint32_t)(first + q * stride) | flag;
    return nd;
}

int coll_a2a_shares(const struct coll_opts *o, uint32_t n, struct rng *r, uint64_t *dst, struct err *e)
{
    if (!o->n_weights && !(o->a2a_zipf > 0))
        return 0;
    if (o->n_weights && o->n_weights != n)
        return errf(e, "traffic.a2a_weights: %zu weights for %" PRIu32 " ranks (one per destination rank, in rank order)",
                    o->n_weights, n);
    double *w = malloc(n * sizeof *w), sum = 0, cum = 0;
    uint32_t *perm = malloc(n * sizeof *perm);
    if (!w || !perm) {
        free(w), free(perm);
        return errf(e, "out of memory");
    }
    if (o->n_weights) {
        for (uint32_t d = 0; d < n; d++)
            if (!((w[d] = o->a2a_weights[d]) > 0) || !isfinite(w[d])) {
                free(w), free(perm);
                return errf(e, "traffic.a2a_weights: weight %" PRIu32 " is %g: every destination needs a share above 0", d,
                            o->a2a_weights[d]);
            }
    } else { /* the k-th most popular destination (a seeded order of the ranks) gets 1 / (k+1)^s */
        for (uint32_t d = 0; d < n; d++)
            perm[d] = d;
        for (uint32_t k = 0; k + 1 < n; k++) {
            uint32_t j = k + (uint32_t)rng_below(r, n - k), tmp = perm[k];
            perm[k] = perm[j];
            perm[j] = tmp;
        }
        for (uint32_t k = 0; k < n; k++)
            w[perm[k]] = pow((double)(k + 1), -o->a2a_zipf);
    }
    for (uint32_t d = 0; d < n; d++)
        sum += w[d];
    uint64_t prev = 0; /* cumulative rounding: the shares add up to S exactly */
    for (uint32_t d = 0; d < n; d++) {
        cum += w[d];
        uint64_t hi = d + 1 == n ? o->size : (uint64_t)floor((double)o->size * cum / sum);
        hi = hi < prev ? prev : hi > o->size ? o->size : hi;
        dst[d] = hi - prev;
        prev = hi;
    }
    free(w), free(perm);
    return 1;
}

/* A rank's compute gap before an iteration (coll_opts: gap_dist). */
static simtime_t draw_gap(const struct coll_opts *o, struct rng *r)
{
    double g = (double)o->gap, sp = (double)o->gap_spread;
    switch (o->gap_dist) {
    case COLL_GAP_UNIFORM:
        g += sp * (2 * rng_uniform(r) - 1);
        break;
    case COLL_GAP_NORMAL: { /* Box-Muller */
        double u1 = rng_uniform(r), u2 = rng_uniform(r);
        g += sp * sqrt(-2 * log(1 - u1)) * cos(6.283185307179586 * u2);
        break;
    }
    case COLL_GAP_EXP:
        g += rng_exp(r, sp);
        break;
    default:
        break;
    }
    return g > 0 ? (simtime_t)llround(g) : 0;
}

int traffic_collective(struct flow_list *out, const struct topo *t, const struct coll_opts *o, struct rng *r,
                       struct err *e)
{
    uint32_t n = o->hosts ? (uint32_t)o->n_hosts : o->group;
    if (!o->hosts && n == 0) { /* every free host */
        for (uint32_t i = 0; i < t->n_hosts; i++)
            n += !o->taken || !o->taken[i];
    }
    if (n < 2)
        return errf(e, "traffic.group: a collective needs at least 2 hosts, not %" PRIu32, n);
    if (o->algo == COLL_HD_ALLREDUCE && (n & (n - 1)))
        return errf(e, "traffic.group: hd_allreduce (recursive halving-doubling) needs a power-of-two group, not %" PRIu32
                    " hosts (use ring_allreduce, or a group of %u)", n, 1u << (log2u(n) - 1));
    uint32_t G = 0; /* hierarchical: GPUs per server */
    if (o->hierarchy != COLL_FLAT) {
        if (t->gpus_per_server < 2)
            return errf(e, "traffic.hierarchy: %s needs GPU servers (topology.type = rail)",
                        o->hierarchy == COLL_HIER_RAIL ? "rail" : "server");
        if (o->hierarchy == COLL_HIER_SERVER && o->algo != COLL_RING_ALLREDUCE && o->algo != COLL_ALLTOALL)
            return errf(e, "traffic.hierarchy: server is a hierarchical all-reduce (collective = ring_allreduce) or "
                        "all-to-all (alltoall), not %s", coll_name(o->algo));
        if (o->hierarchy == COLL_HIER_RAIL && o->algo != COLL_RING_ALLREDUCE && o->algo != COLL_ALLGATHER &&
            o->algo != COLL_REDUCESCATTER)
            return errf(e, "traffic.hierarchy: rail rings are for ring collectives (ring_allreduce, allgather, "
                        "reducescatter), not %s", coll_name(o->algo));
        if (n % t->gpus_per_server)
            return errf(e, "traffic.hierarchy: %" PRIu32 " ranks do not fill whole servers of %" PRIu32 " GPUs", n,
                        t->gpus_per_server);
        if (o->hierarchy == COLL_HIER_SERVER)
            G = t->gpus_per_server;
    }
    if ((o->n_weights || o->a2a_zipf > 0) && o->algo != COLL_ALLTOALL)
        return errf(e, "traffic.%s: skewed shares are for collective = alltoall (MoE), not %s",
                    o->n_weights ? "a2a_weights" : "a2a_zipf", coll_name(o->algo));
    if (o->slow && o->slow_rank >= n)
        return errf(e, "traffic.slow_rank: rank %" PRIu32 " of a job of %" PRIu32 " ranks (0 to %" PRIu32 ", or -1: none)",
                    o->slow_rank, n, n - 1);
    if (o->slow_nic && !o->slow)
        return errf(e, "traffic.slow_nic: whose NIC? set traffic.slow_rank");
    uint32_t c = o->chunks ? o->chunks : 1, C = o->channels ? o->channels : 1;
    bool hier_a2a = G && o->algo == COLL_ALLTOALL;
    uint32_t steps = hier_a2a ? a2a_hier_steps(o->a2a, G, n / G) : G ? hier_steps(G, n / G) : coll_steps(o->algo, o->a2a, n);
    /* the most transfers in a step: every rank sends per_step / n */
    uint64_t per_step = o->algo == COLL_ALLTOALL && o->a2a == COLL_A2A_ALL
                            ? (uint64_t)n * (hier_a2a ? (G > n / G ? G : n / G) - 1 : n - 1)
                            : n;
    uint64_t iter_T = hier_a2a && o->a2a == COLL_A2A_ALL /* transfers in an iteration */
                          ? (uint64_t)n * (G - 1) + (n / G > 1 ? (uint64_t)n * (n / G - 1) : 0)
                          : per_step * steps;
    uint64_t u = G && !hier_a2a ? ((o->size + G - 1) / G + n / G - 1) / (n / G) : (o->size + n - 1) / n; /* the smallest transfer */
    if (u / ((uint64_t)c * C) == 0)
        return errf(e, "traffic.size: %" PRIu64 " bytes over %" PRIu32 " hosts in %" PRIu32 " channels of %" PRIu32
                    " chunks leaves empty pieces", o->size, n, C, c);
    uint64_t total = iter_T * c * C * o->iterations;
    if (total > COLL_MAX_FLOWS || out->n + total > FLOW_DEP_ID)
        return errf(e, "traffic.%s: this job is %" PRIu64 " flows (%" PRIu32 " iterations x %" PRIu32 " steps x %"
                    PRIu32 " channels x %" PRIu32 " chunks x %" PRIu64 "), more than %u: use fewer hosts, iterations, "
                    "channels or chunks (or hd_allreduce)",
                    o->iterations > 1 ? "iterations" : C > 1 ? "channels" : c > 1 ? "chunks" : "group", total,
                    o->iterations, steps, C, c, per_step, COLL_MAX_FLOWS);
    if (out->n_jobs >= 65535)
        return errf(e, "traffic.collective: too many collective jobs");
    for (uint32_t k = 0; o->after && k < n; k++)
        if (o->after[k] != UINT32_MAX && (o->after[k] & FLOW_DEP_ID) >= out->n)
            return errf(e, "traffic.collective: rank %" PRIu32 " is to wait for flow %" PRIu32 ", which is not listed yet",
                        k, o->after[k] & FLOW_DEP_ID);

    uint64_t per_rank = per_step / n; /* transfers a rank sends (and receives) in a step */
    struct qp_tab qt = {0};
    qt.cap = 16;
    /* queue pairs: all-to-all has one per transfer of an iteration */
    while (qt.cap < 2 * C * (o->algo == COLL_ALLTOALL ? iter_T : per_step * (G ? 2 : o->algo == COLL_HD_ALLREDUCE ? log2u(n) : 1)))
        qt.cap *= 2;
    uint32_t *rank = malloc(n * sizeof *rank), *perm = malloc((size_t)C * n * sizeof *perm);
    uint32_t *iperm = malloc((size_t)C * n * sizeof *iperm);
    struct xfer *x = malloc(per_step * sizeof *x), *px = malloc(per_step * sizeof *px);
    uint32_t *off = malloc(((size_t)n + 1) * sizeof *off), *idx = malloc(2 * per_step * sizeof *idx);
    uint32_t *poff = malloc(((size_t)n + 1) * sizeof *poff), *pidx = malloc(2 * per_step * sizeof *pidx);
    size_t maxd = (size_t)per_rank * C * (c + 1) + 2 * ((size_t)c + 2) + 3;
    uint32_t *dl = malloc((maxd + 1) * sizeof *dl);
    qt.key = calloc(qt.cap, sizeof *qt.key);
    qt.last = malloc(qt.cap * sizeof *qt.last);
    bool skew = o->algo == COLL_ALLTOALL && (o->n_weights || o->a2a_zipf > 0);
    bool strag = o->gap_dist != COLL_GAP_FIXED || o->slow;
    uint64_t *wb = skew ? malloc(n * sizeof *wb) : NULL; /* bytes each rank sends each destination */
    simtime_t *gaps = strag ? malloc(n * sizeof *gaps) : NULL; /* per rank, this iteration */
    struct coll_job *jobs = realloc(out->jobs, (out->n_jobs + 1) * sizeof *jobs);
    size_t n0 = out->n, d0 = out->n_deps;
    int rc = 0;
    if (jobs)
        out->jobs = jobs;
    if (!rank || !perm || !iperm || !x || !px || !off || !idx || !poff || !pidx || !dl || !jobs || !qt.key || !qt.last ||
        (skew && !wb) || (strag && !gaps)) {
        rc = errf(e, "out of memory");
        goto out;
    }
    if ((rc = place(t, o, n, rank, r, e)) < 0)
        goto out;
    if (o->hierarchy != COLL_FLAT) /* rank m G + g must be GPU g of a server, G ranks a server */
        for (uint32_t k = 0; k < n; k++) {
            uint32_t Gs = t->gpus_per_server, h = (uint32_t)t->host_index[rank[k]], h0 = (uint32_t)t->host_index[rank[k - k % Gs]];
            if (h % Gs != k % Gs || h / Gs != h0 / Gs) {
                rc = errf(e, "traffic.hierarchy: rank %" PRIu32 " is GPU %" PRIu32 " of server %" PRIu32 ", not GPU %" PRIu32
                          " of the server of rank %" PRIu32 " (ranks must fill whole servers in GPU order: placement = rail)",
                          k, h % Gs, h / Gs, k % Gs, k - k % Gs);
                goto out;
            }
        }
    if (skew) {
        if ((rc = coll_a2a_shares(o, n, r, wb, e)) < 0)
            goto out;
        rc = 0;
        for (uint32_t d = 0; d < n; d++)
            if (wb[d] < (uint64_t)c * C) {
                rc = errf(e, "traffic.%s: rank %" PRIu32 " is sent %" PRIu64 " bytes by each rank, fewer than channels x "
                          "chunks (%" PRIu32 "): raise size or lower the skew", o->n_weights ? "a2a_weights" : "a2a_zipf",
                          d, wb[d], c * C);
                goto out;
            }
    }
    /* Rank r of channel ch is group member perm[ch n + r]: the same order on
     * every channel, except NCCL's rail-aligned rings: channel ch visits
     * server m's GPUs from (ch - m) mod G on, so it leaves server m by GPU
     * (ch - m - 1) mod G and enters server m + 1 on that GPU's rail. */
    for (uint32_t ch = 0; ch < C; ch++)
        for (uint32_t k = 0; k < n; k++) {
            uint32_t Gs = t->gpus_per_server, v = k;
            if (o->hierarchy == COLL_HIER_RAIL) {
                uint32_t m = k / Gs, e0 = (uint32_t)(((int64_t)ch - m) % Gs + Gs) % Gs;
                v = m * Gs + (e0 + k % Gs) % Gs;
            }
            perm[(size_t)ch * n + k] = v;
            iperm[(size_t)ch * n + v] = k;
        }
    uint16_t job = (uint16_t)(out->n_jobs + 1);
    size_t prev_base = 0, prev_T = 0;
    for (uint32_t it = 0; it < o->iterations; it++)
        for (uint32_t s = 0; s < steps; s++) {
            size_t T = step_xfers(o, n, G, s, wb, x), base = out->n; /* piece q of (ch, j): base + (q C + ch) T + j */
            for (uint32_t v = 0; strag && it > 0 && s == 0 && v < n; v++) { /* each rank's compute before iteration it */
                gaps[v] = draw_gap(o, r);
                if (o->slow && v == o->slow_rank)
                    gaps[v] = (simtime_t)llround((double)gaps[v] * o->slow_factor);
            }
            int map = s > 0 ? step_map(o, n, G, s) : MAP_IDENT;
            step_index(x, T, n, off, idx);
            for (uint32_t p = 0; p < c; p++)
                for (uint32_t ch = 0; ch < C; ch++)
                    for (size_t j = 0; j < T; j++) {
                        uint64_t L = chan_bytes(x[j].bytes, ch, C);
                        const uint32_t *pc = perm + (size_t)ch * n;
                        struct flow_spec f = {.src = rank[pc[x[j].src]], .dst = rank[pc[x[j].dst]],
                                              .size = piece_lo(L, p + 1, c) - piece_lo(L, p, c), .start = o->start,
                                              .pg = o->pg, .dport = 100, .job = job,
                                              .step = (uint16_t)(s > 65535 ? 65535 : s), .iter = it};
                        uint32_t a = x[j].src, nd = 0;
                        uint32_t *last = qp_last(&qt, 1 + ((uint64_t)pc[x[j].src] * n + pc[x[j].dst]) * C + ch);
                        if (s > 0) { /* the data: from what rank a sent and received in step s-1 (same channel) */
                            uint64_t x0 = piece_lo(L, p, c), x1 = piece_lo(L, p + 1, c);
                            for (uint32_t k = poff[a]; k < poff[a + 1]; k++) {
                                const struct xfer *y = &px[pidx[k]];
                                size_t first = prev_base + (size_t)ch * prev_T + pidx[k];
                                uint64_t Lp = chan_bytes(y->bytes, ch, C);
                                bool in = y->dst == a;
                                if (map == MAP_BARRIER)
                                    nd = in ? add_overlap(dl, nd, first, prev_T * C, Lp, c, 0, Lp, FLOW_DEP_RECV) : nd;
                                else if (map == MAP_BARRIER_A2A && in) /* everything gathered */
                                    nd = add_overlap(dl, nd, first, prev_T * C, Lp, c, 0, Lp, FLOW_DEP_RECV);
                                else if (map == MAP_BARRIER_A2A) { /* pairwise: its last send went after its earlier receives */
                                    if (o->a2a != COLL_A2A_ALL && first + (c - 1) * prev_T * C != *last)
                                        dl[nd++] = (uint32_t)(first + (c - 1) * prev_T * C) | FLOW_DEP_SENT;
                                } else if (o->algo == COLL_ALLTOALL) /* pairwise: piece p a step after piece p of the last, at both ends */
                                    dl[nd++] = (uint32_t)(first + p * prev_T * C) | (in ? FLOW_DEP_RECV : FLOW_DEP_SENT);
                                else if (map == MAP_DOUBLE) /* own block first, then the block received */
                                    nd = in ? (x1 > Lp ? add_overlap(dl, nd, first, prev_T * C, Lp, c, x0 > Lp ? x0 - Lp : 0,
                                                                    x1 - Lp, FLOW_DEP_RECV) : nd)
                                            : add_overlap(dl, nd, first, prev_T * C, Lp, c, x0, x1, FLOW_DEP_SENT);
                                else if (in) /* what arrived is what goes on (HALF: its lower half) */
                                    nd = add_overlap(dl, nd, first, prev_T * C, Lp, c, x0, x1, FLOW_DEP_RECV);
                            }
                        } else if (it > 0 && p == 0) {
                            /* an iteration's first piece: once the rank's last step is done (every piece
                             * received, its own last pieces sent), plus compute_gap; the later pieces
                             * follow it on the queue pair (D1: no second gap) */
                            for (uint32_t ch2 = 0; ch2 < C; ch2++) {
                                uint32_t a2 = iperm[(size_t)ch2 * n + pc[a]]; /* the same GPU on channel ch2 */
                                for (uint32_t k = poff[a2]; k < poff[a2 + 1]; k++) {
                                    size_t first = prev_base + (size_t)ch2 * prev_T + pidx[k];
                                    if (px[pidx[k]].dst == a2)
                                        for (uint32_t q = 0; q < c; q++)
                                            dl[nd++] = (uint32_t)(first + q * prev_T * C) | FLOW_DEP_RECV;
                                    else if (first + (c - 1) * prev_T * C != *last)
                                        dl[nd++] = (uint32_t)(first + (c - 1) * prev_T * C) | FLOW_DEP_SENT;
                                }
                            }
                            f.dep_delay = gaps ? gaps[pc[a]] : o->gap;
                        }
                        if (it == 0 && s == 0 && p == 0 && o->after && o->after[pc[a]] != UINT32_MAX) {
                            dl[nd++] = o->after[pc[a]]; /* chained after another collective or phase */
                            f.dep_delay = o->after_delay;
                        }
                        if (*last != UINT32_MAX) /* the queue pair's previous message: sent, then this one */
                            dl[nd++] = *last | FLOW_DEP_QP;
                        *last = (uint32_t)out->n;
                        if (nd) {
                            int64_t at = flow_list_add_deps(out, dl, nd);
                            if (at < 0) {
                                rc = errf(e, "out of memory");
                                goto out;
                            }
                            f.dep0 = (uint32_t)at;
                            f.ndeps = nd;
                        }
                        if (flow_list_push(out, &f)) {
                            rc = errf(e, "out of memory");
                            goto out;
                        }
                    }
            prev_base = base;
            prev_T = T;
            struct xfer *tx = px; /* the step just listed becomes the previous one */
            px = x, x = tx;
            uint32_t *t1 = poff, *t2 = pidx;
            poff = off, pidx = idx, off = t1, idx = t2;
        }
    struct coll_job *jb = &out->jobs[out->n_jobs++];
    memset(jb, 0, sizeof *jb);
    snprintf(jb->name, sizeof jb->name, "%s", o->name ? o->name : "traffic");
    jb->algo = o->algo;
    jb->a2a = o->a2a;
    jb->n = n;
    jb->size = o->size;
    jb->iterations = o->iterations;
    jb->steps = steps;
    jb->chunks = c;
    jb->channels = C;
    jb->hierarchy = o->hierarchy;
    jb->gpus = G;
    jb->start = o->start;
    jb->gap = o->gap;
    jb->first_rank_host = rank[0];
    jb->first_flow = n0;
    jb->n_flows = out->n - n0;
    jb->hosts = rank;
    rank = NULL;
    jb->slow_rank = o->slow ? o->slow_rank : UINT32_MAX;
    jb->slow_factor = o->slow_factor;
    jb->slow_nic = o->slow_nic;
    jb->gap_dist = o->gap_dist;
    jb->gap_spread = o->gap_spread;
    jb->a2a_zipf = o->n_weights ? 0 : o->a2a_zipf;
    jb->a2a_weighted = skew;
out:
    if (rc < 0) {
        out->n = n0;
        out->n_deps = d0;
    }
    free(rank), free(perm), free(iperm), free(x), free(px), free(off), free(idx), free(poff), free(pidx), free(dl);
    free(qt.key), free(qt.last), free(wb), free(gaps);
    return rc;
}
