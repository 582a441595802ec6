/* FLB's minimal rate control — Hu et al., "FLB: Fine-grained Load Balancing
 * for Lossless Datacenter Networks", USENIX ATC 2025, §3.3 (implemented from
 * the paper's text). It needs FLB's CNMs (lb.scheme = flb, which forwards
 * them to the sender from the source edge switch, lb/flb.c); without them it
 * is line rate, like `none`.
 *
 *  - A flow starts at line rate (no window of its own: transport.window
 *    applies; the paper's "a BDP worth of data packets" is the first RTT at
 *    line rate).
 *  - A CNM with the congestion flag pauses the flow (cc_pause) and sets its
 *    future rate to C/n, C the congested port's rate, n the number of flows
 *    congested there; several CNMs during one pause keep the largest n
 *    ("n is the maximum number of congested flows indicated in the CNM").
 *  - A CNM with the non-congestion flag resumes it at C/n (the n it carries
 *    if larger: the port's final count): "The congested flows resume
 *    transmission at the rate r upon a CNM with a non-congestion flag is
 *    received. The rate varies with the change of n in the received CNM."
 *  - The rate then stays at C/n until the next CNM changes it (the default,
 *    recover_rtts = 0: the text names no other way back up; a long flow
 *    keeps C/n after the congestion is gone). Not in the paper, an option:
 *    `recover_rtts` > 0 returns to line rate that many base RTTs after the
 *    resume (the time a new CNM needs to arrive if the flow still congests
 *    the port), a reading of the paper's flows that "start at line rate ...
 *    and pause only when notified" and its f2 that "resumes ... rather than
 *    slowly converging" (§4.2); 1 was the default before issue 35. In FLB
 *    Fig. 16 at N = 50 it sent FLB+RC back to line rate into the incast
 *    (issue 35's audit, seed 1: 4531 PAUSEs, against 833 with C/n kept).
 *  - A pause that no release ends within `pause_timeout` resumes at C/n (FLB
 *    releases its own table entries by timeout the same way, §3.2).
 * Timers: 0 = pause timeout, 1 = back to line rate. */
#include <stddef.h>
#include "lb/flb.h"
#include "net/cc.h"

struct flbrc_par {
    double recover_rtts;
    simtime_t pause_timeout;
};

struct flbrc_st {
    uint64_t next_rate; /* C/n of the current pause */
    uint32_t n;         /* largest n during it */
};

#define P(m) offsetof(struct flbrc_par, m)
static const struct param flbrc_params[] = {
    {"recover_rtts", P_DOUBLE, P(recover_rtts), "0", "after a resume at C/n, back to line rate once this many base RTTs pass without a CNM; 0 = stay at C/n until the next CNM (sec. 3.3's text)", NULL, 0, 1e6},
    {"pause_timeout", P_TIME, P(pause_timeout), "1ms", "a pause no release CNM ends is lifted after this long", NULL, 1, 1e15},
    PARAM_END};

enum { T_PAUSE, T_RECOVER };

static void flbrc_init(struct sim *s, struct qp *qp, void *st_, const void *par)
{
    (void)s;
    (void)st_;
    (void)par;
    qp->rate = qp->max_rate; /* line rate */
}

static uint64_t share(const struct qp *qp, uint64_t c, uint32_t n)
{
    uint64_t r = c / (n ? n : 1);
    if (r > qp->max_rate)
        r = qp->max_rate;
    return r ? r : 1;
}

static void resume(struct sim *s, struct qp *qp, struct flbrc_st *st, const struct flbrc_par *par)
{
    cc_change_rate(s, qp, st->next_rate);
    cc_resume(s, qp);
    cc_timer_cancel(s, qp, T_PAUSE);
    st->n = 0;
    if (par->recover_rtts > 0 && qp->rate < qp->max_rate)
        cc_timer_set(s, qp, T_RECOVER, cc_now(s) + (simtime_t)(par->recover_rtts * (double)qp->base_rtt));
}

static void flbrc_feedback(struct sim *s, struct qp *qp, void *st_, const void *par_, const struct pkt *p)
{
    struct flbrc_st *st = st_;
    const struct flbrc_par *par = par_;
    uint32_t n = (uint32_t)p->aux;
    if (p->fb[0] == FLBRC_CONGESTED) {
        if (n > st->n)
            st->n = n;
        st->next_rate = share(qp, p->fb[1], st->n);
        cc_timer_cancel(s, qp, T_RECOVER);
        if (!cc_paused(qp)) {
            cc_pause(s, qp);
            cc_timer_set(s, qp, T_PAUSE, cc_now(s) + par->pause_timeout);
        }
    } else {
        if (n < st->n)
            n = st->n;
        st->next_rate = share(qp, p->fb[1], n);
        if (cc_paused(qp))
            resume(s, qp, st, par);
        else
            cc_change_rate(s, qp, st->next_rate); /* a late release: the rate still follows n */
    }
}

static void flbrc_timer(struct sim *s, struct qp *qp, void *st_, const void *par, int kind)
{
    struct flbrc_st *st = st_;
    if (kind == T_PAUSE && cc_paused(qp))
        resume(s, qp, st, par);
    else if (kind == T_RECOVER && !cc_paused(qp))
        cc_change_rate(s, qp, qp->max_rate);
}

const struct cc_ops cc_flbrc = {
    .name = "flbrc",
    .lb_pair = "flb", /* reads FLB's CNMs (lb/flb.h) */
    .help = "FLB's minimal rate control (ATC'25 sec. 3.3): line rate, pause on FLB's CNM, resume at C/n (needs lb.scheme = flb)",
    .params = flbrc_params,
    .params_size = sizeof(struct flbrc_par),
    .state_size = sizeof(struct flbrc_st),
    .init = flbrc_init,
    .on_timer = flbrc_timer,
    .on_feedback = flbrc_feedback,
};
