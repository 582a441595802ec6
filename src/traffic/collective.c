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

/* Step s's transfers into x; their count. G > 0: hierarchical (hier_xfers). */
static size_t step_xfers(const struct coll_opts *o, uint32_t n, uint32_t G, uint32_t s, struct xfer *x)
{
    if (G)
        return hier_xfers(o, G, n / G, s, x);
    uint64_t u = (o->size + n - 1) / n;
    size_t k = 0;
    if (o->algo == COLL_HD_ALLREDUCE) {
        uint32_t m = log2u(n);
        uint32_t d = s < m ? n >> (s + 1) : 1u << (s - m);
        for (uint32_t r = 0; r < n; r++)
            x[k++] = (struct xfer){r, r ^ d, u * d};
    } else if (o->algo == COLL_ALLTOALL && o->a2a == COLL_A2A_ALL) {
        for (uint32_t r = 0; r < n; r++)
            for (uint32_t off = 1; off < n; off++)
                x[k++] = (struct xfer){r, (r + off) % n, u};
    } else {
        uint32_t off = o->algo == COLL_ALLTOALL ? s + 1 : 1;
        for (uint32_t r = 0; r < n; r++)
            x[k++] = (struct xfer){r, (r + off) % n, u};
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
enum coll_map { MAP_IDENT, MAP_HALF, MAP_DOUBLE, MAP_BARRIER /* every piece of what arrived */ };

static int step_map(const struct coll_opts *o, uint32_t n, uint32_t G, uint32_t s)
{
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
        if (o->hierarchy == COLL_HIER_SERVER && o->algo != COLL_RING_ALLREDUCE)
            return errf(e, "traffic.hierarchy: server is a hierarchical all-reduce (collective = ring_allreduce), not %s",
                        coll_name(o->algo));
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
    uint32_t c = o->chunks ? o->chunks : 1, C = o->channels ? o->channels : 1;
    uint32_t steps = G ? hier_steps(G, n / G) : coll_steps(o->algo, o->a2a, n);
    uint64_t u = G ? ((o->size + G - 1) / G + n / G - 1) / (n / G) : (o->size + n - 1) / n; /* the smallest transfer */
    if (u / ((uint64_t)c * C) == 0)
        return errf(e, "traffic.size: %" PRIu64 " bytes over %" PRIu32 " hosts in %" PRIu32 " channels of %" PRIu32
                    " chunks leaves empty pieces", o->size, n, C, c);
    uint64_t per_step = o->algo == COLL_ALLTOALL && o->a2a == COLL_A2A_ALL ? (uint64_t)n * (n - 1) : n;
    uint64_t total = per_step * c * C * steps * o->iterations;
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
    while (qt.cap < 2 * per_step * C * (G ? 2 : o->algo == COLL_HD_ALLREDUCE ? log2u(n) : 1))
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
    struct coll_job *jobs = realloc(out->jobs, (out->n_jobs + 1) * sizeof *jobs);
    size_t n0 = out->n, d0 = out->n_deps;
    int rc = 0;
    if (jobs)
        out->jobs = jobs;
    if (!rank || !perm || !iperm || !x || !px || !off || !idx || !poff || !pidx || !dl || !jobs || !qt.key || !qt.last) {
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
            size_t T = step_xfers(o, n, G, s, x), base = out->n; /* piece q of (ch, j): base + (q C + ch) T + j */
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
                                else if (map == MAP_DOUBLE) /* own block first, then the block received */
                                    nd = in ? (x1 > Lp ? add_overlap(dl, nd, first, prev_T * C, Lp, c, x0 > Lp ? x0 - Lp : 0,
                                                                    x1 - Lp, FLOW_DEP_RECV) : nd)
                                            : add_overlap(dl, nd, first, prev_T * C, Lp, c, x0, x1, FLOW_DEP_SENT);
                                else if (in) /* what arrived is what goes on (HALF: its lower half) */
                                    nd = add_overlap(dl, nd, first, prev_T * C, Lp, c, x0, x1, FLOW_DEP_RECV);
                                else if (o->algo == COLL_ALLTOALL) /* pairwise: a step after the last, at both ends */
                                    nd = add_overlap(dl, nd, first, prev_T * C, Lp, c, x0, x1, FLOW_DEP_SENT);
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
                            f.dep_delay = o->gap;
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
out:
    if (rc < 0) {
        out->n = n0;
        out->n_deps = d0;
    }
    free(rank), free(perm), free(iperm), free(x), free(px), free(off), free(idx), free(poff), free(pidx), free(dl);
    free(qt.key), free(qt.last);
    return rc;
}
