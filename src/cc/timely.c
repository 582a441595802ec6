/* TIMELY — Mittal et al., "TIMELY: RTT-based Congestion Control for the
 * Datacenter", SIGCOMM 2015, §4 (Algorithm 1, the gradient-based rate
 * computation), as the ns-3 HPCC simulator models it (rdma-hw.cc:
 * HandleAckTimely / UpdateRateTimely, CC_MODE 7).
 *
 * Each data packet carries its send time (an 8-byte INT header, ns-3's TS
 * mode); the receiver echoes it, so RTT = now - ack->ts. The rate is updated
 * once per window of data: on an ACK past the sequence recorded at the last
 * update (the first such ACK only records the RTT). With the smoothed RTT
 * difference d = (1-alpha)·d + alpha·(rtt - last_rtt) and the normalised
 * gradient g = d / min_rtt:
 *   rtt < t_low:   R = Rc + delta   (additive increase)
 *   rtt > t_high:  R = Rc · (1 - beta·(1 - t_high/rtt))
 *   g <= 0:        R = Rc + delta
 *   otherwise:     R = Rc · max(0, 1 - beta·g)
 * where delta = rate_ai, or rate_hai once hai_thresh increases came in a row
 * (the paper's HAI mode; ns-3 hard-codes 5 and does not use MI_THRESH here).
 * Decreases are floored at min_rate, increases capped at line rate. ns-3's
 * "fast react" for TIMELY is empty, so ACKs between updates change nothing.
 * ns-3 sets m_rate directly (no ChangeRate), and so do we.
 *
 * Units: ns-3 computes in ns, we in ps; every comparison and ratio is the same.
 */
#include <stdbool.h>
#include <stddef.h>
#include "net/cc.h"

struct timely_par {
    double tmly_alpha, tmly_beta;
    simtime_t t_low, t_high, min_rtt;
    uint64_t rate_ai, rate_hai, min_rate;
    int64_t hai_thresh;
};

struct timely {
    uint64_t last_update_seq; /* snd_nxt at the last update; 0 = first RTT */
    uint64_t cur_rate;        /* ns-3 tmly.m_curRate */
    uint32_t inc_stage;       /* increases in a row */
    simtime_t last_rtt;
    double rtt_diff;          /* smoothed RTT difference, ps */
};

#define P(m) offsetof(struct timely_par, m)
/* Defaults: RdmaHw's Timely* attributes (third.cc never sets them); rate_ai,
 * rate_hai and min_rate from HPCC's shipped config (RATE_AI, RATE_HAI, MIN_RATE). */
static const struct param timely_params[] = {
    {"tmly_alpha", P_DOUBLE, P(tmly_alpha), "0.875", "EWMA weight of the newest RTT difference (ns-3 TimelyAlpha)", NULL, 0, 1},
    {"tmly_beta", P_DOUBLE, P(tmly_beta), "0.8", "multiplicative decrease factor (TimelyBeta)", NULL, 0, 1},
    {"t_low", P_TIME, P(t_low), "50us", "below this RTT always increase (TimelyTLow)", NULL, 0, 0},
    {"t_high", P_TIME, P(t_high), "500us", "above this RTT always decrease (TimelyTHigh)", NULL, 0, 0},
    {"min_rtt", P_TIME, P(min_rtt), "20us", "RTT that normalises the gradient (TimelyMinRtt)", NULL, 1, 1e15},
    {"rate_ai", P_RATE, P(rate_ai), "50Mbps", "additive increase step delta (RATE_AI)", NULL, 0, 0},
    {"rate_hai", P_RATE, P(rate_hai), "100Mbps", "hyper additive increase step (RATE_HAI)", NULL, 0, 0},
    {"min_rate", P_RATE, P(min_rate), "100Mbps", "rate floor (MIN_RATE)", NULL, 0, 0},
    {"hai_thresh", P_INT, P(hai_thresh), "5", "increases in a row before rate_hai is used (ns-3 hard-codes 5)", NULL, 0, 1e9},
    PARAM_END};

static void timely_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)s;
    (void)par;
    struct timely *t = st;
    t->cur_rate = qp->rate;
}

static void timely_on_ack(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *ack)
{
    struct timely *t = st;
    const struct timely_par *p = par;
    if (ack->seq <= t->last_update_seq)
        return; /* not a full window of feedback yet (ns-3's FastReactTimely is empty) */
    uint64_t next_seq = qp->snd_nxt;
    simtime_t rtt = cc_now(s) - ack->ts;
    if (t->last_update_seq != 0) {
        double new_diff = (double)(rtt - t->last_rtt);
        double rtt_diff = (1 - p->tmly_alpha) * t->rtt_diff + p->tmly_alpha * new_diff;
        double gradient = rtt_diff / (double)p->min_rtt;
        bool inc;
        double c = 0;
        if (rtt < p->t_low) {
            inc = true;
        } else if (rtt > p->t_high) {
            c = 1 - p->tmly_beta * (1 - (double)p->t_high / (double)rtt);
            inc = false;
        } else if (gradient <= 0) {
            inc = true;
        } else {
            c = 1 - p->tmly_beta * gradient;
            if (c < 0)
                c = 0;
            inc = false;
        }
        if (inc) {
            uint64_t r = t->cur_rate + ((int64_t)t->inc_stage < p->hai_thresh ? p->rate_ai : p->rate_hai);
            qp->rate = r < qp->max_rate ? r : qp->max_rate;
            t->inc_stage++;
        } else {
            uint64_t r = (uint64_t)((double)t->cur_rate * c); /* ns-3's DataRate * double truncates */
            qp->rate = r > p->min_rate ? r : p->min_rate;
            t->inc_stage = 0;
        }
        t->cur_rate = qp->rate;
        t->rtt_diff = rtt_diff;
    }
    if (next_seq > t->last_update_seq) {
        t->last_update_seq = next_seq;
        t->last_rtt = rtt;
    }
}

/* A companion's cut (PB-FS) becomes the current rate the next update starts from. */
static void timely_on_rate_override(struct sim *s, struct qp *qp, void *st, const void *par, uint64_t old_rate)
{
    (void)s;
    (void)par;
    (void)old_rate;
    ((struct timely *)st)->cur_rate = qp->rate;
}

const struct cc_ops cc_timely = {
    .name = "timely",
    .help = "TIMELY (SIGCOMM'15): RTT-gradient rate control, as in the ns-3 HPCC simulator (CC_MODE 7)",
    .params = timely_params,
    .params_size = sizeof(struct timely_par),
    .state_size = sizeof(struct timely),
    .int_bytes = 8, /* ns-3 IntHeader in TS mode: the send timestamp */
    .init = timely_init,
    .on_ack = timely_on_ack,
    .on_rate_override = timely_on_rate_override,
};
