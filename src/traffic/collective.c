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
 * Dependencies (a step starts when its data is there): a flow of step s from
 * rank a waits for the flows of step s-1 that rank a sent and received;
 * step 0 of iteration i > 0 waits for rank a's flows of the last step of
 * iteration i-1, plus compute_gap. With chunks = c > 1 every transfer is c
 * pipelined pieces: piece p waits for piece p of the previous step (as above)
 * and for piece p-1 of the same transfer to have left the sender (not for its
 * ACK: FLOW_DEP_SENT, as a NIC takes a queue pair's next work request), so
 * piece p of step s+1 travels while later pieces of step s do. Flows are listed iteration by iteration,
 * step by step, piece by piece, rank by rank; all start no earlier than
 * traffic.start. A flow is finished when its sender has the last ACK. */
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

/* Step s's transfers into x; their count. */
static size_t step_xfers(const struct coll_opts *o, uint32_t n, uint32_t s, struct xfer *x)
{
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
    if (o->placement == COLL_RANDOM) {
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
    uint32_t c = o->chunks ? o->chunks : 1, steps = coll_steps(o->algo, o->a2a, n);
    uint64_t u = (o->size + n - 1) / n;
    if (u / c == 0)
        return errf(e, "traffic.size: %" PRIu64 " bytes over %" PRIu32 " hosts in %" PRIu32 " chunks leaves empty pieces",
                    o->size, n, c);
    uint64_t per_step = o->algo == COLL_ALLTOALL && o->a2a == COLL_A2A_ALL ? (uint64_t)n * (n - 1) : n;
    uint64_t total = per_step * c * steps * o->iterations;
    if (total > COLL_MAX_FLOWS || out->n + total > FLOW_DEP_ID)
        return errf(e, "traffic.collective: this job is %" PRIu64 " flows (%" PRIu32 " iterations x %" PRIu32 " steps x %"
                    PRIu32 " chunks x %" PRIu64 "), more than %u: use fewer hosts, iterations or chunks (or hd_allreduce)",
                    total, o->iterations, steps, c, per_step, COLL_MAX_FLOWS);
    if (out->n_jobs >= 65535)
        return errf(e, "traffic.collective: too many collective jobs");

    uint32_t *rank = malloc(n * sizeof *rank);
    struct xfer *x = malloc(per_step * sizeof *x), *px = malloc(per_step * sizeof *px);
    uint32_t *off = malloc(((size_t)n + 1) * sizeof *off), *idx = malloc(2 * per_step * sizeof *idx);
    uint32_t *poff = malloc(((size_t)n + 1) * sizeof *poff), *pidx = malloc(2 * per_step * sizeof *pidx);
    size_t maxd = (size_t)c * 2 * (per_step / n) + 1;
    uint32_t *dl = malloc((maxd + 1) * sizeof *dl);
    struct coll_job *jobs = realloc(out->jobs, (out->n_jobs + 1) * sizeof *jobs);
    size_t n0 = out->n, d0 = out->n_deps;
    int rc = 0;
    if (jobs)
        out->jobs = jobs;
    if (!rank || !x || !px || !off || !idx || !poff || !pidx || !dl || !jobs) {
        rc = errf(e, "out of memory");
        goto out;
    }
    if ((rc = place(t, o, n, rank, r, e)) < 0)
        goto out;
    uint16_t job = (uint16_t)(out->n_jobs + 1);
    size_t prev_base = 0, prev_T = 0;
    for (uint32_t it = 0; it < o->iterations; it++)
        for (uint32_t s = 0; s < steps; s++) {
            size_t T = step_xfers(o, n, s, x), base = out->n;
            step_index(x, T, n, off, idx);
            for (uint32_t p = 0; p < c; p++)
                for (size_t j = 0; j < T; j++) {
                    uint64_t b = x[j].bytes;
                    struct flow_spec f = {.src = rank[x[j].src], .dst = rank[x[j].dst],
                                          .size = b * (p + 1) / c - b * p / c, .start = o->start, .pg = o->pg,
                                          .dport = 100, .job = job, .step = (uint16_t)(s > 65535 ? 65535 : s),
                                          .iter = it};
                    uint32_t a = x[j].src, nd = 0;
                    if (s > 0 || it > 0) {
                        uint32_t q0 = s > 0 ? p : 0, q1 = s > 0 ? p + 1 : c; /* same piece; all at an iteration's end */
                        for (uint32_t q = q0; q < q1; q++)
                            for (uint32_t k = poff[a]; k < poff[a + 1]; k++)
                                dl[nd++] = (uint32_t)(prev_base + q * prev_T + pidx[k]);
                        if (s == 0)
                            f.dep_delay = o->gap;
                    }
                    if (p > 0) /* back to back after the piece before, as a QP's next work request */
                        dl[nd++] = (uint32_t)(base + (p - 1) * T + j) | FLOW_DEP_SENT;
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
    jb->start = o->start;
    jb->gap = o->gap;
    jb->first_rank_host = rank[0];
out:
    if (rc < 0) {
        out->n = n0;
        out->n_deps = d0;
    }
    free(rank), free(x), free(px), free(off), free(idx), free(poff), free(pidx), free(dl);
    return rc;
}
