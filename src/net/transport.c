/* Transport: the receiver (go-back-N as ns-3 HPCC, or IRN), ACK/NACK/CNP
 * replies, ACK processing at the sender, flow start and completion, timers
 * and the retransmission timeout. */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- IRN
 * Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM'18, §3:
 * the receiver keeps out-of-order packets and NACKs each one with the
 * cumulative ACK plus the packet it got (a SACK); the sender retransmits only
 * the holes below the highest SACKed packet, before new data; RTO_low while
 * at most N packets are in flight, RTO_high otherwise; in flight <= one BDP. */

static inline uint64_t irn_idx(const struct sim *s, uint64_t seq) { return seq / s->p.mtu; }
static inline bool bit_get(const uint64_t *b, const struct sim *s, uint64_t i)
{
    i &= s->p.irn_bits - 1;
    return b[i >> 6] >> (i & 63) & 1;
}
static inline void bit_put(uint64_t *b, const struct sim *s, uint64_t i, bool v)
{
    i &= s->p.irn_bits - 1;
    if (v)
        b[i >> 6] |= 1ULL << (i & 63);
    else
        b[i >> 6] &= ~(1ULL << (i & 63));
}

/* The next hole to retransmit, or UINT64_MAX. Holes are unSACKed packets in
 * [snd_una, sack_high). */
uint64_t irn_next_retx(const struct sim *s, struct qp *f)
{
    if (!f->in_recovery)
        return UINT64_MAX;
    uint64_t seq = f->retx_next > f->snd_una ? f->retx_next : f->snd_una;
    seq = seq / s->p.mtu * s->p.mtu;
    while (seq < f->sack_high && seq < f->snd_nxt) {
        if (!bit_get(f->irn_tx, s, irn_idx(s, seq)))
            return seq;
        seq += s->p.mtu;
    }
    f->retx_next = seq;
    return UINT64_MAX;
}

/* Enter (or extend) recovery: every unSACKed packet below `high` is lost. */
void irn_recover(struct qp *f, uint64_t high)
{
    if (!f->in_recovery) {
        f->in_recovery = true;
        f->retx_next = f->snd_una;
        f->recovery_end = f->snd_nxt;
    }
    if (high > f->sack_high)
        f->sack_high = high;
}

/* ns-3's RdmaEgressQueue: ACK/NACK/CNP queue first, then QPs round-robin
 * among those with data, priority not paused, under window, pacing time reached. */
/* ---------------------------------------------------------------- transport */

/* At most one heap entry per (flow, timer): moving a timer later pushes
 * nothing, the entry already in the heap re-pushes itself for the new time
 * when it comes due. DCQCN re-arms its increase timer 900 us ahead on every
 * decrease; left as stale entries those made up most of the heap.
 * run.ns3_timing: a CC timer moved later is pushed now, as ns-3's Cancel and
 * Schedule do, so it takes ns-3's place among the events of its ns (the old
 * entry re-pushing itself would take a later one); the old entry is skipped
 * when it comes due (timer_ev no longer names it). */
void timer_set(struct sim *s, struct qp *f, int kind, simtime_t at)
{
    f->timer_at[kind] = at;
    if (f->timer_ev[kind] >= 0 && f->timer_ev[kind] <= at &&
        !(s->p.ns3_timing && kind < CC_TIMERS && f->timer_ev[kind] < at))
        return;
    f->timer_ev[kind] = at;
    evq_push_timer(&s->evq, at, EV_TIMER0 + (unsigned)kind, f->id);
}

void flow_complete(struct sim *s, struct qp *f)
{
    f->state = FLOW_DONE;
    f->finish = s->now;
    free(f->irn_tx); /* the sender's ring; the receiver's went when it had every byte (receive_data) */
    f->irn_tx = NULL;
    s->c.flows_completed++;
    if (!f->local)
        nic_qp_done(s, nic_of(s, f->src), f->id);
    if (s->deps)
        deps_release(s, f);
    if (s->hooks.flow_done)
        s->hooks.flow_done(s->hooks.ctx, s, f);
}

/* The header of a packet travelling back to flow f's sender, as its ACKs do
 * (reversed addresses and ports, so switches hash it like the ACKs). */
void reply_header(struct pkt *a, const struct qp *f, int type, uint8_t flags)
{
    flow_header(a, f, type, true);
    a->flags = flags;
}

/* Turn `a` into an ACK/NACK/CNP of flow f and queue it at the receiver's NIC.
 * `a` is either fresh or the data packet being answered: reusing that one
 * spares an allocation and the copy of its INT records. */
static void ctrl_fill(struct sim *s, struct qp *f, int type, uint8_t flags, struct pkt *a, uint64_t aux)
{
    reply_header(a, f, type, flags);
    a->aux = aux;
    a->seq = f->rcv_nxt;
    a->size = s->ack_size;
}

static void ctrl_queue(struct sim *s, struct qp *f, struct pkt *a)
{
    struct nic *nic = nic_of(s, f->dst);
    q_push(&nic->ackq, a);
    port_kick(s, nic->port);
}

void ctrl_from(struct sim *s, struct qp *f, int type, uint8_t flags, struct pkt *a, uint64_t aux)
{
    ctrl_fill(s, f, type, flags, a, aux);
    ctrl_queue(s, f, a);
}

/* The data packet p becomes its own ACK/NACK. It echoes what a sender-side
 * balancer needs (the path it took, its CE mark; its timestamp and INT stay)
 * and keeps nothing of the forward route: the reply takes its own path back,
 * hashed on the data packet's ports reversed. */
static void reply_with_data(struct sim *s, struct qp *f, int type, uint8_t flags, struct pkt *p, uint64_t aux)
{
    uint16_t sp = p->sport, dp = p->dport;
    uint32_t path = p->lb.path;
    if (p->flags & PF_ECN)
        flags |= PF_ECN_ECHO;
    p->lb = (struct lb_hdr){.path = PATH_NONE, .to_node = UINT32_MAX, .echo_path = path};
    ctrl_fill(s, f, type, flags, p, aux);
    p->sport = dp;
    p->dport = sp;
    ctrl_queue(s, f, p);
}

static inline void note_ooo(struct sim *s, struct qp *f, const struct pkt *p)
{
    uint64_t d = (p->seq - f->rcv_nxt) / s->p.mtu;
    f->ooo++;
    if (d > f->ooo_max)
        f->ooo_max = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

/* The rings of IRN, the reorder buffer and the bitmap receiver, one per
 * end, each taken and freed by its own end (in a parallel run, by its own
 * partition or rank): the sender's (irn_tx) at the flow's start until its
 * completion, the receiver's (irn_rx) at its first data packet until it
 * holds every byte (nothing reads it after: a later packet is a duplicate,
 * below rcv_nxt). */
static uint64_t *ring_alloc(const struct sim *s) { return xcalloc(s->p.irn_bits / 64, sizeof(uint64_t)); }

/* Deliver everything held contiguously from rcv_nxt (IRN and reorder buffer). */
static void pull_held(struct sim *s, struct qp *f)
{
    while (f->rcv_nxt < f->size && bit_get(f->irn_rx, s, irn_idx(s, f->rcv_nxt))) {
        bit_put(f->irn_rx, s, irn_idx(s, f->rcv_nxt), false);
        uint64_t len = f->size - f->rcv_nxt < s->p.mtu ? f->size - f->rcv_nxt : s->p.mtu;
        f->rcv_nxt += len;
        s->c.bytes_delivered += len;
        if (s->p.reorder)
            f->held_bytes -= len < f->held_bytes ? len : f->held_bytes;
    }
}

/* IRN receiver: ACK in-order packets (pulling in any held ones), NACK an
 * out-of-order one with the cumulative ACK plus its own sequence (*sack),
 * re-ACK duplicates. */
static int irn_receive(struct sim *s, struct qp *f, const struct pkt *p, uint64_t *sack)
{
    if (p->seq == f->rcv_nxt) {
        f->rcv_nxt += data_payload(s, p);
        s->c.bytes_delivered += data_payload(s, p);
        pull_held(s, f);
        return PKT_ACK;
    }
    if (p->seq > f->rcv_nxt) {
        uint64_t i = irn_idx(s, p->seq);
        if (i - irn_idx(s, f->rcv_nxt) >= s->p.irn_bits)
            return -1; /* beyond the ring: cannot happen under the BDP cap */
        if (!bit_get(f->irn_rx, s, i)) {
            bit_put(f->irn_rx, s, i, true);
            note_ooo(s, f, p);
        }
        *sack = p->seq;
        return PKT_NACK;
    }
    return PKT_ACK;
}

/* Bounded-window receiver (transport.reorder = bitmap), MP-RDMA (Lu et al.,
 * NSDI'18; its out-of-order aware path selection): a bitmap of ooo_window (L) packets beyond rcv_nxt. A packet
 * within it is taken (delivered with anything contiguous, or held), and every
 * data packet is ACKed: the cumulative ACK in seq, the packet's own sequence
 * in aux (its sACK), the path it came on echoed in the reply's ports, its CE
 * mark as PF_ECN_ECHO, so the sender clocks each path by its own ACKs. A
 * packet beyond the window is dropped (counted in ooo_window_drops) and
 * answered with a NACK of rcv_nxt, at most one per nack_interval for the same
 * rcv_nxt: the sender goes back to it (go-back-N, the receiver discards what
 * it already holds) and the RTO covers a lost NACK. Duplicates are ACKed too:
 * their ACKs keep the clock running after a go-back. */
static int bitmap_receive(struct sim *s, struct qp *f, const struct pkt *p, uint64_t *sack)
{
    *sack = p->seq;
    if (p->seq == f->rcv_nxt) {
        f->rcv_nxt += data_payload(s, p);
        s->c.bytes_delivered += data_payload(s, p);
        pull_held(s, f);
        return PKT_ACK;
    }
    if (p->seq < f->rcv_nxt)
        return PKT_ACK;
    uint64_t i = irn_idx(s, p->seq);
    if (i - irn_idx(s, f->rcv_nxt) >= s->p.ooo_window) {
        s->c.ooo_window_drops++;
        note_ooo(s, f, p);
        if (s->now < f->nack_timer && f->last_nack == f->rcv_nxt)
            return -1;
        f->nack_timer = s->now + s->p.nack_interval;
        f->last_nack = f->rcv_nxt;
        return PKT_NACK;
    }
    if (!bit_get(f->irn_rx, s, i)) {
        bit_put(f->irn_rx, s, i, true);
        note_ooo(s, f, p);
    }
    return PKT_ACK;
}

/* Receiver reorder buffer (transport.reorder = buffer): hold an early packet
 * while it fits (reorder_bytes, the ring) and its gap is younger than
 * reorder_timeout; answer it as an in-order packet would be answered (the
 * cumulative ACK, so ECN and INT still reach the sender). Returns false when
 * it cannot be held: the caller NACKs as go-back-N does. */
static bool reorder_hold(struct sim *s, struct qp *f, const struct pkt *p, bool ecn, int *reply)
{
    uint64_t i = irn_idx(s, p->seq);
    if (i - irn_idx(s, f->rcv_nxt) >= s->p.irn_bits || f->held_bytes + data_payload(s, p) > s->p.reorder_bytes)
        return false;
    if (f->held_bytes && s->now - f->gap_since >= s->p.reorder_timeout)
        return false;
    if (!bit_get(f->irn_rx, s, i)) {
        if (!f->held_bytes)
            f->gap_since = s->now;
        bit_put(f->irn_rx, s, i, true);
        f->held_bytes += data_payload(s, p);
        if (f->held_bytes > s->c.reorder_peak_bytes)
            s->c.reorder_peak_bytes = f->held_bytes;
    }
    if (++f->rcv_since_ack >= s->p.ack_interval || ecn) {
        f->rcv_since_ack = 0;
        *reply = PKT_ACK;
    }
    return true;
}

/* ns-3 HPCC's ReceiverCheckSeq, plus an ACK for the last byte so any
 * ack_interval lets a flow finish. Returns true when p itself became the
 * ACK/NACK (it keeps the data's timestamp and INT records, as the reply must). */
static bool receive_data(struct sim *s, struct pkt *p)
{
    struct qp *f = &s->flows[p->flow];
    bool ecn = p->flags & PF_ECN;
    if (s->p.rings && !f->irn_rx && f->rcv_nxt < f->size)
        f->irn_rx = ring_alloc(s);
    int reply = -1;
    uint64_t sack = 0, had = f->rcv_nxt;
    if (s->p.irn) {
        reply = irn_receive(s, f, p, &sack);
    } else if (s->p.bitmap) {
        reply = bitmap_receive(s, f, p, &sack);
    } else if (p->seq == f->rcv_nxt) {
        f->rcv_nxt += data_payload(s, p);
        s->c.bytes_delivered += data_payload(s, p);
        f->rcv_since_ack++;
        bool filled = false;
        if (s->p.reorder && f->held_bytes) {
            pull_held(s, f);
            f->gap_since = s->now; /* any gap left above opens now */
            filled = true;
        }
        if (filled || f->rcv_since_ack >= s->p.ack_interval || f->rcv_nxt >= f->size ||
            (s->p.chunk && f->rcv_nxt % s->p.chunk == 0)) {
            f->rcv_since_ack = 0;
            reply = PKT_ACK;
        }
    } else if (p->seq > f->rcv_nxt) {
        note_ooo(s, f, p);
        if (!(s->p.reorder && reorder_hold(s, f, p, ecn, &reply)) &&
            (s->now >= f->nack_timer || f->last_nack != f->rcv_nxt)) {
            f->nack_timer = s->now + s->p.nack_interval;
            f->last_nack = f->rcv_nxt;
            reply = PKT_NACK;
        }
    } else {
        /* A duplicate: the sender went back below rcv_nxt (a timeout, or a
         * NACK after reordering). ns-3 ignores it; we ACK it with rcv_nxt, as
         * TCP answers an old segment (RFC 9293 §3.10.7.4) and as IRN and the
         * bitmap receiver above do. Ignoring it livelocks a lossy go-back-N
         * flow whose ACKs up to rcv_nxt were dropped: the sender only learns
         * rcv_nxt from a reply, and when its window or its pacing keeps it
         * from reaching rcv_nxt within an RTO (DCTCP's 100 Mbps floor: 84 us
         * a packet against pbfs-fig7's 100 us RTO) every timeout rewinds it
         * before it gets there, for ever. */
        reply = PKT_ACK;
    }
    if (had < f->size && f->rcv_nxt >= f->size) { /* the data has arrived (the sender learns it an ACK later) */
        f->rcv_done = s->now;
        if (__builtin_expect(s->deps != NULL, 0))
            deps_recv(s, f);
    }
    if (f->irn_rx && f->rcv_nxt >= f->size) { /* every byte here: the ring's last use */
        free(f->irn_rx);
        f->irn_rx = NULL;
    }
    if (ecn && s->p.cnp_packets) {
        struct pkt *c = pkt_alloc(s); /* a separate CNP: no INT, the data's timestamp */
        c->ts = p->ts;
        ctrl_from(s, f, PKT_CNP, 0, c, 0);
        s->c.cnps++;
    }
    for (uint32_t k = 0; k < s->n_slot; k++)
        if (s->slot[k].ops->on_rx_data)
            s->slot[k].ops->on_rx_data(s, f, slot_rx_state(&s->slot[k], f->id), s->slot[k].par, p);
    if (reply < 0)
        return false;
    if (reply == PKT_ACK)
        s->c.acks++;
    else
        s->c.nacks++;
    reply_with_data(s, f, reply, ecn && !s->p.cnp_packets ? PF_CNP : 0, p, sack);
    return true;
}

/* The end of an ACK's handling: every slot's on_ack (the CC, then its
 * companions), then the sender's NIC tries to send. */
static void acked(struct sim *s, struct qp *f, const struct pkt *p)
{
    for (uint32_t k = 0; k < s->n_slot; k++)
        if (s->slot[k].ops->on_ack)
            s->slot[k].ops->on_ack(s, f, slot_state(&s->slot[k], f->id), s->slot[k].par, p);
    port_kick(s, nic_of(s, f->src)->port);
}

static void receive_ack(struct sim *s, struct pkt *p)
{
    struct qp *f = &s->flows[p->flow];
    if (f->state != FLOW_ACTIVE)
        return;
    if (p->type == PKT_CNP) {
        for (uint32_t k = 0; k < s->n_slot; k++) /* a companion sees a flagged ACK in its on_ack */
            if (s->slot[k].ops->on_cnp)
                s->slot[k].ops->on_cnp(s, f, slot_state(&s->slot[k], f->id), s->slot[k].par, p);
        return;
    }
    if (p->type == PKT_FEEDBACK) {
        for (uint32_t k = 0; k < s->n_slot; k++)
            if (s->slot[k].ops->on_feedback)
                s->slot[k].ops->on_feedback(s, f, slot_state(&s->slot[k], f->id), s->slot[k].par, p);
        return;
    }
    uint64_t seq = p->seq;
    if (s->p.back_to_zero && s->p.chunk)
        seq = seq / s->p.chunk * s->p.chunk;
    if (s->p.irn) {
        /* SACK bits below the new cumulative ACK are recycled in the ring */
        for (uint64_t b = f->snd_una; b < seq && b < f->snd_high; b += s->p.mtu)
            bit_put(f->irn_tx, s, irn_idx(s, b), false);
        f->last_progress = s->now; /* any ACK or NACK shows the path is alive */
    }
    if (seq > f->snd_una) {
        f->snd_una = seq;
        f->last_progress = s->now;
        /* Karn: only an ACK of data sent once since the last timeout shows the
         * round trip fits the base RTO again; its timer then comes due by then */
        if (f->rto_backoff && seq > f->rto_recover) {
            f->rto_backoff = 0;
            timer_set(s, f, TIMER_RTO, s->now + s->p.rto);
        }
    }
    if (s->lb->host_ack)
        s->lb->host_ack(s, &s->lbsw[f->src], s->lb_par, f, p);
    if (f->snd_una >= f->size) {
        flow_complete(s, f);
        if (s->p.nic_wake_ns3) {
            /* ns-3 (RdmaHw::ReceiveAck) completes the QP, then still runs
             * the CC on this last ACK and tries to send. The CC's rate
             * change calls QbbNetDevice::UpdateNextAvail with the finished
             * QP's old m_nextAvail, which moves a pending wake-up to now
             * (a new event, later among this ns's events: nic_wake_at);
             * and the try may be what wakes a paced QP (nic_wake = ns3). */
            acked(s, f, p);
        }
        return;
    }
    if (s->p.irn) {
        if (p->type == PKT_NACK && p->aux >= f->snd_una) {
            bit_put(f->irn_tx, s, irn_idx(s, p->aux), true);
            irn_recover(f, p->aux + 1);
        }
        if (f->in_recovery && f->snd_una >= f->recovery_end && f->snd_una >= f->sack_high)
            f->in_recovery = false;
        if (f->snd_nxt < f->snd_una)
            f->snd_nxt = f->snd_una;
    } else if (p->type == PKT_NACK || f->snd_nxt < f->snd_una) {
        f->snd_nxt = f->snd_una; /* go-back-N */
    }
    if ((p->flags & PF_CNP) && s->slot[0].ops->on_cnp) /* the CC's; a companion sees the flag in on_ack */
        s->slot[0].ops->on_cnp(s, f, sim_cc_state(s, f->id), s->slot[0].par, p);
    acked(s, f, p);
}

/* A sender-side balancer's probe: the far NIC echoes it at once through its
 * control queue, as it would an ACK (the echo keeps ts, reports the path and
 * the CE mark); back at the prober, the balancer reads it. */
static void probe_receive(struct sim *s, struct pkt *p)
{
    if (p->flags & PF_ECHO) {
        if (s->lb->host_probe)
            s->lb->host_probe(s, &s->lbsw[p->dst], s->lb_par, p);
        pkt_free(s, p);
        return;
    }
    uint32_t a = p->src;
    uint16_t sp = p->sport;
    uint8_t flags = PF_ECHO | ((p->flags & PF_ECN) ? PF_ECN_ECHO : 0);
    p->lb = (struct lb_hdr){.path = PATH_NONE, .to_node = UINT32_MAX, .echo_path = p->lb.path};
    p->flags = flags;
    p->src = p->dst;
    p->dst = a;
    p->sport = p->dport;
    p->dport = sp;
    struct nic *nic = nic_of(s, p->src);
    q_push(&nic->ackq, p);
    port_kick(s, nic->port);
}

void host_receive(struct sim *s, struct pkt *p)
{
    if (p->type == PKT_CTRL) { /* no host-side balancer consumes these yet */
        pkt_free(s, p);
        return;
    }
    if (p->type == PKT_PROBE) {
        probe_receive(s, p);
        return;
    }
    if (p->type == PKT_DATA) {
        if (!receive_data(s, p))
            pkt_free(s, p);
        return;
    }
    receive_ack(s, p);
    pkt_free(s, p);
}

/* ---------------------------------------------------------------- flows */

/* A message that continues a queue pair (deps.c, SIM_DEP_QP) takes over what
 * the QP keeps between messages: the CC's state and rate or window, the
 * balancer's per-flow state (its path, flowlet, ...) and the first switch's
 * last port, so a path change between messages counts as one. The previous
 * message has sent every byte by then (its ACKs still update its own record). */
static void qp_carry_over(struct sim *s, struct qp *f, const struct qp *prev)
{
    for (uint32_t k = 0; k < s->n_slot; k++) {
        memcpy(slot_state(&s->slot[k], f->id), slot_state(&s->slot[k], prev->id), s->slot[k].stride);
        if (s->slot[k].rx_stride) /* the receiver's record too, as when it was one with the sender's */
            memcpy(slot_rx_state(&s->slot[k], f->id), slot_rx_state(&s->slot[k], prev->id), s->slot[k].rx_stride);
    }
    if (s->lb_fstride)
        memcpy(s->lb_fstate + (size_t)f->id * s->lb_fstride, s->lb_fstate + (size_t)prev->id * s->lb_fstride,
               s->lb_fstride);
    if (s->lb->on_qp_next)
        s->lb->on_qp_next(s, s->lb_par, prev->id, f->id);
    f->rate = prev->rate;
    f->win = prev->win;
    f->lb_out = prev->lb_out;
    f->lb_last = prev->lb_last;
    f->tx_path = prev->tx_path;
    f->host_path = prev->host_path;
}

void flow_start(struct sim *s, struct qp *f) { flow_start_on(s, f, NULL); }

void flow_start_on(struct sim *s, struct qp *f, const struct qp *prev)
{
    if (s->deps)
        deps_started(s, f);
    if (f->local) {
        nvs_start(s, f);
        return;
    }
    f->state = FLOW_ACTIVE;
    f->rate = f->max_rate = s->ports[nic_of(s, f->src)->port].rate;
    f->next_avail = s->now;
    f->last_progress = s->now;
    for (int k = 0; k <= CC_TIMERS; k++)
        f->timer_at[k] = f->timer_ev[k] = -1;
    f->lb_out = UINT32_MAX;
    f->lb_last = -1;
    f->last_tx = -1;
    if (s->p.rings)
        f->irn_tx = ring_alloc(s);
    for (uint32_t k = 0; k < s->n_slot; k++)
        if (s->slot[k].ops->init)
            s->slot[k].ops->init(s, f, slot_state(&s->slot[k], f->id), s->slot[k].par);
    if (prev)
        qp_carry_over(s, f, prev);
    struct nic *nic = nic_of(s, f->src);
    if (port_paused(&s->ports[nic->port], f->pg))
        FLOW_FLAG_SET(f->ever_paused); /* starts behind a PAUSE (switches set it too) */
    nic_add_qp(s, nic, f->id);
    if (s->p.rto)
        timer_set(s, f, TIMER_RTO, s->now + s->p.rto);
    port_kick(s, nic->port);
}

/* run.ns3_timing: HPCC's ScheduleFlowInputs (third.cc) installs each due
 * flow's application at t; Node::AddApplication schedules Application::Start
 * at t, which schedules StartApplication at t (start time 0), which adds the
 * QP and lets the NIC send. So a flow's first packet goes two events after
 * the start event, behind everything else already due at t (a continuing
 * flow's packet, an arrival). hop 0 is that start event: it schedules the
 * next one, as ScheduleFlowInputs does; hop 2 starts the flows. */
void flows_due_ns3(struct sim *s, uint32_t hop)
{
    if (hop == 0) {
        evq_push(&s->evq, s->now, EV_FLOW_START, 1);
        uint32_t i = s->next_start;
        while (i < s->n_starts && s->flows[s->start_order[i]].start <= s->now)
            i++;
        if (i < s->n_starts)
            evq_push(&s->evq, s->flows[s->start_order[i]].start, EV_FLOW_START, 0);
    } else if (hop == 1) {
        evq_push(&s->evq, s->now, EV_FLOW_START, 2);
    } else {
        while (s->next_start < s->n_starts && s->flows[s->start_order[s->next_start]].start <= s->now) {
            uint32_t id = s->start_order[s->next_start++];
            if (!(s->deps && s->deps->gated[id])) /* gated flows start from deps.c */
                flow_start(s, &s->flows[id]);
        }
    }
}

void flows_due(struct sim *s)
{
    /* the lazy entries (port.c) of the hosts whose flows start now run
     * before this event, not between two of its starts */
    for (uint32_t i = s->next_start; i < s->n_starts && s->flows[s->start_order[i]].start <= s->now; i++)
        lazy_before(s, s->flows[s->start_order[i]].src, s->now, (uint32_t)EV_FLOW_START << EV_ID_BITS);
    while (s->next_start < s->n_starts) {
        struct qp *f = &s->flows[s->start_order[s->next_start]];
        if (f->start > s->now) {
            /* released already (deps.c), its start perhaps moved past later flows' */
            if (s->deps && s->deps->gated[f->id] && s->deps->wait[f->id] == 0) {
                s->next_start++;
                continue;
            }
            evq_push(&s->evq, f->start, EV_FLOW_START, 0);
            return;
        }
        s->next_start++;
        if (!(s->deps && s->deps->gated[f->id])) /* gated flows start from deps.c */
            flow_start(s, f);
    }
}

/* A safety net: lossless mode never drops, so this only fires if a flow
 * really stalls (or in lossy mode); every firing is counted.
 * Go-back-N doubles its RTO after each timeout (transport.rto_backoff times
 * at most; RFC 6298 5.5) until data sent only once is ACKed. A fixed RTO below the
 * round trip a full queue causes (pbfs-fig7: 100 us against up to 670 us of
 * queueing at a 25 Gbps port with 2 MB of buffer; leafspine-asym: ACKs behind
 * PAUSEs for milliseconds) fires again before the resent packet can be ACKed,
 * and every firing resends all the flow has in flight: the resends keep the
 * queue full, the queue keeps the RTO firing. IRN keeps its two fixed RTOs.
 * The timer runs while any data sent is unACKed (snd_una < snd_high), not
 * only while packets are in flight: after a timeout (or a NACK) has rewound
 * snd_nxt, a NIC that cannot send (its own link down, a PAUSE) keeps timing
 * out and backing off, as a RoCE NIC's transport timer does; otherwise a host
 * whose link failed timed out once and never again. */
void rto_fire(struct sim *s, struct qp *f)
{
    simtime_t rto = s->p.rto;
    if (s->p.irn) /* IRN: a short timeout when too few packets are in flight for NACKs to come */
        rto = (f->snd_nxt - f->snd_una + s->p.mtu - 1) / s->p.mtu <= s->p.irn_n ? s->p.rto_low : s->p.rto_high;
    else
        rto <<= f->rto_backoff;
    if (f->snd_una < f->snd_high && s->now - f->last_progress >= rto) {
        s->c.timeouts++;
        f->timeouts++;
        if (s->lb->host_timeout)
            s->lb->host_timeout(s, &s->lbsw[f->src], s->lb_par, f);
        if (s->p.irn) { /* everything unSACKed in flight is lost */
            f->in_recovery = false;
            irn_recover(f, f->snd_nxt);
        } else {
            f->snd_nxt = f->snd_una;
            f->rto_recover = f->snd_high;
            if (f->rto_backoff < s->p.rto_backoff) {
                f->rto_backoff++;
                rto <<= 1;
            }
        }
        f->last_progress = s->now;
        port_kick(s, nic_of(s, f->src)->port);
    }
    simtime_t next = f->last_progress + rto;
    timer_set(s, f, TIMER_RTO, next > s->now ? next : s->now + rto);
}

