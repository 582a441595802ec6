/* HF²T — "Host-Based Flowlet Fine-Tuning for RDMA Load Balancing", APNet
 * 2024. A companion at the sender NIC (transport.hf2t = on) beside any CC,
 * for a flowlet load balancer at the switches (lb.scheme = letflow, conga).
 *
 * RDMA's paced senders leave few inter-packet gaps as long as the flowlet
 * timeout (§3, Table 1), so flowlet switches rarely get to reroute. HF²T
 * stretches a few gaps that are just below the timeout (§4.2, Fig. 3): when
 * the gap between the packet about to leave and the flow's previous packet is
 *     T·α(x) ≤ gap < flowlet timeout,
 * the packet is held until the gap equals the timeout (cc_ops.tx_hold; the QP
 * keeps its round-robin place). T is a percentile of the host's learned gap
 * distribution (§4.3: the 97.5th-99th, "for example the 99-percentile";
 * §5.1: the 99th), learned after a pre-training period. α (§4.3, Eq. 1):
 *     α = min_thr/x   for x ≤ min_thr
 *         1           for min_thr < x < max_thr
 *         max_thr/x   for x ≥ max_thr
 * with x the packets the flow sent since its last stretched gap (the current
 * flowlet's length), min_thr 20, max_thr 80 (§5.1). `dynamic = off` is the
 * paper's "no dynamic T" variant (α = 1).
 *
 * Interpretations, where the paper is silent:
 * - The gap is per flow (a flowlet is per flow) and the distribution per
 *   host: every gap of every flow the host sends, kept as a log-scale
 *   histogram (8 buckets per octave, so T is exact to 9 %) in the state of
 *   the host's NIC port. T is recomputed every 256 new gaps; no stretching
 *   until `train` gaps were seen (the pre-training).
 * - The flowlet timeout is the load balancer's own (lb_ops.flowlet_gap), so
 *   the two never disagree; without a flowlet balancer the run is refused.
 * - x counts from 1 at the first packet after a stretched gap (and at the
 *   flow's first packet), so α is finite.
 * - A stretched gap becomes exactly the timeout; switches start a flowlet at
 *   gap ≥ timeout, and the host link adds the same delay to both packets.
 *
 * Counters: per flow, the NIC's qp->held and qp->held_time (tx_hold). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "net/cc.h"

extern const struct cc_ops cc_hf2t;

struct hf2t_par {
    double percentile;   /* T = this percentile of the learned gaps */
    int64_t min_thr, max_thr;
    bool dynamic;        /* α by Eq. 1; off = α 1 */
    int64_t train;       /* gaps to learn before stretching any */
};

static const struct param hf2t_params[] = {
    {"percentile", P_DOUBLE, offsetof(struct hf2t_par, percentile), "99", "T = this percentile of the host's inter-packet gaps (paper: 97.5-99)", NULL, 50, 99.99},
    {"min_thr", P_INT, offsetof(struct hf2t_par, min_thr), "20", "alpha = min_thr/x while the current flowlet has x <= min_thr packets", NULL, 1, 1e9},
    {"max_thr", P_INT, offsetof(struct hf2t_par, max_thr), "80", "alpha = max_thr/x once it has x >= max_thr packets", NULL, 1, 1e9},
    {"dynamic", P_BOOL, offsetof(struct hf2t_par, dynamic), "on", "the multiplication factor alpha of Eq. 1; off = the paper's 'no dynamic T' (alpha 1)", NULL, 0, 0},
    {"train", P_INT, offsetof(struct hf2t_par, train), "10000", "gaps a host learns before it stretches any (pre-training)", NULL, 1, 1e12},
    PARAM_END,
};

#define OCT 40 /* octaves of picoseconds: up to ~1 s */
#define SUB 8
#define NB (OCT * SUB)

/* Per host (in its NIC port's state): the gap histogram and T. */
struct hf2t_host {
    uint64_t n, since;
    simtime_t T;        /* 0 until trained */
    uint32_t cnt[NB];
};

struct hf2t {
    simtime_t last_tx;  /* the flow's previous packet, -1 before the first */
    uint64_t seq;       /* the packet the decision below is for */
    simtime_t until;    /* its hold (<= the time asked: none) */
    bool decided;
    uint32_t x;         /* packets since the last stretched gap */
};

static int bucket(simtime_t g)
{
    if (g < 1)
        return 0;
    int o = 63 - __builtin_clzll((uint64_t)g);
    int sub = o >= 3 ? (int)(((uint64_t)g >> (o - 3)) & (SUB - 1)) : 0;
    int b = o * SUB + sub;
    return b < NB ? b : NB - 1;
}

/* The lower edge of a bucket: a conservative T (slightly low). */
static simtime_t bucket_low(int b)
{
    int o = b / SUB, sub = b % SUB;
    return o >= 3 ? (simtime_t)((8u + (unsigned)sub) << (o - 3)) : (simtime_t)1 << o;
}

static void learn(struct hf2t_host *h, const struct hf2t_par *p, simtime_t gap)
{
    h->cnt[bucket(gap)]++;
    h->n++;
    if (++h->since < 256 || h->n < (uint64_t)p->train)
        return;
    h->since = 0;
    uint64_t want = (uint64_t)((double)h->n * p->percentile / 100.0), acc = 0;
    for (int b = 0; b < NB; b++)
        if ((acc += h->cnt[b]) > want) {
            h->T = bucket_low(b);
            return;
        }
}

static void hf2t_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)s, (void)qp, (void)par;
    struct hf2t *f = st;
    f->last_tx = -1;
    f->x = 1;
}

static simtime_t hf2t_hold(struct sim *s, struct qp *qp, void *st, const void *par)
{
    const struct hf2t_par *p = par;
    struct hf2t *f = st;
    simtime_t now = cc_now(s);
    if (f->last_tx < 0)
        return -1;
    if (f->decided && f->seq == qp->snd_nxt)
        return f->until; /* asked again for the same packet */
    f->decided = true;
    f->seq = qp->snd_nxt;
    f->until = -1;
    simtime_t gap = now - f->last_tx, timeout = cc_flowlet_timeout(s);
    struct hf2t_host *h = cc_companion_port_state(s, &cc_hf2t, cc_host_port(s, qp->src));
    learn(h, p, gap);
    if (!h->T || gap >= timeout)
        return -1;
    double alpha = 1;
    if (p->dynamic) {
        if (f->x <= (uint32_t)p->min_thr)
            alpha = (double)p->min_thr / f->x;
        else if (f->x >= (uint32_t)p->max_thr)
            alpha = (double)p->max_thr / f->x;
    }
    if ((double)gap >= (double)h->T * alpha)
        f->until = f->last_tx + timeout;
    return f->until;
}

static void hf2t_on_send(struct sim *s, struct qp *qp, void *st, const void *par, struct pkt *p)
{
    (void)qp, (void)par, (void)p;
    struct hf2t *f = st;
    simtime_t now = cc_now(s);
    if (f->decided && f->until > 0 && now >= f->until)
        f->x = 1; /* this packet ends a stretched gap: a new flowlet starts */
    else
        f->x++;
    f->decided = false;
    f->last_tx = now;
}

const struct cc_ops cc_hf2t = {
    .name = "hf2t",
    .help = "HF2T (APNet'24): the sender stretches a few near-timeout gaps so flowlet switches see flowlets (transport.hf2t = on)",
    .params = hf2t_params,
    .params_size = sizeof(struct hf2t_par),
    .state_size = sizeof(struct hf2t),
    .companion = true,
    .flowlet_lb = true, /* stretches gaps to the balancer's flowlet timeout */
    .port_state_size = sizeof(struct hf2t_host),
    .init = hf2t_init,
    .tx_hold = hf2t_hold,
    .on_send = hf2t_on_send,
};
