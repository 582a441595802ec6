/* PCN — Cheng et al., "Re-architecting Congestion Management in Lossless
 * Ethernet" (Photonic Congestion Notification), NSDI 2020, §5: the congestion
 * point (CP, the switch: NP-ECN, Fig. 7), the notification point (NP, the
 * receiver: Fig. 8) and the reaction point (RP, the sender: Algorithm 1);
 * parameter guidance in §6.2; the principles behind them in §4.1-§4.3.
 *
 * CP, NP-ECN (per egress port and queue, one counter PN):
 *  - When the port receives a PFC RESUME for queue q, PN = the number of data
 *    packets then waiting in q ("the N paused packets").
 *  - At each dequeue of a data packet: if PN > 0, PN-- and the packet is not
 *    marked; otherwise mark "in the traditional method, with the threshold as
 *    zero": mark if the queue it leaves behind holds more than mark_threshold
 *    bytes (0, as the paper says). So a really congested port marks every
 *    packet, a non-congested one none, and a quasi-congested one (paused from
 *    downstream) only the packets that arrive after a RESUME while a queue is
 *    still waiting: partial marking, which the NP filters out.
 *  The paper counts the paused packets at RESUME; here a per-queue count of
 *  queued data packets is kept by sw_enqueue / sw_mark (the only packets
 *  sw_mark is asked about), so ACKs sharing the queue do not inflate PN.
 *  NP-ECN needs switch.ecn = on (sw_mark replaces RED; kmin/kmax/pmax unused).
 *
 * NP (receiver), every period T per flow, from the flow's first data packet:
 *  - count packets, wire bytes and ECN-marked packets in the period, and the
 *    inter-arrival time of the last two packets;
 *  - no packet in the period: no CNP;
 *  - marked >= congested_share (95 %) of the packets: a CNP with the ECN flag
 *    (PF_CC1) and the receiving rate = bytes / T, or, with one packet in the
 *    period, its size / its inter-arrival time (Fig. 8);
 *  - otherwise a CNP without the flag (receiving rate 0).
 *  The period timer keeps running, as Fig. 8 resets it and waits again after
 *  every expiry, until the period in which the receiver came to hold the
 *  whole message: that period's CNP is sent like any other ("the CNP is not
 *  generated when none of its packets is received in period T" is the only
 *  exception the text makes), and the NP stops. The NP decides on its own
 *  evidence, as a receiving NIC does: it never learns when the sender has its
 *  last ACK. (Until issue 39 the simulator dropped the timer once the sender
 *  completed, which a receiver cannot see in time; that suppressed the last
 *  period's CNP of flows whose ACK reached the sender first: 163 of 12,362
 *  CNPs in pcn-fig2-quick.) The NP's counters are its own record
 *  (struct pcn_np, cc_ops.rx_state_size) and its timer runs at the receiver
 *  (rx_timers), so PCN runs partitioned (docs/parallel.md).
 *
 * RP (sender), Algorithm 1: start at line rate with w = w_min.
 *  - CNP with ECN:    rate = min(rate, recRate·(1 - w_min)), w = w_min;
 *  - CNP without ECN: rate = rate·(1 - w) + lineRate·w, w = w·(1 - w) + w_max·w.
 *
 * Choices where the paper leaves room (see also the tests, tests/test_pcn.c):
 *  - "congested" is marked >= 95 % (the text, "if 95% packets ... are marked");
 *    Fig. 8 writes ECNNum/TotalNum > 0.95.
 *  - The receiving rate is carried exactly, in bps, in the CNP's 64-bit aux
 *    field; the paper's CNP has a 32-bit RecRate in units of 1 Mbps.
 *  - A congested period holding the flow's very first packet has no
 *    inter-arrival time: bytes / T is used.
 *  - Byte counts are wire sizes (headers included), the unit the NIC paces.
 *  - Rates are applied with cc_change_rate (ns-3's ChangeRate): a rate
 *    increase from a low rate then takes effect at once instead of after the
 *    long gap already scheduled at the old rate.
 *  - The paper has no rate floor; min_rate (default 1 Mbps, the RecRate unit)
 *    only keeps a decrease from reaching 0, which the pacer cannot divide by.
 *  - PCN's own CNPs carry PF_CC2; the transport's ECN echo (ACKs with PF_CNP,
 *    or transport.cnp = packet CNPs) is ignored.
 */
#include <stdbool.h>
#include <stddef.h>
#include "net/cc.h"

struct pcn_par {
    simtime_t period;
    double congested_share;
    double w_min, w_max;
    uint64_t mark_threshold; /* bytes */
    uint64_t min_rate;
};

/* RP: the sender's record (cc_ops.state_size). */
struct pcn {
    double w;
};

/* NP: the receiver's record (cc_ops.rx_state_size), written only by its
 * hooks at the destination host (on_rx_data, the T_NP timer). */
struct pcn_np {
    bool np_on;           /* the period timer runs */
    bool seen;            /* a data packet has arrived before */
    uint32_t rec_num, ecn_num;
    uint64_t rec_bytes;
    uint32_t last_size;
    simtime_t last_arrival, inter_arrival;
};

/* NP-ECN, per egress queue. */
struct pcn_port {
    uint32_t waiting[NQ]; /* data packets queued */
    uint32_t pn[NQ];      /* paused packets still to leave unmarked */
};

enum { T_NP };

#define P(m) offsetof(struct pcn_par, m)
static const struct param pcn_params[] = {
    {"period", P_TIME, P(period), "50us", "NP: CNP generation period T per flow (paper: 50 us, at least the largest RTT)", NULL, 1, 1e15},
    {"congested_share", P_DOUBLE, P(congested_share), "0.95", "NP: a flow is congested if at least this share of its packets in T were marked", NULL, 0, 1},
    {"w_min", P_DOUBLE, P(w_min), "0.0078125", "RP: weight after a decrease, and the decrease discount (paper: 1/128; guidance 0.1/N)", NULL, 0, 1},
    {"w_max", P_DOUBLE, P(w_max), "0.5", "RP: limit of the increase weight w (paper: 0.5)", NULL, 0, 1},
    {"mark_threshold", P_SIZE, P(mark_threshold), "0", "CP, NP-ECN: mark packets not paused when the egress queue exceeds this (paper: 0)", NULL, 0, 0},
    {"min_rate", P_RATE, P(min_rate), "1Mbps", "RP: rate floor on decrease (not in the paper; RecRate's unit)", NULL, 0, 0},
    PARAM_END};

static void pcn_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)s;
    (void)qp;
    const struct pcn_par *p = par;
    struct pcn *c = st;
    c->w = p->w_min; /* qp->rate starts at line rate */
}

static void set_rate(struct sim *s, struct qp *qp, uint64_t r)
{
    if (r > qp->max_rate)
        r = qp->max_rate;
    if (r == qp->rate)
        return;
    if (qp->rate == 0) /* nothing paced at rate 0 to move */
        qp->rate = r;
    else
        cc_change_rate(s, qp, r);
}

/* RP: Algorithm 1. */
static void pcn_on_cnp(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *pk)
{
    struct pcn *c = st;
    const struct pcn_par *p = par;
    if (pk->type != PKT_CNP || !(pk->flags & PF_CC2))
        return; /* the transport's ECN echo, not a PCN CNP */
    double r;
    if (pk->flags & PF_CC1) {
        double rec = (double)pk->aux * (1.0 - p->w_min);
        r = (double)qp->rate < rec ? (double)qp->rate : rec;
        if (r < (double)p->min_rate)
            r = (double)p->min_rate;
        c->w = p->w_min;
    } else {
        r = (double)qp->rate * (1.0 - c->w) + (double)qp->max_rate * c->w;
        c->w = c->w * (1.0 - c->w) + p->w_max * c->w;
    }
    set_rate(s, qp, (uint64_t)r);
}

/* NP: count the packet; the first one starts the period clock. */
static void pcn_on_rx_data(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *pk)
{
    struct pcn_np *c = st;
    const struct pcn_par *p = par;
    simtime_t now = cc_now(s);
    if (c->seen)
        c->inter_arrival = now - c->last_arrival;
    c->seen = true;
    c->last_arrival = now;
    c->last_size = pk->size;
    c->rec_num++;
    c->rec_bytes += pk->size;
    if (pk->flags & PF_ECN)
        c->ecn_num++;
    if (!c->np_on) {
        c->np_on = true;
        cc_timer_set(s, qp, T_NP, now + p->period);
    }
}

static uint64_t bps(uint64_t bytes, simtime_t t)
{
    return (uint64_t)((unsigned __int128)bytes * 8u * T_SEC / (unsigned __int128)t);
}

/* NP: the end of a period T (Fig. 8). */
static void pcn_on_timer(struct sim *s, struct qp *qp, void *st, const void *par, int kind)
{
    struct pcn_np *c = st;
    const struct pcn_par *p = par;
    if (kind != T_NP)
        return;
    if (c->rec_num > 0) {
        /* marked >= share · received, with slack for 0.95 not being exact */
        bool congested = (double)c->ecn_num >= p->congested_share * (double)c->rec_num - 1e-9;
        uint64_t rate = 0;
        if (congested) {
            if (c->rec_num == 1 && c->inter_arrival > 0)
                rate = bps(c->last_size, c->inter_arrival);
            else
                rate = bps(c->rec_bytes, p->period);
        }
        cc_send_cnp(s, qp, (uint8_t)(PF_CC2 | (congested ? PF_CC1 : 0)), rate);
    }
    c->rec_num = c->ecn_num = 0;
    c->rec_bytes = 0;
    if (qp->rcv_done != T_NEVER)
        return; /* it holds the whole message: this was its last period (np_on stays: a late duplicate restarts nothing) */
    cc_timer_set(s, qp, T_NP, cc_now(s) + p->period);
}

/* CP: NP-ECN. */
static void pcn_sw_enqueue(struct sim *s, uint32_t port, void *pst, const void *par, struct pkt *pk, int q)
{
    (void)s;
    (void)port;
    (void)par;
    struct pcn_port *pp = pst;
    if (pk->type == PKT_DATA && q != 0)
        pp->waiting[q]++;
}

static bool pcn_sw_mark(struct sim *s, uint32_t port, void *pst, const void *par, const struct pkt *pk, int q)
{
    (void)pk;
    struct pcn_port *pp = pst;
    const struct pcn_par *p = par;
    if (pp->waiting[q])
        pp->waiting[q]--;
    if (pp->pn[q]) {
        pp->pn[q]--;
        return false; /* it waited behind the PAUSE */
    }
    return lb_port_queue_bytes(s, port, q) > p->mark_threshold;
}

static void pcn_sw_resume(struct sim *s, uint32_t port, void *pst, const void *par, int q)
{
    (void)s;
    (void)port;
    (void)par;
    struct pcn_port *pp = pst;
    pp->pn[q] = pp->waiting[q];
}

const struct cc_ops cc_pcn = {
    .name = "pcn",
    .help = "PCN (NSDI'20): NP-ECN at switches, receiver-driven rate from periodic CNPs",
    .params = pcn_params,
    .params_size = sizeof(struct pcn_par),
    .state_size = sizeof(struct pcn),
    .init = pcn_init,
    .on_cnp = pcn_on_cnp,
    .on_timer = pcn_on_timer,
    .rx_timers = 1u << T_NP, /* the NP's period runs at the receiver */
    .rx_state_size = sizeof(struct pcn_np),
    .on_rx_data = pcn_on_rx_data,
    .port_state_size = sizeof(struct pcn_port),
    .sw_enqueue = pcn_sw_enqueue,
    .sw_mark = pcn_sw_mark,
    .sw_resume = pcn_sw_resume,
};
