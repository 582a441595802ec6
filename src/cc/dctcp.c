/* DCTCP — Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.1
 * (marking at the switch, ECN echo, the sender's alpha and window cut), in
 * the rate-based form of the ns-3 HPCC simulator (rdma-hw.cc: HandleAckDctcp,
 * CC_MODE 8).
 *
 * Switches mark with RED as configured (kmin = kmax, pmax = 1 give the paper's
 * single threshold K); the receiver echoes a mark as the CNP flag of the ACK. Per ACK:
 *  - count marked ACKs; once an ACK passes the sequence recorded at the last
 *    alpha update (one window of data), alpha = (1-g)·alpha + g·F with
 *    F = min(1, marked / batch), batch = packets in flight at the previous
 *    update + 1; record snd_nxt, restart the count;
 *  - leave CWR once an ACK passes the sequence recorded at the last cut;
 *  - a marked ACK outside CWR: rate = max(min_rate, rate·(1 - alpha/2)),
 *    enter CWR until snd_nxt of now is acknowledged (one cut per window);
 *  - outside CWR, each new alpha window adds rate_ai (capped at line rate).
 * alpha starts at 1, as in ns-3, so the first mark halves the rate.
 * The ECN accounting is all here in on_ack; on_cnp stays unused (the
 * transport calls it too for a flagged ACK).
 */
#include <stdbool.h>
#include <stddef.h>
#include "net/cc.h"

struct dctcp_par {
    double ewma_gain;
    uint64_t rate_ai, min_rate;
};

struct dctcp {
    uint64_t last_update_seq; /* snd_nxt at the last alpha update; 0 = first window */
    uint64_t high_seq;        /* leave CWR once acknowledged past this */
    double alpha;
    uint32_t ecn_cnt;         /* marked ACKs in this alpha window */
    uint32_t batch;           /* packets the window is judged against */
    bool cwr;                 /* ns-3 m_caState == 1 */
};

#define P(m) offsetof(struct dctcp_par, m)
/* Defaults: RdmaHw's EwmaGain (1/16) and DctcpRateAI (HPCC's config DCTCP_RATE_AI), MIN_RATE. */
static const struct param dctcp_params[] = {
    {"ewma_gain", P_DOUBLE, P(ewma_gain), "0.0625", "alpha EWMA gain g (ns-3 EwmaGain, shared with DCQCN there)", NULL, 0, 1},
    {"rate_ai", P_RATE, P(rate_ai), "1000Mbps", "additive increase per window of data (DCTCP_RATE_AI)", NULL, 0, 0},
    {"min_rate", P_RATE, P(min_rate), "100Mbps", "rate floor (MIN_RATE)", NULL, 0, 0},
    PARAM_END};

static void dctcp_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)s;
    (void)qp;
    (void)par;
    struct dctcp *d = st;
    d->alpha = 1;
}

static void dctcp_on_ack(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *ack)
{
    struct dctcp *d = st;
    const struct dctcp_par *p = par;
    uint64_t mtu = cc_mtu(s); /* ns-3's m_mtu: the payload size */
    bool ce = ack->flags & PF_CNP;
    bool new_batch = false;

    d->ecn_cnt += ce;
    if (ack->seq > d->last_update_seq) { /* a window of feedback is in: update alpha */
        new_batch = true;
        if (d->last_update_seq == 0) {
            d->last_update_seq = qp->snd_nxt;
            d->batch = (uint32_t)(qp->snd_nxt / mtu + 1);
        } else {
            double frac = (double)d->ecn_cnt / d->batch;
            if (frac > 1)
                frac = 1;
            d->alpha = (1 - p->ewma_gain) * d->alpha + p->ewma_gain * frac;
            d->last_update_seq = qp->snd_nxt;
            d->ecn_cnt = 0;
            /* ns-3's uint32 would wrap if the ACK is ahead of a rewound snd_nxt (back_to_zero) */
            uint64_t inflight = qp->snd_nxt > ack->seq ? qp->snd_nxt - ack->seq : 0;
            d->batch = (uint32_t)(inflight / mtu + 1);
        }
    }
    if (d->cwr && ack->seq > d->high_seq)
        d->cwr = false;
    if (ce && !d->cwr) {
        uint64_t r = (uint64_t)((double)qp->rate * (1 - d->alpha / 2)); /* DataRate * double truncates */
        qp->rate = r > p->min_rate ? r : p->min_rate;
        d->cwr = true;
        d->high_seq = qp->snd_nxt;
    }
    if (!d->cwr && new_batch) {
        uint64_t r = qp->rate + p->rate_ai;
        qp->rate = r < qp->max_rate ? r : qp->max_rate;
    }
}

const struct cc_ops cc_dctcp = {
    .name = "dctcp",
    .help = "DCTCP (SIGCOMM'10), rate-based as in the ns-3 HPCC simulator (CC_MODE 8)",
    .params = dctcp_params,
    .params_size = sizeof(struct dctcp_par),
    .state_size = sizeof(struct dctcp),
    .init = dctcp_init,
    .on_ack = dctcp_on_ack,
};
