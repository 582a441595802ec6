/* Poisson arrivals at a load, as ns-3 HPCC's traffic_gen.py.
 *
 * Each host's arrivals are a Poisson process with mean gap
 * mean_size * 8 / (rate * load), mean_size being the mean of the sampling
 * convention in use (so the offered load is right for it). A host's first
 * arrival is start + Exp(gap); the first arrival at or past start + duration
 * ends that host (traffic_gen instead drops each host's last flow in the
 * window: it emits a flow only if the *next* arrival is still inside). The
 * per-host streams are merged with a binary heap keyed (time, src), like
 * traffic_gen's heapq, so the output is in (start, src) order.
 *
 * Arrival offsets accumulate unrounded and each is rounded to the nearest ns
 * when emitted (traffic_gen truncates every gap to whole ns, which biases the
 * rate up by ~0.5 ns per gap). Random draws, in this order: one gap per host
 * (hosts[] order), then per flow: destination, size, next gap.
 * traffic_poisson_incast (traffic.incast_ratio) is the receiver-driven
 * variant: per receiver a Poisson process of incasts of 1..15 senders. */
#include "traffic/traffic.h"
#include "core/setup.h"
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include "topo/topo.h"

#define MAX_FLOWS 1e9 /* refuse runs whose expected flow count would not fit in memory */

struct arrival {
    simtime_t t;
    uint32_t hi; /* index in hosts[], which is ascending, so it orders like the node id */
};

static int before(const struct arrival *a, const struct arrival *b)
{
    return a->t < b->t || (a->t == b->t && a->hi < b->hi);
}

static void sift_down(struct arrival *h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, l = 2 * i + 1, r = l + 1;
        if (l < n && before(&h[l], &h[m]))
            m = l;
        if (r < n && before(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        struct arrival t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* The arrival `off` ps after `base` (ns-aligned), rounded to a ns; -1 if it
 * is at or past `end`. */
static simtime_t arrival_time(simtime_t base, double off, simtime_t end)
{
    double ns = nearbyint(off / 1000.0);
    if (ns * 1000.0 >= (double)(end - base))
        return -1;
    simtime_t t = base + (simtime_t)ns * T_NS;
    return t < end ? t : -1;
}

/* Hosts grouped by rack (edge switch), for traffic.intra_rack. */
struct racks {
    uint32_t *grp; /* host index -> group */
    uint32_t *off; /* group -> first entry in mem; n_groups + 1 entries */
    uint32_t *mem; /* host indices, grouped, ascending inside a group */
    uint32_t *pos; /* host index -> its entry in mem */
};

/* A host's rate is that of its (single) link; the first one if several. */
static void host_rates(const struct topo *t, uint64_t *rate)
{
    for (uint32_t i = 0; i < t->n_links; i++) {
        const struct topo_link *l = &t->links[i];
        uint32_t ends[2] = {l->a, l->b};
        for (int k = 0; k < 2; k++)
            if (ends[k] < t->n_nodes && t->host_index[ends[k]] >= 0 && !rate[t->host_index[ends[k]]])
                rate[t->host_index[ends[k]]] = l->rate;
    }
}

/* Each host's mean gap between arrivals (ps) for `load` of its link, when an
 * arrival brings `per_arrival` flows of `mean` bytes on average; refuses a
 * linkless host and a run of more than MAX_FLOWS flows. */
static int host_gaps(const struct topo *t, uint64_t *rate, double *gap, double per_arrival, double mean, double load,
                     simtime_t duration, struct err *e)
{
    host_rates(t, rate);
    double expected = 0;
    for (uint32_t i = 0; i < t->n_hosts; i++) {
        if (!rate[i])
            return errf(e, "traffic: host %" PRIu32 " has no link (or a 0 bps one)", t->hosts[i]);
        gap[i] = per_arrival * mean * 8.0 / ((double)rate[i] * load) * (double)T_SEC;
        expected += (double)duration / gap[i] * per_arrival;
    }
    if (expected > MAX_FLOWS)
        return errf(e, "traffic: this load and duration would make about %.3g flows (limit %.0g)", expected, MAX_FLOWS);
    return 0;
}

/* Every host draws its first arrival; those inside the window form the heap.
 * Returns its size. */
static size_t first_arrivals(struct arrival *h, double *off, const double *gap, uint32_t nh, simtime_t base,
                             simtime_t end, struct rng *r)
{
    size_t n = 0;
    for (uint32_t i = 0; i < nh; i++) {
        off[i] = rng_exp(r, gap[i]);
        simtime_t at = arrival_time(base, off[i], end);
        if (at >= 0)
            h[n++] = (struct arrival){at, i};
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(h, n, i);
    return n;
}

/* Per host: its link rate, the mean gap between its arrivals, the running
 * offset of its next one; and the heap of next arrivals (both generators). */
struct arrivals {
    uint64_t *rate;
    double *gap, *off;
    struct arrival *h;
};

static int arrivals_alloc(struct arrivals *a, uint32_t nh)
{
    a->rate = calloc(nh, sizeof *a->rate);
    a->gap = malloc(nh * sizeof *a->gap);
    a->off = malloc(nh * sizeof *a->off);
    a->h = malloc(nh * sizeof *a->h);
    return a->rate && a->gap && a->off && a->h ? 0 : -1;
}

static void arrivals_free(struct arrivals *a)
{
    free(a->rate);
    free(a->gap);
    free(a->off);
    free(a->h);
}

/* Append one flow sized from the CDF (the draw comes before the push, as
 * every Poisson generator has always drawn it). */
/* The arrival window and the CDF's mean, as both Poisson generators need them. */
static int check_window_mean(const struct cdf *c, int sampling, simtime_t start, simtime_t duration, double *mean,
                             struct err *e)
{
    if (start < 0 || duration < 0 || start > INT64_MAX / 2 || duration > INT64_MAX / 2)
        return errf(e, "traffic: start and duration must be non-negative and at most 53 days each");
    *mean = cdf_mean(c, sampling);
    if (!(*mean > 0) || !isfinite(*mean))
        return errf(e, "traffic.cdf: '%s' has a mean flow size of %g bytes; Poisson traffic needs a positive mean",
                    c->name, *mean);
    return 0;
}

static int push_flow(struct flow_list *out, size_t n0, uint32_t src, uint32_t dst, simtime_t at, uint16_t pg,
                     const struct cdf *c, int sampling, struct rng *r, struct err *e)
{
    struct flow_spec f = {.src = src, .dst = dst, .start = at, .pg = pg, .dport = 100};
    f.size = cdf_sample(c, r, sampling);
    if (flow_list_push(out, &f)) {
        errf(e, "traffic: out of memory after %zu flows", out->n - n0);
        out->n = n0;
        return -1;
    }
    return 0;
}

/* Host i (at the heap's top) draws its next arrival, or leaves the heap
 * when that falls past the window. */
static void next_arrival(struct arrival *h, size_t *n, double *off, const double *gap, uint32_t i, simtime_t base,
                         simtime_t end, struct rng *r)
{
    off[i] += rng_exp(r, gap[i]);
    simtime_t at = arrival_time(base, off[i], end);
    if (at >= 0)
        h[0].t = at;
    else
        h[0] = h[--*n];
    sift_down(h, *n, 0);
}

static void racks_free(struct racks *k)
{
    free(k->grp);
    free(k->off);
    free(k->mem);
    free(k->pos);
}

static int racks_build(struct racks *k, const struct topo *t)
{
    uint32_t nh = t->n_hosts, *rack = malloc(nh * sizeof *rack), *gid = malloc((t->n_nodes + 1) * sizeof *gid);
    k->grp = malloc(nh * sizeof *k->grp);
    k->off = calloc((size_t)nh + 2, sizeof *k->off);
    k->mem = malloc(nh * sizeof *k->mem);
    k->pos = malloc(nh * sizeof *k->pos);
    int rc = -1;
    if (!rack || !gid || !k->grp || !k->off || !k->mem || !k->pos)
        goto out;
    traffic_racks(t, rack);
    for (uint32_t n = 0; n <= t->n_nodes; n++)
        gid[n] = UINT32_MAX;
    uint32_t ng = 0;
    for (uint32_t i = 0; i < nh; i++) {
        uint32_t node = rack[i] < t->n_nodes ? rack[i] : t->n_nodes; /* no link: one group of its own kind */
        if (gid[node] == UINT32_MAX)
            gid[node] = ng++;
        k->grp[i] = gid[node];
        k->off[k->grp[i] + 1]++;
    }
    for (uint32_t g = 0; g < ng; g++)
        k->off[g + 1] += k->off[g];
    for (uint32_t i = 0; i < nh; i++) { /* off[g] runs ahead while filling, then is put back */
        k->pos[i] = k->off[k->grp[i]]++;
        k->mem[k->pos[i]] = i;
    }
    for (uint32_t g = ng; g > 0; g--)
        k->off[g] = k->off[g - 1];
    k->off[0] = 0;
    rc = 0;
out:
    free(rack);
    free(gid);
    return rc;
}

/* A destination for sender hi: inside its rack with probability intra. */
static uint32_t rack_dest(const struct racks *k, uint32_t nh, uint32_t hi, double intra, struct rng *r)
{
    uint32_t g = k->grp[hi], first = k->off[g], sz = k->off[g + 1] - first;
    bool in = rng_uniform(r) < intra;
    if (sz == 1)
        in = false;
    else if (sz == nh)
        in = true;
    if (in) {
        uint32_t j = (uint32_t)rng_below(r, sz - 1);
        if (j >= k->pos[hi] - first)
            j++;
        return k->mem[first + j];
    }
    uint32_t d;
    do
        d = (uint32_t)rng_below(r, nh);
    while (k->grp[d] == g);
    return d;
}


int traffic_poisson(struct flow_list *out, const struct topo *t, const struct cdf *c, int sampling,
                    double load, simtime_t start, simtime_t duration, uint16_t pg, struct rng *r,
                    struct err *e)
{
    return traffic_poisson_rack(out, t, c, sampling, load, -1, start, duration, pg, r, e);
}

int traffic_poisson_rack(struct flow_list *out, const struct topo *t, const struct cdf *c, int sampling,
                         double load, double intra_rack, simtime_t start, simtime_t duration, uint16_t pg,
                         struct rng *r, struct err *e)
{
    if (isnan(intra_rack) || intra_rack > 1)
        return errf(e, "traffic.intra_rack: %g is not in [0, 1] (or negative: uniform over all hosts)", intra_rack);
    if (sampling != 0 && sampling != 1)
        return errf(e, "traffic: unknown CDF sampling %d (0 linear, 1 step)", sampling);
    if (!(load > 0 && load <= 1))
        return errf(e, "traffic.load: %g is not in (0, 1]", load);
    if (t->n_hosts < 2)
        return errf(e, "traffic: Poisson traffic needs at least 2 hosts, the topology has %" PRIu32, t->n_hosts);
    double mean;
    if (check_window_mean(c, sampling, start, duration, &mean, e) < 0)
        return -1;

    uint32_t nh = t->n_hosts;
    struct arrivals a = {0};
    struct racks rk = {0};
    int rc = -1;
    if (arrivals_alloc(&a, nh) < 0 || (intra_rack >= 0 && racks_build(&rk, t) < 0)) {
        errf(e, "traffic: out of memory");
        goto out;
    }
    struct arrival *h = a.h;
    if (host_gaps(t, a.rate, a.gap, 1.0, mean, load, duration, e))
        goto out;

    simtime_t base = (start + T_NS - 1) / T_NS * T_NS; /* arrivals never precede start */
    simtime_t end = start + duration;
    size_t n0 = out->n, n = first_arrivals(h, a.off, a.gap, nh, base, end, r);
    while (n > 0) {
        uint32_t hi = h[0].hi, d;
        if (intra_rack < 0) {
            d = (uint32_t)rng_below(r, nh - 1);
            d = d >= hi ? d + 1 : d;
        } else {
            d = rack_dest(&rk, nh, hi, intra_rack, r);
        }
        if (push_flow(out, n0, t->hosts[hi], t->hosts[d], h[0].t, pg, c, sampling, r, e))
            goto out;
        if ((out->n & 65535) == 0 && setup_progress("flows (generating)", (uint64_t)(h[0].t - base), (uint64_t)(end - base))) {
            setup_stopped(e);
            goto out;
        }
        next_arrival(h, &n, a.off, a.gap, hi, base, end, r);
    }
    rc = 0;
out:
    racks_free(&rk);
    arrivals_free(&a);
    return rc;
}

/* ------------------------------------------------- incast-ratio arrivals */

int traffic_incast_ratio_parse(const char *s, uint32_t *lo, uint32_t *hi, const char **why)
{
    char *end;
    while (*s == ' ')
        s++;
    unsigned long a = strtoul(s, &end, 10), b = a;
    if (end == s || *s == '-') {
        *why = "expected a number of senders (8) or a range (1-15)";
        return -1;
    }
    while (*end == ' ')
        end++;
    if (*end == '-') {
        const char *q = end + 1;
        while (*q == ' ')
            q++;
        if (*q < '0' || *q > '9') {
            *why = "expected a range such as 1-15";
            return -1;
        }
        b = strtoul(q, &end, 10);
        while (*end == ' ')
            end++;
    }
    if (*end) {
        *why = "expected a number of senders (8) or a range (1-15)";
        return -1;
    }
    if (a < 1 || b < a || b > HOST_LIST_MAX) {
        *why = "senders per arrival must be at least 1, a range ascending (LO-HI, LO <= HI)";
        return -1;
    }
    *lo = (uint32_t)a;
    *hi = (uint32_t)b;
    return 0;
}

/* Swaps pool[a] and pool[b], keeping where[] (a host's place in pool) right. */
static void pool_swap(uint32_t *pool, uint32_t *where, uint32_t a, uint32_t b)
{
    uint32_t x = pool[a];
    pool[a] = pool[b];
    pool[b] = x;
    where[pool[a]] = a;
    where[pool[b]] = b;
}

int traffic_poisson_incast(struct flow_list *out, const struct topo *t, const struct cdf *c, int sampling,
                           double load, uint32_t lo, uint32_t hi, simtime_t start, simtime_t duration, uint16_t pg,
                           struct rng *r, struct err *e)
{
    if (sampling != 0 && sampling != 1)
        return errf(e, "traffic: unknown CDF sampling %d (0 linear, 1 step)", sampling);
    if (!(load > 0 && load <= 1))
        return errf(e, "traffic.load: %g is not in (0, 1]", load);
    if (lo < 1 || hi < lo)
        return errf(e, "traffic.incast_ratio: %" PRIu32 "-%" PRIu32 " is not an ascending range from 1", lo, hi);
    if ((uint64_t)hi >= t->n_hosts)
        return errf(e, "traffic.incast_ratio: %" PRIu32 " senders and a receiver need %" PRIu64
                       " hosts, the topology has %" PRIu32, hi, (uint64_t)hi + 1, t->n_hosts);
    double mean;
    if (check_window_mean(c, sampling, start, duration, &mean, e) < 0)
        return -1;

    uint32_t nh = t->n_hosts;
    struct arrivals a = {0};
    uint32_t *pool = malloc(nh * sizeof *pool), *where = malloc(nh * sizeof *where);
    uint32_t *snd = malloc((size_t)hi * sizeof *snd);
    int rc = -1;
    if (arrivals_alloc(&a, nh) < 0 || !pool || !where || !snd) {
        errf(e, "traffic: out of memory");
        goto out;
    }
    struct arrival *h = a.h;
    /* Arrivals per receiver: each brings (lo+hi)/2 flows on average, so this
     * gap offers `load` of the receiver's link (PCN's "load on ToR downlinks"). */
    if (host_gaps(t, a.rate, a.gap, ((double)lo + (double)hi) / 2.0, mean, load, duration, e))
        goto out;
    /* The sender pool: a permutation of the host indices; a partial
     * Fisher-Yates over its first nh-1 entries (the receiver swapped out
     * to the last place) draws distinct senders. Any starting permutation
     * gives uniform draws, so the pool is not reset between arrivals. */
    for (uint32_t i = 0; i < nh; i++)
        pool[i] = where[i] = i;
    simtime_t base = (start + T_NS - 1) / T_NS * T_NS, end = start + duration;
    size_t n0 = out->n, n = first_arrivals(h, a.off, a.gap, nh, base, end, r);
    while (n > 0) {
        uint32_t rv = h[0].hi, k = lo + (uint32_t)rng_below(r, (uint64_t)(hi - lo) + 1);
        pool_swap(pool, where, where[rv], nh - 1);
        for (uint32_t j = 0; j < k; j++) {
            pool_swap(pool, where, j, j + (uint32_t)rng_below(r, (uint64_t)(nh - 1 - j)));
            snd[j] = pool[j];
        }
        /* senders in ascending order, as an incast lists them */
        for (uint32_t a = 1; a < k; a++)
            for (uint32_t b = a; b > 0 && snd[b - 1] > snd[b]; b--) {
                uint32_t tmp = snd[b];
                snd[b] = snd[b - 1];
                snd[b - 1] = tmp;
            }
        for (uint32_t j = 0; j < k; j++)
            if (push_flow(out, n0, t->hosts[snd[j]], t->hosts[rv], h[0].t, pg, c, sampling, r, e))
                goto out;
        next_arrival(h, &n, a.off, a.gap, rv, base, end, r);
    }
    rc = 0;
out:
    arrivals_free(&a);
    free(pool);
    free(where);
    free(snd);
    return rc;
}
