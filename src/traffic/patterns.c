/* Synthetic traffic patterns: incast (once, or a Poisson process at a share
 * of the total host capacity, HPCC's "60 x 500 KB at 2 %" recipe),
 * permutation (a random derangement) and bursts (a set of senders x count
 * flows to one receiver, optionally repeated); host-id lists and racks.
 * Every function appends to `out` in start order and, on error, leaves `out`
 * as it found it. Their random draws are documented in traffic.h. */
#include "traffic/traffic.h"
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "topo/topo.h"

#define MAX_FLOWS 1e9 /* as traffic_poisson: refuse what would not fit in memory */

void traffic_racks(const struct topo *t, uint32_t *rack)
{
    for (uint32_t i = 0; i < t->n_hosts; i++)
        rack[i] = UINT32_MAX;
    for (uint32_t l = 0; l < t->n_links; l++) {
        const struct topo_link *k = &t->links[l];
        if (k->a < t->n_nodes && k->b < t->n_nodes) {
            int32_t ia = t->host_index[k->a], ib = t->host_index[k->b];
            if (ia >= 0 && rack[ia] == UINT32_MAX)
                rack[ia] = k->b;
            if (ib >= 0 && rack[ib] == UINT32_MAX)
                rack[ib] = k->a;
        }
    }
}

/* Each host's rate: that of its first link (0 if none), as traffic_poisson. */
static uint64_t host_rate(const struct topo *t, uint32_t hi)
{
    uint32_t node = t->hosts[hi];
    for (uint32_t l = 0; l < t->n_links; l++)
        if (t->links[l].a == node || t->links[l].b == node)
            return t->links[l].rate;
    return 0;
}

double traffic_host_capacity(const struct topo *t)
{
    /* One pass over the links, the first link of each host counted. */
    double sum = 0;
    uint8_t *seen = calloc(t->n_hosts ? t->n_hosts : 1, 1);
    if (!seen) { /* slow but needs no memory */
        for (uint32_t i = 0; i < t->n_hosts; i++)
            sum += (double)host_rate(t, i);
        return sum;
    }
    for (uint32_t l = 0; l < t->n_links; l++) {
        const struct topo_link *k = &t->links[l];
        uint32_t ends[2] = {k->a, k->b};
        for (int j = 0; j < 2; j++)
            if (ends[j] < t->n_nodes && t->host_index[ends[j]] >= 0 && !seen[t->host_index[ends[j]]]) {
                seen[t->host_index[ends[j]]] = 1;
                sum += (double)k->rate;
            }
    }
    free(seen);
    return sum;
}

double traffic_core_capacity(const struct topo *t)
{
    double tier[LAYER_CORE + 1] = {0}, flat = 0;
    for (uint32_t l = 0; l < t->n_links; l++) {
        const struct topo_link *k = &t->links[l];
        if (k->a >= t->n_nodes || k->b >= t->n_nodes || !t->nodes[k->a].is_switch || !t->nodes[k->b].is_switch)
            continue;
        uint8_t la = t->nodes[k->a].layer, lb = t->nodes[k->b].layer;
        flat += (double)k->rate;
        if (la != lb && (la + 1 == lb || lb + 1 == la)) {
            uint8_t lo = la < lb ? la : lb;
            if (lo <= LAYER_CORE)
                tier[lo] += (double)k->rate;
        }
    }
    double best = 0;
    for (int L = LAYER_EDGE; L < LAYER_CORE; L++)
        if (tier[L] > 0 && (best == 0 || tier[L] < best))
            best = tier[L];
    return best > 0 ? best : flat;
}

/* ------------------------------------------------------------ host lists */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static const char *skip_blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* A decimal id at *s; advances *s. */
static int read_id(const char **s, uint32_t *v)
{
    const char *p = *s;
    uint64_t x = 0;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        x = x * 10 + (uint64_t)(*p - '0');
        if (x >= UINT32_MAX)
            return -2;
    }
    *v = (uint32_t)x;
    *s = p;
    return 0;
}

int host_list_parse(const char *s, uint32_t **ids, size_t *n, const char **why)
{
    static _Thread_local char buf[160];
    *ids = NULL;
    *n = 0;
    s = skip_blank(s);
    if (!*s)
        return 0;
    uint32_t *v = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        uint32_t a, b;
        const char *tok = s;
        int rc = read_id(&s, &a);
        if (rc < 0) {
            snprintf(buf, sizeof buf, rc == -2 ? "host id at '%.20s' is too large" :
                     "expected a host id at '%.20s' (write ids and ranges like 2-15,18,20)", tok);
            goto fail;
        }
        s = skip_blank(s);
        b = a;
        if (*s == '-') {
            s = skip_blank(s + 1);
            const char *t2 = s;
            if ((rc = read_id(&s, &b)) < 0) {
                if (rc == -2)
                    snprintf(buf, sizeof buf, "host id at '%.20s' is too large", t2);
                else if (!*t2)
                    snprintf(buf, sizeof buf, "expected a host id after '-'");
                else
                    snprintf(buf, sizeof buf, "expected a host id after '-' at '%.20s'", t2);
                goto fail;
            }
            if (b < a) {
                snprintf(buf, sizeof buf, "range %" PRIu32 "-%" PRIu32 " goes backwards", a, b);
                goto fail;
            }
            s = skip_blank(s);
        }
        if ((uint64_t)b - a + 1 > HOST_LIST_MAX - len) {
            snprintf(buf, sizeof buf, "more than %u hosts", HOST_LIST_MAX);
            goto fail;
        }
        while (len + (b - a + 1) > cap) {
            size_t nc = cap ? 2 * cap : 64;
            uint32_t *nv = realloc(v, nc * sizeof *nv);
            if (!nv) {
                snprintf(buf, sizeof buf, "out of memory");
                goto fail;
            }
            v = nv;
            cap = nc;
        }
        for (uint64_t x = a; x <= b; x++)
            v[len++] = (uint32_t)x;
        if (!*s)
            break;
        if (*s != ',') {
            snprintf(buf, sizeof buf, "unexpected '%.20s' (separate ids and ranges with commas: 2-15,18)", s);
            goto fail;
        }
        s = skip_blank(s + 1);
        if (!*s) {
            snprintf(buf, sizeof buf, "nothing after the last ','");
            goto fail;
        }
    }
    uint32_t *sorted = malloc(len * sizeof *sorted);
    if (!sorted) {
        snprintf(buf, sizeof buf, "out of memory");
        goto fail;
    }
    memcpy(sorted, v, len * sizeof *sorted);
    qsort(sorted, len, sizeof *sorted, cmp_u32);
    for (size_t i = 1; i < len; i++)
        if (sorted[i] == sorted[i - 1]) {
            snprintf(buf, sizeof buf, "host %" PRIu32 " is listed twice", sorted[i]);
            free(sorted);
            goto fail;
        }
    free(sorted);
    *ids = v;
    *n = len;
    return 0;
fail:
    free(v);
    *why = buf;
    return -1;
}

/* ------------------------------------------------------------- helpers */

/* A pool of host indices for drawing distinct random hosts: a permutation
 * with each host's position, so one host can be set aside and k others
 * drawn by a partial Fisher-Yates shuffle. */
struct pool {
    uint32_t *v, *pos, n;
};

static int pool_init(struct pool *p, uint32_t n)
{
    p->n = n;
    p->v = malloc((n ? n : 1) * sizeof *p->v);
    p->pos = malloc((n ? n : 1) * sizeof *p->pos);
    if (!p->v || !p->pos)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        p->v[i] = p->pos[i] = i;
    return 0;
}

static void pool_free(struct pool *p)
{
    free(p->v);
    free(p->pos);
}

static void pool_swap(struct pool *p, uint32_t i, uint32_t j)
{
    uint32_t a = p->v[i], b = p->v[j];
    p->v[i] = b;
    p->v[j] = a;
    p->pos[b] = i;
    p->pos[a] = j;
}

/* Draws k distinct hosts among the first `avail` entries into v[0..k)
 * (callers first swap a host they want left out past `avail`). */
static void pool_draw(struct pool *p, uint32_t avail, uint32_t k, struct rng *r)
{
    for (uint32_t i = 0; i < k; i++)
        pool_swap(p, i, i + (uint32_t)rng_below(r, avail - i));
}

static int push_flow(struct flow_list *out, size_t n0, uint32_t src, uint32_t dst, uint64_t size, simtime_t at,
                     uint16_t pg, const char *what, struct err *e)
{
    struct flow_spec f = {.src = src, .dst = dst, .size = size, .start = at, .pg = pg, .dport = 100};
    if (flow_list_push(out, &f)) {
        out->n = n0;
        return errf(e, "traffic: %s: out of memory after %zu flows", what, out->n - n0);
    }
    return 0;
}

static int check_host(const struct topo *t, int64_t id, const char *key, struct err *e)
{
    if (id < 0 || id >= (int64_t)t->n_nodes || t->host_index[id] < 0)
        return errf(e, "%s: node %" PRId64 " is not a host", key, id);
    return 0;
}

/* ---------------------------------------------------------------- incast */

int traffic_incast(struct flow_list *out, const struct topo *t, const struct incast_opts *o, struct rng *r,
                   struct err *e)
{
    uint32_t nh = t->n_hosts;
    if (o->fan_in == 0)
        return errf(e, "traffic.fan_in: must be at least 1");
    if ((uint64_t)o->fan_in >= nh)
        return errf(e, "traffic.fan_in: %" PRIu32 " senders and a receiver need %" PRIu64
                       " hosts, the topology has %" PRIu32, o->fan_in, (uint64_t)o->fan_in + 1, nh);
    if (o->size == 0)
        return errf(e, "traffic.size: must be at least 1 byte");
    if (o->receiver >= 0 && check_host(t, o->receiver, "traffic.receiver", e))
        return -1;
    if (o->start < 0 || o->duration < 0 || o->start > INT64_MAX / 2 || o->duration > INT64_MAX / 2)
        return errf(e, "traffic: start and duration must be non-negative and at most 53 days each");
    bool repeat = o->load > 0;
    double gap = 0; /* ps */
    if (repeat) {
        if (!(o->load <= 1))
            return errf(e, "traffic.load: %g is not in (0, 1]", o->load);
        double cap = traffic_host_capacity(t);
        if (!(cap > 0))
            return errf(e, "traffic: the hosts have no link capacity");
        gap = (double)o->fan_in * (double)o->size * 8.0 / (o->load * cap) * (double)T_SEC;
        double expected = (double)o->duration / gap * o->fan_in;
        if (expected > MAX_FLOWS)
            return errf(e, "traffic: this load and duration would make about %.3g incast flows (limit %.0g)",
                        expected, MAX_FLOWS);
    }
    struct pool p;
    uint32_t *snd = malloc((size_t)o->fan_in * sizeof *snd);
    size_t n0 = out->n;
    int rc = -1;
    if (pool_init(&p, nh) < 0 || !snd) {
        errf(e, "traffic: out of memory");
        goto out;
    }
    simtime_t base = (o->start + T_NS - 1) / T_NS * T_NS, end = o->start + o->duration, at = o->start;
    double off = 0;
    if (repeat) {
        off = rng_exp(r, gap);
        double ns = nearbyint(off / 1000.0);
        at = ns * 1000.0 >= (double)(end - base) ? -1 : base + (simtime_t)ns * T_NS;
    }
    while (at >= 0 && (!repeat || at < end)) {
        uint32_t rcv = o->receiver >= 0 ? (uint32_t)t->host_index[o->receiver] : (uint32_t)rng_below(r, nh);
        pool_swap(&p, p.pos[rcv], nh - 1);
        pool_draw(&p, nh - 1, o->fan_in, r);
        memcpy(snd, p.v, o->fan_in * sizeof *snd);
        qsort(snd, o->fan_in, sizeof *snd, cmp_u32);
        for (uint32_t i = 0; i < o->fan_in; i++)
            if (push_flow(out, n0, t->hosts[snd[i]], t->hosts[rcv], o->size, at, o->pg, "incast", e))
                goto out;
        if (!repeat)
            break;
        off += rng_exp(r, gap);
        double ns = nearbyint(off / 1000.0);
        at = ns * 1000.0 >= (double)(end - base) ? -1 : base + (simtime_t)ns * T_NS;
    }
    rc = 0;
out:
    pool_free(&p);
    free(snd);
    return rc;
}

/* ----------------------------------------------------------- permutation */

int traffic_permutation(struct flow_list *out, const struct topo *t, uint64_t size, simtime_t start,
                        uint16_t pg, struct rng *r, struct err *e)
{
    uint32_t nh = t->n_hosts;
    if (nh < 2)
        return errf(e, "traffic: a permutation needs at least 2 hosts, the topology has %" PRIu32, nh);
    if (size == 0)
        return errf(e, "traffic.size: must be at least 1 byte");
    if (start < 0)
        return errf(e, "traffic.start: must not be negative");
    uint32_t *to = malloc(nh * sizeof *to);
    if (!to)
        return errf(e, "traffic: out of memory");
    /* Uniform over derangements: uniform permutations until one has no
     * fixed point (probability ~1/e each, so ~2.7 tries on average). */
    bool fixed;
    do {
        for (uint32_t i = 0; i < nh; i++)
            to[i] = i;
        for (uint32_t i = nh - 1; i > 0; i--) {
            uint32_t j = (uint32_t)rng_below(r, (uint64_t)i + 1), x = to[i];
            to[i] = to[j];
            to[j] = x;
        }
        fixed = false;
        for (uint32_t i = 0; i < nh && !fixed; i++)
            fixed = to[i] == i;
    } while (fixed);
    size_t n0 = out->n;
    int rc = 0;
    for (uint32_t i = 0; i < nh && rc == 0; i++)
        rc = push_flow(out, n0, t->hosts[i], t->hosts[to[i]], size, start, pg, "permutation", e);
    free(to);
    return rc;
}

/* ----------------------------------------------------------------- burst */

int traffic_burst(struct flow_list *out, const struct topo *t, const struct burst_opts *o, struct rng *r,
                  struct err *e)
{
    uint32_t nh = t->n_hosts;
    if (o->count == 0)
        return errf(e, "traffic.count: must be at least 1");
    if (o->size == 0)
        return errf(e, "traffic.size: must be at least 1 byte");
    if (o->start < 0 || o->duration < 0 || o->interval < 0 || o->start > INT64_MAX / 2 ||
        o->duration > INT64_MAX / 2)
        return errf(e, "traffic: start, duration and interval must be non-negative, start and duration at most "
                       "53 days each");
    if (o->receiver >= 0 && check_host(t, o->receiver, "traffic.receiver", e))
        return -1;
    uint32_t nsend = o->n_senders ? (uint32_t)o->n_senders : o->fan_in;
    if (o->n_senders > nh)
        return errf(e, "traffic.senders: %zu senders, the topology has %" PRIu32 " hosts", o->n_senders, nh);
    if (!o->n_senders && (o->fan_in == 0 || o->fan_in >= nh))
        return errf(e, "traffic.fan_in: %" PRIu32 " random senders and a receiver need %" PRIu64
                       " hosts, the topology has %" PRIu32, o->fan_in, (uint64_t)o->fan_in + 1, nh);
    uint8_t *is_snd = calloc(nh ? nh : 1, 1);
    if (!is_snd)
        return errf(e, "traffic: out of memory");
    for (size_t i = 0; i < o->n_senders; i++) {
        if (check_host(t, o->senders[i], "traffic.senders", e) ||
            (is_snd[t->host_index[o->senders[i]]] && errf(e, "traffic.senders: host %" PRIu32 " is listed twice",
                                                            o->senders[i]))) {
            free(is_snd);
            return -1;
        }
        is_snd[t->host_index[o->senders[i]]] = 1;
    }
    if (o->receiver >= 0 && is_snd[t->host_index[o->receiver]]) {
        free(is_snd);
        return errf(e, "traffic.receiver: host %" PRId64 " is also one of the senders", o->receiver);
    }
    if (o->n_senders == nh) {
        free(is_snd);
        return errf(e, "traffic.senders: every host sends, so no host is left to receive");
    }
    uint64_t reps = 1;
    if (o->interval > 0 && o->duration > o->interval)
        reps = (uint64_t)((o->duration + o->interval - 1) / o->interval);
    if ((double)reps * nsend * (double)o->count > MAX_FLOWS) {
        free(is_snd);
        return errf(e, "traffic: these bursts would make %.3g flows (limit %.0g)", (double)reps * nsend * (double)o->count,
                    MAX_FLOWS);
    }
    struct pool p;
    uint32_t *snd = malloc((size_t)nsend * sizeof *snd);
    size_t n0 = out->n;
    int rc = -1;
    if (pool_init(&p, nh) < 0 || !snd) {
        errf(e, "traffic: out of memory");
        goto out;
    }
    uint32_t rcv;
    if (o->receiver >= 0) {
        rcv = (uint32_t)t->host_index[o->receiver];
    } else { /* uniformly among the hosts that do not send */
        uint32_t k = (uint32_t)rng_below(r, nh - (uint32_t)o->n_senders);
        for (rcv = 0; is_snd[rcv] || k-- > 0; rcv++)
            ;
    }
    if (o->n_senders) {
        for (uint32_t i = 0; i < nsend; i++)
            snd[i] = (uint32_t)t->host_index[o->senders[i]];
    } else {
        pool_swap(&p, p.pos[rcv], nh - 1);
        pool_draw(&p, nh - 1, nsend, r);
        memcpy(snd, p.v, nsend * sizeof *snd);
        qsort(snd, nsend, sizeof *snd, cmp_u32);
    }
    for (uint64_t k = 0; k < reps; k++) {
        simtime_t at = o->start + (simtime_t)k * o->interval;
        for (uint32_t i = 0; i < nsend; i++)
            for (uint64_t j = 0; j < o->count; j++)
                if (push_flow(out, n0, t->hosts[snd[i]], t->hosts[rcv], o->size, at, o->pg, "burst", e))
                    goto out;
    }
    rc = 0;
out:
    pool_free(&p);
    free(snd);
    free(is_snd);
    return rc;
}
