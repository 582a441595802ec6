/* PB-FS — Aaronson and Cohen, "PB-FS: Postcard-Based Fast Start", IFIP
 * Networking 2024. A companion (transport.pbfs = on): it runs beside whichever
 * congestion control is chosen and only corrects the line-rate start of new
 * flows, with CC-postcards sent straight from congested switches.
 *
 * Sender marking (§III-B). A flow that needs at least tau to send all its
 * bytes at line rate (size ≥ MaxRate·tau; tau defaults to DC_RTT/2, §V) marks
 * every Δ-th data packet, starting at the Δ-th, with PF_MARK (the paper's
 * PBT-triggering packets, one TOS bit), until its first ACK or postcard.
 *
 * Switch postcards (§III-C, Definition 1). Time is cut into slots of
 * DC_RTT/(2N). Per egress port the switch keeps, for the last N slots (plus
 * the current one), the bytes received for the port (every packet queued
 * there, control packets too), the bytes of marked packets, and the port's
 * queue (all its priorities) at the start of each slot. The ring is kept
 * lazily, without timers: each enqueue rolls it forward to the slot of
 * cc_now(), zero-filling skipped slots; the queue at the start of a skipped
 * slot is the queue after the previous arrival drained at the port rate (no
 * arrival came in between), but never below the queue met now.
 * When a marked packet arrives at t0 the port is congested if
 *     I_p = I_before + N·I_last  >  T·DC_RTT − Q¹          (Definition 1, Eq. 1)
 * where I_before is the bytes received in [t0 − DC_RTT/2, t0], I_last those in
 * the last slot [t0 − DC_RTT/(2N), t0], so I_p is the bytes predicted to reach
 * the port in the 2N slots [t0 − DC_RTT/2, t0 + DC_RTT/2]; T is the egress
 * port's line rate (T·DC_RTT in bytes: what it can send in those 2N slots;
 * the postcard carries it in bits/s) and Q¹ the port's queue at t0 − DC_RTT/2. The paper's windows end at t0 (§IV: Δ makes
 * the flow fill "the previous slot" before its first marked packet); on the
 * slot grid they are read as sliding windows: the current, partial slot
 * whole, the oldest slot pro rata (arrivals taken as even within a slot), Q¹
 * interpolated between the two slot starts around t0 − DC_RTT/2. Then the
 * switch sends a postcard (cc_switch_send, queue 0) carrying the switch id,
 * I_p, Q¹, T, and recentBytes / recentMarkedBytes, the bytes and marked bytes
 * received in the last T_Δ (Δ full-size packets at the marked flow's line
 * rate, §III-D; read from the same ring, at most DC_RTT/2).
 *
 * Sender reaction (§III-D, Algorithm 1), for postcards during the PBT interval:
 *     I_PBT = Δ·recentMarkedBytes/recentBytes·I_p   (share capped at 1: I_nonPBT ≥ 0)
 *     I_nonPBT = I_p − I_PBT
 *     I = max(T·DC_RTT − Q¹ − I_nonPBT, I_min)       I_min = i_min_share × largest BDP
 *     c = I_PBT / (μ·I);  L[switch] = c
 *     if c > 1: UpdateRate(MaxRate / c)
 * UpdateRate (Algorithm 1, lines 13-16): the rate is set, and the postcard's
 * switch becomes ID, the switch that determined it, if there is no ID yet, or
 * the postcard comes from ID itself (so ID's newer, smaller c raises the rate
 * again), or c > L[ID]. (The text of §III-D speaks of "the minimum of these
 * rates" over every switch's latest postcard; the two differ only when ID's
 * new c falls below another switch's latest: Algorithm 1 then follows ID.)
 * The PBT interval ends (Algorithm 1, HandleAck) at the first ACK after which
 * the CC has changed the rate: the rate differs from the one PB-FS last saw
 * or set. DCQCN and TIMELY change it from timers too, so a postcard that
 * finds the rate changed by the CC also ends the interval instead of
 * overriding the CC.
 *
 * Interpretations. DC_RTT (cc.pbfs.dc_rtt, 0 = auto) is the flow's base_rtt:
 * ns-3's maxRtt for every flow while transport.window_global = on (the
 * default); a port takes its slot length from the first packet it queues. The
 * largest BDP is MaxRate × DC_RTT (ns-3's maxBdp when every host has the same
 * line rate). The postcards of §III-C carry the switch id in fb[0]; p->aux
 * holds a tag so PB-FS ignores feedback packets of the CC itself. A flow
 * remembers 8 switches (paths are shorter); a ninth replaces the one with the
 * smallest c, never ID's. PB-FS sets the rate with cc_rate_override, so the
 * CC adopts it as its own current rate ("CurRate = NewRate"): HPCC's Rc and
 * TIMELY's current rate become the cut, and their next update starts from it;
 * DCQCN takes it as one of its own decreases (RC = the cut, RT = the rate
 * before, the RP timer restarts), so the cut holds until a CNP or that timer
 * (dcqcn.c). Schemes that keep no rate of their own (DCTCP, PCN) need nothing.
 *
 * Counters (summary.json, cc/pbfs.h): pbfs_postcards (postcards switches generated) and
 * pbfs_flows (flows that marked at least one packet); per flow, the state
 * counts marked packets and postcards. The paper's sanity figure (§V-B, Fig.
 * 6a): fewer than four postcards per PB-FS flow. pbfs_postcards_by_hops counts
 * postcards by the sending switch's distance in links from the flow's
 * source host (Fig. 6b; 1 = the source ToR, the last bin = that or more). */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include "cc/pbfs.h"
#include "net/cc.h"

#define PBFS_MAX_SLOTS 32      /* upper bound of cc.pbfs.slots (N) */
#define PBFS_SWITCHES 8        /* switches remembered per flow (L of Algorithm 1) */
#define PBFS_POSTCARD_BYTES 64 /* a minimum Ethernet frame */
extern const struct cc_ops cc_pbfs;

#define PBFS_TAG 0x5042465350424653ULL /* "PBFSPBFS" in p->aux: a PB-FS postcard */

enum { FB_SWITCH, FB_IP, FB_Q1, FB_RATE, FB_RECENT, FB_RECENT_MARKED };

struct pbfs_par {
    int64_t delta;
    int64_t slots;
    double mu;
    double i_min_share;
    simtime_t tau;
    simtime_t dc_rtt;
};

/* per flow, at the sender */
struct pbfs {
    uint64_t sent;       /* data packets sent while marking */
    uint64_t rate_seen;  /* the rate after PB-FS last looked or acted */
    uint32_t marked;     /* packets marked */
    uint32_t postcards;  /* postcards switches generated for this flow */
    uint32_t nsw;
    uint32_t rate_id;    /* ID of Algorithm 1: the switch that determined the rate (valid if has_id) */
    bool has_id;
    bool marking;        /* eligible and no ACK or postcard yet */
    bool ignore;         /* the PBT interval is over */
    struct { uint32_t id; double c; } sw[PBFS_SWITCHES];
};

struct pbfs_slot {
    uint64_t bytes, marked; /* received for the port during the slot */
    uint64_t q0;            /* port queue at the slot's start */
};

/* per egress port, at a switch */
struct pbfs_port {
    simtime_t slot_len; /* DC_RTT / (2N); 0 until the first packet */
    int64_t cur;        /* absolute index of the current slot */
    simtime_t t_last;   /* last arrival */
    uint64_t q_last;    /* port queue right after it */
    struct pbfs_slot ring[PBFS_MAX_SLOTS + 1];
};

#define P(m) offsetof(struct pbfs_par, m)
/* Defaults: §IV and §V of the paper. */
static const struct param pbfs_params[] = {
    {"delta", P_INT, P(delta), "6", "marking offset and distance: every delta-th packet is marked (§III-B)", NULL, 1, 1e6},
    {"slots", P_INT, P(slots), "8", "N: slots per half DC_RTT at switches (§III-C); at most 32", NULL, 1, PBFS_MAX_SLOTS},
    {"mu", P_DOUBLE, P(mu), "0.95", "target utilisation in c = I_PBT / (mu I) (§III-D)", NULL, 1e-6, 1},
    {"i_min_share", P_DOUBLE, P(i_min_share), "0.2", "I_min as a share of the largest BDP (§III-D)", NULL, 0, 1},
    {"tau", P_TIME, P(tau), "0", "flows needing at least tau at line rate mark; 0 = DC_RTT/2 (§IV)", NULL, 0, 0},
    {"dc_rtt", P_TIME, P(dc_rtt), "0", "DC_RTT; 0 = the flow's base RTT (ns-3 maxRtt with transport.window_global)", NULL, 0, 0},
    PARAM_END};

static simtime_t dc_rtt(const struct pbfs_par *p, const struct qp *qp)
{
    return p->dc_rtt > 0 ? p->dc_rtt : qp->base_rtt;
}

/* ------------------------------------------------------------------ sender */

static void pbfs_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)s;
    struct pbfs *b = st;
    const struct pbfs_par *p = par;
    simtime_t tau = p->tau > 0 ? p->tau : dc_rtt(p, qp) / 2;
    /* §III-B: only flows that need at least tau at line rate */
    b->marking = qp->max_rate > 0 && tx_time(qp->size, qp->max_rate) >= tau;
    b->rate_seen = qp->rate;
}

static void pbfs_on_send(struct sim *s, struct qp *qp, void *st, const void *par, struct pkt *pk)
{
    (void)qp;
    struct pbfs *b = st;
    const struct pbfs_par *p = par;
    if (!b->marking)
        return;
    if (++b->sent % (uint64_t)p->delta == 0) {
        pk->flags |= PF_MARK;
        if (b->marked++ == 0)
            cc_stat_add(s, &cc_pbfs, PBFS_ST_FLOWS, 1);
    }
}

/* Algorithm 1, HandleAck: marking stops at the first ACK; the PBT interval
 * ends once the CC has changed the rate. */
static void pbfs_on_ack(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *ack)
{
    (void)s;
    (void)par;
    (void)ack;
    struct pbfs *b = st;
    b->marking = false;
    if (qp->rate != b->rate_seen)
        b->ignore = true;
}

/* Algorithm 1, HandleCCPostcard. */
static void pbfs_on_feedback(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *pc)
{
    struct pbfs *b = st;
    const struct pbfs_par *p = par;
    if (pc->aux != PBFS_TAG)
        return; /* the CC's own feedback */
    b->marking = false;
    if (b->ignore)
        return;
    if (qp->rate != b->rate_seen) { /* the CC has taken over */
        b->ignore = true;
        return;
    }
    double dc = (double)dc_rtt(p, qp) / (double)T_SEC;
    double ip = (double)pc->fb[FB_IP], q1 = (double)pc->fb[FB_Q1];
    double recent = (double)pc->fb[FB_RECENT], marked = (double)pc->fb[FB_RECENT_MARKED];
    double share = recent > 0 ? (double)p->delta * marked / recent : 1;
    if (share > 1)
        share = 1;
    double i_pbt = share * ip, i_non = ip - i_pbt;
    double bdp = (double)pc->fb[FB_RATE] / 8 * dc;
    double i_min = p->i_min_share * (double)qp->max_rate / 8 * dc;
    double avail = bdp - q1 - i_non;
    if (avail < i_min)
        avail = i_min;
    if (avail < 1)
        avail = 1;
    double c = i_pbt / (p->mu * avail);

    uint32_t id = (uint32_t)pc->fb[FB_SWITCH], k;
    double c_id = 0; /* L[ID] before this postcard */
    for (uint32_t j = 0; j < b->nsw; j++)
        if (b->has_id && b->sw[j].id == b->rate_id)
            c_id = b->sw[j].c;
    for (k = 0; k < b->nsw && b->sw[k].id != id; k++)
        ;
    if (k == b->nsw) {
        if (b->nsw < PBFS_SWITCHES) {
            b->nsw++;
        } else { /* full: forget the least constraining switch other than ID */
            k = b->has_id && b->sw[0].id == b->rate_id ? 1 : 0;
            for (uint32_t j = k + 1; j < b->nsw; j++)
                if (b->sw[j].c < b->sw[k].c && !(b->has_id && b->sw[j].id == b->rate_id))
                    k = j;
        }
        b->sw[k].id = id;
    }
    b->sw[k].c = c; /* L[p.sID] = c */
    if (c <= 1)
        return;
    /* UpdateRate */
    if (b->has_id && b->rate_id != id && !(c > c_id))
        return;
    b->rate_id = id;
    b->has_id = true;
    double r = (double)qp->max_rate / c;
    cc_rate_override(s, qp, r >= 1 ? (uint64_t)r : 1);
    b->rate_seen = qp->rate;
}

/* ------------------------------------------------------------------ switch */

static inline const struct pbfs_slot *slot_at(const struct pbfs_port *ps, int64_t j, int n)
{
    static const struct pbfs_slot zero;
    return j < 0 ? &zero : &ps->ring[j % (n + 1)];
}

static uint64_t port_queue(const struct sim *s, uint32_t port)
{
    uint64_t b = 0;
    for (int q = 0; q < NQ; q++)
        b += lb_port_queue_bytes(s, port, q);
    return b;
}

/* Bring the ring to the slot of now; q_now: the queue before this arrival. */
static void roll(struct sim *s, uint32_t port, struct pbfs_port *ps, int n, uint64_t q_now)
{
    int64_t k = cc_now(s) / ps->slot_len;
    if (k <= ps->cur)
        return;
    int64_t from = ps->cur + 1 > k - n ? ps->cur + 1 : k - n;
    double bytes_per_ps = (double)lb_port_rate(s, port) / 8 / (double)T_SEC;
    for (int64_t j = from; j <= k; j++) {
        struct pbfs_slot *sl = &ps->ring[j % (n + 1)];
        double drained = (double)(j * ps->slot_len - ps->t_last) * bytes_per_ps;
        uint64_t q = (double)ps->q_last > drained ? ps->q_last - (uint64_t)drained : 0;
        sl->bytes = sl->marked = 0;
        sl->q0 = q > q_now ? q : q_now;
    }
    ps->cur = k;
}

/* Bytes (or marked bytes) received in the last m slot lengths before now,
 * f = the elapsed share of the current slot. */
static double window(const struct pbfs_port *ps, int n, double f, double m, bool marked)
{
    double from = (double)ps->cur + f - m, sum = 0; /* in slots */
    for (int64_t j = ps->cur; j >= 0 && j >= ps->cur - n && (double)(j + 1) > from; j--) {
        const struct pbfs_slot *sl = slot_at(ps, j, n);
        double v = (double)(marked ? sl->marked : sl->bytes), share;
        if (j == ps->cur) /* all of it arrived in [cur, cur + f] */
            share = from <= (double)j || f <= 0 ? 1 : ((double)j + f - from) / f;
        else
            share = from <= (double)j ? 1 : (double)(j + 1) - from;
        sum += v * share;
    }
    return sum;
}

static void pbfs_sw_enqueue(struct sim *s, uint32_t port, void *pst, const void *par, struct pkt *pk, int q)
{
    (void)q;
    struct pbfs_port *ps = pst;
    const struct pbfs_par *p = par;
    if (pk->flow == UINT32_MAX)
        return;
    int n = (int)p->slots;
    if (!ps->slot_len) {
        simtime_t len = dc_rtt(p, cc_flow(s, pk->flow)) / (2 * n);
        ps->slot_len = len > 0 ? len : 1;
    }
    uint64_t qb = port_queue(s, port), q_now = qb > pk->size ? qb - pk->size : 0;
    roll(s, port, ps, n, q_now);
    struct pbfs_slot *cur = &ps->ring[ps->cur % (n + 1)];
    bool mark = pk->type == PKT_DATA && (pk->flags & PF_MARK);
    cur->bytes += pk->size;
    if (mark)
        cur->marked += pk->size;
    ps->t_last = cc_now(s);
    ps->q_last = qb;
    if (!mark)
        return;

    /* Definition 1 at t0 = now */
    double f = (double)(cc_now(s) - ps->cur * ps->slot_len) / (double)ps->slot_len;
    double i_p = window(ps, n, f, n, false) + n * window(ps, n, f, 1, false);
    const struct pbfs_slot *a = slot_at(ps, ps->cur - n, n), *b = slot_at(ps, ps->cur - n + 1, n);
    double q1 = (1 - f) * (double)a->q0 + f * (double)b->q0;
    uint64_t rate = lb_port_rate(s, port);
    double cap = (double)rate / 8 * (double)(2 * n * ps->slot_len) / (double)T_SEC;
    if (i_p <= cap - q1)
        return;

    /* T_Δ: Δ full-size packets at the marked flow's line rate, at most N slots */
    const struct qp *fl = cc_flow(s, pk->flow);
    double t_delta = (double)tx_time((uint64_t)p->delta * (cc_mtu(s) + cc_data_hdr(s)), fl->max_rate ? fl->max_rate : rate);
    double m = t_delta / (double)ps->slot_len;
    if (m > n)
        m = n;
    uint32_t sw = lb_port_node(s, port);
    struct pkt *pc = cc_switch_packet(s, sw, pk->flow, 0, PBFS_POSTCARD_BYTES);
    pc->aux = PBFS_TAG;
    pc->fb[FB_SWITCH] = sw;
    pc->fb[FB_IP] = (uint64_t)llround(i_p);
    pc->fb[FB_Q1] = (uint64_t)llround(q1);
    pc->fb[FB_RATE] = rate;
    pc->fb[FB_RECENT] = (uint64_t)llround(window(ps, n, f, m, false));
    pc->fb[FB_RECENT_MARKED] = (uint64_t)llround(window(ps, n, f, m, true));
    cc_stat_add(s, &cc_pbfs, PBFS_ST_POSTCARDS, 1);
    uint32_t d = cc_hops_to_host(s, sw, pk->src);
    if (d)
        cc_stat_add(s, &cc_pbfs, PBFS_ST_HOPS + (d < PBFS_HOP_BINS ? d - 1 : PBFS_HOP_BINS - 1), 1);
    /* the sender's record, from a switch on any partition (docs/parallel.md): an atomic count */
    __atomic_fetch_add(&((struct pbfs *)cc_companion_state(s, &cc_pbfs, pk->flow))->postcards, 1u, __ATOMIC_RELAXED);
    cc_switch_send(s, sw, pc);
}

static const char *const pbfs_stat_names[] = {
    "pbfs_postcards", "pbfs_flows", /* Fig. 6b: by the sending switch's distance from the source, cc_hops_to_host */
    "pbfs_postcards_by_hops/1", "pbfs_postcards_by_hops/2", "pbfs_postcards_by_hops/3", "pbfs_postcards_by_hops/4",
    "pbfs_postcards_by_hops/5", "pbfs_postcards_by_hops/6", "pbfs_postcards_by_hops/7", "pbfs_postcards_by_hops/8", NULL,
};
_Static_assert(sizeof pbfs_stat_names / sizeof *pbfs_stat_names == PBFS_ST_HOPS + PBFS_HOP_BINS + 1, "one name per counter");

const struct cc_ops cc_pbfs = {
    .name = "pbfs",
    .help = "PB-FS (IFIP Networking'24): postcard-based fast start beside the CC (transport.pbfs = on)",
    .params = pbfs_params,
    .params_size = sizeof(struct pbfs_par),
    .state_size = sizeof(struct pbfs),
    .companion = true,
    .init = pbfs_init,
    .on_ack = pbfs_on_ack,
    .on_send = pbfs_on_send,
    .on_feedback = pbfs_on_feedback,
    .port_state_size = sizeof(struct pbfs_port),
    .sw_enqueue = pbfs_sw_enqueue,
    .stat_names = pbfs_stat_names,
};
