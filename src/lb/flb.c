/* FLB — Hu, Li, Liu, Wang, Liu, Yin, Wang, Huang, Chen, "FLB: Fine-grained
 * Load Balancing for Lossless Datacenter Networks", USENIX ATC 2025.
 * Implemented from the paper's text (../shared/papers/001_*): §3.1 and
 * Algorithm 1 (rerouting without reordering), §3.2 (flow isolation, CNMs),
 * §3.4 (deployment at the edge switches only, source routing), Appendix A
 * (the isolation threshold K). Its minimal rate control (§3.3) is
 * cc/flbrc.c; FLB itself runs over any CC.
 *
 * Rerouting (§3.1, Algorithm 1), at the source edge switch, per data packet
 * of a flow between two edge switches (intra-edge traffic bypasses FLB):
 *  - a new flow (no entry, or none hit for `flow_timeout`, §3.1's 1 ms
 *    ageing) takes the path of least one-way delay among the paths whose
 *    first hop is not isolated (lines 3-5); ties are broken at random;
 *  - a packet of an existing flow moves to the fastest path p' with
 *    0 < owd(p) − owd(p') < Δt, Δt the gap since the flow's previous packet
 *    at this switch (lines 8-12), else it stays (lines 13-14).
 *  One-way delays: the source edge stamps a packet of a path with its arrival
 *  time once per `sample_rtts` base RTTs of the edge pair (the paper: two; 0
 *  = every packet), the destination edge subtracts it from its own arrival time and
 *  piggybacks one (path, delay) entry on each packet going back to that
 *  source edge (ACKs included, hence all_packets), changed entries first,
 *  like CONGA's feedback. The paper subtracts a minimum-history base delay to
 *  cancel clock offset; the simulation's clocks agree, so the delay is used
 *  as measured and only differences between paths matter. A path without a
 *  fresh measurement (none within `aging`) reads as its unloaded delay (the
 *  least it was ever measured at, or the links' delays and one MTU's
 *  serialisation per hop before the first sample), so a path that was slow
 *  once and then carried nothing is not avoided for ever.
 *
 * Isolation (§3.2), at every switch egress port (data queues):
 *  - A packet that would take the queue above K marks the port congested and
 *    its flow congested there; each newly congested flow, and a flow whose
 *    last CNM carried a smaller n, gets a CNM (congestion flag, flow id, n =
 *    the flows congested at that port so far, and the port rate C).
 *  - When the queue drains below K after a dequeue, every flow congested there
 *    gets a CNM with the non-congestion flag (and the final n) and the port
 *    forgets them.
 *  - A flow is congested at one port at a time (the first that reported it);
 *    the paper keeps the previous hop per flow, the flow id is its idealised
 *    flow table.
 *  - Delivery: the paper sends the CNM hop by hop back along the recorded
 *    previous hops to the source edge. Here it is a PKT_CTRL addressed to the
 *    flow's source edge switch (lb_ctrl_packet), routed on shortest paths in
 *    the strict-priority queue 0. In the leaf-spine and Clos topologies the
 *    shortest way back has as many hops as the flow's way in, queue 0 is
 *    never paused and never waits for more than the one packet being sent,
 *    so it arrives when the hop-by-hop CNM would; only the switches it
 *    crosses may differ, and no switch on the way acts on a CNM.
 *  - The source edge keeps the congested flows (its isolation table) with
 *    their converged rate C/n, and isolates ceil(Σ C/n / uplink rate) of its
 *    uplinks (at least one, at most all but one, so uncongested traffic keeps
 *    a way out). An uplink is the unit of isolation because a PFC PAUSE that
 *    reaches the source edge stops the whole link: in a leaf-spine an uplink
 *    is exactly one path; in a Clos it is the paths through one aggregation
 *    switch. The first isolated uplink is the one the reporting flow's last
 *    packet took ("where the last packet in f2 is pending"); further ones are
 *    the non-isolated uplinks with the most bytes queued.
 *  - A congested flow keeps its path while its uplink is isolated, else it is
 *    given a path through a random isolated uplink ("randomly assigns the
 *    congested flows to one of these paths"). Uncongested flows never use an
 *    isolated uplink: one standing on one moves at once (isolation outranks
 *    reordering here, as in Fig. 6(b)).
 *  - A non-congestion CNM removes the flow from the table, and entries not
 *    refreshed (by a packet or a CNM) within `iso_timeout` are removed by a
 *    periodic check; the number of isolated uplinks follows the table (the
 *    last isolated is released first).
 *  - With the minimal rate control (transport.cc = flbrc, which declares
 *    FLB its pair: lb_cc_paired(); `notify = auto`)
 *    the source edge also forwards each CNM to the sender (cc_switch_packet,
 *    read by flbrc's on_feedback).
 *
 * K (Appendix A): in [2dC, Q_PFC/n − 2dC(n − 1)); `k = 0` takes the
 * paper's conservative lower bound 2dC per egress port, C its rate and d the
 * largest one-way delay from a host to a destination edge switch (the
 * topology's longest edge-to-edge path plus the host link, each link's
 * propagation and one MTU's serialisation). `k` sets it outright, and
 * `k_share` > 0 sets it to that share of the switch buffer (§4.2's fixed
 * 20 % / 30 % thresholds). With FLB's static 256 KB PFC threshold and 5 us
 * links the upper bound is already below 2dC for n = 2, so 2dC is the only
 * value the appendix leaves at scale.
 *
 * Choices where the paper is silent: the 32-bit feedback word (path index,
 * delay in 8 ns units, saturating at 8.4 ms), `aging` 1 ms (the paper's flow
 * entry ageing), the uplink reading of "path" for isolation in a Clos, and
 * per-packet random isolated paths replaced by a per-flow draw (no
 * reordering among isolation paths). No wire bytes are counted for FLB's
 * fields (the paper's prototype keeps them in existing headers). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "lb/flb.h"
#include "net/cc.h"
#include "net/lb.h"

extern const struct lb_ops lb_ecmp;

enum { NOTIFY_AUTO, NOTIFY_ON, NOTIFY_OFF };
enum { CNM_CONGESTED = 1, CNM_RELEASE = 2 }; /* p->lb.proto of FLB's PKT_CTRL */

struct flb_par {
    simtime_t aging, flow_timeout, iso_timeout;
    uint64_t k;
    double k_share, sample_rtts;
    int notify;
};

#define P(m) offsetof(struct flb_par, m)
static const struct param flb_params[] = {
    {"sample_rtts", P_DOUBLE, P(sample_rtts), "2", "one-way delay: stamp a packet per path once per this many base RTTs of the edge pair (paper: 2; 0 = every packet)", NULL, 0, 1e6},
    {"aging", P_TIME, P(aging), "1ms", "a path's delay not measured for this long reads as its unloaded delay", NULL, 1, 1e15},
    {"flow_timeout", P_TIME, P(flow_timeout), "1ms", "a flow entry not hit for this long is removed: the next packet is a new flow (sec. 3.1)", NULL, 1, 1e15},
    {"iso_timeout", P_TIME, P(iso_timeout), "1ms", "an isolation-table entry not refreshed for this long is released (sec. 3.2)", NULL, 1, 1e15},
    {"k", P_SIZE, P(k), "0", "isolation threshold K on egress queues; 0 = Appendix A's lower bound 2dC per port", NULL, 0, 1e12},
    {"k_share", P_DOUBLE, P(k_share), "0", "> 0: K = this share of the switch buffer (sec. 4.2's fixed 0.2 / 0.3 thresholds)", NULL, 0, 1},
    {"notify", P_ENUM, P(notify), "auto", "source edge forwards CNMs to senders: auto = with transport.cc = flbrc", "auto|on|off", 0, 0},
    PARAM_END};

/* ---------------------------------------------------------------- state */

/* A source edge's view of one path to a destination edge. */
struct fpath {
    simtime_t owd;        /* latest measured one-way delay */
    simtime_t t;          /* when it arrived here (0 = never) */
    simtime_t base;       /* unloaded delay: least measured, or the links' before that */
    simtime_t stamped;    /* last time a packet on it was stamped */
    uint32_t word, port;  /* path word, first hop (local uplink) */
};

/* A destination edge's latest measurement of one path from a source edge. */
struct fmeas {
    uint32_t owd8;        /* delay in 8 ns units */
    bool changed;         /* not fed back since it changed */
};

struct frow {
    uint32_t n, rr, nchanged;
    simtime_t period;      /* source edge: stamp period per path */
    union {
        struct fpath *to;  /* at the source edge */
        struct fmeas *from; /* at the destination edge */
    };
};

/* An egress port as a congestion point. */
struct cpoint {
    uint64_t k;         /* isolation threshold, bytes */
    uint32_t *flows;    /* flows congested here */
    uint32_t n, cap;
    int q;              /* the queue that crossed K */
    bool congested;
};

struct flb_sw {
    struct frow **to, **from; /* edges only, by remote edge, made on first use */
    struct cpoint *cp;        /* by port - port0 */
    bool k_ready;
    /* source edge: isolation */
    bool *iso;                /* by port - port0: an isolated uplink */
    uint32_t *iso_stack;      /* isolated uplinks, in the order they were isolated */
    uint32_t n_iso, n_up;
    uint64_t up_rate;
    uint32_t *cflows;         /* the isolation table */
    uint32_t ncf, capcf;
    uint64_t cong_rate;       /* Σ C/n over the table, bps */
    bool notify;
};

struct flb_flow {
    /* at its source edge */
    simtime_t prev;       /* arrival of its previous packet */
    uint32_t path;        /* index in its To row */
    bool live;
    bool congested;       /* in the isolation table */
    uint32_t ci;          /* its index there */
    uint64_t crate;       /* its converged rate C/n */
    simtime_t ct;         /* last refresh of the entry */
    /* at the congestion point */
    uint32_t cport;       /* congested at global port cport - 1; 0 = nowhere */
    uint32_t n_sent;      /* n its last CNM carried */
};

#define FB_VALID (1u << 31) /* p->lb.fb = valid | path << 20 | delay / 8 ns */
#define FB_PATHS 2047u
#define FB_DMAX 0xfffffu
#define STAMPED 0x5a        /* p->lb.b[10]: b[0..7] hold the source edge's time, b[8..9] the path */
#define TIMER_ISO 0

/* ---------------------------------------------------------------- helpers */

static void *grow(struct sim *s, void *old, uint32_t *cap, size_t elem)
{
    uint32_t ncap = *cap ? 2 * *cap : 16;
    void *m = lb_alloc(s, (size_t)ncap * elem);
    if (old)
        memcpy(m, old, (size_t)*cap * elem);
    *cap = ncap; /* the old block stays with the simulation: growth is geometric and rare */
    return m;
}

static simtime_t mtu_time(const struct sim *s, uint32_t port)
{
    uint64_t bits = (uint64_t)(cc_mtu(s) + 48) * 8;
    return (simtime_t)(bits * 1000000000000ULL / lb_port_rate(s, port));
}

static struct frow *to_row(struct sim *s, const struct flb_par *par, struct flb_sw *fs, uint32_t here, uint32_t de)
{
    if (fs->to[de])
        return fs->to[de];
    uint32_t n = lb_path_count(s, here, de);
    if (n > FB_PATHS)
        n = FB_PATHS;
    struct frow *r = lb_alloc(s, sizeof *r);
    r->n = n;
    r->to = lb_alloc(s, (n ? n : 1) * sizeof *r->to);
    for (uint32_t i = 0; i < n; i++) {
        struct fpath *e = &r->to[i];
        uint32_t ports[4];
        e->word = lb_path_word(s, here, de, i);
        int k = lb_path_ports(s, here, de, e->word, ports, 4);
        e->port = k ? ports[0] : UINT32_MAX;
        for (int j = 0; j < k; j++)
            e->base += lb_port_delay(s, ports[j]) + mtu_time(s, ports[j]);
        e->stamped = -1;
    }
    /* the pair's base RTT: both ways along path 0 and both host links */
    simtime_t host = 0;
    if (lb_host_count(s)) {
        uint32_t hp = cc_host_port(s, lb_host_node(s, 0));
        host = lb_port_delay(s, hp) + mtu_time(s, hp);
    }
    r->period = n ? (simtime_t)(par->sample_rtts * (double)(2 * (r->to[0].base + 2 * host))) : 0;
    fs->to[de] = r;
    return r;
}

static struct frow *from_row(struct sim *s, struct flb_sw *fs, uint32_t se, uint32_t here)
{
    if (!fs->from[se]) {
        uint32_t n = lb_path_count(s, se, here);
        struct frow *r = lb_alloc(s, sizeof *r);
        r->n = n > FB_PATHS ? FB_PATHS : n;
        r->from = lb_alloc(s, (r->n ? r->n : 1) * sizeof *r->from);
        fs->from[se] = r;
    }
    return fs->from[se];
}

static simtime_t path_owd(const struct flb_par *par, const struct fpath *e, simtime_t now)
{
    return e->t && now - e->t < par->aging ? e->owd : e->base;
}

static bool path_isolated(const struct lb_switch *sw, const struct flb_sw *fs, const struct fpath *e)
{
    return fs->n_iso && e->port != UINT32_MAX && fs->iso[e->port - sw->port0];
}

/* Appendix A's K per egress port: 2dC (see the header), or the overrides. */
static void k_setup(struct sim *s, struct lb_switch *sw, const struct flb_par *par)
{
    struct flb_sw *fs = sw->st;
    simtime_t d = 0;
    if (lb_host_count(s)) {
        uint32_t hp = cc_host_port(s, lb_host_node(s, 0));
        d = lb_port_delay(s, hp) + mtu_time(s, hp);
    }
    simtime_t far = 0;
    for (uint32_t de = 1; de < lb_edge_count(s); de++) { /* the longest edge-to-edge way from edge 0 */
        uint32_t ports[4];
        if (!lb_path_count(s, 0, de))
            continue;
        int k = lb_path_ports(s, 0, de, lb_path_word(s, 0, de, 0), ports, 4);
        simtime_t t = 0;
        for (int j = 0; j < k; j++)
            t += lb_port_delay(s, ports[j]) + mtu_time(s, ports[j]);
        if (t > far)
            far = t;
    }
    d += far;
    for (uint32_t i = 0; i < sw->nports; i++) {
        struct cpoint *c = &fs->cp[i];
        if (par->k_share > 0)
            c->k = (uint64_t)(par->k_share * (double)lb_switch_buffer(s, sw->node));
        else if (par->k)
            c->k = par->k;
        else
            c->k = (uint64_t)((double)d * 2 * (double)lb_port_rate(s, sw->port0 + i) / 8e12);
    }
    fs->k_ready = true;
}

/* ---------------------------------------------------------------- CNMs */

static void cnm_send(struct sim *s, struct lb_switch *sw, uint32_t flow, int proto, uint32_t n, uint64_t rate)
{
    struct qp *f = cc_flow(s, flow);
    uint32_t se = lb_host_edge(s, f->src);
    if (se == UINT32_MAX)
        return;
    struct pkt *c = lb_ctrl_packet(s, sw->node, lb_edge_node(s, se), (uint8_t)proto, FLBRC_MSG_BYTES);
    c->lb.fb = flow;
    c->aux = rate;
    memcpy(c->lb.b, &n, sizeof n);
    lb_ctrl_send(s, c);
}

/* A data packet of `flow` is about to join egress `port` queue q. */
static void congestion_check(struct sim *s, struct lb_switch *sw, struct pkt *p, uint32_t port, int q)
{
    struct flb_sw *fs = sw->st;
    struct cpoint *c = &fs->cp[port - sw->port0];
    if (lb_port_queue_bytes(s, port, q) + p->size <= c->k)
        return;
    struct flb_flow *f = lb_flow_state(s, p->flow);
    if (!c->congested) {
        c->congested = true;
        c->q = q;
    }
    if (f->cport == 0) {
        if (c->n == c->cap)
            c->flows = grow(s, c->flows, &c->cap, sizeof *c->flows);
        c->flows[c->n++] = p->flow;
        f->cport = port + 1;
    } else if (f->cport != port + 1 || f->n_sent >= c->n) {
        return; /* congested elsewhere, or already told this n */
    }
    f->n_sent = c->n;
    cnm_send(s, sw, p->flow, CNM_CONGESTED, c->n, lb_port_rate(s, port));
}

/* After a dequeue at a congested port: below K again releases its flows. */
static void release_check(struct sim *s, struct lb_switch *sw, uint32_t port)
{
    struct flb_sw *fs = sw->st;
    struct cpoint *c = &fs->cp[port - sw->port0];
    if (!c->congested || lb_port_queue_bytes(s, port, c->q) >= c->k)
        return;
    for (uint32_t i = 0; i < c->n; i++) {
        struct flb_flow *f = lb_flow_state(s, c->flows[i]);
        if (f->cport == port + 1) {
            f->cport = 0;
            f->n_sent = 0;
            cnm_send(s, sw, c->flows[i], CNM_RELEASE, c->n, lb_port_rate(s, port));
        }
    }
    c->n = 0;
    c->congested = false;
}

/* ---------------------------------------------------------------- isolation (source edge) */

static uint32_t iso_need(const struct flb_sw *fs)
{
    if (!fs->ncf || fs->n_up < 2)
        return 0;
    uint64_t need = (fs->cong_rate + fs->up_rate - 1) / fs->up_rate;
    if (need < 1)
        need = 1;
    return need > fs->n_up - 1 ? fs->n_up - 1 : (uint32_t)need;
}

/* Make the isolated uplinks match the table; `hint` is an uplink to isolate
 * first (the reporting flow's), UINT32_MAX for none. */
static void iso_update(struct sim *s, struct lb_switch *sw, uint32_t hint)
{
    struct flb_sw *fs = sw->st;
    uint32_t need = iso_need(fs);
    while (fs->n_iso > need)
        fs->iso[fs->iso_stack[--fs->n_iso] - sw->port0] = false;
    while (fs->n_iso < need) {
        uint32_t pick = UINT32_MAX;
        if (hint != UINT32_MAX && !fs->iso[hint - sw->port0]) {
            pick = hint;
        } else {
            uint64_t most = 0;
            for (uint32_t i = 0; i < sw->nports; i++) {
                uint32_t pt = sw->port0 + i;
                if (lb_port_to_host(s, pt) || fs->iso[i])
                    continue;
                uint64_t b = lb_port_bytes(s, pt);
                if (pick == UINT32_MAX || b > most) {
                    pick = pt;
                    most = b;
                }
            }
        }
        if (pick == UINT32_MAX)
            break;
        fs->iso[pick - sw->port0] = true;
        fs->iso_stack[fs->n_iso++] = pick;
    }
}

/* Out of the isolation table (swap with the last entry). */
static void iso_drop(struct sim *s, struct flb_sw *fs, uint32_t flow)
{
    struct flb_flow *f = lb_flow_state(s, flow);
    if (!f->congested)
        return;
    uint32_t i = f->ci, last = fs->cflows[--fs->ncf];
    if (i < fs->ncf) {
        fs->cflows[i] = last;
        ((struct flb_flow *)lb_flow_state(s, last))->ci = i;
    }
    fs->cong_rate -= f->crate;
    f->congested = false;
}

static void iso_add(struct sim *s, struct lb_switch *sw, const struct flb_par *par, uint32_t flow, uint64_t rate)
{
    struct flb_sw *fs = sw->st;
    struct flb_flow *f = lb_flow_state(s, flow);
    simtime_t now = lb_now(s);
    if (!f->congested) {
        if (fs->ncf == fs->capcf)
            fs->cflows = grow(s, fs->cflows, &fs->capcf, sizeof *fs->cflows);
        f->ci = fs->ncf;
        fs->cflows[fs->ncf++] = flow;
        f->congested = true;
        f->crate = 0;
    }
    fs->cong_rate += rate - f->crate;
    f->crate = rate;
    f->ct = now;
    uint32_t hint = UINT32_MAX;
    if (f->live) {
        struct qp *q = cc_flow(s, flow);
        struct frow *r = to_row(s, par, fs, (uint32_t)sw->edge, lb_host_edge(s, q->dst));
        if (f->path < r->n)
            hint = r->to[f->path].port;
    }
    iso_update(s, sw, hint);
    if (sw->timer_at[TIMER_ISO] < 0 || sw->timer_at[TIMER_ISO] <= now)
        lb_timer_set(s, sw, TIMER_ISO, now + par->iso_timeout);
}

static void notify_host(struct sim *s, struct lb_switch *sw, uint32_t flow, int kind, uint32_t n, uint64_t rate)
{
    struct pkt *m = cc_switch_packet(s, sw->node, flow, 0, FLBRC_MSG_BYTES);
    m->aux = n;
    m->fb[0] = (uint64_t)kind;
    m->fb[1] = rate;
    cc_switch_send(s, sw->node, m);
}

/* ---------------------------------------------------------------- rerouting (source edge) */

/* Least delay in (lo, limit) among allowed paths (not isolated, or with
 * `iso_only` only isolated ones); random among ties. UINT32_MAX if none. */
static uint32_t fastest(struct lb_switch *sw, const struct flb_sw *fs, const struct flb_par *par, const struct frow *r,
                        simtime_t now, bool iso_only, simtime_t lo, simtime_t limit)
{
    uint32_t best = UINT32_MAX, ties = 0;
    simtime_t bd = limit;
    for (uint32_t i = 0; i < r->n; i++) {
        const struct fpath *e = &r->to[i];
        if (path_isolated(sw, fs, e) != iso_only)
            continue;
        simtime_t d = path_owd(par, e, now);
        if (d <= lo)
            continue;
        if (d < bd) {
            bd = d;
            best = i;
            ties = 1;
        } else if (d == bd && best != UINT32_MAX && rng_below(&sw->rng, ++ties) == 0) {
            best = i;
        }
    }
    return best;
}

static uint32_t random_isolated(struct lb_switch *sw, const struct flb_sw *fs, const struct frow *r)
{
    uint32_t pick = UINT32_MAX, seen = 0;
    for (uint32_t i = 0; i < r->n; i++)
        if (path_isolated(sw, fs, &r->to[i]) && rng_below(&sw->rng, ++seen) == 0)
            pick = i;
    return pick;
}

static void route(struct sim *s, struct lb_switch *sw, const struct flb_par *par, struct pkt *p, uint32_t de)
{
    struct flb_sw *fs = sw->st;
    struct frow *r = to_row(s, par, fs, (uint32_t)sw->edge, de);
    if (!r->n)
        return; /* no path a word holds: the switches' own choice */
    struct flb_flow *f = lb_flow_state(s, p->flow);
    simtime_t now = lb_now(s);
    bool known = f->live && now - f->prev < par->flow_timeout && f->path < r->n;
    uint32_t next = UINT32_MAX;
    if (f->congested) {
        f->ct = now;
        if (known && path_isolated(sw, fs, &r->to[f->path]))
            next = f->path;
        else
            next = random_isolated(sw, fs, r);
    }
    if (next == UINT32_MAX) {
        if (!known || path_isolated(sw, fs, &r->to[f->path])) {
            /* Algorithm 1 lines 3-5 (and a flow pushed off an isolated uplink) */
            next = fastest(sw, fs, par, r, now, false, -1, T_NEVER);
            if (next == UINT32_MAX) /* every uplink isolated (a single-uplink edge) */
                next = fastest(sw, fs, par, r, now, true, -1, T_NEVER);
        } else {
            /* lines 8-14: the fastest p' with 0 < owd(p) - owd(p') < dt, else stay */
            simtime_t cur = path_owd(par, &r->to[f->path], now), dt = now - f->prev;
            next = fastest(sw, fs, par, r, now, false, cur - dt, cur);
            if (next == UINT32_MAX)
                next = f->path;
        }
    }
    f->path = next;
    f->prev = now;
    f->live = true;
    struct fpath *e = &r->to[next];
    p->lb.path = e->word;
    p->lb.path_hop = 0;
    p->lb.b[10] = 0;
    if (e->stamped < 0 || now - e->stamped >= r->period) {
        e->stamped = now;
        memcpy(p->lb.b, &now, sizeof now);
        p->lb.b[8] = (uint8_t)next;
        p->lb.b[9] = (uint8_t)(next >> 8);
        p->lb.b[10] = STAMPED;
    }
}

/* One From entry about the paths from edge `to` to here, on a packet leaving
 * here toward `to`: changed entries first, else round robin. */
static void piggyback(struct flb_sw *fs, struct pkt *p, uint32_t to)
{
    struct frow *r = fs->from[to];
    p->lb.fb = 0;
    if (!r || !r->n)
        return;
    uint32_t i = r->rr;
    if (r->nchanged)
        while (!r->from[i].changed)
            i = i + 1 == r->n ? 0 : i + 1;
    if (r->from[i].changed) {
        r->from[i].changed = false;
        r->nchanged--;
    }
    r->rr = i + 1 == r->n ? 0 : i + 1;
    p->lb.fb = FB_VALID | i << 20 | r->from[i].owd8;
}

/* ---------------------------------------------------------------- hooks */

static void flb_init(struct sim *s, struct lb_switch *sw, const void *par_)
{
    const struct flb_par *par = par_;
    struct flb_sw *fs = sw->st;
    fs->cp = lb_alloc(s, sw->nports * sizeof *fs->cp);
    fs->notify = par->notify == NOTIFY_ON || (par->notify == NOTIFY_AUTO && lb_cc_paired(s));
    if (sw->edge >= 0) {
        fs->to = lb_alloc(s, lb_edge_count(s) * sizeof *fs->to);
        fs->from = lb_alloc(s, lb_edge_count(s) * sizeof *fs->from);
        fs->iso = lb_alloc(s, sw->nports * sizeof *fs->iso);
        fs->iso_stack = lb_alloc(s, sw->nports * sizeof *fs->iso_stack);
        for (uint32_t i = 0; i < sw->nports; i++)
            if (!lb_port_to_host(s, sw->port0 + i)) {
                fs->n_up++;
                fs->up_rate = lb_port_rate(s, sw->port0 + i);
            }
    }
}

static void flb_arrival(struct sim *s, struct lb_switch *sw, const void *par_, struct pkt *p, uint32_t in_port)
{
    const struct flb_par *par = par_;
    struct flb_sw *fs = sw->st;
    if (sw->edge < 0 || (p->type != PKT_DATA && p->type != PKT_ACK && p->type != PKT_NACK && p->type != PKT_CNP))
        return;
    uint32_t here = (uint32_t)sw->edge, se = lb_host_edge(s, p->src), de = lb_host_edge(s, p->dst);
    if (se == de || se == UINT32_MAX || de == UINT32_MAX)
        return;
    if (in_port != UINT32_MAX && lb_port_to_host(s, in_port)) { /* first switch: this is its source edge */
        if (p->type == PKT_DATA)
            route(s, sw, par, p, de);
        piggyback(fs, p, de);
    } else if (here == de) { /* from the fabric at its destination edge */
        simtime_t now = lb_now(s);
        if (p->type == PKT_DATA && p->lb.b[10] == STAMPED) {
            simtime_t t0;
            memcpy(&t0, p->lb.b, sizeof t0);
            uint32_t i = p->lb.b[8] | (uint32_t)p->lb.b[9] << 8;
            struct frow *r = from_row(s, fs, se, here);
            if (i < r->n) {
                uint64_t d8 = (uint64_t)(now - t0) / 8000;
                uint32_t v = d8 > FB_DMAX ? FB_DMAX : (uint32_t)d8;
                struct fmeas *m = &r->from[i];
                if (!m->changed && m->owd8 != v) {
                    m->changed = true;
                    r->nchanged++;
                }
                m->owd8 = v;
            }
        }
        if (p->lb.fb & FB_VALID) { /* about the paths from here to the packet's source edge */
            struct frow *r = to_row(s, par, fs, here, se);
            uint32_t i = (p->lb.fb >> 20) & FB_PATHS;
            if (i < r->n) {
                struct fpath *e = &r->to[i];
                e->owd = (simtime_t)(p->lb.fb & FB_DMAX) * 8000;
                e->t = now;
                if (e->owd < e->base)
                    e->base = e->owd;
            }
        }
    }
}

static int flb_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports, int n)
{
    (void)par;
    return lb_ecmp.choose(s, sw, NULL, p, ports, n); /* packets without a path: ECMP */
}

static void flb_enqueue(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, uint32_t *out, int q)
{
    struct flb_sw *fs = sw->st;
    if (p->type != PKT_DATA || q == 0)
        return;
    if (!fs->k_ready)
        k_setup(s, sw, par);
    congestion_check(s, sw, p, *out, q);
}

static void flb_dequeue(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, uint32_t port, int q)
{
    (void)par;
    (void)p;
    struct flb_sw *fs = sw->st;
    if (q != 0 && fs->cp[port - sw->port0].congested)
        release_check(s, sw, port);
}

static void flb_ctrl(struct sim *s, struct lb_switch *sw, const void *par_, struct pkt *p)
{
    const struct flb_par *par = par_;
    struct flb_sw *fs = sw->st;
    uint32_t flow = p->lb.fb, n;
    memcpy(&n, p->lb.b, sizeof n);
    if (flow >= lb_flow_count(s) || !fs->iso)
        return;
    uint64_t rate = p->aux / (n ? n : 1);
    /* a flow to a host of this same switch takes no uplink: nothing to isolate */
    bool local = lb_host_edge(s, cc_flow(s, flow)->dst) == (uint32_t)sw->edge;
    if (p->lb.proto == CNM_CONGESTED) {
        if (!local)
            iso_add(s, sw, par, flow, rate);
        if (fs->notify)
            notify_host(s, sw, flow, FLBRC_CONGESTED, n, p->aux);
    } else if (p->lb.proto == CNM_RELEASE) {
        if (!local) {
            iso_drop(s, fs, flow);
            iso_update(s, sw, UINT32_MAX);
        }
        if (fs->notify)
            notify_host(s, sw, flow, FLBRC_RELEASE, n, p->aux);
    }
}

/* The periodic check of the isolation table (entries not refreshed within
 * iso_timeout are released); it runs only while the table has entries. */
static void flb_timer(struct sim *s, struct lb_switch *sw, const void *par_, int kind)
{
    const struct flb_par *par = par_;
    struct flb_sw *fs = sw->st;
    if (kind != TIMER_ISO || !fs->cflows)
        return;
    simtime_t now = lb_now(s);
    for (uint32_t i = 0; i < fs->ncf;) {
        uint32_t flow = fs->cflows[i];
        if (now - ((struct flb_flow *)lb_flow_state(s, flow))->ct >= par->iso_timeout)
            iso_drop(s, fs, flow); /* moves the last entry to i */
        else
            i++;
    }
    iso_update(s, sw, UINT32_MAX);
    if (fs->ncf)
        lb_timer_set(s, sw, TIMER_ISO, now + par->iso_timeout / 4);
}

const struct lb_ops lb_flb = {
    .name = "flb",
    .help = "FLB (ATC'25): delay-based rerouting without reordering, congested flows isolated on few uplinks by CNMs",
    .params = flb_params,
    .params_size = sizeof(struct flb_par),
    .node_state_size = sizeof(struct flb_sw),
    .flow_state_size = sizeof(struct flb_flow),
    .all_packets = true,
    .init = flb_init,
    .on_arrival = flb_arrival,
    .choose = flb_choose,
    .on_enqueue = flb_enqueue,
    .on_dequeue = flb_dequeue,
    .on_timer = flb_timer,
    .on_ctrl = flb_ctrl,
};

/* ---------------------------------------------------------------- for tests (lb/flb.h) */

uint64_t flb_k(struct sim *s, uint32_t node, uint32_t port)
{
    struct lb_switch *sw = lb_switch_of(s, node);
    struct flb_sw *fs = sw->st;
    if (!fs->k_ready)
        k_setup(s, sw, lb_running_params(s, &lb_flb));
    return fs->cp[port - sw->port0].k;
}
uint32_t flb_port_congested(struct sim *s, uint32_t node, uint32_t port)
{
    struct lb_switch *sw = lb_switch_of(s, node);
    const struct cpoint *c = &((struct flb_sw *)sw->st)->cp[port - sw->port0];
    return c->congested ? c->n : 0;
}
bool flb_isolated(struct sim *s, uint32_t node, uint32_t port)
{
    struct lb_switch *sw = lb_switch_of(s, node);
    const struct flb_sw *fs = sw->st;
    return fs->iso && fs->iso[port - sw->port0];
}
uint32_t flb_n_isolated(struct sim *s, uint32_t node) { return ((struct flb_sw *)lb_switch_of(s, node)->st)->n_iso; }
uint32_t flb_n_table(struct sim *s, uint32_t node) { return ((struct flb_sw *)lb_switch_of(s, node)->st)->ncf; }
uint32_t flb_flow_uplink(struct sim *s, uint32_t node, uint32_t flow)
{
    struct lb_switch *sw = lb_switch_of(s, node);
    struct flb_sw *fs = sw->st;
    const struct flb_flow *f = lb_flow_state(s, flow);
    uint32_t de = lb_host_edge(s, cc_flow(s, flow)->dst);
    if (!f->live || !fs->to || !fs->to[de] || f->path >= fs->to[de]->n)
        return UINT32_MAX;
    return fs->to[de]->to[f->path].port;
}
