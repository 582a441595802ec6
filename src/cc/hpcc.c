/* HPCC — Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019,
 * §3 (design) and §4 (the sender algorithm, Algorithm 1), as the ns-3 HPCC
 * simulator models it (rdma-hw.cc: HandleAckHp / UpdateRateHp / FastReactHp,
 * CC_MODE 3).
 *
 * Switches push an INT record per hop at dequeue (ts, tx_bytes, qlen, line
 * rate); the receiver echoes the data packet's records in its ACK. For every
 * ACK the sender compares each hop's record with the previous one it saw:
 *   u_j = txRate_j / B_j + min(qlen_j, qlen_j') · R_max / B_j / W
 * (W = the flow's configured window, ns-3's m_win), and smooths a
 * utilisation estimate with weight tau/base_rtt:
 *   U = (U·(T - tau) + u·tau) / T,   tau clamped to T.
 * Single rate (multi_rate off, HPCC's shipped config): U is over the most
 * utilised hop; per hop R (multi_rate on): one U, Rc and stage per hop and
 * the flow takes the smallest hop rate. Then, with k = U / u_target,
 *   k >= 1 or stage >= mi_thresh:  R = Rc / k + rate_ai, stage = 0
 *   otherwise:                     R = Rc + rate_ai,     stage + 1
 * bounded to [min_rate, line rate]. An ACK for a sequence past the last
 * full update (once per RTT of data) commits Rc = R and moves the mark to
 * snd_nxt; the ACKs in between only "fast react": they pace at R computed
 * from the committed Rc, without committing it. Every new R is applied
 * with ns-3's ChangeRate (cc_change_rate), which also shifts the next send.
 *
 * The window: ns-3's NIC checks GetWin() = m_win · m_rate / m_max_rate when
 * VAR_WIN is on, i.e. the pacing rate (ChangeRate's), not hp.m_curRate
 * (HpGetCurWin exists but nothing calls it). Our NIC's var_win does the same
 * with qp->rate, so HPCC needs nothing more from the transport.
 *
 * INT field semantics: ns-3 packs bytes in units of 128·int_multi and qlen in
 * units of 80·int_multi into narrow bit fields that wrap. We keep full-width
 * values, so there is no wrap-around, but quantise bytes and qlen the same way
 * so int_multi keeps its meaning. ns-3 stamps hop times in whole ns; ours are
 * ps (finer, same formula).
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include "net/cc.h"

struct hpcc_par {
    double u_target;
    int64_t mi_thresh;
    int64_t int_multi;
    bool multi_rate;
    bool fast_react;
    bool sample_feedback;
    uint64_t rate_ai, min_rate;
};

struct hpcc {
    uint64_t last_update_seq; /* snd_nxt at the last full update; 0 = first RTT */
    uint64_t cur_rate;        /* Rc: the committed rate (ns-3 hp.m_curRate) */
    uint32_t inc_stage;
    double u;                 /* single-rate utilisation estimate */
    struct int_hop hop[INT_MAX_HOPS]; /* last record seen per hop */
    struct {
        double u;
        uint64_t rc;
        uint32_t inc_stage;
    } hs[INT_MAX_HOPS];       /* per-hop state (multi_rate) */
};

#define P(m) offsetof(struct hpcc_par, m)
/* Defaults: HPCC's shipped ns-3 config.txt where it sets a key, else RdmaHw's attribute default. */
static const struct param hpcc_params[] = {
    {"u_target", P_DOUBLE, P(u_target), "0.95", "target bottleneck utilisation eta (ns-3 U_TARGET / TargetUtil)", NULL, 1e-6, 1},
    {"mi_thresh", P_INT, P(mi_thresh), "0", "additive-increase stages before a multiplicative step (MI_THRESH)", NULL, 0, 1e9},
    {"int_multi", P_INT, P(int_multi), "1", "INT byte/qlen field unit multiplier (INT_MULTI)", NULL, 1, 1e6},
    {"multi_rate", P_BOOL, P(multi_rate), "off", "keep a rate per hop instead of one for the most utilised hop (MULTI_RATE)", NULL, 0, 0},
    {"fast_react", P_BOOL, P(fast_react), "on", "react on every ACK, not only once per RTT (FAST_REACT)", NULL, 0, 0},
    {"sample_feedback", P_BOOL, P(sample_feedback), "off", "fast react only to hops with a queue (SAMPLE_FEEDBACK)", NULL, 0, 0},
    {"rate_ai", P_RATE, P(rate_ai), "50Mbps", "additive increase step W_AI as a rate (RATE_AI)", NULL, 0, 0},
    {"min_rate", P_RATE, P(min_rate), "100Mbps", "rate floor (MIN_RATE)", NULL, 0, 0},
    PARAM_END};

static void hpcc_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)s;
    (void)par;
    struct hpcc *h = st;
    h->cur_rate = qp->rate;
    h->u = 1; /* ns-3's RdmaQueuePair constructor */
    for (int i = 0; i < INT_MAX_HOPS; i++) {
        h->hs[i].u = 1;
        h->hs[i].rc = qp->rate;
    }
}

/* Rc / k + rate_ai (ns-3: DataRate(Rc / k) truncates, then adds), or
 * Rc + rate_ai, bounded to [min_rate, line rate]. In double until bounded,
 * so k -> 0 gives the line rate instead of an undefined conversion. */
static uint64_t next_rate(uint64_t rc, double k, bool mi, const struct hpcc_par *p, uint64_t max_rate)
{
    double r = mi ? trunc((double)rc / k) + (double)p->rate_ai : (double)rc + (double)p->rate_ai;
    if (r < (double)p->min_rate)
        return p->min_rate;
    if (!(r <= (double)max_rate))
        return max_rate;
    return (uint64_t)r;
}

/* u * w + x, the numerator of u's moving average. run.ns3_timing: with one
 * rounding (fma), as ns-3's optimized build computes it: its waf profile
 * adds -march=native and GCC then contracts this multiply-add into an FMA
 * instruction on any x86-64 CPU that has one (rdma-hw.cc, UpdateRateHp; the
 * instruction is in the binary). Rounded twice, u differs from ns-3's in
 * its last bits now and then; through Rc / k and the pacing gap's truncation
 * that could move a packet by 1 ns (not seen so far: docs/validation.md,
 * Appendix G). */
static inline double ewma(bool ns3, double u, double w, double x)
{
    return ns3 ? fma(u, w, x) : u * w + x;
}

/* A time in u's average's unit: whole ns under run.ns3_timing (ns-3 keeps
 * tau, dt and the base RTT in ns), else ps; a constant divisor, no division
 * per hop when off. */
static inline double avg_time(bool ns3, simtime_t t) { return (double)(ns3 ? t / T_NS : t); }

static void update_rate(struct sim *s, struct qp *qp, struct hpcc *h, const struct hpcc_par *p, const struct pkt *ack,
                        bool fast_react)
{
    uint64_t next_seq = qp->snd_nxt;
    int nhop = ack->nhop;
    if (h->last_update_seq == 0) { /* first RTT: just remember the records */
        h->last_update_seq = next_seq;
        for (int i = 0; i < nhop; i++)
            h->hop[i] = ack->hop[i];
        return;
    }
    const uint64_t bunit = 128 * (uint64_t)p->int_multi, qunit = 80 * (uint64_t)p->int_multi;
    /* W in u's queue term is ns-3's m_win, the configured (BDP) window. Without
     * a window ns-3 would divide by zero; use the BDP from the base RTT. */
    double win = qp->win ? (double)qp->win : (double)qp->max_rate * (double)qp->base_rtt / 8.0 / (double)T_SEC;
    /* run.ns3_timing: ns-3 keeps tau, dt and the base RTT in ns, and u's
     * average rounds differently when all three are 1000 times larger */
    const bool ns3 = cc_ns3_timing(s);
    double T = avg_time(ns3, qp->base_rtt);
    double U = 0;
    simtime_t dt = 0;
    bool updated[INT_MAX_HOPS] = {false}, updated_any = false;
    for (int i = 0; i < nhop; i++) {
        const struct int_hop *nw = &ack->hop[i], *old = &h->hop[i];
        uint32_t qn = nw->qlen / qunit * qunit, qo = old->qlen / qunit * qunit;
        if (p->sample_feedback && qn == 0 && fast_react)
            continue;
        simtime_t tau = nw->ts - old->ts;
        if (tau <= 0) { /* no time between the two records (ns-3 would get NaN): no information */
            h->hop[i] = *nw;
            continue;
        }
        updated[i] = updated_any = true;
        /* a path change can make the counter go back: count no bytes then */
        uint64_t bn = nw->tx_bytes / bunit, bo = old->tx_bytes / bunit;
        uint64_t bytes = bn >= bo ? (bn - bo) * bunit : 0;
        /* ns-3 divides by tau_ns * 1e-9 (rdma-hw.cc), which differs from
         * tau_ps * 1e-12 in the last bit for about half of all tau; through
         * Rc/k and the pacing gap's truncation that can move a packet 1 ns */
        double duration = ns3 ? (double)(tau / T_NS) * 1e-9 : (double)tau * 1e-12;
        double tx_rate = (double)(bytes * 8) / duration;
        double u = tx_rate / (double)nw->rate + (double)(qn < qo ? qn : qo) * (double)qp->max_rate / (double)nw->rate / win;
        if (!p->multi_rate) {
            if (u > U) {
                U = u;
                dt = tau;
            }
        } else {
            if (tau > qp->base_rtt)
                tau = qp->base_rtt;
            h->hs[i].u = ewma(ns3, h->hs[i].u, T - avg_time(ns3, tau), u * avg_time(ns3, tau)) / T;
        }
        h->hop[i] = *nw;
    }

    uint64_t new_rate = qp->max_rate, hop_rate[INT_MAX_HOPS] = {0};
    uint32_t new_stage = 0, hop_stage[INT_MAX_HOPS] = {0};
    if (!p->multi_rate) {
        if (updated_any) {
            if (dt > qp->base_rtt)
                dt = qp->base_rtt;
            h->u = ewma(ns3, h->u, T - avg_time(ns3, dt), U * avg_time(ns3, dt)) / T;
            double k = h->u / p->u_target;
            bool mi = k >= 1 || (int64_t)h->inc_stage >= p->mi_thresh;
            new_rate = next_rate(h->cur_rate, k, mi, p, qp->max_rate);
            new_stage = mi ? 0 : h->inc_stage + 1;
        }
    } else {
        for (int i = 0; i < nhop; i++) {
            if (updated[i]) {
                double k = h->hs[i].u / p->u_target;
                bool mi = k >= 1 || (int64_t)h->hs[i].inc_stage >= p->mi_thresh;
                hop_rate[i] = next_rate(h->hs[i].rc, k, mi, p, qp->max_rate);
                hop_stage[i] = mi ? 0 : h->hs[i].inc_stage + 1;
                if (hop_rate[i] < new_rate)
                    new_rate = hop_rate[i];
            } else if (h->hs[i].rc < new_rate) {
                new_rate = h->hs[i].rc;
            }
        }
    }
    if (updated_any)
        cc_change_rate(s, qp, new_rate);
    if (fast_react)
        return; /* pace at the new rate, commit nothing */
    if (updated_any) { /* (multi_rate never reads cur_rate and inc_stage; ns-3 sets them anyway) */
        h->cur_rate = new_rate;
        h->inc_stage = new_stage;
    }
    if (p->multi_rate)
        for (int i = 0; i < nhop; i++)
            if (updated[i]) {
                h->hs[i].rc = hop_rate[i];
                h->hs[i].inc_stage = hop_stage[i];
            }
    if (next_seq > h->last_update_seq)
        h->last_update_seq = next_seq;
}

static void hpcc_on_ack(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *ack)
{
    struct hpcc *h = st;
    const struct hpcc_par *p = par;
    if (ack->seq > h->last_update_seq) /* a full RTT of feedback since the last update */
        update_rate(s, qp, h, p, ack, false);
    else if (p->fast_react)
        update_rate(s, qp, h, p, ack, true);
}

/* A companion's cut (PB-FS) becomes Rc (and every hop's rate with
 * multi_rate): HPCC's next update computes from it. */
static void hpcc_on_rate_override(struct sim *s, struct qp *qp, void *st, const void *par, uint64_t old_rate)
{
    (void)s;
    (void)par;
    (void)old_rate;
    struct hpcc *h = st;
    h->cur_rate = qp->rate;
    for (int i = 0; i < INT_MAX_HOPS; i++)
        h->hs[i].rc = qp->rate;
}

const struct cc_ops cc_hpcc = {
    .name = "hpcc",
    .help = "HPCC (SIGCOMM'19): INT-based rate control, as in the ns-3 HPCC simulator (CC_MODE 3)",
    .params = hpcc_params,
    .params_size = sizeof(struct hpcc_par),
    .state_size = sizeof(struct hpcc),
    .int_bytes = 42, /* ns-3 IntHeader: 5 hops x 8 B + nhop 2 B */
    .int_stamp = true,
    .init = hpcc_init,
    .on_ack = hpcc_on_ack,
    .on_rate_override = hpcc_on_rate_override,
};
