/* ConWeave — Song et al., "Network Load Balancing with In-network Reordering
 * Support for RDMA", SIGCOMM 2023: §3.2 the source ToR (continuous RTT
 * monitoring, rerouting when a reply misses its deadline, path-aware choice
 * avoiding paths NOTIFY marked busy), §3.3 the destination ToR (in-network
 * reordering: packets of the new path wait in a reorder queue until the old
 * path's TAIL arrives, or until the predicted TAIL time has passed), Table 2
 * the packet types (RTT_REQUEST, RTT_REPLY, TAIL, CLEAR, NOTIFY). Implemented
 * from the paper and from reading its public ns-3 artifact
 * (conweave-project/conweave-ns3 at 236a801: conweave-routing.cc,
 * conweave-voq.cc, run.py), whose rules we follow where the paper is
 * informal; no code of it is used here.
 *
 * Per flow, in epochs (the artifact's name for what the paper calls a flowcut
 * round). At the source ToR (the edge switch of the sender):
 *  - A packet after `tx_expiry` of silence, or the first after the epoch
 *    stabilised (an RTT_REPLY in time, or a CLEAR), opens a new epoch: it is
 *    the RTT_REQUEST (INIT), phase 0, and arms the reply deadline
 *    now + base RTT of the ToR pair + `reply_extra`. After a silence the flow
 *    may also take a new path right away: nothing of it is in flight.
 *  - The first packet after a missed deadline is the TAIL: it still takes
 *    the old path, carries its own send time, and from the next packet on
 *    the flow uses the new path in phase 1 (REROUTED), each packet carrying
 *    the TAIL's send time. One reroute per epoch: the next needs a CLEAR.
 *  - The new path: two paths drawn at random among the pair's equal-cost
 *    paths, the first not paused by a NOTIFY; if both are, no reroute
 *    (artifact, path-aware rerouting on). `path_aware = off`: one random
 *    path.
 * At the destination ToR (the receiver's edge switch), per flow:
 *  - RTT_REQUEST -> RTT_REPLY, TAIL -> CLEAR (control packets of 64 B to the
 *    source ToR at queue 0, as the artifact's); an ECN-marked data packet ->
 *    NOTIFY with its path, which the source ToR then avoids for `path_pause`.
 *  - A phase-1 packet that arrives before the TAIL of its epoch is out of
 *    order: it is parked in one of the switch's `reorder_queues` hold queues
 *    (net/lb.h: lb_hold; held packets stay counted in the buffer and PFC
 *    accounting, as in the paper's Tofino2 prototype, whose held queues are
 *    switch buffer; `held_in_buffer = off` holds them beside the buffer and
 *    admits them at their release, as the artifact's VOQs do: its
 *    SwitchNode hands a packet to ConWeave before the MMU's admission, and
 *    a VOQ's flush goes through admission as a new arrival). With them
 *    counted, a destination ToR holding a few hundred packets that came in
 *    from one spine reaches that port's PFC threshold and PAUSEs the spine
 *    (issue 23: the first PAUSEs of the PFC storm at conweave-fig12's 80 %
 *    load, seed 3, are of this kind). The TAIL releases the queue right after itself. Otherwise
 *    the queue is flushed at the TAIL's predicted arrival: the arrival of the
 *    last old-path (phase-0) packet plus the send-time gap between it and the
 *    TAIL, plus `voq_flush_extra`; without any old-path packet of the epoch
 *    seen, now + `voq_default_wait` + `voq_flush_extra`. Each later old-path
 *    packet moves the flush time the same way. Packets of an older epoch pass.
 *    When no queue is free the packet goes on out of order (counted).
 *
 * Parameters (state as the artifact's run.py sets them; 0 = derived):
 *  - reply deadline = base RTT of the ToR pair + reply_extra (4 us). The
 *    base RTT is the pair's round-trip propagation: twice the sum of the link
 *    delays along its first path (the artifact hard-codes one_hop_delay x 4
 *    on two tiers, asserting 1 us links; this is the same number there).
 *  - path_pause 16 us (run.py; network-load-balance.cc's default is 8 us).
 *  - voq_flush_extra / voq_default_wait / tx_expiry: the artifact's values
 *    for the fabric's class, scaled by (fabric RTT / the artifact's fabric
 *    RTT), so with its 1 us links they are exactly its values:
 *        class                  artifact RTT  flush extra  default wait  expiry
 *        two tiers (leaf-spine)     4 us         16 us        200 us     300 us
 *        three tiers, IRN           8 us         16 us        300 us    1000 us
 *        three tiers, lossless      8 us         64 us        600 us    1000 us
 *    where the fabric RTT is the largest ToR-to-ToR round-trip propagation,
 *    and the class is "three tiers" when some ToR pair is 4 switch-to-switch
 *    links apart (leaf-spine: 2), lossless when switch.pfc = on. The artifact
 *    has no two-tier IRN row of its own: it uses the leaf-spine row for both.
 *  - reorder_queues: hold queues per switch. The artifact keeps one VOQ per
 *    reordering flow without a bound; the Tofino2 prototype has a fixed set
 *    of queues per egress port. Default 256 per switch, far above what the
 *    paper's Fig. 16 reports in use, so the bound does not act there.
 * The ConWeave header rides in tags in the artifact (no wire bytes; the
 * paper's header is a few bytes): hdr_bytes = 0 for comparability. Only
 * data packets are balanced (ACK/NACK/CNP take ECMP), as in the artifact,
 * which runs only DCQCN; here any CC works, since ConWeave only reads ECN
 * marks set by the switches. Intra-ToR traffic bypasses ConWeave. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "lb/conweave.h"
#include "lb/pathtab.h"
#include "net/lb.h"

struct cw_par {
    simtime_t reply_extra, path_pause, tx_expiry, voq_flush_extra, voq_default_wait;
    int64_t reorder_queues;
    bool path_aware, reorder, held_in_buffer;
};

#define P(m) offsetof(struct cw_par, m)
static const struct param cw_params[] = {
    {"reply_extra", P_TIME, P(reply_extra), "4us", "RTT_REPLY deadline = the ToR pair's base RTT (round-trip propagation) + this (artifact: 4us)", NULL, 0, 1e15},
    {"path_pause", P_TIME, P(path_pause), "16us", "a NOTIFY (ECN seen at the destination ToR) keeps reroutes off that path this long (artifact run.py: 16us)", NULL, 0, 1e15},
    {"tx_expiry", P_TIME, P(tx_expiry), "0", "silence that ends an epoch; 0 = derived: 300us x fabric RTT/4us on two tiers, 1000us x RTT/8us on three (artifact)", NULL, 0, 1e15},
    {"voq_flush_extra", P_TIME, P(voq_flush_extra), "0", "margin added to the predicted TAIL arrival; 0 = derived: 16us x RTT/4us two tiers, 16us (IRN) / 64us (lossless) x RTT/8us three tiers (artifact)", NULL, 0, 1e15},
    {"voq_default_wait", P_TIME, P(voq_default_wait), "0", "flush wait without an old-path packet to predict from; 0 = derived: 200us x RTT/4us two tiers, 300us (IRN) / 600us (lossless) x RTT/8us three tiers (artifact)", NULL, 0, 1e15},
    {"reorder_queues", P_INT, P(reorder_queues), "256", "reorder (hold) queues per destination ToR; with none free a packet goes on out of order", NULL, 1, 4096},
    {"path_aware", P_BOOL, P(path_aware), "on", "reroute to a path not paused by NOTIFY (two random draws; artifact: on); off = a random path", NULL, 0, 0},
    {"reorder", P_BOOL, P(reorder), "on", "hold out-of-order packets at the destination ToR (off: rerouting alone, the ablation)", NULL, 0, 0},
    {"held_in_buffer", P_BOOL, P(held_in_buffer), "on", "held packets count in the switch buffer and PFC accounting (on: as queued bytes, the paper's Tofino2 queues); off: beside it until released, then admitted (the artifact's VOQs)", NULL, 0, 0},
    PARAM_END};

/* Data-packet flags in the ConWeave header (Table 2). */
enum { CW_NONE, CW_DATA, CW_INIT /* RTT_REQUEST */, CW_TAIL };
/* Control packets (lb.proto). */
enum { CW_REPLY = 1 /* RTT_REPLY */, CW_CLEAR, CW_NOTIFY };
#define CW_CTRL_BYTES 64 /* the artifact's replies and NOTIFY: at least 64 B */
#define NO_TAIL UINT32_MAX

/* The header in p->lb.b: send time at the source ToR (ps, 48 bits), path
 * index (16), TAIL send time as a gap before it (ns, 32; NO_TAIL = none),
 * epoch (16), phase (8), flag (8). The path word itself is p->lb.path. */
struct cw_hdr {
    simtime_t tx;
    uint32_t path, tail_gap_ns;
    uint16_t epoch;
    uint8_t phase, flag;
};

static void hdr_put(struct pkt *p, const struct cw_hdr *h)
{
    uint8_t *b = p->lb.b;
    for (int i = 0; i < 6; i++)
        b[i] = (uint8_t)((uint64_t)h->tx >> (8 * i));
    b[6] = (uint8_t)h->path, b[7] = (uint8_t)(h->path >> 8);
    for (int i = 0; i < 4; i++)
        b[8 + i] = (uint8_t)(h->tail_gap_ns >> (8 * i));
    b[12] = (uint8_t)h->epoch, b[13] = (uint8_t)(h->epoch >> 8);
    b[14] = h->phase, b[15] = h->flag;
}

static void hdr_get(const struct pkt *p, struct cw_hdr *h)
{
    const uint8_t *b = p->lb.b;
    uint64_t tx = 0;
    uint32_t gap = 0;
    for (int i = 0; i < 6; i++)
        tx |= (uint64_t)b[i] << (8 * i);
    for (int i = 0; i < 4; i++)
        gap |= (uint32_t)b[8 + i] << (8 * i);
    h->tx = (simtime_t)tx;
    h->path = b[6] | (uint32_t)b[7] << 8;
    h->tail_gap_ns = gap;
    h->epoch = (uint16_t)(b[12] | b[13] << 8);
    h->phase = b[14];
    h->flag = b[15];
}

/* One ToR pair's paths as the source ToR sees them (lb/pathtab.h's rows;
 * p.base: one-way propagation). */
struct cw_path {
    struct pt_path p;
    simtime_t paused_until; /* NOTIFY: not a reroute target before this */
};
struct cw_row {
    struct pt_row pt;
    struct cw_path e[];
};

/* Per flow: the source ToR's half (tx) and the destination ToR's (rx); each
 * flow has one of each, at different switches. */
struct cw_flow {
    /* source ToR */
    simtime_t active, reply_dl, tail; /* last packet; reply deadline (T_NEVER: none); TAIL send time (-1: none) */
    uint32_t path;
    uint16_t epoch;
    uint8_t phase;
    bool stabilized, valid;
    /* destination ToR */
    simtime_t p0_tx, p0_rx, rx_tail; /* last phase-0 packet's send and arrival time; TAIL send time */
    uint32_t hold;                   /* its hold queue while reordering */
    uint16_t rx_epoch;
    uint8_t rx_phase;
    bool rx_valid, p0_cache, reordering;
};

struct cw_sw {
    struct pathtab tab;      /* to: cw_row by destination edge, made on a pair's first packet */
    uint32_t *free_q, nfree; /* hold queues not in use (a stack) */
    uint32_t *owner;         /* flow reordering in hold queue k */
    /* derived once per edge switch (its first inter-ToR packet) */
    bool derived;
    simtime_t tx_expiry, flush_extra, default_wait;
    /* counters, for tests and curiosity */
    uint64_t reroutes, replies_timely, clears, notifies_sent, notifies_rx, held, queue_full, flushes_by_tail,
        flushes;
};

/* ---------------------------------------------------------------- tables */

static const struct pt_spec cw_tab = {
    .to_row = offsetof(struct cw_row, e),
    .to_entry = sizeof(struct cw_path),
    .max_paths = 65535, /* the index travels in 16 bits */
};

static struct cw_row *row(struct sim *s, struct cw_sw *cs, uint32_t here, uint32_t de)
{
    return (struct cw_row *)pt_to(s, &cs->tab, here, de);
}

/* The pair's base RTT: round-trip propagation along path 0. */
static simtime_t base_rtt(const struct cw_row *r) { return 2 * r->e[0].p.base; }

/* The class and RTT of the fabric as seen from this edge (all ToR pairs from
 * here), and the artifact's per-class times scaled by it (header comment). */
static void derive(struct sim *s, struct lb_switch *sw, const struct cw_par *par)
{
    struct cw_sw *cs = sw->st;
    uint32_t here = (uint32_t)sw->edge;
    simtime_t rtt = 0;
    int hops = 0;
    for (uint32_t e = 0; e < lb_edge_count(s); e++) {
        if (e == here || lb_path_count(s, here, e) == 0)
            continue;
        int h;
        simtime_t d = 2 * pt_walk(s, here, e, lb_path_word(s, here, e, 0), NULL, &h);
        if (d > rtt)
            rtt = d;
        if (h > hops)
            hops = h;
    }
    bool three = hops >= 4;
    double scale = (double)rtt / (double)(three ? 8 * T_US : 4 * T_US);
    simtime_t flush = three && lb_lossless(s) ? 64 * T_US : 16 * T_US;
    simtime_t wait = !three ? 200 * T_US : lb_lossless(s) ? 600 * T_US : 300 * T_US;
    simtime_t expiry = three ? 1000 * T_US : 300 * T_US;
    cs->flush_extra = par->voq_flush_extra ? par->voq_flush_extra : (simtime_t)((double)flush * scale + 0.5);
    cs->default_wait = par->voq_default_wait ? par->voq_default_wait : (simtime_t)((double)wait * scale + 0.5);
    cs->tx_expiry = par->tx_expiry ? par->tx_expiry : (simtime_t)((double)expiry * scale + 0.5);
    cs->derived = true;
}

/* ---------------------------------------------------------------- source ToR */

static bool path_free(const struct cw_row *r, uint32_t i, simtime_t now) { return r->e[i].paused_until <= now; }

/* The reroute target: two random draws, the first not paused (artifact); or
 * none found (UINT32_MAX). */
static uint32_t good_path(struct lb_switch *sw, const struct cw_par *par, const struct cw_row *r, simtime_t now)
{
    uint32_t a = (uint32_t)rng_below(&sw->rng, r->pt.n);
    if (!par->path_aware)
        return a;
    uint32_t b = (uint32_t)rng_below(&sw->rng, r->pt.n);
    return path_free(r, a, now) ? a : path_free(r, b, now) ? b : UINT32_MAX;
}

static void source_tor(struct sim *s, struct lb_switch *sw, const struct cw_par *par, struct pkt *p, uint32_t de)
{
    struct cw_sw *cs = sw->st;
    struct cw_row *r = row(s, cs, (uint32_t)sw->edge, de);
    if (!r->pt.n)
        return; /* partitioned: the switches' own choice */
    struct cw_flow *f = lb_flow_state(s, p->flow);
    simtime_t now = lb_now(s);
    bool fresh = !f->valid;
    bool expired = fresh || f->active + cs->tx_expiry < now;
    bool stab = !expired && f->stabilized;
    bool timeout = false;
    f->stabilized = false;
    f->active = now;
    if (expired || stab)
        f->reply_dl = now + base_rtt(r) + par->reply_extra;
    else if (f->reply_dl != T_NEVER && f->reply_dl < now) {
        f->reply_dl = T_NEVER; /* one reroute per epoch */
        timeout = true;
    }
    struct cw_hdr h = {.tx = now, .tail_gap_ns = NO_TAIL, .flag = CW_DATA};
    if (expired || stab) {
        f->epoch++;
        f->phase = 0;
        h.phase = 0;
        h.flag = CW_INIT;
    } else if (timeout) {
        f->phase = 1;
        h.phase = 0; /* the TAIL is the old path's last packet */
        h.flag = CW_TAIL;
    } else {
        h.phase = f->phase;
    }
    h.epoch = f->epoch;
    uint32_t good = good_path(sw, par, r, now);
    if (fresh || f->path >= r->pt.n)
        f->path = good != UINT32_MAX ? good : (uint32_t)rng_below(&sw->rng, r->pt.n);
    else if ((expired || timeout) && good != UINT32_MAX) {
        cs->reroutes += good != f->path;
        if (expired) /* nothing in flight: move now */
            f->path = good;
    }
    h.path = f->path;
    if (timeout && good != UINT32_MAX)
        f->path = good; /* the TAIL took the old path; the rest take the new one */
    f->valid = true;
    if (expired || stab)
        f->tail = -1;
    else if (timeout)
        f->tail = now;
    if (f->tail >= 0) {
        simtime_t gap = (now - f->tail) / T_NS;
        h.tail_gap_ns = gap >= NO_TAIL ? NO_TAIL - 1 : (uint32_t)gap;
    }
    hdr_put(p, &h);
    p->lb.path = r->e[h.path].p.word;
    p->lb.path_hop = 0;
}

static void on_reply(struct sim *s, struct cw_sw *cs, const struct pkt *c)
{
    uint32_t flow, ep;
    memcpy(&flow, c->lb.b, sizeof flow);
    memcpy(&ep, c->lb.b + 4, sizeof ep);
    uint16_t epoch = (uint16_t)ep;
    uint8_t phase = (uint8_t)(ep >> 16);
    if (flow >= lb_flow_count(s))
        return;
    struct cw_flow *f = lb_flow_state(s, flow);
    if (epoch != f->epoch || phase != f->phase)
        return; /* about an epoch or phase that is over */
    simtime_t now = lb_now(s);
    if (c->lb.proto == CW_REPLY) {
        if (f->reply_dl != T_NEVER && now < f->reply_dl) { /* in time: the path is fine, a new epoch may start */
            f->stabilized = true;
            f->reply_dl = T_NEVER;
            cs->replies_timely++;
        }
    } else { /* CLEAR: the reroute's reordering is over */
        f->stabilized = true;
        f->reply_dl = T_NEVER;
        cs->clears++;
    }
}

static void on_notify(struct sim *s, struct cw_sw *cs, const struct cw_par *par, const struct pkt *c)
{
    uint32_t de, i;
    memcpy(&de, c->lb.b, sizeof de);
    memcpy(&i, c->lb.b + 4, sizeof i);
    if (de >= lb_edge_count(s) || !cs->tab.to[de] || i >= cs->tab.to[de]->n)
        return;
    ((struct cw_row *)cs->tab.to[de])->e[i].paused_until = lb_now(s) + par->path_pause;
    cs->notifies_rx++;
}

/* ---------------------------------------------------------------- destination ToR */

static void send_ctrl(struct sim *s, struct lb_switch *sw, const struct pkt *p, uint8_t proto, uint32_t a, uint32_t b)
{
    uint32_t src_tor = lb_edge_node(s, lb_host_edge(s, p->src));
    struct pkt *c = lb_ctrl_packet(s, sw->node, src_tor, proto, CW_CTRL_BYTES);
    memcpy(c->lb.b, &a, sizeof a);
    memcpy(c->lb.b + 4, &b, sizeof b);
    lb_ctrl_send(s, c);
}

static void reply(struct sim *s, struct lb_switch *sw, const struct pkt *p, uint8_t proto, uint16_t epoch)
{
    /* flow id, then epoch and the phase the source will be in: 0 after the
     * RTT_REQUEST, 1 after the TAIL (the artifact's reply tags) */
    send_ctrl(s, sw, p, proto, p->flow, (uint32_t)epoch | (uint32_t)(proto == CW_CLEAR) << 16);
}

static void dest_tor(struct sim *s, struct lb_switch *sw, const struct cw_par *par, struct pkt *p, uint32_t *out)
{
    struct cw_sw *cs = sw->st;
    struct cw_flow *f = lb_flow_state(s, p->flow);
    struct cw_hdr h;
    hdr_get(p, &h);
    simtime_t now = lb_now(s);
    if (!f->rx_valid) { /* the source's first epoch is 1 */
        f->rx_valid = true;
        f->rx_epoch = 1;
    }
    int16_t d = (int16_t)(uint16_t)(h.epoch - f->rx_epoch);
    if (d < 0)
        return; /* an older epoch: straight on */
    bool ooo = false;
    if (h.phase == 0) {
        f->p0_tx = h.tx;
        f->p0_rx = now;
    }
    if (d > 0) { /* a new epoch */
        f->rx_epoch = h.epoch;
        f->rx_phase = h.flag == CW_TAIL ? 1 : 0;
        ooo = h.phase > f->rx_phase;
        f->p0_cache = h.phase == 0;
    } else {
        if (h.flag == CW_TAIL) {
            if (!f->reordering)
                f->rx_phase = 1; /* else at the flush */
        } else if (f->rx_phase < h.phase) {
            ooo = true;
        }
        if (h.phase == 0)
            f->p0_cache = true;
    }
    if (h.flag == CW_TAIL || h.phase == 1)
        f->rx_tail = h.tail_gap_ns == NO_TAIL ? 0 : h.tx - (simtime_t)h.tail_gap_ns * T_NS;
    /* when the TAIL should be here: the old path's latest packet plus the
     * send-time gap from it to the TAIL */
    simtime_t gap = f->p0_cache ? (f->rx_tail > f->p0_tx ? f->rx_tail - f->p0_tx : 0) : cs->default_wait;
    simtime_t flush;
    if (h.phase == 1)
        flush = (f->p0_cache ? f->p0_rx : now) + gap + cs->flush_extra;
    else if (h.flag == CW_TAIL)
        flush = now; /* released right after the TAIL itself */
    else
        flush = now + gap + cs->flush_extra;
    bool hold = false;
    if (h.phase == 0) {
        if (f->reordering) {
            lb_hold_deadline(s, sw, f->hold, flush);
            if (h.flag == CW_TAIL)
                cs->flushes_by_tail++;
        }
    } else if (ooo && par->reorder) {
        if (f->reordering) {
            hold = true;
        } else if (cs->nfree) {
            f->hold = cs->free_q[--cs->nfree];
            cs->owner[f->hold] = p->flow;
            f->reordering = true;
            hold = true;
        } else {
            cs->queue_full++;
        }
    }
    if (par->path_aware && (p->flags & PF_ECN)) {
        send_ctrl(s, sw, p, CW_NOTIFY, lb_host_edge(s, p->dst), h.path);
        cs->notifies_sent++;
    }
    if (h.flag == CW_INIT)
        reply(s, sw, p, CW_REPLY, h.epoch);
    else if (h.flag == CW_TAIL)
        reply(s, sw, p, CW_CLEAR, h.epoch);
    if (hold) {
        if (par->held_in_buffer)
            lb_hold(s, sw, f->hold, p, *out, flush);
        else
            lb_hold_outside(s, sw, f->hold, p, *out, flush);
        *out = LB_HELD;
        cs->held++;
    }
}

/* ---------------------------------------------------------------- hooks */

static uint32_t cw_hold_queues(const void *par) { return (uint32_t)((const struct cw_par *)par)->reorder_queues; }

static void cw_init(struct sim *s, struct lb_switch *sw, const void *par_)
{
    const struct cw_par *par = par_;
    struct cw_sw *cs = sw->st;
    if (sw->edge < 0)
        return;
    uint32_t nq = (uint32_t)par->reorder_queues;
    pt_init(s, sw, &cs->tab, &cw_tab, cs);
    cs->free_q = lb_alloc(s, nq * sizeof *cs->free_q);
    cs->owner = lb_alloc(s, nq * sizeof *cs->owner);
    for (uint32_t k = 0; k < nq; k++)
        cs->free_q[k] = nq - 1 - k; /* queue 0 first */
    cs->nfree = nq;
}

/* A data packet between ToRs (not intra-ToR) carries a ConWeave header from
 * the source ToR on. */
static bool between_tors(struct sim *s, const struct lb_switch *sw, const struct pkt *p, uint32_t *se, uint32_t *de)
{
    if (sw->edge < 0 || p->type != PKT_DATA)
        return false;
    *se = lb_host_edge(s, p->src);
    *de = lb_host_edge(s, p->dst);
    return *se != *de && *se != UINT32_MAX && *de != UINT32_MAX;
}

static void cw_on_arrival(struct sim *s, struct lb_switch *sw, const void *par_, struct pkt *p, uint32_t in_port)
{
    const struct cw_par *par = par_;
    uint32_t se, de;
    if (in_port == UINT32_MAX || !lb_port_to_host(s, in_port) || !between_tors(s, sw, p, &se, &de))
        return;
    if (!((struct cw_sw *)sw->st)->derived)
        derive(s, sw, par);
    source_tor(s, sw, par, p, de);
}

static void cw_on_enqueue(struct sim *s, struct lb_switch *sw, const void *par_, struct pkt *p, uint32_t *out, int q)
{
    (void)q;
    const struct cw_par *par = par_;
    uint32_t se, de;
    if (!between_tors(s, sw, p, &se, &de) || de != (uint32_t)sw->edge || p->lb.b[15] == CW_NONE)
        return;
    if (!((struct cw_sw *)sw->st)->derived)
        derive(s, sw, par);
    dest_tor(s, sw, par, p, out);
}

/* A reorder queue's flush time came (or the TAIL asked for it): reordering of
 * that flow is over, and its phase is 1 now. */
static void cw_on_release(struct sim *s, struct lb_switch *sw, const void *par, uint32_t k)
{
    (void)par;
    struct cw_sw *cs = sw->st;
    struct cw_flow *f = lb_flow_state(s, cs->owner[k]);
    if (!f->reordering || f->hold != k)
        return;
    f->reordering = false;
    f->rx_phase = 1;
    cs->free_q[cs->nfree++] = k;
    cs->flushes++;
}

static void cw_on_ctrl(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p)
{
    struct cw_sw *cs = sw->st;
    if (sw->edge < 0)
        return;
    if (p->lb.proto == CW_NOTIFY)
        on_notify(s, cs, par, p);
    else if (p->lb.proto == CW_REPLY || p->lb.proto == CW_CLEAR)
        on_reply(s, cs, p);
}

/* Packets without a path (intra-ToR data): ECMP. */
static int cw_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports, int n)
{
    (void)ports;
    (void)par;
    return lb_ecmp_pick(s, sw, p, n);
}

const struct lb_ops lb_conweave = {
    .name = "conweave",
    .help = "ConWeave (SIGCOMM'23): source-ToR RTT monitoring and rerouting, destination-ToR reorder queues",
    .params = cw_params,
    .params_size = sizeof(struct cw_par),
    .node_state_size = sizeof(struct cw_sw),
    .flow_state_size = sizeof(struct cw_flow),
    .flow_state_at_dst = true, /* the destination ToR's half of struct cw_flow */
    .hold_queues = cw_hold_queues,
    .init = cw_init,
    .on_arrival = cw_on_arrival,
    .choose = cw_choose,
    .on_enqueue = cw_on_enqueue,
    .on_release = cw_on_release,
    .on_ctrl = cw_on_ctrl,
};

/* ---------------------------------------------------------------- for tests (lb/conweave.h) */
void conweave_counts(const struct sim *s, struct conweave_counts *c)
{
    memset(c, 0, sizeof *c);
    if (!lb_running_params(s, &lb_conweave))
        return;
    for (uint32_t n = 0; n < lb_node_count(s); n++) {
        const struct lb_switch *sw = lb_switch_of(s, n);
        const struct cw_sw *cs = sw ? sw->st : NULL;
        if (!cs)
            continue;
        c->reroutes += cs->reroutes, c->replies_timely += cs->replies_timely, c->clears += cs->clears;
        c->notifies_sent += cs->notifies_sent, c->notifies_rx += cs->notifies_rx, c->held += cs->held;
        c->queue_full += cs->queue_full, c->flushes_by_tail += cs->flushes_by_tail;
        c->flushes += cs->flushes;
    }
}
int conweave_path_paused(struct sim *s, uint32_t node, uint32_t de, uint32_t i)
{
    const struct lb_switch *sw = lb_switch_of(s, node);
    const struct cw_sw *cs = sw ? sw->st : NULL;
    if (!lb_running_params(s, &lb_conweave) || !cs || !cs->tab.to || de >= lb_edge_count(s) || !cs->tab.to[de] ||
        i >= cs->tab.to[de]->n)
        return -1;
    return !path_free((const struct cw_row *)cs->tab.to[de], i, lb_now(s));
}
void conweave_derived(struct sim *s, uint32_t node, simtime_t t[3])
{
    struct lb_switch *sw = lb_switch_of(s, node);
    struct cw_sw *cs = sw ? sw->st : NULL;
    const struct cw_par *par = lb_running_params(s, &lb_conweave);
    t[0] = t[1] = t[2] = 0;
    if (!par || !cs || sw->edge < 0)
        return;
    if (!cs->derived)
        derive(s, sw, par);
    t[0] = cs->tx_expiry, t[1] = cs->flush_extra, t[2] = cs->default_wait;
}
