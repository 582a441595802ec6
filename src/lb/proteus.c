/* Proteus — Hu et al., "Load Balancing With Multi-Level Signals for Lossless
 * Datacenter Networks", IEEE/ACM ToN 32(3), 2024 (ICNP'23). Implemented from
 * the paper's text (../shared/papers/000_*): §III-A (RTT-level signals, Table
 * II; sub-RTT signal, the cumulative sojourn time CST), §III-B Algorithm 1
 * (routing at the source edge) and Algorithm 2 (rerouting at every switch),
 * §IV-A (header: a 12-bit path ID, three 12-bit alternatives and a 24-bit
 * tolerable delay = 9 bytes), §IV-C (path status kept only at edge switches;
 * delay and utilisation measured at the destination edge over a period such
 * as an RTT and piggybacked on reverse traffic, as CONGA does).
 *
 * Pieces, and the readings chosen where the text is silent or garbled:
 *  - Paths are the equal-cost paths between two edge switches (lb_path_*); a
 *    packet carries its path word (source routing, §III-B.1) and, in lb.b[],
 *    the path's index, three alternative indices in priority order, the
 *    tolerable delay and the time it entered the source edge.
 *  - One-way delay (the paper's "RTT" of Table II, t_pd in Algorithm 1, is a
 *    one-way path delay): from the source edge's arrival to the destination
 *    edge's arrival, averaged per (source edge, path) over `period`.
 *  - Link utilisation of a path: every switch measures each fabric egress's
 *    utilisation over `period` (bytes sent / capacity); a data packet carries
 *    the largest along its path (CONGA's max, in lb.metric, per mille). The
 *    destination edge averages it per path over the period. The paper does
 *    not say which link stands for the path; the most utilised one makes a
 *    fully used bottleneck read "congested" and a paused path (whose links
 *    all idle while paused) read "< 1".
 *  - Table II with thresholds: non-congested if delay < RTT_low (the paper:
 *    20-40 % above the one-way base delay; default 1.3 x the path's base:
 *    propagation plus one MTU packet's serialisation per hop, or `rtt_low`
 *    if set); otherwise undetermined (PFC) if utilisation < `util_full`
 *    (Table II's "= 1"; measured utilisation of a busy link is slightly under
 *    1 over a short window, hence 0.9), else congested.
 *  - Feedback: the destination edge piggybacks one path's (delay,
 *    utilisation) on each packet toward the source edge (data or ACK: the
 *    scheme sees every packet), changed entries first, else round robin.
 *    Entries not refreshed for `aging` read as unmeasured: base delay, zero
 *    utilisation (non-congested), so an unused path is tried again.
 *  - The delay Algorithm 1 compares is the fed-back one-way delay, as the
 *    paper has it. It is up to a period plus a feedback trip old, and the
 *    source edge's own uplink queue can grow by microseconds meanwhile; a
 *    flow then moved "by less than the gap" overtakes its predecessor
 *    (tests/test_proteus.c's Algorithm 1 case with alg1 = every: 165 packets
 *    out of order), which the paper's "no reordering" (§V-C.1) does not
 *    show. Not in the paper, off by default: `local_queue = on` takes a
 *    path's delay as at least its base plus the queue at the source edge's
 *    own uplink now (the same case: none out of order; queues further along
 *    are still known only through the stale feedback; with the default
 *    trigger the same case has 7 moves and 189 packets out of order).
 *  - Algorithm 1, at the source edge, "triggered ... for the cases of a new
 *    flow packet arriving or the current path is congested" (§III-B.1): a
 *    new flow takes SelectPath over the active paths (non-congested: min
 *    delay; else undetermined: max utilisation; else congested: min delay;
 *    ties broken by the switch's random stream). A later packet of the flow
 *    is considered for a move only while its path is congested - not
 *    non-congested by Table II (undetermined or congested), or kicked out;
 *    on a non-congested path it stays. The pseudo-code's lines 6-11 alone
 *    would consider every packet; `alg1 = every` does that (the earlier
 *    reading here, which moved a Web Search flow 6-7 times and made most of
 *    Proteus's reordering; issue 35). A packet that is considered moves only
 *    to a path p' with 0 < d(p) - d(p') < gap since the flow's previous packet
 *    (lines 6-7, which is what keeps it in order: it arrives after its
 *    predecessor), choosing among those by SelectPath; else it stays. "Active"
 *    paths exclude kicked-out ones (below); a flow whose path was kicked out
 *    moves to any active path with d(p) - d(p') < gap (slower ones too: they
 *    keep the order), else stays on it (Algorithm 2 reroutes it further on).
 *  - Header (9 B, hdr_bytes): the chosen path, the next 3 active paths in
 *    SelectPath's order, and the tolerable delay t_td = d(first alternative)
 *    - d(chosen), floored at 0 (§III-B.2: "the delay difference between the
 *    optimal and suboptimal paths"); without an alternative it is unlimited.
 *  - Algorithm 2, at every switch, on a data packet joining a PFC-paused
 *    egress (line 4; a queue that is not paused needs no decision, the CST
 *    simply grows): the tolerable delay left is t_td - CST (lines 6-7 take
 *    each switch's sojourn off it). As the text says (`alg2 = predict`, the
 *    default), the packet predicts the minimum queueing delay t_qd — the
 *    bytes ahead of it in that queue at the port's rate, what it would wait
 *    if the pause ended now — and waits if t_td > t_qd (lines 5-7); else it
 *    is rerouted to the first carried alternative that branches off at this
 *    switch (alternatives that diverge earlier cannot be reached from here
 *    and are skipped; if none is left, it stays: "the packet will not switch
 *    path") and the egress port is kicked out (p_active = 0, lines 9-10)
 *    until its PFC pause ends: every new packet for it here follows its
 *    alternative at once. Packets that chose to wait stay where they are
 *    (the decision is taken on arrival). Not in the paper: `alg2 = wait`
 *    reads the rule as §III-C's rent-or-buy argument ("wait for D_ps - D_po
 *    at most, then switch"): the packet waits while t_td - CST lasts, and at
 *    the instant it is spent with the queue still paused (a switch timer)
 *    it, and once the port is kicked out every packet still waiting on it,
 *    is re-steered to its alternative.
 *  - Kicked-out ports reach the source edges, where path status lives
 *    (§IV-C, Algorithm 1's "Active Paths"): a switch that kicks out a port
 *    while rerouting a packet that entered the fabric at another edge sends
 *    that source edge a 64-byte control message (once per kick and edge;
 *    routed in queue 0), which marks every path toward the packet's
 *    destination edge through that port inactive. The switch checks every
 *    1 us whether the pause has ended and then tells each edge it told,
 *    which makes the paths active again. The paper gives no mechanism or
 *    message; `report_kicks = off` leaves the edges to learn it from delay
 *    and utilisation only (the earlier reading).
 *  - After a reroute the packet's remaining alternatives shift up and its
 *    budget is zero (the header has one tolerable delay, the first
 *    alternative's): a further paused hop sends it on at once. A reroute at
 *    the flow's source edge also moves the flow (its next packets follow, in
 *    order behind the rerouted ones).
 * Traffic between hosts of one edge switch bypasses it; non-data packets and
 * pairs with more than 255 paths (the index travels in a byte here; 12 bits
 * on the wire) use ECMP's hash. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "lb/pathtab.h"
#include "lb/proteus.h"
#include "net/cc.h"
#include "net/lb.h"

extern const struct lb_ops lb_proteus;

enum { ALG2_PREDICT, ALG2_WAIT };
enum { ALG1_CONGESTED, ALG1_EVERY };

struct proteus_par {
    simtime_t period, aging, rtt_low;
    double rtt_low_factor, util_full;
    int64_t alternatives;
    bool local_queue, report_kicks;
    int alg1, alg2;
};

#define NALT 3          /* alternatives a header holds (§IV-A) */
#define PMAX 255u       /* paths per pair addressed by a byte; 0xff = none */
#define TD_NONE UINT32_MAX
#define KICK_POLL T_US  /* a switch that reported a kick checks this often whether its pause has ended */
enum { CTRL_KICK = 1, CTRL_UNKICK = 2 }; /* p->lb.proto of Proteus's PKT_CTRL: lb.b[0..3] port, [4..7] dst edge */
#define CTRL_BYTES 64
enum { TIMER_WATCH = 0, TIMER_KICKS = 1 };
/* p->lb.fb = PT_FB_VALID | path << 16 | utilisation per mille; delay in b[12..15] */

/* lb.b[] layout of a data packet routed by Proteus. */
enum { B_PATH = 0, B_ALT = 1, B_TD = 4, B_TSRC = 8, B_FBDELAY = 12 };

/* Source edge, per destination edge: what it knows of each path (a row of
 * lb/pathtab.h; p.base: propagation + one MTU's serialisation per hop). */
struct pent {
    struct pt_path p;
    simtime_t owd, t;    /* fed-back one-way delay and when (ageing) */
    simtime_t low;       /* RTT_low of this path (constant: from base and the parameters) */
    uint32_t ps_per_byte; /* the uplink's serialisation per byte when exact (8e12 % rate == 0), else 0 */
    uint16_t util;       /* fed-back utilisation, per mille */
    uint16_t down;       /* kicked-out ports further along it, as reported (inactive while > 0) */
};
struct prow {
    struct pt_row pt;
    struct pent e[];
};

/* Destination edge, per source edge: the measurement of each path. */
struct ment {
    struct pt_fb fb;      /* valid: a period was published */
    simtime_t t0;         /* start of the current period */
    uint64_t sum_owd_ns, sum_util;
    uint32_t cnt;
    uint32_t owd_ns;      /* last period's averages */
    uint16_t util;
};
struct mrow {
    struct pt_row pt;
    struct ment e[];
};

struct putil {
    uint64_t tx0;
    simtime_t t0;
    uint16_t util;
};

struct proteus_sw {
    struct pathtab tab; /* edges: prow by destination edge, mrow by source edge */
    struct putil *pu;   /* by port - port0 */
    simtime_t *kicked;  /* by port - port0: the pause start (paused_since) it was kicked out in, or -1 */
    uint32_t *watch;    /* ports with packets waiting in a paused queue (Algorithm 2's timer) */
    uint32_t nwatch;
    bool *watched;
    uint32_t util_full; /* util_full per mille, as Table II compares it */
    uint32_t nkicked;   /* ports with kicked[] set (0: routing skips the test) */
    /* a switch that kicked a port out: the source edges it told, per port
     * (a bit set over edges, made at the port's first report), and the
     * ports with reports outstanding */
    uint64_t **told;
    uint32_t *reported, nreported;
    /* a source edge: the kicks reported to it, (port, destination edge) */
    struct rkick { uint32_t port, de; } *rk;
    uint32_t nrk, caprk;
};

struct proteus_flow {
    simtime_t last; /* its previous packet at the source edge */
    uint8_t path;
    bool valid;
};

/* summary.json lb_stats.scheme */
enum { ST_MOVES, ST_REROUTES, ST_STAYS, ST_WAITS, ST_KICK_REPORTS };
static const char *const proteus_stat_names[] = {
    "rtt_level_moves",  /* Algorithm 1: a flow moved to a faster path */
    "sub_rtt_reroutes", /* Algorithm 2: a paused packet took an alternative */
    "stay_decisions",   /* Algorithm 2: reroute due, but no alternative branches off at that switch (per decision) */
    "wait_decisions",   /* Algorithm 2 (predict): a packet met a paused egress and waited (t_td > t_qd) */
    "kick_reports",     /* kicked-out ports reported to a source edge */
    NULL};

#define P(m) offsetof(struct proteus_par, m)
static const struct param proteus_params[] = {
    {"period", P_TIME, P(period), "10us", "measurement period of delay and utilisation at the destination edge (paper: about an RTT)", NULL, 1, 1e15},
    {"aging", P_TIME, P(aging), "100us", "a path's fed-back status older than this reads unmeasured (non-congested)", NULL, 1, 1e15},
    {"rtt_low", P_TIME, P(rtt_low), "0", "one-way delay below which a path is non-congested; 0 = rtt_low_factor x the path's base delay", NULL, 0, 1e15},
    {"rtt_low_factor", P_DOUBLE, P(rtt_low_factor), "1.3", "RTT_low as a multiple of the base one-way delay (paper: 20-40 % above it)", NULL, 1, 100},
    {"util_full", P_DOUBLE, P(util_full), "0.9", "utilisation at or above this counts as full (Table II's = 1)", NULL, 0.01, 1},
    {"alternatives", P_INT, P(alternatives), "3", "alternative paths carried in the header (paper: 3)", NULL, 0, NALT},
    {"local_queue", P_BOOL, P(local_queue), "off", "not in the paper: a path's delay is at least its base plus the source edge's own queue toward it now (off: the fed-back value only)", NULL, 0, 0},
    {"alg1", P_ENUM, P(alg1), "congested", "when Algorithm 1 may move a flow that has a path: congested = only while that path is not non-congested or is kicked out (the paper's text: \"a new flow packet arriving or the current path is congested\"); every = on every packet (lines 6-11 alone; the earlier reading)", "congested|every", 0, 0},
    {"alg2", P_ENUM, P(alg2), "predict", "Algorithm 2 at a paused egress: predict = reroute unless the tolerable delay exceeds the predicted queueing delay (the paper's text); wait = rent-or-buy, wait until the tolerable delay is spent, re-steering waiting packets (not in the paper)", "predict|wait", 0, 0},
    {"report_kicks", P_BOOL, P(report_kicks), "on", "a switch that kicks out a port tells the source edges of the packets it reroutes, and again when the pause ends (off: they learn it from delay and utilisation only)", NULL, 0, 0},
    PARAM_END};

/* ---------------------------------------------------------------- helpers */

static uint32_t get32(const uint8_t *b) { uint32_t v; memcpy(&v, b, 4); return v; }
static void put32(uint8_t *b, uint32_t v) { memcpy(b, &v, 4); }
static uint32_t now_ns(const struct sim *s) { return (uint32_t)(lb_now(s) / T_NS); }

static struct proteus_sw *state(struct sim *s, uint32_t node) { return lb_switch_of(s, node)->st; }

/* A source row is made (lb/pathtab.h): per path, RTT_low and the uplink's
 * exact serialisation per byte; nothing fed back yet. */
static void row_made(struct sim *s, void *owner, struct pt_row *pt, uint32_t here, uint32_t de)
{
    (void)owner;
    (void)here;
    (void)de;
    const struct proteus_par *par = lb_running_params(s, &lb_proteus);
    struct prow *r = (struct prow *)pt;
    for (uint32_t i = 0; i < pt->n; i++) {
        struct pent *e = &r->e[i];
        e->t = -1;
        e->low = par->rtt_low > 0 ? par->rtt_low : (simtime_t)((double)e->p.base * par->rtt_low_factor);
        uint64_t rate = lb_port_rate(s, e->p.port);
        if (rate && 8000000000000ULL % rate == 0 && 8000000000000ULL / rate <= UINT32_MAX)
            e->ps_per_byte = (uint32_t)(8000000000000ULL / rate);
    }
}

static simtime_t mtu_time(const struct sim *s, uint32_t port)
{
    return tx_time(cc_mtu(s) + cc_data_hdr(s), lb_port_rate(s, port));
}

static const struct pt_spec proteus_tab = {
    .to_row = offsetof(struct prow, e),
    .to_entry = sizeof(struct pent),
    .from_row = offsetof(struct mrow, e),
    .from_entry = sizeof(struct ment),
    .max_paths = PMAX,
    .over_none = true, /* more than an index byte addresses: ECMP */
    .fb_shift = 16,
    .fb_imask = 0xffu,
    .hop = mtu_time,
    .made = row_made,
};

static inline struct prow *to_row(struct sim *s, struct proteus_sw *ps, uint32_t here, uint32_t de)
{
    return (struct prow *)pt_to(s, &ps->tab, here, de);
}

static struct mrow *from_row(struct sim *s, struct proteus_sw *ps, uint32_t se, uint32_t here)
{
    return (struct mrow *)pt_from(s, &ps->tab, se, here);
}

/* A port is inactive (kicked out) while the pause it was kicked out in lasts. */
static inline bool kicked(struct sim *s, const struct lb_switch *sw, uint32_t port, int q)
{
    simtime_t k = ((struct proteus_sw *)sw->st)->kicked[port - sw->port0];
    return k >= 0 && lb_port_paused_since(s, port, q) == k;
}

/* ---------------------------------------------------------------- Table II */

enum { NONCONG, UNDET, CONG };

/* A path as the source edge sees it when deciding: its delay d, its class
 * and its place in SelectPath's order (class, then delay; for undetermined
 * paths the highest utilisation first) as one unsigned key: a path is better
 * than another exactly when its key is smaller. Per packet, because the
 * source edge's own queue (local_queue) changes with every packet; the rest
 * (RTT_low, the exact serialisation per byte, util_full per mille) is fixed
 * when the row is made. */
static inline int view_path(struct sim *s, const struct proteus_par *par, uint32_t util_full, const struct pent *e,
                            simtime_t now, simtime_t *d_out, uint64_t *key)
{
    bool fresh = e->t >= 0 && now - e->t < par->aging;
    simtime_t d = fresh ? e->owd : e->p.base;
    uint32_t u = fresh ? e->util : 0;
    if (par->local_queue) { /* what has queued here since the measurement left the destination */
        uint64_t bytes = lb_port_bytes(s, e->p.port);
        /* tx_time() without its 128-bit division when the rate divides 8e12 (it is then exact) */
        simtime_t q = e->ps_per_byte && bytes <= UINT32_MAX ? (simtime_t)(bytes * e->ps_per_byte)
                                                              : tx_time(bytes, lb_port_rate(s, e->p.port));
        if (e->p.base + q > d)
            d = e->p.base + q;
    }
    int cls = d < e->low ? NONCONG : u < util_full ? UNDET : CONG;
    /* Delays fit 62 bits: fed back as 32-bit ns (< 2^42 ps), or base plus a
     * queue bounded by the buffer; the clamp only guards the key's range. */
    uint64_t val = cls == UNDET ? 0xffffu - u : d < 0 ? 0 : d >= (simtime_t)1 << 62 ? ((uint64_t)1 << 62) - 1 : (uint64_t)d;
    *d_out = d;
    *key = (uint64_t)cls << 62 | val;
    return cls;
}

/* Path sets are bit sets of NW 64-bit words: 1 when the row has at most 64
 * paths (then the sets live in registers), else 4. The functions taking NW
 * are inlined with it constant. */
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define WORD(NW, i) ((NW) == 1 ? 0 : (i) >> 6)
#define BIT(i) (1ull << ((i) & 63))

/* The best path of `ok` (a bit set per index below n; the row has at most
 * 255), the scan starting at a random index so ties go to a uniform-ish pick:
 * the first smallest key from `start` on, cyclically. Only the set bits are
 * visited, those at or after `start` first. */
static ALWAYS_INLINE uint32_t select_path(struct lb_switch *sw, uint32_t n, const uint64_t *key, const uint64_t *ok,
                                          const uint32_t NW)
{
    uint32_t best = PMAX, start = (uint32_t)rng_below(&sw->rng, n), w0 = WORD(NW, start);
    uint64_t bk = UINT64_MAX; /* above every key (classes are 0..2) */
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t w = pass ? 0 : w0; w < (pass ? w0 + 1 : NW); w++) {
            uint64_t m = ok[w];
            if (w == w0)
                m &= pass ? BIT(start) - 1 : ~(BIT(start) - 1);
            for (; m; m &= m - 1) {
                uint32_t i = w << 6 | (uint32_t)__builtin_ctzll(m);
                if (key[i] < bk) {
                    bk = key[i];
                    best = i;
                }
            }
        }
    return best;
}

static bool any_bit(const uint64_t *set, const uint32_t NW)
{
    uint64_t x = 0;
    for (uint32_t w = 0; w < NW; w++)
        x |= set[w];
    return x != 0;
}

/* ---------------------------------------------------------------- Algorithm 1 */

static ALWAYS_INLINE void route_nw(struct sim *s, struct lb_switch *sw, const struct proteus_par *par, struct pkt *p,
                                   const struct prow *r, simtime_t *d, uint64_t *key, const uint32_t NW)
{
    struct proteus_sw *ps = sw->st;
    simtime_t now = lb_now(s);
    uint64_t all[4] = {0}, active[4];
    for (uint32_t i = 0; i < r->pt.n; i++) {
        view_path(s, par, ps->util_full, &r->e[i], now, &d[i], &key[i]);
        all[WORD(NW, i)] |= BIT(i);
    }
    memcpy(active, all, sizeof active);
    if (ps->nkicked || ps->nrk) { /* some port here kicked out once, or one further on reported: still? */
        for (uint32_t i = 0; i < r->pt.n; i++)
            if (r->e[i].down || kicked(s, sw, r->e[i].p.port, p->prio))
                active[WORD(NW, i)] &= ~BIT(i);
        if (!any_bit(active, NW)) /* all kicked out: any will do */
            memcpy(active, all, sizeof active);
    }
    struct proteus_flow *f = lb_flow_state(s, p->flow);
    if (!f->valid || f->path >= r->pt.n) { /* a new flow */
        f->path = (uint8_t)select_path(sw, r->pt.n, key, active, NW);
        f->valid = true;
    } else if (par->alg1 == ALG1_EVERY || !(active[WORD(NW, f->path)] & BIT(f->path)) ||
               key[f->path] >> 62 != NONCONG) {
        /* lines 6-11, when the flow's path is congested (not non-congested,
         * or kicked out; alg1 = every: always): only to a path that cannot
         * deliver it before its predecessor */
        simtime_t gap = now - f->last, df = d[f->path];
        /* its path kicked out (not active): any active path that keeps the
         * order, slower ones included; else only faster ones */
        bool off = !(active[WORD(NW, f->path)] & BIT(f->path));
        uint64_t faster[4] = {0};
        for (uint32_t i = 0; i < r->pt.n; i++) {
            simtime_t diff = df - d[i];
            faster[WORD(NW, i)] |= (uint64_t)((off ? i != f->path : diff > 0) && diff < gap) << (i & 63);
        }
        for (uint32_t w = 0; w < NW; w++)
            faster[w] &= active[w];
        if (any_bit(faster, NW)) {
            f->path = (uint8_t)select_path(sw, r->pt.n, key, faster, NW);
            lb_stat_add(s, ST_MOVES, 1);
        }
    }
    f->last = now;
    /* the alternatives: the next best active paths, in order */
    uint32_t cur = f->path;
    uint64_t rest[4];
    memcpy(rest, active, sizeof rest);
    rest[WORD(NW, cur)] &= ~BIT(cur);
    uint32_t alt[NALT] = {PMAX, PMAX, PMAX};
    for (int k = 0; k < par->alternatives; k++) {
        uint32_t a = select_path(sw, r->pt.n, key, rest, NW);
        if (a == PMAX)
            break;
        alt[k] = a;
        rest[WORD(NW, a)] &= ~BIT(a);
    }
    uint32_t td = TD_NONE;
    if (alt[0] != PMAX) {
        simtime_t diff = d[alt[0]] - d[cur];
        td = diff <= 0 ? 0 : diff / T_NS >= 0xffffff ? 0xffffff : (uint32_t)(diff / T_NS); /* 24 bits on the wire */
    }
    p->lb.path = r->e[cur].p.word;
    p->lb.path_hop = 0;
    p->lb.metric = 0;
    p->lb.b[B_PATH] = (uint8_t)cur;
    for (int k = 0; k < NALT; k++)
        p->lb.b[B_ALT + k] = (uint8_t)alt[k];
    put32(&p->lb.b[B_TD], td);
    put32(&p->lb.b[B_TSRC], now_ns(s));
}

static void route(struct sim *s, struct lb_switch *sw, const struct proteus_par *par, struct pkt *p, uint32_t de)
{
    const struct prow *r = to_row(s, sw->st, (uint32_t)sw->edge, de);
    simtime_t d[PMAX];
    uint64_t key[PMAX];
    if (r->pt.n > 64)
        route_nw(s, sw, par, p, r, d, key, 4);
    else if (r->pt.n)
        route_nw(s, sw, par, p, r, d, key, 1);
}

/* ---------------------------------------------------------------- measurement and feedback */

static void measure(struct sim *s, struct proteus_sw *ps, const struct proteus_par *par, const struct pkt *p, uint32_t se,
                    uint32_t here)
{
    struct mrow *r = from_row(s, ps, se, here);
    uint32_t i = p->lb.b[B_PATH];
    if (i >= r->pt.n)
        return;
    struct ment *e = &r->e[i];
    simtime_t now = lb_now(s);
    if (e->cnt && now - e->t0 >= par->period) { /* the period ended: publish its averages */
        uint32_t owd = (uint32_t)(e->sum_owd_ns / e->cnt);
        uint16_t util = (uint16_t)(e->sum_util / e->cnt);
        pt_fb_note(&ps->tab, &r->pt, i, !e->fb.valid || owd != e->owd_ns || util != e->util);
        e->owd_ns = owd;
        e->util = util;
        e->cnt = 0;
        e->sum_owd_ns = e->sum_util = 0;
    }
    if (!e->cnt)
        e->t0 = now;
    e->sum_owd_ns += now_ns(s) - get32(&p->lb.b[B_TSRC]); /* modulo 2^32 ns */
    e->sum_util += p->lb.metric;
    e->cnt++;
}

/* One measured path of the pair (to -> here) on a packet leaving here toward `to`. */
static void piggyback(struct proteus_sw *ps, struct pkt *p, uint32_t to)
{
    uint32_t i = pt_fb_pick(&ps->tab, to);
    if (i == UINT32_MAX)
        return;
    const struct ment *e = &((struct mrow *)ps->tab.from[to])->e[i];
    p->lb.fb = pt_fb_word(&ps->tab, i, e->util);
    put32(&p->lb.b[B_FBDELAY], e->owd_ns);
}

static void feedback(struct sim *s, struct proteus_sw *ps, const struct pkt *p, uint32_t here, uint32_t se)
{
    struct prow *r = to_row(s, ps, here, se);
    uint32_t i = pt_fb_index(&ps->tab, p->lb.fb);
    if (i < r->pt.n) {
        r->e[i].owd = (simtime_t)get32(&p->lb.b[B_FBDELAY]) * T_NS;
        r->e[i].util = (uint16_t)pt_fb_value(&ps->tab, p->lb.fb);
        r->e[i].t = lb_now(s);
    }
}

/* ---------------------------------------------------------------- kicked-out ports, reported */

static void kick_msg(struct sim *s, const struct lb_switch *sw, uint32_t edge, int proto, uint32_t port, uint32_t de)
{
    struct pkt *c = lb_ctrl_packet(s, sw->node, lb_edge_node(s, edge), (uint8_t)proto, CTRL_BYTES);
    put32(&c->lb.b[0], port);
    put32(&c->lb.b[4], de);
    lb_ctrl_send(s, c);
    lb_stat_add(s, ST_KICK_REPORTS, proto == CTRL_KICK);
}

/* Switch sw kicked out its port `out` for a packet from source edge se to
 * de: tell se (once per kick), and watch for the pause's end. */
static void kick_report(struct sim *s, struct lb_switch *sw, uint32_t out, uint32_t se, uint32_t de)
{
    struct proteus_sw *ps = sw->st;
    uint32_t k = out - sw->port0, words = (lb_edge_count(s) + 63) / 64;
    if (!ps->told[k])
        ps->told[k] = lb_alloc(s, words * sizeof(uint64_t));
    uint64_t *t = ps->told[k];
    if (t[se / 64] >> (se % 64) & 1)
        return;
    bool first = true;
    for (uint32_t w = 0; w < words; w++)
        first &= t[w] == 0;
    t[se / 64] |= 1ull << (se % 64);
    if (first) {
        ps->reported[ps->nreported++] = out;
        if (sw->timer_at[TIMER_KICKS] < 0)
            lb_timer_set(s, sw, TIMER_KICKS, lb_now(s) + KICK_POLL);
    }
    kick_msg(s, sw, se, CTRL_KICK, out, de);
}

/* Every KICK_POLL while reports are outstanding: a reported port whose pause
 * has ended (kicked() no longer holds) is active again; tell its edges. */
static void kick_poll(struct sim *s, struct lb_switch *sw)
{
    struct proteus_sw *ps = sw->st;
    uint32_t words = (lb_edge_count(s) + 63) / 64;
    for (uint32_t i = 0; i < ps->nreported;) {
        uint32_t port = ps->reported[i], k = port - sw->port0;
        bool still = false;
        for (int q = 1; q < NQ && !still; q++)
            still = kicked(s, sw, port, q);
        if (still) {
            i++;
            continue;
        }
        uint64_t *t = ps->told[k];
        for (uint32_t w = 0; w < words; w++)
            for (uint64_t m = t[w]; m; m &= m - 1)
                kick_msg(s, sw, w * 64 + (uint32_t)__builtin_ctzll(m), CTRL_UNKICK, port, 0);
        memset(t, 0, words * sizeof *t);
        ps->reported[i] = ps->reported[--ps->nreported];
    }
    if (ps->nreported)
        lb_timer_set(s, sw, TIMER_KICKS, lb_now(s) + KICK_POLL);
}

/* At a source edge: paths toward de through `port` (ports further along) are
 * (in)active, by `by` = +1 or -1. */
static void mark_down(struct sim *s, struct proteus_sw *ps, uint32_t here, uint32_t de, uint32_t port, int by)
{
    struct prow *r = to_row(s, ps, here, de);
    for (uint32_t i = 0; i < r->pt.n; i++) {
        uint32_t ports[4];
        int n = lb_path_ports(s, here, de, r->e[i].p.word, ports, 4);
        for (int j = 1; j < n; j++)
            if (ports[j] == port) {
                r->e[i].down = (uint16_t)(r->e[i].down + by);
                break;
            }
    }
}

static void proteus_on_ctrl(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p)
{
    (void)par;
    struct proteus_sw *ps = sw->st;
    if (sw->edge < 0)
        return;
    uint32_t port = get32(&p->lb.b[0]), de = get32(&p->lb.b[4]), here = (uint32_t)sw->edge;
    if (p->lb.proto == CTRL_KICK) {
        if (de >= lb_edge_count(s) || de == here)
            return;
        for (uint32_t i = 0; i < ps->nrk; i++)
            if (ps->rk[i].port == port && ps->rk[i].de == de)
                return; /* known */
        if (ps->nrk == ps->caprk) {
            uint32_t cap = ps->caprk ? 2 * ps->caprk : 16;
            struct rkick *m = lb_alloc(s, cap * sizeof *m); /* the old block stays with the simulation: rare */
            if (ps->nrk)
                memcpy(m, ps->rk, ps->nrk * sizeof *m);
            ps->rk = m;
            ps->caprk = cap;
        }
        ps->rk[ps->nrk++] = (struct rkick){port, de};
        mark_down(s, ps, here, de, port, +1);
    } else if (p->lb.proto == CTRL_UNKICK) {
        for (uint32_t i = 0; i < ps->nrk;)
            if (ps->rk[i].port == port) {
                mark_down(s, ps, here, ps->rk[i].de, port, -1);
                ps->rk[i] = ps->rk[--ps->nrk];
            } else {
                i++;
            }
    }
}

/* ---------------------------------------------------------------- Algorithm 2 */

/* Reroute p waiting at switch sw for egress `out`: the first carried
 * alternative that branches off here. Returns the new egress or UINT32_MAX. */
static uint32_t reroute(struct sim *s, struct lb_switch *sw, const struct proteus_par *par, struct pkt *p, uint32_t out)
{
    struct proteus_sw *ps = sw->st;
    uint32_t se = lb_host_edge(s, p->src), de = lb_host_edge(s, p->dst);
    int hop = p->lb.path_hop - 1; /* this switch's byte of the word (incremented on arrival) */
    uint32_t cur[4];
    int nc = lb_path_ports(s, se, de, p->lb.path, cur, 4);
    if (hop < 0 || hop >= nc || cur[hop] != out)
        return UINT32_MAX;
    for (int k = 0; k < NALT; k++) {
        uint32_t a = p->lb.b[B_ALT + k];
        if (a == PMAX)
            break;
        uint32_t w = lb_path_word(s, se, de, a), alt[4];
        int na = lb_path_ports(s, se, de, w, alt, 4);
        if (na <= hop || alt[hop] == out || memcmp(alt, cur, (size_t)hop * sizeof cur[0]) != 0)
            continue; /* diverges before this switch, or leaves by the same port */
        if (kicked(s, sw, alt[hop], p->prio))
            continue; /* that one is kicked out here too */
        /* take it: later alternatives move up, the budget is spent */
        p->lb.path = w;
        p->lb.b[B_PATH] = (uint8_t)a;
        for (int j = 0; j < NALT; j++)
            p->lb.b[B_ALT + j] = (uint8_t)(k + 1 + j < NALT ? p->lb.b[B_ALT + k + 1 + j] : PMAX);
        put32(&p->lb.b[B_TD], 0);
        if (ps->kicked[out - sw->port0] < 0)
            ps->nkicked++;
        ps->kicked[out - sw->port0] = lb_port_paused_since(s, out, p->prio);
        if (sw->edge >= 0 && (uint32_t)sw->edge == se) { /* the flow's own edge: its next packets follow */
            struct proteus_flow *f = lb_flow_state(s, p->flow);
            f->path = (uint8_t)a;
        } else if (par->report_kicks) { /* path status lives at the source edges (sec. IV-C) */
            kick_report(s, sw, out, se, de);
        }
        lb_stat_add(s, ST_REROUTES, 1);
        return alt[hop];
    }
    lb_stat_add(s, ST_STAYS, 1);
    return UINT32_MAX;
}

/* Remaining tolerable delay of p at `now`: t_td minus the CST so far,
 * including its wait in the current queue since t_enq if `waiting`. */
static simtime_t budget(const struct sim *s, const struct pkt *p, bool waiting)
{
    uint32_t td = get32(&p->lb.b[B_TD]);
    if (td == TD_NONE)
        return T_NEVER;
    simtime_t cst = p->lb.sojourn + (waiting ? lb_now(s) - p->lb.t_enq : 0);
    return (simtime_t)td * T_NS - cst;
}

static bool ours(const struct pkt *p) { return p->type == PKT_DATA && p->lb.path != PATH_NONE && p->prio != 0; }

static void watch(struct sim *s, struct lb_switch *sw, uint32_t port, simtime_t at)
{
    struct proteus_sw *ps = sw->st;
    if (!ps->watched[port - sw->port0]) {
        ps->watched[port - sw->port0] = true;
        ps->watch[ps->nwatch++] = port;
    }
    if (sw->timer_at[TIMER_WATCH] < 0 || at < sw->timer_at[TIMER_WATCH])
        lb_timer_set(s, sw, TIMER_WATCH, at);
}

/* The minimum queueing delay a packet joining queue q of a paused port can
 * expect (Algorithm 2 line 3): the bytes ahead of it at the port's rate, as
 * if the pause ended now; a failed link (blocked, not paused) never sends. */
static simtime_t min_queue_delay(const struct sim *s, uint32_t port, int q)
{
    if (!lb_port_paused(s, port, q))
        return T_NEVER;
    return tx_time(lb_port_queue_bytes(s, port, q), lb_port_rate(s, port));
}

static void proteus_on_enqueue(struct sim *s, struct lb_switch *sw, const void *par_, struct pkt *p, uint32_t *out, int q)
{
    const struct proteus_par *par = par_;
    if (!ours(p) || !lb_port_blocked(s, *out, q))
        return; /* line 4: only a paused egress calls for a decision */
    simtime_t left = budget(s, p, false);
    if (left == T_NEVER)
        return; /* no alternative to go to */
    if (par->alg2 == ALG2_PREDICT) {
        /* lines 3-10: wait if the tolerable delay left exceeds the predicted
         * queueing delay (and the port is still active), else reroute */
        if (left > min_queue_delay(s, *out, q) && !kicked(s, sw, *out, q)) {
            lb_stat_add(s, ST_WAITS, 1);
            return;
        }
        uint32_t alt = reroute(s, sw, par, p, *out);
        if (alt != UINT32_MAX)
            *out = alt;
        return;
    }
    if (left <= 0 || kicked(s, sw, *out, q)) {
        uint32_t alt = reroute(s, sw, par, p, *out);
        if (alt != UINT32_MAX)
            *out = alt;
        return;
    }
    watch(s, sw, *out, lb_now(s) + left); /* wait while the budget lasts (lines 5-7) */
}

struct scan {
    struct lb_switch *sw;
    const struct proteus_par *par;
    uint32_t port;
    simtime_t next;
};

static uint32_t scan_one(struct sim *s, void *ctx, struct pkt *p)
{
    struct scan *c = ctx;
    if (!ours(p))
        return UINT32_MAX;
    simtime_t left = budget(s, p, true);
    if (left == T_NEVER)
        return UINT32_MAX;
    if (left <= 0 || kicked(s, c->sw, c->port, p->prio))
        return reroute(s, c->sw, c->par, p, c->port);
    if (lb_now(s) + left < c->next)
        c->next = lb_now(s) + left;
    return UINT32_MAX;
}

static void proteus_on_timer(struct sim *s, struct lb_switch *sw, const void *par, int kind)
{
    if (kind == TIMER_KICKS) {
        kick_poll(s, sw);
        return;
    }
    struct proteus_sw *ps = sw->st;
    simtime_t next = T_NEVER;
    for (uint32_t k = 0; k < ps->nwatch;) {
        uint32_t port = ps->watch[k];
        struct scan c = {sw, par, port, T_NEVER};
        bool waiting = false;
        for (int q = 1; q < NQ; q++)
            if (lb_port_queue_packets(s, port, q) && lb_port_paused(s, port, q)) {
                lb_port_requeue(s, port, q, scan_one, &c);
                waiting |= lb_port_queue_packets(s, port, q) > 0 && c.next != T_NEVER;
            }
        if (!waiting) { /* resumed, emptied, or nothing left with a budget: forget it */
            ps->watched[port - sw->port0] = false;
            ps->watch[k] = ps->watch[--ps->nwatch];
            continue;
        }
        if (c.next < next)
            next = c.next;
        k++;
    }
    if (next != T_NEVER)
        lb_timer_set(s, sw, TIMER_WATCH, next);
}

/* ---------------------------------------------------------------- hooks */

static void proteus_init(struct sim *s, struct lb_switch *sw, const void *par)
{
    struct proteus_sw *ps = sw->st;
    ps->pu = lb_alloc(s, sw->nports * sizeof *ps->pu);
    ps->kicked = lb_alloc(s, sw->nports * sizeof *ps->kicked);
    ps->watch = lb_alloc(s, sw->nports * sizeof *ps->watch);
    ps->watched = lb_alloc(s, sw->nports * sizeof *ps->watched);
    ps->told = lb_alloc(s, sw->nports * sizeof *ps->told);
    ps->reported = lb_alloc(s, sw->nports * sizeof *ps->reported);
    for (uint32_t k = 0; k < sw->nports; k++)
        ps->kicked[k] = -1;
    ps->util_full = (uint32_t)(((const struct proteus_par *)par)->util_full * 1000 + 0.5);
    pt_init(s, sw, &ps->tab, &proteus_tab, ps);
}

static void proteus_on_arrival(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, uint32_t in_port)
{
    struct proteus_sw *ps = sw->st;
    uint32_t se, de;
    enum pt_role role = pt_role(s, sw, p, in_port, &se, &de); /* edges act, on traffic between two of them */
    uint32_t here = (uint32_t)sw->edge;
    if (role == PT_SOURCE) { /* the source edge */
        if (p->type == PKT_DATA)
            route(s, sw, par, p, de);
        piggyback(ps, p, de);
    } else if (role == PT_DEST) { /* from the fabric, at the destination edge */
        if (p->type == PKT_DATA && p->lb.path != PATH_NONE)
            measure(s, ps, par, p, se, here);
        if (p->lb.fb & PT_FB_VALID)
            feedback(s, ps, p, here, se);
    }
}

/* Packets without a path: exactly ECMP's hash. */
static int proteus_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports, int n)
{
    (void)ports;
    (void)par;
    return lb_ecmp_pick(s, sw, p, n);
}

/* Every fabric egress measures its utilisation over the period; a data packet
 * carries the largest along its path. */
static void proteus_on_dequeue(struct sim *s, struct lb_switch *sw, const void *par_, struct pkt *p, uint32_t port, int q)
{
    (void)q;
    const struct proteus_par *par = par_;
    if (lb_port_to_host(s, port))
        return;
    struct putil *u = &((struct proteus_sw *)sw->st)->pu[port - sw->port0];
    simtime_t now = lb_now(s);
    if (now - u->t0 >= par->period) {
        uint64_t tx = lb_port_tx_bytes(s, port);
        double cap = (double)lb_port_rate(s, port) * (double)(now - u->t0) / 8e12;
        double x = cap > 0 ? (double)(tx - u->tx0) / cap * 1000 : 0;
        u->util = (uint16_t)(x > 1000 ? 1000 : x);
        u->tx0 = tx;
        u->t0 = now;
    }
    if (p->type == PKT_DATA && p->lb.path != PATH_NONE && u->util > p->lb.metric)
        p->lb.metric = u->util;
}


const struct lb_ops lb_proteus = {
    .name = "proteus",
    .help = "Proteus (ToN'24): Table II path classes from delay + utilisation, order-keeping routing, "
            "better-late-than-never rerouting of PFC-paused packets",
    .params = proteus_params,
    .params_size = sizeof(struct proteus_par),
    .node_state_size = sizeof(struct proteus_sw),
    .flow_state_size = sizeof(struct proteus_flow),
    .hdr_bytes = 9, /* 12-bit path, 3 x 12-bit alternatives, 24-bit tolerable delay (§IV-A) */
    .all_packets = true,
    .sojourn = true,
    .init = proteus_init,
    .on_arrival = proteus_on_arrival,
    .choose = proteus_choose,
    .on_enqueue = proteus_on_enqueue,
    .on_dequeue = proteus_on_dequeue,
    .on_timer = proteus_on_timer,
    .on_ctrl = proteus_on_ctrl,
    .stat_names = proteus_stat_names,
};

/* ---------------------------------------------------------------- for tests (lb/proteus.h) */
int proteus_path_class(struct sim *s, uint32_t node, uint32_t dst_edge, uint32_t i)
{
    const struct lb_switch *sw = lb_switch_of(s, node);
    const void *par = lb_running_params(s, &lb_proteus);
    if (!par || !sw || sw->edge < 0)
        return -1;
    struct prow *r = to_row(s, state(s, node), (uint32_t)sw->edge, dst_edge);
    if (i >= r->pt.n)
        return -1;
    simtime_t d;
    uint64_t key;
    return view_path(s, par, state(s, node)->util_full, &r->e[i], lb_now(s), &d, &key);
}
void proteus_path_set(struct sim *s, uint32_t node, uint32_t dst_edge, uint32_t i, simtime_t owd, double util)
{
    struct prow *r = to_row(s, state(s, node), (uint32_t)lb_switch_of(s, node)->edge, dst_edge);
    if (i < r->pt.n) {
        r->e[i].owd = owd;
        r->e[i].util = (uint16_t)(util * 1000 + 0.5);
        r->e[i].t = lb_now(s);
    }
}
void proteus_counts(const struct sim *s, uint64_t *rtt_moves, uint64_t *reroutes, uint64_t *stays)
{
    *rtt_moves = lb_stat(s, ST_MOVES);
    *reroutes = lb_stat(s, ST_REROUTES);
    *stays = lb_stat(s, ST_STAYS);
}
bool proteus_path_active(struct sim *s, uint32_t node, uint32_t dst_edge, uint32_t i)
{
    const struct lb_switch *sw = lb_switch_of(s, node);
    struct prow *r = to_row(s, state(s, node), (uint32_t)sw->edge, dst_edge);
    return i < r->pt.n && !r->e[i].down && !kicked(s, sw, r->e[i].p.port, 3);
}
