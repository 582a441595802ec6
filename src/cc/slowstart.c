/* Slow start as a rate initialisation beside any CC (transport.slowstart =
 * on): the baseline "SS" of PB-FS (IFIP Networking 2024, sec. V-B, Fig. 7):
 * "in SS [the sender] starts at the minimum rate, and increases its rate
 * exponentially (as TCP does)", against fast start (FS, line rate: every
 * RDMA CC here) and PB-FS.
 *
 * A flow starts at `start_rate` and doubles it every base RTT until the first
 * congestion signal, or until it reaches the line rate. The slow-start rate
 * is a cap on top of the CC, enforced with the NIC's transmit hold
 * (cc_ops.tx_hold): a packet leaves no earlier than the previous one plus its
 * serialisation time at the cap. So the CC's own state (DCQCN's target rate,
 * HPCC's window, DCTCP's alpha) is never overwritten while slow start lasts,
 * and the same code serves every CC, rate- or window-based.
 *
 * Congestion signals (any ends slow start): an ACK or NACK carrying an ECN
 * echo or the CNP flag, a NACK (a loss under go-back-N or IRN), a CNP packet,
 * or a rate the CC lowered on its own (qp->rate below what this module saw
 * last). On exit the rate becomes min(CC's rate, the cap), as TCP leaves slow
 * start from the window that met congestion, not from line rate; from there
 * the CC alone rules (a CC that recomputes the rate from its own state, such
 * as HPCC from INT, may raise it again at its next update).
 *
 * Interpretations, where the paper is silent: the doubling is by time (the
 * NIC's clock at each send), not by ACK count, so a flow whose first packets
 * are sparse still doubles per RTT; "per RTT" is the flow's base RTT
 * (qp->base_rtt); the minimum rate is a parameter (default 1 Gbps: about two
 * 1 KB packets per 16 us RTT, the order of TCP's initial window of a few
 * segments; PB-FS does not give its value).
 *
 * Counters: held packets count in qp->held / held_time like any tx_hold. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/units.h"
#include "net/cc.h"

extern const struct cc_ops cc_slowstart;

struct ss_par {
    uint64_t start_rate; /* bps at the flow's start */
};

static const struct param ss_params[] = {
    {"start_rate", P_RATE, offsetof(struct ss_par, start_rate), "1Gbps", "slow start: the rate a flow starts at, doubled every base RTT until the first congestion signal", NULL, 1e3, 1e13},
    PARAM_END,
};

struct ss {
    uint64_t cap;        /* current slow-start rate, bps */
    uint64_t rate_seen;  /* qp->rate when this module last looked */
    simtime_t next_double;
    simtime_t last_tx;   /* when the flow's previous packet left */
    uint32_t last_bytes; /* its wire size */
    bool active, sent;
};

static void ss_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    const struct ss_par *p = par;
    struct ss *b = st;
    b->cap = p->start_rate;
    b->rate_seen = qp->rate;
    b->next_double = cc_now(s) + qp->base_rtt;
    b->active = qp->max_rate > b->cap && qp->base_rtt > 0;
}

/* The doublings due by now; ends slow start at line rate. */
static void ss_advance(struct sim *s, struct qp *qp, struct ss *b)
{
    simtime_t now = cc_now(s);
    while (b->active && now >= b->next_double) {
        b->cap *= 2;
        b->next_double += qp->base_rtt;
        if (b->cap >= qp->max_rate)
            b->active = false;
    }
}

static void ss_exit(struct sim *s, struct qp *qp, struct ss *b)
{
    if (!b->active)
        return;
    b->active = false;
    if (qp->rate > b->cap)
        cc_change_rate(s, qp, b->cap);
}

static simtime_t ss_hold(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)par;
    struct ss *b = st;
    ss_advance(s, qp, b);
    if (!b->active || !b->sent)
        return 0;
    return b->last_tx + tx_time(b->last_bytes, b->cap);
}

static void ss_on_send(struct sim *s, struct qp *qp, void *st, const void *par, struct pkt *p)
{
    (void)qp, (void)par;
    struct ss *b = st;
    b->last_tx = cc_now(s);
    b->last_bytes = p->size;
    b->sent = true;
}

static void ss_signal(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *p)
{
    (void)par;
    struct ss *b = st;
    if (!b->active)
        return;
    bool congested = p->type == PKT_NACK || p->type == PKT_CNP || (p->flags & (PF_CNP | PF_ECN_ECHO)) ||
                     qp->rate < b->rate_seen;
    if (congested)
        ss_exit(s, qp, b);
    b->rate_seen = qp->rate;
}

const struct cc_ops cc_slowstart = {
    .name = "slowstart",
    .help = "slow start beside the CC (transport.slowstart = on): start at start_rate, double per RTT until congestion (PB-FS's SS)",
    .params = ss_params,
    .params_size = sizeof(struct ss_par),
    .state_size = sizeof(struct ss),
    .companion = true,
    .init = ss_init,
    .on_ack = ss_signal,
    .on_cnp = ss_signal,
    .tx_hold = ss_hold,
    .on_send = ss_on_send,
};
