/* Swift — Kumar et al., "Swift: Delay is Simple and Effective for Congestion
 * Control in the Datacenter", SIGCOMM 2020, §3.1–3.5: Algorithm 1 (the
 * delay-based AIMD on a congestion window, pacing below one packet) and the
 * target delay scaled by path length and by the flow's window (§3.5).
 *
 * Each data packet carries its send time (8 bytes, as TIMELY here); the
 * receiver echoes it, so the delay of an ACK is now - ack->ts. The simulator
 * has no host delay, so this RTT is all fabric delay and one window (the
 * paper's fcwnd) is kept; the endpoint window (ecwnd) is not modelled.
 *
 * On every ACK, with cwnd in packets and num_acked = newly acknowledged
 * bytes / mtu:
 *   target = base_target + hops·per_hop_scaling + fs(W),  W = cwnd·mtu bytes
 *   fs(W) = clamp(alpha/sqrt(W) + beta, 0, fs_range),
 *     alpha = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd)),
 *     beta  = -alpha / sqrt(fs_max_cwnd)
 *   (= fs_range·(1/sqrt(W) - 1/sqrt(fs_max))/(1/sqrt(fs_min) - 1/sqrt(fs_max)),
 *   which does not depend on the unit, so the bounds are given in bytes)
 *   delay < target:  cwnd += ai·num_acked / cwnd   (cwnd >= 1; about +ai per RTT)
 *                    cwnd += ai·num_acked          (cwnd < 1)
 *   delay >= target: if can_decrease,
 *                    cwnd *= max(1 - beta_md·(delay - target)/delay, 1 - max_mdf)
 *   a NACK (the go-back-N transport's loss signal, the paper's fast
 *   recovery): if can_decrease, cwnd *= 1 - max_mdf
 *   cwnd = clamp(cwnd, min_cwnd, max_cwnd); if it went down, t_last_decrease = now
 * where can_decrease = now - t_last_decrease >= rtt (at most one decrease per
 * RTT; rtt is the latest RTT sample, taken after this test as Algorithm 1
 * does). The paper writes "if cwnd <= cwnd_prev"; with "<=" an unchanged
 * window while above target would push t_last_decrease forward on every ACK
 * and block every later decrease, so we use "<" (as htsim's Swift does).
 * hops is qp->hops, the links on the flow's path (the paper counts switch
 * hops from the TTL; one more per path, folded into base_target).
 *
 * Enforcement. The window goes into qp->win in payload bytes (the NIC counts
 * payload in flight): win = cwnd·mtu. With cwnd >= 1 the flow is paced at
 * line rate. With cwnd < 1 the window is one packet and the pacing rate is
 * cwnd·pkt/rtt (pkt = the last packet's wire size), i.e. one packet every
 * rtt/cwnd, the paper's pacing_delay. Rate changes go through cc_change_rate.
 * transport.var_win scales win by rate/max_rate; that is harmless here (the
 * rate is the line rate whenever the window matters), but Swift owns qp->win:
 * transport.window is overwritten.
 *
 * Defaults. The paper does not publish its production constants. We take
 * base_target = 25 us (the order of the paper's fabric targets at 100 Gbps,
 * and of htsim's 20 us reproduction), per_hop_scaling = 1 us per link, ai = 1
 * packet, beta 0.8, max_mdf 0.5, fs_range = 5·base_target and the flow-scaling
 * range 0.1 .. 100 packets (htsim's Swift, Broadcom/csg-htsim sim/swift.cpp).
 * Those window bounds are in packets of Google's 4 KB MTU, so we give them in
 * bytes (400 B .. 400 KB): with this simulator's 1 KB packets, 100 packets
 * would leave two flows sharing 100 Gbps (~180 KB windows each) outside the
 * scaling range, and without it the AIMD near the target stalls short of a
 * fair share (the flow with more ACKs meets the target crossing first, with
 * the smaller overshoot, and so takes the smaller cut: we measured a split of
 * 54/46 Gbps still standing after 60 ms), while with it the split is within
 * 2 % after a few ms. A flow starts with one BDP (line rate for one base RTT,
 * as every rate-based scheme here starts at line rate) unless init_cwnd is
 * set. On the default 100 Gbps fabric (1 us links) a dumbbell path (3 links,
 * base RTT 6.24 us) gets a 28 us target plus ~2 us of flow scaling at two
 * flows' windows: a standing bottleneck queue of about (30 - 6.24) us ·
 * 100 Gbps = 300 KB.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "net/cc.h"

struct swift_par {
    simtime_t base_target, per_hop, fs_range;
    uint64_t fs_min_cwnd, fs_max_cwnd; /* bytes */
    double ai, beta, max_mdf;
    double min_cwnd, max_cwnd, init_cwnd;
};

struct swift {
    double cwnd;               /* packets */
    uint64_t last_una;         /* snd_una after the previous ACK */
    simtime_t rtt;             /* latest RTT sample; base_rtt before the first */
    simtime_t t_last_decrease;
};

#define P(m) offsetof(struct swift_par, m)
static const struct param swift_params[] = {
    {"base_target", P_TIME, P(base_target), "25us", "target delay of a one-hop path with many packets in flight", NULL, 0, 0},
    {"per_hop_scaling", P_TIME, P(per_hop), "1us", "target added per link on the flow's path (h)", NULL, 0, 0},
    {"fs_range", P_TIME, P(fs_range), "125us", "flow scaling: most target added for a small window", NULL, 0, 0},
    {"fs_min_cwnd", P_SIZE, P(fs_min_cwnd), "400B", "flow scaling: window (bytes) at and below which fs_range is added (0.1 x 4 KB packet)", NULL, 1, 1e15},
    {"fs_max_cwnd", P_SIZE, P(fs_max_cwnd), "400KB", "flow scaling: window (bytes) at and above which nothing is added (100 x 4 KB packets)", NULL, 1, 1e15},
    {"ai", P_DOUBLE, P(ai), "1", "additive increase, packets per RTT", NULL, 0, 1e9},
    {"beta", P_DOUBLE, P(beta), "0.8", "multiplicative decrease constant", NULL, 0, 1},
    {"max_mdf", P_DOUBLE, P(max_mdf), "0.5", "largest multiplicative decrease per RTT", NULL, 0, 1},
    {"min_cwnd", P_DOUBLE, P(min_cwnd), "0.001", "window floor, packets (below 1 the flow is paced)", NULL, 1e-9, 1e9},
    {"max_cwnd", P_DOUBLE, P(max_cwnd), "1000", "window ceiling, packets", NULL, 1e-9, 1e12},
    {"init_cwnd", P_DOUBLE, P(init_cwnd), "0", "initial window, packets; 0 = one BDP (line rate x base RTT)", NULL, 0, 1e12},
    PARAM_END};

/* The target delay for a window of `win` bytes on a path of `hops` links. */
static simtime_t target_delay(const struct swift_par *p, uint32_t hops, double win)
{
    double fs = 0;
    double span = 1 / sqrt((double)p->fs_min_cwnd) - 1 / sqrt((double)p->fs_max_cwnd);
    if (win > 0 && span > 0) {
        double alpha = (double)p->fs_range / span;
        fs = alpha / sqrt(win) - alpha / sqrt((double)p->fs_max_cwnd);
        if (fs < 0)
            fs = 0;
        if (fs > (double)p->fs_range)
            fs = (double)p->fs_range;
    }
    return p->base_target + (simtime_t)hops * p->per_hop + (simtime_t)fs;
}

static double clamp_cwnd(double c, const struct swift_par *p)
{
    if (c > p->max_cwnd)
        c = p->max_cwnd;
    if (c < p->min_cwnd)
        c = p->min_cwnd;
    return c;
}

/* Window into qp->win; below one packet, pace one packet per rtt/cwnd. */
static void apply(struct sim *s, struct qp *qp, const struct swift *w)
{
    uint32_t mtu = cc_mtu(s);
    uint64_t rate = qp->max_rate;
    if (w->cwnd >= 1) {
        qp->win = (uint64_t)(w->cwnd * mtu);
    } else {
        qp->win = mtu;
        double pkt = qp->last_pkt_size ? qp->last_pkt_size : mtu;
        if (w->rtt > 0) {
            double r = w->cwnd * pkt * 8 * (double)T_SEC / (double)w->rtt;
            if (r < (double)qp->max_rate)
                rate = r >= 1 ? (uint64_t)r : 1;
        }
    }
    if (rate != qp->rate)
        cc_change_rate(s, qp, rate);
}

static void swift_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    struct swift *w = st;
    const struct swift_par *p = par;
    double c = p->init_cwnd;
    if (c <= 0) /* one BDP */
        c = (double)qp->max_rate * (double)qp->base_rtt / 8 / (double)T_SEC / cc_mtu(s);
    w->cwnd = clamp_cwnd(c, p);
    w->rtt = qp->base_rtt;
    w->last_una = qp->snd_una;
    w->t_last_decrease = INT64_MIN / 4; /* may decrease on the first ACK */
    apply(s, qp, w);
}

static void swift_on_ack(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *ack)
{
    struct swift *w = st;
    const struct swift_par *p = par;
    simtime_t now = cc_now(s);
    double prev = w->cwnd;
    bool can_decrease = now - w->t_last_decrease >= w->rtt;
    double num_acked = 0;
    if (qp->snd_una > w->last_una) {
        num_acked = (double)(qp->snd_una - w->last_una) / cc_mtu(s);
        w->last_una = qp->snd_una;
    }
    if (ack->type == PKT_NACK) {
        if (can_decrease)
            w->cwnd *= 1 - p->max_mdf;
    } else {
        simtime_t delay = now - ack->ts;
        w->rtt = delay;
        simtime_t target = target_delay(p, qp->hops, w->cwnd * cc_mtu(s));
        if (delay < target) {
            if (w->cwnd >= 1)
                w->cwnd += p->ai * num_acked / w->cwnd;
            else
                w->cwnd += p->ai * num_acked;
        } else if (can_decrease) {
            double f = 1 - p->beta * (double)(delay - target) / (double)delay;
            if (f < 1 - p->max_mdf)
                f = 1 - p->max_mdf;
            w->cwnd *= f;
        }
    }
    w->cwnd = clamp_cwnd(w->cwnd, p);
    if (w->cwnd < prev)
        w->t_last_decrease = now;
    apply(s, qp, w);
}

const struct cc_ops cc_swift = {
    .name = "swift",
    .help = "Swift (SIGCOMM'20): delay-target AIMD window, target scaled by hops and window, pacing below 1 packet",
    .params = swift_params,
    .params_size = sizeof(struct swift_par),
    .state_size = sizeof(struct swift),
    .int_bytes = 8, /* the send timestamp, echoed in the ACK */
    .init = swift_init,
    .on_ack = swift_on_ack,
};
