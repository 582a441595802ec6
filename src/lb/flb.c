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
 *  - Each congestion point keeps its own flow table (§3.2: "FLB records flow
 *    ID and the source MAC address of the previous hop in the flow table at
 *    switches"): per congested flow, the path word and hop of its latest
 *    packet there, the way back for its CNMs, and the n its last CNM carried.
 *    A flow congested at two ports is counted, and told, by each. (Until
 *    issue 39 one record per flow let only the first port that reported it
 *    count it; that record was written by every switch on the path, which a
 *    partitioned run cannot share. The paper says nothing of a flow at two
 *    congestion points.) Each CNM names its congestion point; the source
 *    edge keeps, per flow, the points holding it congested (up to 4) and
 *    releases it (isolation table, and the CNM forwarded to its sender) only
 *    when the last of them releases it: the paper's release is "when the
 *    queue length of the previously congested port falls below the
 *    isolation threshold", with one such port per flow (Fig. 6). A release
 *    from the first port to drain would resume a flow into the congestion it
 *    is still in (FLB Fig. 16's incast, where the spines' downlinks to the
 *    client's leaf congest behind its PAUSEs).
 *  - Delivery (`cnm_route = hop`): the paper sends the CNM hop by hop back
 *    along the recorded previous hops to the source edge. Here it is a
 *    PKT_CTRL addressed to the flow's source edge switch (lb_ctrl_packet) in
 *    the strict-priority queue 0, source-routed (lb_ctrl_route) over the
 *    reverse of the recorded path: from the congestion point, the far end of
 *    each link the flow's packet came over. No switch on the way acts on it.
 *    `cnm_route = shortest` (the earlier reading) routes it on shortest paths
 *    by ECMP: as many hops, other switches.
 *  - The source edge keeps the congested flows (its isolation table) with
 *    their converged rate C/n, and isolates ceil(Σ C/n / uplink rate) units
 *    (at least one, at most all but one, so uncongested traffic keeps a way
 *    out). §3.2 isolates "paths" (Fig. 6 shows one; Algorithm 1 line 4 "the
 *    isolated paths occupied by the congested flows"). A unit
 *    (`iso_unit = path`) is an upward path: the links from the source edge
 *    up to the top of the path, named by its last upward egress — in a
 *    leaf-spine the uplink, in a 3-tier Clos the (aggregation switch, core)
 *    pair for paths between pods and the uplink within a pod — so that an
 *    isolated unit covers every path to any destination that climbs through
 *    those links (the PAUSEs a congestion sends back climb them too), and the
 *    other cores of the same aggregation switch stay usable. `iso_unit =
 *    uplink` (the earlier reading) isolates whole uplinks. The first unit
 *    isolated is the one the reporting flow's last packet took ("where the
 *    last packet in f2 is pending"); further ones are those of the reporting
 *    flow's paths (its destination's) whose first hop holds the most bytes.
 *    In the path reading the number of units counts those seen so far.
 *  - A congested flow keeps its path while it is isolated, else it is given
 *    a random isolated path ("randomly assigns the congested flows to one of
 *    these paths"). Uncongested flows never take an isolated path: one
 *    standing on one moves to the fastest other path. Both moves keep the
 *    order as Algorithm 1's do (`iso_in_order`, on): only to a path p' with
 *    owd(p) − owd(p') < the gap since the flow's previous packet (a slower
 *    path always qualifies), else the flow stays where it is until a packet
 *    comes late enough. The paper states the order test for Algorithm 1 and
 *    says nothing of exempting isolation; `iso_in_order = off` (the earlier
 *    reading: isolation outranks order) moves at once, and was the main
 *    source of FLB's reordering (with DCQCN, 33 % of packets vs 5.4 % with
 *    isolation disabled: the issue 23 audit).
 *  - A non-congestion CNM removes the flow from the table, and entries not
 *    refreshed (by a packet or a CNM) within `iso_timeout` are removed by a
 *    periodic check (first `iso_timeout` after the table's first entry, then
 *    every `iso_timeout`/4 while it has entries). A new entry isolates more
 *    units at once; units are released only by that check, which recounts
 *    them from the table (the last isolated is released first), or all at
 *    once when the table empties (sec. 3.2: "FLB periodically checks the
 *    isolation table to recalculate the required number of isolation paths,
 *    releasing one or more paths as necessary. Once the isolation table is
 *    empty, all isolation paths are released"). (Until issue 39 every
 *    non-congestion CNM recounted them: a flow alone at line rate over a
 *    standing queue at K at its own uplink, congested and released at every
 *    packet, then isolated and released another unit at every packet, and a
 *    congested flow whose unit was released for that instant was moved onto
 *    a random isolated path: flb-fig2's f2 onto f1's uplink.)
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
 * entry ageing), the upward-path reading of "path" for isolation in a Clos,
 * which further units to isolate, and per-packet random isolated paths
 * replaced by a per-flow draw (no reordering among isolation paths). No wire bytes are counted for FLB's
 * fields (the paper's prototype keeps them in existing headers). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "lb/flb.h"
#include "lb/pathtab.h"
#include "net/cc.h"
#include "net/lb.h"

extern const struct lb_ops lb_flb;

enum { NOTIFY_AUTO, NOTIFY_ON, NOTIFY_OFF };
enum { UNIT_PATH, UNIT_UPLINK };
enum { CNM_HOP, CNM_SHORTEST };
enum { CNM_CONGESTED = 1, CNM_RELEASE = 2 }; /* p->lb.proto of FLB's PKT_CTRL */

struct flb_par {
    simtime_t aging, flow_timeout, iso_timeout;
    uint64_t k;
    double k_share, sample_rtts;
    int notify, iso_unit, cnm_route;
    bool iso_in_order;
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
    {"iso_in_order", P_BOOL, P(iso_in_order), "on", "isolation moves (congested flows onto isolated paths, uncongested off them) only where Algorithm 1's in-order test allows (off: at once)", NULL, 0, 0},
    {"iso_unit", P_ENUM, P(iso_unit), "path", "what is isolated: path = an upward path (uplink, and in a 3-tier Clos its aggregation switch's uplink: the core), as sec. 3.2 says; uplink = a whole source-edge uplink", "path|uplink", 0, 0},
    {"cnm_route", P_ENUM, P(cnm_route), "hop", "CNMs travel back hop by hop along the congested flow's recorded path (sec. 3.2), or on shortest paths", "hop|shortest", 0, 0},
    PARAM_END};

/* ---------------------------------------------------------------- state */

/* A source edge's view of one path to a destination edge (lb/pathtab.h's
 * entry; p.base is its unloaded delay: the least measured, or the links'
 * before that). */
struct fpath {
    struct pt_path p;
    simtime_t owd;        /* latest measured one-way delay */
    simtime_t t;          /* when it arrived here (0 = never) */
    simtime_t stamped;    /* last time a packet on it was stamped */
    uint32_t key;         /* its isolation unit (index into flb_sw.kport) */
};

/* A destination edge's latest measurement of one path from a source edge. */
struct fmeas {
    struct pt_fb fb;
    uint32_t owd8;        /* delay in 8 ns units */
};

struct frow {             /* at the source edge */
    struct pt_row pt;
    simtime_t period;     /* stamp period per path */
    struct fpath e[];
};
struct fmrow {            /* at the destination edge */
    struct pt_row pt;
    struct fmeas e[];
};

/* A congested flow's entry in its congestion point's flow table: the switch's
 * own, so a parallel run's partitions never share it (issue 39). */
struct centry {
    uint32_t flow;
    uint32_t n_sent;      /* n its last CNM carried */
    uint32_t cpath;       /* the path word its latest packet here carried (PATH_NONE: none) */
    uint8_t chop;         /* ...and this switch's place on it (0 = the source edge) */
};

/* An egress port as a congestion point. */
struct cpoint {
    uint64_t k;         /* isolation threshold, bytes */
    struct centry *e;   /* flows congested here, in the order they became so */
    uint32_t n, cap;
    uint32_t last;      /* the entry found last (packets of a flow come in trains) */
    int q;              /* the queue that crossed K */
    bool congested;
};

struct flb_sw {
    struct pathtab tab;       /* edges only: frow by destination edge, fmrow by source edge */
    struct cpoint *cp;        /* by port - port0 */
    bool k_ready;
    /* source edge: isolation. A unit (key) is an upward path, named by its
     * last upward egress port (iso_unit = path), or an uplink (uplink). */
    uint32_t *kport, *kfirst; /* by key: that port, and the path's first hop (a local uplink) */
    bool *kiso;               /* by key: isolated */
    uint32_t nkeys, capkeys;
    uint32_t *iso_stack;      /* isolated keys, in the order they were isolated */
    uint32_t n_iso, capiso, n_up;
    uint64_t up_rate;
    uint32_t *cflows;         /* the isolation table */
    uint32_t ncf, capcf;
    uint64_t cong_rate;       /* Σ C/n over the table, bps */
    bool notify;
};

#define CPS 4 /* congestion points a source edge tracks per flow (a 3-tier Clos path has 5 egresses; more are ignored) */

struct flb_flow {
    /* at its source edge */
    simtime_t prev;       /* arrival of its previous packet */
    uint32_t path;        /* index in its To row */
    bool live;
    bool congested;       /* in the isolation table */
    uint32_t ci;          /* its index there */
    uint64_t crate;       /* its converged rate C/n */
    simtime_t ct;         /* last refresh of the entry */
    uint32_t cnm_in;      /* at its source edge: 1 + the port its latest CNM came in by (0 = none; for tests) */
    uint32_t cps[CPS];    /* at its source edge: the congestion points holding it congested (port + 1) */
    uint8_t ncps;
};

#define FB_PATHS 2047u      /* p->lb.fb = PT_FB_VALID | path << 20 | delay / 8 ns */
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

/* A host link's propagation and one MTU's serialisation (host 0's stands
 * for every host's). */
static simtime_t host_hop(const struct sim *s)
{
    if (!lb_host_count(s))
        return 0;
    uint32_t hp = cc_host_port(s, lb_host_node(s, 0));
    return lb_port_delay(s, hp) + mtu_time(s, hp);
}

/* The key of isolation unit `port` (first hop `first`), made on first sight. */
static uint32_t key_of(struct sim *s, struct flb_sw *fs, uint32_t port, uint32_t first)
{
    for (uint32_t k = 0; k < fs->nkeys; k++)
        if (fs->kport[k] == port)
            return k;
    if (fs->nkeys == fs->capkeys) {
        uint32_t cap = fs->capkeys;
        fs->kport = grow(s, fs->kport, &cap, sizeof *fs->kport);
        cap = fs->capkeys;
        fs->kfirst = grow(s, fs->kfirst, &cap, sizeof *fs->kfirst);
        cap = fs->capkeys;
        fs->kiso = grow(s, fs->kiso, &cap, sizeof *fs->kiso);
        cap = fs->capkeys;
        fs->iso_stack = grow(s, fs->iso_stack, &cap, sizeof *fs->iso_stack);
        fs->capkeys = cap;
    }
    fs->kport[fs->nkeys] = port;
    fs->kfirst[fs->nkeys] = first;
    return fs->nkeys++;
}

/* A source row is made (lb/pathtab.h): each path's isolation unit, never
 * stamped yet, and the pair's stamp period. */
static void row_made(struct sim *s, void *owner, struct pt_row *pt, uint32_t here, uint32_t de)
{
    const struct flb_par *par = lb_running_params(s, &lb_flb);
    struct flb_sw *fs = owner;
    struct frow *r = (struct frow *)pt;
    uint32_t n = pt->n;
    for (uint32_t i = 0; i < n; i++) {
        struct fpath *e = &r->e[i];
        uint32_t ports[4];
        int k = lb_path_ports(s, here, de, e->p.word, ports, 4);
        e->stamped = -1;
        /* the isolation unit: the path's last upward hop (up and down are
         * equally long in a leaf-spine or Clos), or its uplink */
        e->key = k ? key_of(s, fs, par->iso_unit == UNIT_PATH ? ports[(k - 1) / 2] : ports[0], ports[0]) : UINT32_MAX;
    }
    /* the pair's base RTT: both ways along path 0 and both host links */
    r->period = n ? (simtime_t)(par->sample_rtts * (double)(2 * (r->e[0].p.base + 2 * host_hop(s)))) : 0;
}

static const struct pt_spec flb_tab = {
    .to_row = offsetof(struct frow, e),
    .to_entry = sizeof(struct fpath),
    .from_row = offsetof(struct fmrow, e),
    .from_entry = sizeof(struct fmeas),
    .max_paths = FB_PATHS,
    .fb_always = true,
    .fb_shift = 20,
    .fb_imask = FB_PATHS,
    .hop = mtu_time, /* base: the links' delays and one MTU's serialisation per hop */
    .made = row_made,
};

static struct frow *to_row(struct sim *s, struct flb_sw *fs, uint32_t here, uint32_t de)
{
    return (struct frow *)pt_to(s, &fs->tab, here, de);
}

static struct fmrow *from_row(struct sim *s, struct flb_sw *fs, uint32_t se, uint32_t here)
{
    return (struct fmrow *)pt_from(s, &fs->tab, se, here);
}

static simtime_t path_owd(const struct flb_par *par, const struct fpath *e, simtime_t now)
{
    return e->t && now - e->t < par->aging ? e->owd : e->p.base;
}

static bool path_isolated(const struct lb_switch *sw, const struct flb_sw *fs, const struct fpath *e)
{
    (void)sw;
    return fs->n_iso && e->key != UINT32_MAX && fs->kiso[e->key];
}

/* Appendix A's K per egress port: 2dC (see the header), or the overrides. */
static void k_setup(struct sim *s, struct lb_switch *sw, const struct flb_par *par)
{
    struct flb_sw *fs = sw->st;
    simtime_t d = host_hop(s);
    simtime_t far = 0;
    for (uint32_t de = 1; de < lb_edge_count(s); de++) { /* the longest edge-to-edge way from edge 0 */
        if (!lb_path_count(s, 0, de))
            continue;
        simtime_t t = pt_walk(s, 0, de, lb_path_word(s, 0, de, 0), mtu_time, NULL);
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

/* A CNM about `flow` to its source edge. With cnm_route = hop it retraces,
 * hop by hop, the path the flow's latest packet took to this switch (sec.
 * 3.2: each switch keeps the flow's previous hop and forwards the CNM to it):
 * from here, the far end of each link of that path, backwards. */
static void cnm_send(struct sim *s, struct lb_switch *sw, const struct flb_par *par, const struct centry *f, int proto,
                     uint32_t n, uint64_t rate, uint32_t port)
{
    uint32_t flow = f->flow;
    struct qp *q = cc_flow(s, flow);
    uint32_t se = lb_host_edge(s, q->src);
    if (se == UINT32_MAX)
        return;
    struct pkt *c = lb_ctrl_packet(s, sw->node, lb_edge_node(s, se), (uint8_t)proto, FLBRC_MSG_BYTES);
    c->lb.fb = flow;
    c->aux = rate;
    memcpy(c->lb.b, &n, sizeof n);
    uint32_t cp = port + 1; /* which congestion point: its source edge counts them per flow */
    memcpy(c->lb.b + 4, &cp, sizeof cp);
    uint32_t de = lb_host_edge(s, q->dst), fwd[4], back[4];
    if (par->cnm_route == CNM_HOP && f->cpath != PATH_NONE && f->chop > 0 && de != UINT32_MAX &&
        lb_path_ports(s, se, de, f->cpath, fwd, 4) >= f->chop) {
        for (int j = 0; j < f->chop; j++)
            back[j] = lb_port_peer(s, fwd[f->chop - 1 - j]);
        lb_ctrl_route(s, c, back, f->chop);
    }
    lb_ctrl_send(s, c);
}

/* A data packet of `flow` is about to join egress `port` queue q. */
static void congestion_check(struct sim *s, struct lb_switch *sw, const struct flb_par *par, struct pkt *p, uint32_t port,
                             int q)
{
    struct flb_sw *fs = sw->st;
    struct cpoint *c = &fs->cp[port - sw->port0];
    if (lb_port_queue_bytes(s, port, q) + p->size <= c->k)
        return;
    if (!c->congested) {
        c->congested = true;
        c->q = q;
    }
    /* its entry in this switch's flow table, made at its first congested packet
     * (a scan only while the port is over K, of the flows congested here) */
    struct centry *f = NULL;
    if (c->last < c->n && c->e[c->last].flow == p->flow) {
        f = &c->e[c->last];
    } else {
        for (uint32_t i = 0; i < c->n && !f; i++)
            if (c->e[i].flow == p->flow) {
                f = &c->e[i];
                c->last = i;
            }
    }
    if (!f) {
        if (c->n == c->cap)
            c->e = grow(s, c->e, &c->cap, sizeof *c->e);
        c->last = c->n;
        f = &c->e[c->n++];
        *f = (struct centry){.flow = p->flow};
    }
    /* the way it came (for the CNMs' way back) */
    f->cpath = p->lb.path;
    f->chop = p->lb.path == PATH_NONE ? 0 : (uint8_t)(p->lb.path_hop - 1);
    if (f->n_sent >= c->n)
        return; /* already told this n */
    f->n_sent = c->n;
    cnm_send(s, sw, par, f, CNM_CONGESTED, c->n, lb_port_rate(s, port), port);
}

/* After a dequeue at a congested port: below K again releases its flows. */
static void release_check(struct sim *s, struct lb_switch *sw, const struct flb_par *par, uint32_t port)
{
    struct flb_sw *fs = sw->st;
    struct cpoint *c = &fs->cp[port - sw->port0];
    if (!c->congested || lb_port_queue_bytes(s, port, c->q) >= c->k)
        return;
    for (uint32_t i = 0; i < c->n; i++)
        cnm_send(s, sw, par, &c->e[i], CNM_RELEASE, c->n, lb_port_rate(s, port), port);
    c->n = 0;
    c->congested = false;
}

/* ---------------------------------------------------------------- isolation (source edge) */

/* Isolation units needed: ceil(Σ C/n / link rate), at least 1, at most all
 * but one of the units (uplinks; upward paths seen so far), so uncongested
 * traffic keeps a way out. */
static uint32_t iso_need(const struct flb_par *par, const struct flb_sw *fs)
{
    uint32_t units = par->iso_unit == UNIT_PATH ? fs->nkeys : fs->n_up;
    if (!fs->ncf || units < 2 || !fs->up_rate)
        return 0;
    uint64_t need = (fs->cong_rate + fs->up_rate - 1) / fs->up_rate;
    if (need < 1)
        need = 1;
    return need > units - 1 ? units - 1 : (uint32_t)need;
}

/* Make the isolated units match the table; `hint` is a unit to isolate first
 * (where the reporting flow's last packet went), UINT32_MAX for none; further
 * ones are the units of row r's paths (the reporting flow's destination; any
 * unit without one) whose first hop holds the most bytes. Units beyond the
 * need are released only by the periodic check (`release`) or once the table
 * is empty (sec. 3.2: "FLB periodically checks the isolation table to
 * recalculate the required number of isolation paths, releasing one or more
 * paths as necessary. Once the isolation table is empty, all isolation paths
 * are released"), not at each non-congestion CNM. */
static void iso_update(struct sim *s, struct lb_switch *sw, const struct flb_par *par, uint32_t hint, const struct frow *r,
                       bool release)
{
    struct flb_sw *fs = sw->st;
    uint32_t need = iso_need(par, fs);
    while ((release || !fs->ncf) && fs->n_iso > need)
        fs->kiso[fs->iso_stack[--fs->n_iso]] = false;
    while (fs->n_iso < need) {
        uint32_t pick = UINT32_MAX;
        if (hint != UINT32_MAX && !fs->kiso[hint]) {
            pick = hint;
        } else {
            uint64_t most = 0;
            for (uint32_t i = 0; i < (r ? r->pt.n : fs->nkeys); i++) {
                uint32_t k = r ? r->e[i].key : i;
                if (k == UINT32_MAX || fs->kiso[k])
                    continue;
                uint64_t b = lb_port_bytes(s, fs->kfirst[k]);
                if (pick == UINT32_MAX || b > most) {
                    pick = k;
                    most = b;
                }
            }
        }
        if (pick == UINT32_MAX)
            break;
        fs->kiso[pick] = true;
        fs->iso_stack[fs->n_iso++] = pick;
    }
}

/* Is the flow in this switch's isolation table? Its `congested` flag alone
 * could say so wrongly when a queue pair's next message took over the
 * balancer's per-flow state (transport.c qp_carry_over), flag and index
 * included, while the table held the earlier message's id: a RELEASE for the
 * new one then dropped another flow's entry, and with the table empty ran its
 * count below zero (a crash, seen in experiments/rail-lb's MoE all-to-all).
 * flb_qp_next now clears the copy; this stays as the table's own check. */
static bool in_table(const struct flb_sw *fs, const struct flb_flow *f, uint32_t flow)
{
    return f->congested && f->ci < fs->ncf && fs->cflows[f->ci] == flow;
}

/* Out of the isolation table (swap with the last entry). */
static void iso_drop(struct sim *s, struct flb_sw *fs, uint32_t flow)
{
    struct flb_flow *f = lb_flow_state(s, flow);
    f->ncps = 0;
    if (!in_table(fs, f, flow)) {
        f->congested = false;
        return;
    }
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
    if (!in_table(fs, f, flow)) {
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
    struct frow *r = to_row(s, fs, (uint32_t)sw->edge, lb_host_edge(s, cc_flow(s, flow)->dst));
    if (f->live && f->path < r->pt.n)
        hint = r->e[f->path].key;
    iso_update(s, sw, par, hint, r, false);
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
    for (uint32_t i = 0; i < r->pt.n; i++) {
        const struct fpath *e = &r->e[i];
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

/* A random isolated path whose delay is above `lo` (-1: any). */
static uint32_t random_isolated(struct lb_switch *sw, const struct flb_sw *fs, const struct flb_par *par,
                                const struct frow *r, simtime_t now, simtime_t lo)
{
    uint32_t pick = UINT32_MAX, seen = 0;
    for (uint32_t i = 0; i < r->pt.n; i++)
        if (path_isolated(sw, fs, &r->e[i]) && (lo < 0 || path_owd(par, &r->e[i], now) > lo) &&
            rng_below(&sw->rng, ++seen) == 0)
            pick = i;
    return pick;
}

static void route(struct sim *s, struct lb_switch *sw, const struct flb_par *par, struct pkt *p, uint32_t de)
{
    struct flb_sw *fs = sw->st;
    struct frow *r = to_row(s, fs, (uint32_t)sw->edge, de);
    if (!r->pt.n)
        return; /* no path a word holds: the switches' own choice */
    struct flb_flow *f = lb_flow_state(s, p->flow);
    simtime_t now = lb_now(s);
    bool known = f->live && now - f->prev < par->flow_timeout && f->path < r->pt.n;
    uint32_t next = UINT32_MAX;
    /* An isolation move keeps the order as Algorithm 1's does (iso_in_order):
     * to a path p' with owd(p) - owd(p') < dt only, so the packet arrives
     * after its predecessor; a slower path always qualifies. Until one does,
     * the flow stays where it is. */
    simtime_t lo = -1;
    if (known && par->iso_in_order)
        lo = path_owd(par, &r->e[f->path], now) - (now - f->prev);
    if (f->congested) {
        f->ct = now;
        if (known && path_isolated(sw, fs, &r->e[f->path]))
            next = f->path;
        else if ((next = random_isolated(sw, fs, par, r, now, lo)) == UINT32_MAX && known && fs->n_iso)
            next = f->path; /* no isolated path keeps it in order yet */
    }
    if (next == UINT32_MAX) {
        if (!known) {
            /* Algorithm 1 lines 3-5 */
            next = fastest(sw, fs, par, r, now, false, -1, T_NEVER);
            if (next == UINT32_MAX) /* every path isolated (a single-uplink edge) */
                next = fastest(sw, fs, par, r, now, true, -1, T_NEVER);
        } else if (path_isolated(sw, fs, &r->e[f->path])) {
            /* an uncongested flow pushed off an isolated path: the fastest
             * other path that keeps the order, else it stays for now */
            next = fastest(sw, fs, par, r, now, false, lo, T_NEVER);
            if (next == UINT32_MAX)
                next = par->iso_in_order ? f->path : fastest(sw, fs, par, r, now, true, -1, T_NEVER);
        } else {
            /* lines 8-14: the fastest p' with 0 < owd(p) - owd(p') < dt, else stay */
            simtime_t cur = path_owd(par, &r->e[f->path], now), dt = now - f->prev;
            next = fastest(sw, fs, par, r, now, false, cur - dt, cur);
            if (next == UINT32_MAX)
                next = f->path;
        }
    }
    f->path = next;
    f->prev = now;
    f->live = true;
    struct fpath *e = &r->e[next];
    p->lb.path = e->p.word;
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
    p->lb.fb = 0;
    uint32_t i = pt_fb_pick(&fs->tab, to);
    if (i != UINT32_MAX)
        p->lb.fb = pt_fb_word(&fs->tab, i, ((struct fmrow *)fs->tab.from[to])->e[i].owd8);
}

/* ---------------------------------------------------------------- hooks */

static void flb_init(struct sim *s, struct lb_switch *sw, const void *par_)
{
    const struct flb_par *par = par_;
    struct flb_sw *fs = sw->st;
    fs->cp = lb_alloc(s, sw->nports * sizeof *fs->cp);
    fs->notify = par->notify == NOTIFY_ON || (par->notify == NOTIFY_AUTO && lb_cc_paired(s));
    pt_init(s, sw, &fs->tab, &flb_tab, fs);
    if (sw->edge >= 0) {
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
    uint32_t se, de;
    enum pt_role role = pt_role(s, sw, p, in_port, &se, &de); /* edges act, on traffic between two of them */
    uint32_t here = (uint32_t)sw->edge;
    if (role == PT_SOURCE) { /* first switch: this is its source edge */
        if (p->type == PKT_DATA)
            route(s, sw, par, p, de);
        piggyback(fs, p, de);
    } else if (role == PT_DEST) { /* from the fabric at its destination edge */
        simtime_t now = lb_now(s);
        if (p->type == PKT_DATA && p->lb.b[10] == STAMPED) {
            simtime_t t0;
            memcpy(&t0, p->lb.b, sizeof t0);
            uint32_t i = p->lb.b[8] | (uint32_t)p->lb.b[9] << 8;
            struct fmrow *r = from_row(s, fs, se, here);
            if (i < r->pt.n) {
                uint64_t d8 = (uint64_t)(now - t0) / 8000;
                uint32_t v = d8 > FB_DMAX ? FB_DMAX : (uint32_t)d8;
                pt_fb_note(&fs->tab, &r->pt, i, r->e[i].owd8 != v);
                r->e[i].owd8 = v;
            }
        }
        if (p->lb.fb & PT_FB_VALID) { /* about the paths from here to the packet's source edge */
            struct frow *r = to_row(s, fs, here, se);
            uint32_t i = pt_fb_index(&fs->tab, p->lb.fb);
            if (i < r->pt.n) {
                struct fpath *e = &r->e[i];
                e->owd = (simtime_t)pt_fb_value(&fs->tab, p->lb.fb) * 8000;
                e->t = now;
                if (e->owd < e->p.base)
                    e->p.base = e->owd;
            }
        }
    }
}

static int flb_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports, int n)
{
    (void)par;
    (void)ports;
    return lb_ecmp_pick(s, sw, p, n); /* packets without a path: ECMP */
}

static void flb_enqueue(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, uint32_t *out, int q)
{
    struct flb_sw *fs = sw->st;
    if (p->type != PKT_DATA || q == 0)
        return;
    if (!fs->k_ready)
        k_setup(s, sw, par);
    congestion_check(s, sw, par, p, *out, q);
}

static void flb_dequeue(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, uint32_t port, int q)
{
    (void)p;
    struct flb_sw *fs = sw->st;
    if (q != 0 && fs->cp[port - sw->port0].congested)
        release_check(s, sw, par, port);
}

static void flb_ctrl(struct sim *s, struct lb_switch *sw, const void *par_, struct pkt *p)
{
    const struct flb_par *par = par_;
    struct flb_sw *fs = sw->st;
    uint32_t flow = p->lb.fb, n;
    memcpy(&n, p->lb.b, sizeof n);
    if (flow >= lb_flow_count(s) || !fs->tab.to)
        return;
    uint64_t rate = p->aux / (n ? n : 1);
    struct flb_flow *f = lb_flow_state(s, flow);
    f->cnm_in = p->in_port + 1;
    uint32_t cp, i;
    memcpy(&cp, p->lb.b + 4, sizeof cp);
    for (i = 0; i < f->ncps && f->cps[i] != cp; i++)
        ;
    /* a flow to a host of this same switch takes no uplink: nothing to isolate */
    bool local = lb_host_edge(s, cc_flow(s, flow)->dst) == (uint32_t)sw->edge;
    if (p->lb.proto == CNM_CONGESTED) {
        if (i == f->ncps && f->ncps < CPS)
            f->cps[f->ncps++] = cp;
        if (!local)
            iso_add(s, sw, par, flow, rate);
        if (fs->notify)
            notify_host(s, sw, flow, FLBRC_CONGESTED, n, p->aux);
    } else if (p->lb.proto == CNM_RELEASE) {
        if (i < f->ncps)
            f->cps[i] = f->cps[--f->ncps];
        if (f->ncps)
            return; /* still congested at another point: released when the last one releases it */
        if (!local) {
            iso_drop(s, fs, flow);
            iso_update(s, sw, par, UINT32_MAX, NULL, false); /* paths wait for the periodic check */
        }
        if (fs->notify)
            notify_host(s, sw, flow, FLBRC_RELEASE, n, p->aux);
    }
}

/* A queue pair's next message (lb_ops.on_qp_next) keeps its predecessor's
 * path and timing at the source edge (Algorithm 1 sees one flow), not its
 * congestion: the isolation table and the congestion points' flow tables
 * name the predecessor, whose releases (or the table's timeout) end those
 * entries, and the new message is congested once a congestion point reports
 * it. (Copied, the flag put the new message on isolated paths with no entry
 * of its own that a release could clear.) */
static void flb_qp_next(struct sim *s, const void *par, uint32_t prev, uint32_t flow)
{
    (void)par;
    (void)prev;
    struct flb_flow *f = lb_flow_state(s, flow);
    f->congested = false;
    f->ci = 0;
    f->crate = 0;
    f->ct = 0;
    f->ncps = 0;
    f->cnm_in = 0;
}

/* The periodic check of the isolation table (entries not refreshed within
 * iso_timeout are released, and the isolated paths recalculated); it runs
 * only while the table has entries. */
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
    iso_update(s, sw, par, UINT32_MAX, NULL, true);
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
    .on_qp_next = flb_qp_next,
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
    for (uint32_t i = 0; i < fs->n_iso; i++)
        if (fs->kport[fs->iso_stack[i]] == port || fs->kfirst[fs->iso_stack[i]] == port)
            return true;
    return false;
}
uint32_t flb_n_isolated(struct sim *s, uint32_t node) { return ((struct flb_sw *)lb_switch_of(s, node)->st)->n_iso; }
uint32_t flb_n_table(struct sim *s, uint32_t node) { return ((struct flb_sw *)lb_switch_of(s, node)->st)->ncf; }
uint32_t flb_flow_uplink(struct sim *s, uint32_t node, uint32_t flow)
{
    struct lb_switch *sw = lb_switch_of(s, node);
    struct flb_sw *fs = sw->st;
    const struct flb_flow *f = lb_flow_state(s, flow);
    uint32_t de = lb_host_edge(s, cc_flow(s, flow)->dst);
    if (!f->live || !fs->tab.to || !fs->tab.to[de] || f->path >= fs->tab.to[de]->n)
        return UINT32_MAX;
    return ((struct frow *)fs->tab.to[de])->e[f->path].p.port;
}
uint32_t flb_cnm_in(struct sim *s, uint32_t flow)
{
    return ((const struct flb_flow *)lb_flow_state(s, flow))->cnm_in - 1;
}
bool flb_path_set(struct sim *s, uint32_t node, uint32_t dst_edge, uint32_t i, simtime_t owd)
{
    struct lb_switch *sw = lb_switch_of(s, node);
    struct frow *r = to_row(s, sw->st, (uint32_t)sw->edge, dst_edge);
    if (i >= r->pt.n)
        return false;
    r->e[i].owd = owd;
    r->e[i].t = lb_now(s) > 0 ? lb_now(s) : 1;
    return true;
}
