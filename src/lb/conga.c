/* CONGA — Alizadeh et al., "CONGA: Distributed Congestion-Aware Load
 * Balancing for Datacenters", SIGCOMM 2014, §3 (design): §3.2 the overlay
 * fields (LBTag, CE, FB_LBTag, FB_Metric), §3.3 congestion measurement (the
 * discounting rate estimator, DRE) and leaf-to-leaf feedback, §3.4 flowlet
 * detection and the load-balancing decision. Defaults where the paper leaves
 * the simulation value open are those of ConWeave's public ns-3 artifact
 * (conweave-project/conweave-ns3, conga-routing.cc and
 * network-load-balance.cc, as summarised in lb-baselines.md): flowlet timeout
 * 100 us, T_dre 50 us, alpha 0.2, Q = 3 bits, table ageing 500 us.
 *
 * Leaf-to-leaf, generalised to any tiers by paths as values: the source edge
 * switch (leaf) decides among the equal-cost paths to the destination edge
 * (lb_path_count) and source-routes the packet (p->lb.path); the path index
 * plays the LBTag's role. Pieces:
 *  - DRE per fabric egress port: X += bytes of every packet leaving it;
 *    every T_dre, X <- X·(1-alpha). Applied lazily at the next access with
 *    exactly the decay steps the periodic timer would have taken (a step at
 *    time k·T_dre happens before a packet leaving at that instant); (1-alpha)
 *    in 16-bit fixed point and X in whole bytes, as a register would hold
 *    them. Quantised to Q bits against the port's rate:
 *    floor(X·8 / (C·T_dre/alpha) · 2^Q), capped at 2^Q - 1.
 *  - CE: a data packet's p->lb.metric is raised to the quantised DRE at
 *    every switch egress it leaves (max along the path).
 *  - The destination leaf records CE in its Congestion-From-Leaf table
 *    [source leaf][path] and piggybacks one entry (p->lb.fb) on every packet
 *    it forwards toward that leaf, round robin, entries that changed since
 *    last fed back first (§3.3; the artifact picks one at random).
 *  - The source leaf stores feedback in its Congestion-To-Leaf table
 *    [destination leaf][path]; entries not refreshed within `aging` read as 0
 *    (stale information must not keep a path avoided forever).
 *  - Flowlets: per flow, a packet after a gap of at least `flowlet_timeout`
 *    starts a new flowlet, which takes the path minimising max(local DRE of
 *    the path's first hop, remote metric); ties are broken at random, with the
 *    paper's preference for the path the flow's previous flowlet took
 *    (`keep_path`; a flow moves only to a strictly better path).
 * Intra-leaf traffic bypasses all of it.
 *
 * Why every packet reaches the hooks (all_packets): the feedback must ride on
 * whatever goes back to the source leaf, and for one-way RDMA transfers that
 * is only ACK/NACK/CNP traffic (the artifact piggybacks on any packet toward
 * the source ToR); and a DRE measures the link, so it counts every byte.
 * Non-data packets are routed exactly as ECMP routes them (the artifact load
 * balances only data). The fields fit the overlay header the fabric already
 * carries (VXLAN in the paper, tags in the artifact): no extra wire bytes. */
#include <stdbool.h>
#include <stddef.h>
#include "lb/conga.h"
#include "lb/pathtab.h"
#include "net/lb.h"

struct conga_par {
    simtime_t flowlet_timeout, t_dre, aging;
    double alpha;
    int64_t q_bits, candidates;
    bool keep_path;
};

/* One egress port's estimator; level 0 = not measured (host-facing port). */
struct dre {
    uint64_t x;    /* bytes, discounted */
    int64_t epoch; /* now / T_dre at the last update: decay steps taken up to it */
    double level;  /* bytes per quantisation step: C·T_dre/alpha / 8 / 2^Q */
};

/* The tables (lb/pathtab.h) hold one leaf pair's paths per row: a
 * Congestion-To-Leaf row at the source (pt_path: where path i goes), a
 * Congestion-From-Leaf row at the destination (pt_fb: the feedback order). */
struct cto {
    struct pt_path p;
    simtime_t t;     /* last update, for ageing */
    uint8_t metric;
};
struct cfrom {
    struct pt_fb fb;
    simtime_t t;
    uint8_t metric;
};
struct cto_row {
    struct pt_row pt;
    struct cto e[];
};
struct cfrom_row {
    struct pt_row pt;
    struct cfrom e[];
};

struct conga_sw {
    struct dre *dre;    /* by port - port0 */
    struct pathtab tab; /* edges only: to = Congestion-To-Leaf by destination edge, from = -From-Leaf by source edge */
    uint32_t keep;      /* 1 - alpha, 16-bit fixed point */
    uint32_t qmax;
};

struct conga_flow {
    simtime_t last;
    uint32_t path; /* index in the To-Leaf row */
    bool valid;
};

#define CONGA_MAX_PATHS 65535u /* the path index travels in two bytes of lb.b */

/* p->lb.fb = PT_FB_VALID | path << 8 | metric */
static const struct pt_spec conga_tab = {
    .to_row = offsetof(struct cto_row, e),
    .to_entry = sizeof(struct cto),
    .from_row = offsetof(struct cfrom_row, e),
    .from_entry = sizeof(struct cfrom),
    .max_paths = CONGA_MAX_PATHS,
    .fb_always = true, /* an entry not measured yet is fed back as 0 */
    .fb_shift = 8,
    .fb_imask = 0xffffu,
};

#define P(m) offsetof(struct conga_par, m)
static const struct param conga_params[] = {
    {"flowlet_timeout", P_TIME, P(flowlet_timeout), "100us", "a gap this long starts a new flowlet (ConWeave artifact; the paper's testbed: 500us)", NULL, 1, 1e15},
    {"t_dre", P_TIME, P(t_dre), "50us", "DRE decay period T_dre (ConWeave artifact)", NULL, 1, 1e15},
    {"alpha", P_DOUBLE, P(alpha), "0.2", "DRE decay factor: X <- X(1-alpha) every T_dre", NULL, 1e-4, 1},
    {"q_bits", P_INT, P(q_bits), "3", "congestion metric quantisation bits Q (paper: 3)", NULL, 1, 8},
    {"aging", P_TIME, P(aging), "500us", "a Congestion-To-/From-Leaf entry not refreshed this long reads 0 (ConWeave artifact)", NULL, 1, 1e15},
    {"candidates", P_INT, P(candidates), "0", "paths examined per new flowlet, consecutive from a random one; 0 = all (paper; the artifact: 4)", NULL, 0, 65535},
    {"keep_path", P_BOOL, P(keep_path), "on", "on a tie keep the flow's previous path (paper 3.4); off = uniformly random (artifact)", NULL, 0, 0},
    PARAM_END};

/* ---------------------------------------------------------------- DRE */

static void dre_decay(struct dre *d, uint32_t keep, simtime_t t_dre, simtime_t now)
{
    int64_t e = now / t_dre;
    int64_t k = e - d->epoch;
    d->epoch = e;
    while (k-- > 0 && d->x) /* stops once empty: at most ~log(X)/log(1/(1-alpha)) steps */
        d->x = (d->x * keep) >> 16;
}

static uint32_t dre_quant(const struct conga_sw *cs, const struct dre *d)
{
    double q = (double)d->x / d->level;
    return q >= cs->qmax ? cs->qmax : (uint32_t)q;
}

/* The quantised DRE of egress `port` now (local congestion). */
static uint32_t local_metric(struct sim *s, const struct lb_switch *sw, const struct conga_par *par, uint32_t port)
{
    struct conga_sw *cs = sw->st;
    struct dre *d = &cs->dre[port - sw->port0];
    if (d->level == 0)
        return 0;
    dre_decay(d, cs->keep, par->t_dre, lb_now(s));
    return dre_quant(cs, d);
}

/* ---------------------------------------------------------------- tables */

/* Rows are made on a pair's first packet (pathtab). */
static struct cto_row *to_row(struct sim *s, struct conga_sw *cs, uint32_t here, uint32_t de)
{
    return (struct cto_row *)pt_to(s, &cs->tab, here, de);
}

static struct cfrom_row *from_row(struct sim *s, struct conga_sw *cs, uint32_t se, uint32_t here)
{
    return (struct cfrom_row *)pt_from(s, &cs->tab, se, here);
}

static uint32_t entry_metric(const struct conga_par *par, simtime_t t, uint8_t metric, simtime_t now)
{
    return now - t < par->aging ? metric : 0;
}

/* ---------------------------------------------------------------- decision */

static uint32_t path_cost(struct sim *s, const struct lb_switch *sw, const struct conga_par *par, const struct cto_row *r,
                          uint32_t i)
{
    uint32_t local = local_metric(s, sw, par, r->e[i].p.port);
    uint32_t remote = entry_metric(par, r->e[i].t, r->e[i].metric, lb_now(s));
    return local > remote ? local : remote;
}

static uint32_t best_path(struct sim *s, struct lb_switch *sw, const struct conga_par *par, const struct cto_row *r,
                          uint32_t prev)
{
    uint32_t n = r->pt.n;
    uint32_t k = par->candidates > 0 && (uint64_t)par->candidates < n ? (uint32_t)par->candidates : n;
    uint32_t i = k < n ? (uint32_t)rng_below(&sw->rng, n) : 0;
    uint32_t best = UINT32_MAX, choice = 0, ties = 0;
    for (uint32_t j = 0; j < k; j++, i = i + 1 == n ? 0 : i + 1) {
        uint32_t c = path_cost(s, sw, par, r, i);
        if (c < best) {
            best = c;
            choice = i;
            ties = 1;
        } else if (c == best && rng_below(&sw->rng, ++ties) == 0) {
            choice = i; /* uniform among the ties seen so far */
        }
    }
    if (par->keep_path && prev < n && path_cost(s, sw, par, r, prev) <= best)
        return prev;
    return choice;
}

/* A data packet entering its source leaf: same flowlet, same path; a new
 * flowlet gets the least congested one. */
static void route_flowlet(struct sim *s, struct lb_switch *sw, const struct conga_par *par, struct pkt *p,
                          uint32_t de)
{
    struct conga_sw *cs = sw->st;
    struct cto_row *r = to_row(s, cs, (uint32_t)sw->edge, de);
    if (!r->pt.n)
        return; /* no path (partitioned): the switches' own choice */
    struct conga_flow *f = lb_flow_state(s, p->flow);
    simtime_t now = lb_now(s);
    if (!f->valid || now - f->last >= par->flowlet_timeout || f->path >= r->pt.n) {
        f->path = best_path(s, sw, par, r, f->valid ? f->path : UINT32_MAX);
        f->valid = true;
    }
    f->last = now;
    p->lb.path = r->e[f->path].p.word;
    p->lb.path_hop = 0;
    p->lb.metric = 0;
    p->lb.b[0] = (uint8_t)f->path;
    p->lb.b[1] = (uint8_t)(f->path >> 8);
}

/* One From-Leaf entry about the paths from leaf `to` to here, on a packet
 * leaving here toward `to`: changed entries first, else round robin. */
static void piggyback(struct sim *s, struct conga_sw *cs, const struct conga_par *par, struct pkt *p, uint32_t to)
{
    uint32_t i = pt_fb_pick(&cs->tab, to);
    if (i == UINT32_MAX)
        return;
    const struct cfrom *e = &((struct cfrom_row *)cs->tab.from[to])->e[i];
    p->lb.fb = pt_fb_word(&cs->tab, i, entry_metric(par, e->t, e->metric, lb_now(s)));
}

/* ---------------------------------------------------------------- hooks */

static void conga_init(struct sim *s, struct lb_switch *sw, const void *par_)
{
    const struct conga_par *par = par_;
    struct conga_sw *cs = sw->st;
    cs->keep = (uint32_t)((1 - par->alpha) * 65536 + 0.5);
    cs->qmax = (1u << par->q_bits) - 1;
    cs->dre = lb_alloc(s, sw->nports * sizeof *cs->dre);
    for (uint32_t k = 0; k < sw->nports; k++)
        if (!lb_port_to_host(s, sw->port0 + k)) /* host-facing ports are on no fabric path */
            cs->dre[k].level = (double)lb_port_rate(s, sw->port0 + k) * (double)par->t_dre / 1e12 / par->alpha / 8.0 /
                               (double)(1u << par->q_bits);
    pt_init(s, sw, &cs->tab, &conga_tab, cs);
}

static void conga_on_arrival(struct sim *s, struct lb_switch *sw, const void *par_, struct pkt *p, uint32_t in_port)
{
    const struct conga_par *par = par_;
    struct conga_sw *cs = sw->st;
    uint32_t se, de;
    enum pt_role role = pt_role(s, sw, p, in_port, &se, &de); /* only leaves act; intra-leaf traffic bypasses CONGA */
    uint32_t here = (uint32_t)sw->edge;
    if (role == PT_SOURCE) { /* the source leaf */
        if (p->type == PKT_DATA)
            route_flowlet(s, sw, par, p, de);
        piggyback(s, cs, par, p, de);
    } else if (role == PT_DEST) { /* from the fabric at the destination leaf */
        simtime_t now = lb_now(s);
        if (p->type == PKT_DATA && p->lb.path != PATH_NONE) {
            struct cfrom_row *r = from_row(s, cs, se, here);
            uint32_t i = p->lb.b[0] | (uint32_t)p->lb.b[1] << 8;
            if (i < r->pt.n) {
                struct cfrom *e = &r->e[i];
                uint8_t m = (uint8_t)p->lb.metric;
                pt_fb_note(&cs->tab, &r->pt, i, m != entry_metric(par, e->t, e->metric, now));
                e->metric = m;
                e->t = now;
            }
        }
        if (p->lb.fb & PT_FB_VALID) { /* about the paths from here to the sender's leaf */
            struct cto_row *r = to_row(s, cs, here, se);
            uint32_t i = pt_fb_index(&cs->tab, p->lb.fb);
            if (i < r->pt.n) {
                r->e[i].metric = (uint8_t)pt_fb_value(&cs->tab, p->lb.fb);
                r->e[i].t = now;
            }
        }
    }
}

/* Packets without a path (ACK/NACK/CNP, or data without one): exactly ECMP. */
static int conga_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports, int n)
{
    (void)ports;
    (void)par;
    return lb_ecmp_pick(s, sw, p, n);
}

static void conga_on_dequeue(struct sim *s, struct lb_switch *sw, const void *par_, struct pkt *p, uint32_t port, int q)
{
    (void)q;
    const struct conga_par *par = par_;
    struct conga_sw *cs = sw->st;
    struct dre *d = &cs->dre[port - sw->port0];
    if (d->level == 0)
        return;
    dre_decay(d, cs->keep, par->t_dre, lb_now(s));
    d->x += p->size;
    if (p->type == PKT_DATA && p->lb.path != PATH_NONE) {
        uint32_t m = dre_quant(cs, d);
        if (m > p->lb.metric)
            p->lb.metric = (uint16_t)m;
    }
}

static simtime_t conga_flowlet_gap(const void *par) { return ((const struct conga_par *)par)->flowlet_timeout; }

const struct lb_ops lb_conga = {
    .name = "conga",
    .help = "CONGA (SIGCOMM'14): leaf-to-leaf congestion-aware flowlet switching, decided at the source edge",
    .params = conga_params,
    .params_size = sizeof(struct conga_par),
    .node_state_size = sizeof(struct conga_sw),
    .flow_state_size = sizeof(struct conga_flow),
    .all_packets = true,
    .flowlet_gap = conga_flowlet_gap,
    .init = conga_init,
    .on_arrival = conga_on_arrival,
    .choose = conga_choose,
    .on_dequeue = conga_on_dequeue,
};

/* ---------------------------------------------------------------- for tests (lb/conga.h) */
int conga_table_metric(struct sim *s, uint32_t node, bool to, uint32_t edge, uint32_t i)
{
    const struct conga_par *par = lb_running_params(s, &lb_conga);
    const struct lb_switch *sw = lb_switch_of(s, node);
    if (!par || !sw)
        return -1;
    const struct conga_sw *cs = sw->st;
    struct pt_row *const *tab = to ? cs->tab.to : cs->tab.from;
    if (!tab || edge >= lb_edge_count(s) || !tab[edge] || i >= tab[edge]->n)
        return -1;
    if (to)
        return (int)entry_metric(par, ((struct cto_row *)tab[edge])->e[i].t, ((struct cto_row *)tab[edge])->e[i].metric,
                                 lb_now(s));
    return (int)entry_metric(par, ((struct cfrom_row *)tab[edge])->e[i].t, ((struct cfrom_row *)tab[edge])->e[i].metric,
                             lb_now(s));
}
