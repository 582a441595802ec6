/* The event loop and everything a packet meets on its way: NIC scheduler,
 * link, switch MMU (ns-3 HPCC's SwitchMmu), egress scheduler, receiver and
 * transport (go-back-N as ns-3, or IRN), and the hooks schemes plug into.
 * Two events per packet hop: TX_DONE at the egress port (only when more is
 * waiting) and ARRIVE at the far end of the link, whose in-flight packets sit
 * in a FIFO with one pending event for the head. */
#include "net/net.h"
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ev_kind {
    EV_TX_DONE,    /* port id: transmission finished, start the next */
    EV_ARRIVE,     /* port id: head of its wire reaches the peer */
    EV_NIC_WAKE,   /* host index: a paced QP may send now */
    EV_FLOW_START, /* next flow(s) in start order */
    EV_TIMER0,     /* flow id: CC timer k is EV_TIMER0 + k, RTO is EV_TIMER0 + CC_TIMERS */
    EV_MONITOR = EV_TIMER0 + CC_TIMERS + 1, /* hooks.sample: the stats layer's monitors (one pending at most) */
};
#define TIMER_RTO CC_TIMERS

#define POOL_CHUNK 4096

/* ---------------------------------------------------------------- packets */

static void pool_grow(struct sim *s)
{
    struct pkt_pool *pl = &s->pool;
    if (pl->nchunks == pl->capchunks) {
        pl->capchunks = pl->capchunks ? 2 * pl->capchunks : 16;
        pl->chunks = xrealloc(pl->chunks, pl->capchunks * sizeof *pl->chunks);
    }
    struct pkt *c = xcalloc(POOL_CHUNK, sizeof *c);
    pl->chunks[pl->nchunks++] = c;
    for (int i = POOL_CHUNK - 1; i >= 0; i--) {
        c[i].next = pl->free;
        pl->free = &c[i];
    }
}

struct pkt *pkt_alloc(struct sim *s)
{
    if (!s->pool.free)
        pool_grow(s);
    struct pkt *p = s->pool.free;
    s->pool.free = p->next;
    if (++s->pool.in_use > s->pool.peak)
        s->pool.peak = s->pool.in_use;
    p->next = NULL;
    p->flags = 0;
    p->nhop = 0;
    p->payload = 0;
    p->seq = 0;
    return p;
}

void pkt_free(struct sim *s, struct pkt *p)
{
    p->next = s->pool.free;
    s->pool.free = p;
    s->pool.in_use--;
}

static inline void q_push(struct pktq *q, struct pkt *p)
{
    p->next = NULL;
    if (q->tail)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
    q->bytes += p->size;
    q->n++;
}

static inline struct pkt *q_pop(struct pktq *q)
{
    struct pkt *p = q->head;
    q->head = p->next;
    if (!q->head)
        q->tail = NULL;
    q->bytes -= p->size;
    q->n--;
    return p;
}

/* Egress queues of a port keep a bitmask of which are non-empty. */
static inline void port_q_push(struct port *pt, int q, struct pkt *p)
{
    q_push(&pt->q[q], p);
    pt->qmask |= (uint8_t)(1u << q);
}

static inline struct pkt *port_q_pop(struct port *pt, int q)
{
    struct pkt *p = q_pop(&pt->q[q]);
    if (!pt->q[q].n)
        pt->qmask &= (uint8_t)~(1u << q);
    return p;
}

/* ns-3 keeps time in whole nanoseconds and truncates every serialisation and
 * pacing gap to them (a 1048-byte packet takes 83 ns at 100 Gbps there, 83.84
 * here): run.ns3_timing = on does the same, to compare with it to the ns. */
static inline simtime_t ns3_trunc(const struct sim *s, simtime_t t) { return s->p.ns3_timing ? t - t % T_NS : t; }

static inline simtime_t port_tx_time(const struct sim *s, const struct port *pt, uint32_t bytes)
{
    return ns3_trunc(s, pt->ps_per_byte ? (simtime_t)bytes * pt->ps_per_byte : tx_time(bytes, pt->rate));
}

/* ---------------------------------------------------------------- switch MMU
 * ns-3 HPCC's SwitchMmu, per ingress (port, queue): a reserve, then the shared
 * pool up to a dynamic threshold, then per-port headroom once PAUSE is due. */

uint32_t mmu_shared_used(const struct sim *s, const struct port *in, int q)
{
    uint32_t used = in->ingress_bytes[q];
    return used > s->p.reserve ? used - (uint32_t)s->p.reserve : 0;
}

uint32_t mmu_pfc_threshold(const struct sim *s, const struct node *sw, const struct port *in)
{
    (void)s;
    int64_t free_b = (int64_t)sw->buffer - (int64_t)sw->total_hdrm - (int64_t)sw->total_rsrv - (int64_t)sw->shared_used;
    return free_b > 0 ? (uint32_t)(free_b >> in->pfc_shift) : 0;
}

bool mmu_admit(struct sim *s, struct node *sw, struct port *in, int q, uint32_t size)
{
    return !(size + in->hdrm_bytes[q] > in->headroom &&
             size + mmu_shared_used(s, in, q) > mmu_pfc_threshold(s, sw, in));
}

void mmu_add(struct sim *s, struct node *sw, struct port *in, int q, uint32_t size)
{
    uint32_t new_bytes = in->ingress_bytes[q] + size;
    uint32_t rsv = (uint32_t)s->p.reserve;
    if (new_bytes <= rsv) {
        in->ingress_bytes[q] = new_bytes;
    } else if (new_bytes - rsv > mmu_pfc_threshold(s, sw, in)) {
        in->hdrm_bytes[q] += size;
    } else {
        in->ingress_bytes[q] = new_bytes;
        sw->shared_used += size < new_bytes - rsv ? size : new_bytes - rsv;
    }
}

void mmu_remove(struct sim *s, struct node *sw, struct port *in, int q, uint32_t size)
{
    uint32_t from_hdrm = in->hdrm_bytes[q] < size ? in->hdrm_bytes[q] : size;
    uint32_t shared = mmu_shared_used(s, in, q);
    uint32_t rest = size - from_hdrm;
    uint32_t from_shared = rest < shared ? rest : shared;
    in->hdrm_bytes[q] -= from_hdrm;
    in->ingress_bytes[q] -= rest;
    sw->shared_used -= from_shared;
}

/* ---------------------------------------------------------------- ports */

static void port_kick(struct sim *s, uint32_t pid);

static void send_pfc(struct sim *s, uint32_t pid, int q, bool pause)
{
    struct pkt *p = pkt_alloc(s);
    p->type = PKT_PFC;
    p->size = PFC_FRAME_BYTES;
    p->prio = 0;
    p->seq = (uint64_t)q;
    p->flags = pause ? PF_PAUSE : 0;
    p->src = p->dst = s->ports[pid].node;
    p->flow = UINT32_MAX;
    port_q_push(&s->ports[pid], 0, p);
    if (pause) {
        s->c.pfc_pause_frames++;
        s->c.pfc_pause_by_layer[s->nodes[p->src].layer & 3]++;
    } else
        s->c.pfc_resume_frames++;
    port_kick(s, pid);
}

bool mmu_should_pause(const struct sim *s, const struct node *sw, const struct port *in, int q)
{
    return !in->pause_sent[q] && (in->hdrm_bytes[q] > 0 || mmu_shared_used(s, in, q) >= mmu_pfc_threshold(s, sw, in));
}

bool mmu_should_resume(const struct sim *s, const struct node *sw, const struct port *in, int q)
{
    if (!in->pause_sent[q] || in->hdrm_bytes[q] > 0)
        return false;
    uint32_t shared = mmu_shared_used(s, in, q);
    return shared == 0 || shared + s->p.resume_offset <= mmu_pfc_threshold(s, sw, in);
}

static void check_pause(struct sim *s, struct node *sw, uint32_t in_pid, int q)
{
    if (mmu_should_pause(s, sw, &s->ports[in_pid], q)) {
        s->ports[in_pid].pause_sent[q] = true;
        send_pfc(s, in_pid, q, true);
    }
}

static void check_resume(struct sim *s, struct node *sw, uint32_t in_pid, int q)
{
    if (mmu_should_resume(s, sw, &s->ports[in_pid], q)) {
        s->ports[in_pid].pause_sent[q] = false;
        send_pfc(s, in_pid, q, false);
    }
}

/* RED on the egress queue after the packet left it, as ns-3's ShouldSendCN. */
static bool red_mark(struct sim *s, const struct port *pt, int q)
{
    uint64_t b = pt->q[q].bytes;
    if (b > pt->kmax)
        return true;
    if (b > pt->kmin) {
        double prob = pt->pmax * (double)(b - pt->kmin) / (double)(pt->kmax - pt->kmin);
        return rng_uniform(&s->red_rng) < prob;
    }
    return false;
}

static struct pkt *switch_dequeue(struct sim *s, uint32_t pid)
{
    struct port *pt = &s->ports[pid];
    int q;
    if (pt->qmask & 1) {
        q = 0; /* strict priority, never paused */
    } else {
        /* round-robin: the first non-empty, unpaused queue after rr_last */
        unsigned ready = pt->qmask & (unsigned)~pt->paused_mask & 0xffu;
        if (!ready)
            return NULL;
        unsigned r = (pt->rr_last + 1u) % NQ;
        unsigned rot = ((ready >> r) | (ready << (NQ - r))) & 0xffu;
        q = (int)((r + (unsigned)__builtin_ctz(rot)) % NQ);
    }
    struct pkt *p = port_q_pop(pt, q);
    if (q != 0) {
        pt->rr_last = (uint8_t)q;
        struct node *sw = &s->nodes[pt->node];
        mmu_remove(s, sw, &s->ports[p->in_port], q, p->size);
        if (s->p.ecn && p->type == PKT_DATA &&
            (s->cc->sw_mark ? s->cc->sw_mark(s, pid, sim_cc_pstate(s, pid), s->cc_par, p, q) : red_mark(s, pt, q))) {
            p->flags |= PF_ECN;
            s->c.ecn_marks++;
        }
        if (s->p.pfc)
            check_resume(s, sw, p->in_port, q);
    }
    /* INT as ns-3 HPCC stamps it: after the dequeue, before this packet's
     * bytes are added to the port's transmitted count. */
    if (s->cc->int_stamp && p->type == PKT_DATA && p->nhop < INT_MAX_HOPS) {
        struct int_hop *h = &p->hop[p->nhop++];
        h->ts = s->now;
        h->tx_bytes = pt->tx_bytes;
        uint64_t qlen = 0;
        for (int i = 0; i < NQ; i++)
            qlen += pt->q[i].bytes;
        h->qlen = (uint32_t)qlen;
        h->rate = pt->rate;
    }
    return p;
}

static struct pkt *nic_dequeue(struct sim *s, uint32_t pid);
static bool nic_may_send(struct sim *s, uint32_t node);

static inline bool port_has_queued(const struct port *pt) { return pt->qmask != 0; }

/* One live TX_DONE per port: a transmission started by another event at the
 * very instant a TX_DONE was due leaves that event stale, and it must not
 * arm a second one (that duplicated itself on every packet). */
static inline void tx_done_at(struct sim *s, struct port *pt, uint32_t pid, simtime_t t)
{
    if (pt->tx_at == t)
        return;
    pt->tx_at = t;
    evq_push(&s->evq, t, EV_TX_DONE, pid);
}

/* Start the next transmission if the port is idle and something may go. */
static void port_kick(struct sim *s, uint32_t pid)
{
    struct port *pt = &s->ports[pid];
    if (pt->busy_until > s->now) {
        tx_done_at(s, pt, pid, pt->busy_until);
        return;
    }
    bool sw = s->nodes[pt->node].is_switch;
    struct pkt *p = sw ? switch_dequeue(s, pid) : nic_dequeue(s, pid);
    if (!p)
        return;
    pt->busy_until = s->now + port_tx_time(s, pt, p->size);
    pt->tx_bytes += p->size;
    p->t_arrive = pt->busy_until + pt->delay;
    bool idle_wire = pt->wire.head == NULL;
    q_push(&pt->wire, p);
    if (idle_wire)
        evq_push(&s->evq, p->t_arrive, EV_ARRIVE, pid);
    /* A port with nothing waiting needs no wake-up: whatever makes it sendable
     * later (an enqueue, an ACK to send, a new flow, a window opening, a
     * RESUME) kicks it again. */
    if (sw ? port_has_queued(pt) : nic_may_send(s, pt->node))
        tx_done_at(s, pt, pid, pt->busy_until);
}

/* ---------------------------------------------------------------- switch */

static void switch_receive(struct sim *s, uint32_t node, uint32_t in_pid, struct pkt *p)
{
    struct node *sw = &s->nodes[node];
    size_t ri = (size_t)node * s->n_hosts + (uint32_t)s->host_index[p->dst];
    int n = s->route_cnt[ri];
    if (n == 0) { /* unreachable: the topology is partitioned */
        s->c.packets_dropped++;
        pkt_free(s, p);
        return;
    }
    const uint32_t *cand = s->route_ports + s->route_off[ri];
    uint32_t out = n == 1 ? cand[0] : cand[s->lb->choose(s, node, p, cand, n, s->lb_par)];
    int q = (p->type == PKT_CNP || p->type == PKT_FEEDBACK ||
             (s->p.ack_high_prio && (p->type == PKT_ACK || p->type == PKT_NACK))) ? 0 : p->prio;
    if (q != 0) {
        struct port *in = &s->ports[in_pid];
        if (!mmu_admit(s, sw, in, q, p->size)) {
            s->c.packets_dropped++;
            if (s->p.pfc)
                s->c.drops_lossless++;
            pkt_free(s, p);
            return;
        }
        mmu_add(s, sw, in, q, p->size);
        if (s->p.pfc)
            check_pause(s, sw, in_pid, q);
    }
    p->in_port = in_pid;
    port_q_push(&s->ports[out], q, p);
    if (s->cc->sw_enqueue)
        s->cc->sw_enqueue(s, out, sim_cc_pstate(s, out), s->cc_par, p, q);
    if (s->aux && s->aux->sw_enqueue)
        s->aux->sw_enqueue(s, out, sim_aux_pstate(s, out), s->aux_par, p, q);
    port_kick(s, out);
}

/* ---------------------------------------------------------------- NIC */

static inline struct nic *nic_of(struct sim *s, uint32_t node) { return &s->nics[s->host_index[node]]; }

static inline uint64_t qp_window(const struct sim *s, const struct qp *f)
{
    if (!f->win)
        return 0;
    if (!s->p.var_win)
        return f->win;
    uint64_t w = (uint64_t)((unsigned __int128)f->win * f->rate / f->max_rate);
    return w ? w : 1;
}

static inline bool qp_win_bound(const struct sim *s, const struct qp *f)
{
    uint64_t w = qp_window(s, f);
    return w && f->snd_nxt - f->snd_una >= w;
}

static void nic_wake_at(struct sim *s, struct nic *nic, simtime_t t)
{
    if (t < s->now)
        t = s->now;
    if (nic->wake_at > s->now && nic->wake_at <= t)
        return; /* an earlier wake-up is already pending */
    nic->wake_at = t;
    evq_push(&s->evq, t, EV_NIC_WAKE, (uint32_t)s->host_index[nic->node]);
}

/* The data packet starting at byte `seq`: new data at snd_nxt, or an IRN
 * retransmission of a hole below it. */
static struct pkt *make_data(struct sim *s, struct qp *f, uint64_t seq)
{
    struct pkt *p = pkt_alloc(s);
    uint64_t left = f->size - seq;
    uint32_t payload = left < s->p.mtu ? (uint32_t)left : s->p.mtu;
    p->type = PKT_DATA;
    p->prio = f->pg;
    p->flow = f->id;
    p->src = f->src;
    p->dst = f->dst;
    p->sport = f->sport;
    p->dport = f->dport;
    p->seq = seq;
    p->payload = payload;
    p->size = payload + s->data_hdr;
    p->ts = s->now;
    if (seq < f->snd_high) {
        s->c.bytes_retx += payload;
    } else {
        s->c.bytes_sent += payload;
    }
    if (seq == f->snd_nxt)
        f->snd_nxt += payload;
    else
        f->retx_next = seq + payload;
    if (f->snd_nxt > f->snd_high)
        f->snd_high = f->snd_nxt;
    f->last_pkt_size = p->size;
    const struct port *np = &s->ports[nic_of(s, f->src)->port];
    f->next_avail = s->now + (f->rate == np->rate ? port_tx_time(s, np, p->size) : ns3_trunc(s, tx_time(p->size, f->rate)));
    s->c.data_packets++;
    if (s->cc->on_send)
        s->cc->on_send(s, f, sim_cc_state(s, f->id), s->cc_par, p);
    if (s->aux && s->aux->on_send)
        s->aux->on_send(s, f, sim_aux_state(s, f->id), s->aux_par, p);
    return p;
}

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
static uint64_t irn_next_retx(const struct sim *s, struct qp *f)
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
static void irn_recover(struct qp *f, uint64_t high)
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
static struct pkt *nic_dequeue(struct sim *s, uint32_t pid)
{
    struct port *pt = &s->ports[pid];
    struct nic *nic = nic_of(s, pt->node);
    if (nic->ackq.head) {
        int cls = s->p.ack_high_prio ? 0 : nic->ackq.head->prio;
        if (nic->ackq.head->type == PKT_CNP)
            cls = 0;
        if (!port_paused(pt, cls))
            return q_pop(&nic->ackq);
    }
    uint32_t n = nic->nqps;
    simtime_t soonest = T_NEVER;
    for (uint32_t i = 1; i <= n; i++) {
        uint32_t idx = (i + nic->rr_last) % n;
        struct qp *f = &s->flows[nic->qps[idx]];
        /* IRN retransmits holes first, whatever the window (they are already in flight) */
        uint64_t seq = s->p.irn ? irn_next_retx(s, f) : UINT64_MAX;
        if (seq == UINT64_MAX) {
            if (f->snd_nxt >= f->size || qp_win_bound(s, f))
                continue;
            seq = f->snd_nxt;
        }
        if (port_paused(pt, f->pg))
            continue;
        if (f->next_avail > s->now) {
            if (f->next_avail < soonest)
                soonest = f->next_avail;
            continue;
        }
        nic->rr_last = idx;
        return make_data(s, f, seq);
    }
    if (soonest != T_NEVER)
        nic_wake_at(s, nic, soonest);
    return NULL;
}

static bool nic_may_send(struct sim *s, uint32_t node)
{
    const struct nic *nic = nic_of(s, node);
    return nic->ackq.head || nic->nqps;
}

static void nic_add_qp(struct sim *s, struct nic *nic, uint32_t id)
{
    (void)s;
    if (nic->nqps == nic->cap) {
        nic->cap = nic->cap ? 2 * nic->cap : 8;
        nic->qps = xrealloc(nic->qps, nic->cap * sizeof *nic->qps);
    }
    nic->qps[nic->nqps++] = id;
}

static void nic_remove_qp(struct nic *nic, uint32_t id)
{
    for (uint32_t i = 0; i < nic->nqps; i++)
        if (nic->qps[i] == id) {
            memmove(nic->qps + i, nic->qps + i + 1, (nic->nqps - i - 1) * sizeof *nic->qps);
            nic->nqps--;
            if (nic->rr_last > i || nic->rr_last >= nic->nqps)
                nic->rr_last = nic->rr_last ? nic->rr_last - 1 : 0;
            return;
        }
}

/* ---------------------------------------------------------------- transport */

/* At most one heap entry per (flow, timer): moving a timer later pushes
 * nothing, the entry already in the heap re-pushes itself for the new time
 * when it comes due. DCQCN re-arms its increase timer 900 us ahead on every
 * decrease; left as stale entries those made up most of the heap. */
static void timer_set(struct sim *s, struct qp *f, int kind, simtime_t at)
{
    f->timer_at[kind] = at;
    if (f->timer_ev[kind] >= 0 && f->timer_ev[kind] <= at)
        return;
    f->timer_ev[kind] = at;
    evq_push_timer(&s->evq, at, EV_TIMER0 + (unsigned)kind, f->id);
}

static void flow_complete(struct sim *s, struct qp *f)
{
    f->state = FLOW_DONE;
    f->finish = s->now;
    free(f->irn_rx); /* both IRN bitmaps live in one block */
    f->irn_rx = f->irn_tx = NULL;
    s->c.flows_completed++;
    nic_remove_qp(nic_of(s, f->src), f->id);
    if (s->hooks.flow_done)
        s->hooks.flow_done(s->hooks.ctx, s, f);
}

/* The header of a packet travelling back to flow f's sender, as its ACKs do
 * (reversed addresses and ports, so switches hash it like the ACKs). */
static void reply_header(struct pkt *a, const struct qp *f, int type, uint8_t flags)
{
    a->type = (uint8_t)type;
    a->prio = f->pg;
    a->flow = f->id;
    a->src = f->dst;
    a->dst = f->src;
    a->sport = f->dport;
    a->dport = f->sport;
    a->flags = flags;
}

/* Turn `a` into an ACK/NACK/CNP of flow f and queue it at the receiver's NIC.
 * `a` is either fresh or the data packet being answered: reusing that one
 * spares an allocation and the copy of its INT records. */
static void ctrl_from(struct sim *s, struct qp *f, int type, uint8_t flags, struct pkt *a, uint64_t aux)
{
    reply_header(a, f, type, flags);
    a->aux = aux;
    a->payload = 0;
    a->seq = f->rcv_nxt;
    a->size = s->ack_size;
    struct nic *nic = nic_of(s, f->dst);
    q_push(&nic->ackq, a);
    port_kick(s, nic->port);
}

/* IRN receiver: ACK in-order packets (pulling in any held ones), NACK an
 * out-of-order one with the cumulative ACK plus its own sequence (*sack),
 * re-ACK duplicates. */
static int irn_receive(struct sim *s, struct qp *f, const struct pkt *p, uint64_t *sack)
{
    if (p->seq == f->rcv_nxt) {
        f->rcv_nxt += p->payload;
        s->c.bytes_delivered += p->payload;
        while (f->rcv_nxt < f->size && bit_get(f->irn_rx, s, irn_idx(s, f->rcv_nxt))) {
            bit_put(f->irn_rx, s, irn_idx(s, f->rcv_nxt), false);
            uint64_t len = f->size - f->rcv_nxt < s->p.mtu ? f->size - f->rcv_nxt : s->p.mtu;
            f->rcv_nxt += len;
            s->c.bytes_delivered += len;
        }
        return PKT_ACK;
    }
    if (p->seq > f->rcv_nxt) {
        uint64_t i = irn_idx(s, p->seq);
        if (i - irn_idx(s, f->rcv_nxt) >= s->p.irn_bits)
            return -1; /* beyond the ring: cannot happen under the BDP cap */
        if (!bit_get(f->irn_rx, s, i)) {
            bit_put(f->irn_rx, s, i, true);
            f->ooo++;
        }
        *sack = p->seq;
        return PKT_NACK;
    }
    return PKT_ACK;
}

/* ns-3 HPCC's ReceiverCheckSeq, plus an ACK for the last byte so any
 * ack_interval lets a flow finish. Returns true when p itself became the
 * ACK/NACK (it keeps the data's timestamp and INT records, as the reply must). */
static bool receive_data(struct sim *s, struct pkt *p)
{
    struct qp *f = &s->flows[p->flow];
    bool ecn = p->flags & PF_ECN;
    int reply = -1;
    uint64_t sack = 0;
    if (s->p.irn) {
        reply = irn_receive(s, f, p, &sack);
    } else if (p->seq == f->rcv_nxt) {
        f->rcv_nxt += p->payload;
        s->c.bytes_delivered += p->payload;
        f->rcv_since_ack++;
        if (f->rcv_since_ack >= s->p.ack_interval || f->rcv_nxt >= f->size ||
            (s->p.chunk && f->rcv_nxt % s->p.chunk == 0)) {
            f->rcv_since_ack = 0;
            reply = PKT_ACK;
        }
    } else if (p->seq > f->rcv_nxt) {
        f->ooo++;
        if (s->now >= f->nack_timer || f->last_nack != f->rcv_nxt) {
            f->nack_timer = s->now + s->p.nack_interval;
            f->last_nack = f->rcv_nxt;
            reply = PKT_NACK;
        }
    }
    if (ecn && s->p.cnp_packets) {
        struct pkt *c = pkt_alloc(s); /* a separate CNP: no INT, the data's timestamp */
        c->ts = p->ts;
        ctrl_from(s, f, PKT_CNP, 0, c, 0);
        s->c.cnps++;
    }
    if (s->cc->on_rx_data)
        s->cc->on_rx_data(s, f, sim_cc_state(s, f->id), s->cc_par, p);
    if (s->aux && s->aux->on_rx_data)
        s->aux->on_rx_data(s, f, sim_aux_state(s, f->id), s->aux_par, p);
    if (reply < 0)
        return false;
    if (reply == PKT_ACK)
        s->c.acks++;
    else
        s->c.nacks++;
    ctrl_from(s, f, reply, ecn && !s->p.cnp_packets ? PF_CNP : 0, p, sack);
    return true;
}

static void receive_ack(struct sim *s, struct pkt *p)
{
    struct qp *f = &s->flows[p->flow];
    if (f->state != FLOW_ACTIVE)
        return;
    void *st = sim_cc_state(s, f->id);
    if (p->type == PKT_CNP) {
        if (s->cc->on_cnp)
            s->cc->on_cnp(s, f, st, s->cc_par, p);
        return;
    }
    if (p->type == PKT_FEEDBACK) {
        if (s->cc->on_feedback)
            s->cc->on_feedback(s, f, st, s->cc_par, p);
        if (s->aux && s->aux->on_feedback)
            s->aux->on_feedback(s, f, sim_aux_state(s, f->id), s->aux_par, p);
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
    }
    if (f->snd_una >= f->size) {
        flow_complete(s, f);
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
    if ((p->flags & PF_CNP) && s->cc->on_cnp)
        s->cc->on_cnp(s, f, st, s->cc_par, p);
    if (s->cc->on_ack)
        s->cc->on_ack(s, f, st, s->cc_par, p);
    if (s->aux && s->aux->on_ack)
        s->aux->on_ack(s, f, sim_aux_state(s, f->id), s->aux_par, p);
    port_kick(s, nic_of(s, f->src)->port);
}

static void host_receive(struct sim *s, struct pkt *p)
{
    if (p->type == PKT_DATA) {
        if (!receive_data(s, p))
            pkt_free(s, p);
        return;
    }
    receive_ack(s, p);
    pkt_free(s, p);
}

static void pfc_receive(struct sim *s, uint32_t pid, struct pkt *p)
{
    struct port *pt = &s->ports[pid];
    int q = (int)p->seq;
    bool pause = p->flags & PF_PAUSE;
    if (pause) {
        if (!port_paused(pt, q)) {
            pt->paused_mask |= (uint8_t)(1u << q);
            pt->paused_since[q] = s->now;
        }
        pt->pause_frames_rx++;
        if (!s->nodes[pt->node].is_switch) {
            /* every active QP of this priority is now head-of-line blocked */
            struct nic *nic = nic_of(s, pt->node);
            for (uint32_t i = 0; i < nic->nqps; i++)
                if (s->flows[nic->qps[i]].pg == q)
                    s->flows[nic->qps[i]].ever_paused = true;
        }
    } else if (port_paused(pt, q)) {
        pt->paused_mask &= (uint8_t)~(1u << q);
        pt->paused_time += s->now - pt->paused_since[q];
        /* A paused queue sends nothing, so what it holds now is every packet
         * that waited behind this PAUSE: their flows were held back. (Here, not
         * per enqueue, so the packet path pays nothing.) */
        for (const struct pkt *x = pt->q[q].head; x; x = x->next)
            if (x->flow != UINT32_MAX)
                s->flows[x->flow].ever_paused = true;
    }
    if (s->hooks.pfc)
        s->hooks.pfc(s->hooks.ctx, s, pid, q, pause);
    if (!pause && s->nodes[pt->node].is_switch) {
        if (s->cc->sw_resume)
            s->cc->sw_resume(s, pid, sim_cc_pstate(s, pid), s->cc_par, q);
        if (s->aux && s->aux->sw_resume)
            s->aux->sw_resume(s, pid, sim_aux_pstate(s, pid), s->aux_par, q);
    }
    if (!pause)
        port_kick(s, pid);
}

/* ---------------------------------------------------------------- flows */

static void flow_start(struct sim *s, struct qp *f)
{
    f->state = FLOW_ACTIVE;
    f->rate = f->max_rate = s->ports[nic_of(s, f->src)->port].rate;
    f->next_avail = s->now;
    f->last_progress = s->now;
    for (int k = 0; k <= CC_TIMERS; k++)
        f->timer_at[k] = f->timer_ev[k] = -1;
    if (s->p.irn) {
        size_t words = s->p.irn_bits / 64;
        f->irn_rx = xcalloc(2 * words, sizeof *f->irn_rx);
        f->irn_tx = f->irn_rx + words;
    }
    if (s->cc->init)
        s->cc->init(s, f, sim_cc_state(s, f->id), s->cc_par);
    if (s->aux && s->aux->init)
        s->aux->init(s, f, sim_aux_state(s, f->id), s->aux_par);
    struct nic *nic = nic_of(s, f->src);
    if (port_paused(&s->ports[nic->port], f->pg))
        f->ever_paused = true; /* starts behind a PAUSE */
    nic_add_qp(s, nic, f->id);
    if (s->p.rto)
        timer_set(s, f, TIMER_RTO, s->now + s->p.rto);
    port_kick(s, nic->port);
}

static void flows_due(struct sim *s)
{
    while (s->next_start < s->n_flows) {
        struct qp *f = &s->flows[s->start_order[s->next_start]];
        if (f->start > s->now) {
            evq_push(&s->evq, f->start, EV_FLOW_START, 0);
            return;
        }
        s->next_start++;
        flow_start(s, f);
    }
}

/* A safety net: lossless mode never drops, so this only fires if a flow
 * really stalls (or in lossy mode); every firing is counted. */
static void rto_fire(struct sim *s, struct qp *f)
{
    simtime_t rto = s->p.rto;
    if (s->p.irn) /* IRN: a short timeout when too few packets are in flight for NACKs to come */
        rto = (f->snd_nxt - f->snd_una + s->p.mtu - 1) / s->p.mtu <= s->p.irn_n ? s->p.rto_low : s->p.rto_high;
    if (f->snd_una < f->snd_nxt && s->now - f->last_progress >= rto) {
        s->c.timeouts++;
        if (s->p.irn) { /* everything unSACKed in flight is lost */
            f->in_recovery = false;
            irn_recover(f, f->snd_nxt);
        } else {
            f->snd_nxt = f->snd_una;
        }
        f->last_progress = s->now;
        port_kick(s, nic_of(s, f->src)->port);
    }
    simtime_t next = f->last_progress + rto;
    timer_set(s, f, TIMER_RTO, next > s->now ? next : s->now + rto);
}

/* ---------------------------------------------------------------- CC helpers */

simtime_t cc_now(const struct sim *s) { return s->now; }

uint32_t cc_mtu(const struct sim *s) { return s->p.mtu; }

void cc_timer_set(struct sim *s, struct qp *qp, int kind, simtime_t at) { timer_set(s, qp, kind, at); }

void cc_timer_cancel(struct sim *s, struct qp *qp, int kind)
{
    (void)s;
    qp->timer_at[kind] = -1;
}

void cc_change_rate(struct sim *s, struct qp *qp, uint64_t new_rate)
{
    if (qp->last_pkt_size) {
        simtime_t old_t = ns3_trunc(s, tx_time(qp->last_pkt_size, qp->rate));
        simtime_t new_t = ns3_trunc(s, tx_time(qp->last_pkt_size, new_rate));
        qp->next_avail += new_t - old_t;
    }
    qp->rate = new_rate;
    struct nic *nic = nic_of(s, qp->src);
    if (qp->next_avail < nic->wake_at)
        nic_wake_at(s, nic, qp->next_avail);
}

void cc_send_cnp(struct sim *s, struct qp *qp, uint8_t flags, uint64_t aux)
{
    struct pkt *a = pkt_alloc(s);
    a->ts = s->now;
    ctrl_from(s, qp, PKT_CNP, flags, a, aux);
    s->c.cnps++;
}

struct pkt *cc_switch_packet(struct sim *s, uint32_t sw, uint32_t flow, uint8_t flags, uint32_t size)
{
    (void)sw;
    struct pkt *a = pkt_alloc(s);
    reply_header(a, &s->flows[flow], PKT_FEEDBACK, flags);
    a->size = size;
    a->ts = s->now;
    return a;
}

void cc_switch_send(struct sim *s, uint32_t sw, struct pkt *p)
{
    s->c.feedback_packets++;
    switch_receive(s, sw, UINT32_MAX, p); /* queue 0: no ingress accounting */
}

uint64_t cc_port_queue_bytes(const struct sim *s, uint32_t port, int q) { return s->ports[port].q[q].bytes; }
uint64_t cc_port_rate(const struct sim *s, uint32_t port) { return s->ports[port].rate; }
uint32_t cc_port_node(const struct sim *s, uint32_t port) { return s->ports[port].node; }
bool cc_port_paused(const struct sim *s, uint32_t port, int q) { return port_paused(&s->ports[port], q); }
struct qp *cc_flow(struct sim *s, uint32_t flow) { return &s->flows[flow]; }

/* ---------------------------------------------------------------- loop */

int sim_init(struct sim *s)
{
    memset(s, 0, sizeof *s);
    evq_init(&s->evq);
    return 0;
}

void sim_start(struct sim *s)
{
    for (uint32_t h = 0; h < s->n_hosts; h++)
        s->nics[h].wake_at = T_NEVER;
    for (uint32_t p = 0; p < s->n_ports; p++)
        s->ports[p].tx_at = -1;
    if (s->n_flows)
        evq_push(&s->evq, s->flows[s->start_order[0]].start, EV_FLOW_START, 0);
}

/* Out of line and cold, so the packet events' code is laid out as without it.
 * Not rescheduled once the work is done (every flow finished) or nothing
 * else is pending, so a monitor never keeps a run alive. */
static __attribute__((noinline, cold)) void monitor_fire(struct sim *s)
{
    simtime_t next = s->hooks.sample(s->hooks.ctx, s);
    bool work = s->c.flows_completed < s->n_flows || s->next_start < s->n_flows;
    if (next != T_NEVER && work && !evq_empty(&s->evq))
        evq_push(&s->evq, next > s->now ? next : s->now + 1, EV_MONITOR, 0);
}

static void dispatch(struct sim *s, const struct event *ev)
{
    uint32_t id = ev_id(ev);
    switch (ev_kind(ev)) {
    case EV_TX_DONE:
        if (s->ports[id].tx_at != s->now)
            break; /* stale */
        s->ports[id].tx_at = -1;
        port_kick(s, id);
        break;
    case EV_ARRIVE: {
        struct port *pt = &s->ports[id];
        struct pkt *p = q_pop(&pt->wire);
        if (pt->wire.head)
            evq_push(&s->evq, pt->wire.head->t_arrive, EV_ARRIVE, id);
        s->c.packet_hops++;
        uint32_t in = pt->peer, node = s->ports[in].node;
        if (p->type == PKT_PFC) {
            pfc_receive(s, in, p);
            pkt_free(s, p);
        } else if (s->nodes[node].is_switch) {
            switch_receive(s, node, in, p);
        } else {
            host_receive(s, p);
        }
        break;
    }
    case EV_NIC_WAKE: {
        struct nic *nic = &s->nics[id];
        if (nic->wake_at != s->now)
            break; /* superseded */
        nic->wake_at = T_NEVER;
        port_kick(s, nic->port);
        break;
    }
    case EV_FLOW_START:
        flows_due(s);
        break;
    default: {
        /* here rather than as a case: the switch over the packet events then
         * compiles exactly as without monitors (measured with cachegrind) */
        if (ev_kind(ev) == EV_MONITOR) {
            monitor_fire(s);
            break;
        }
        int kind = (int)ev_kind(ev) - EV_TIMER0;
        struct qp *f = &s->flows[id];
        if (f->state != FLOW_ACTIVE || f->timer_ev[kind] != s->now)
            break; /* the flow is done, or an earlier entry superseded this one */
        f->timer_ev[kind] = -1;
        simtime_t want = f->timer_at[kind];
        if (want < 0)
            break; /* cancelled */
        if (want > s->now) { /* moved later since this entry was pushed */
            f->timer_ev[kind] = want;
            evq_push_timer(&s->evq, want, EV_TIMER0 + (unsigned)kind, id);
            break;
        }
        f->timer_at[kind] = -1;
        if (kind == TIMER_RTO)
            rto_fire(s, f);
        else if (s->cc->on_timer)
            s->cc->on_timer(s, f, sim_cc_state(s, id), s->cc_par, kind);
        break;
    }
    }
}

void sim_run(struct sim *s)
{
    struct event ev;
    s->stopped = false;
    while (!evq_empty(&s->evq)) {
        /* peek first, so a later sim_run with a later stop time resumes exactly */
        if (s->p.stop && evq_top_time(&s->evq) > s->p.stop) {
            s->now = s->p.stop;
            s->stopped = true;
            break;
        }
        evq_pop(&s->evq, &ev);
        s->now = ev.time;
        dispatch(s, &ev);
        if ((++s->c.events & 0xffff) == 0 && s->hooks.progress)
            s->hooks.progress(s->hooks.ctx, s);
        /* Every flow done and no packet anywhere (all are pool-allocated): what
         * is left are timers of finished flows, so the run is over. */
        if (s->c.flows_completed == s->n_flows && s->next_start == s->n_flows && s->pool.in_use == 0)
            break;
    }
}

void sim_monitor_start(struct sim *s, simtime_t first)
{
    if (s->hooks.sample)
        evq_push(&s->evq, first > s->now ? first : s->now, EV_MONITOR, 0);
}

uint64_t sim_packets_in_network(const struct sim *s)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->n_ports; i++) {
        n += s->ports[i].wire.n;
        for (int q = 0; q < NQ; q++)
            n += s->ports[i].q[q].n;
    }
    for (uint32_t h = 0; h < s->n_hosts; h++)
        n += s->nics[h].ackq.n;
    return n;
}

void sim_free(struct sim *s)
{
    evq_free(&s->evq);
    for (size_t i = 0; i < s->pool.nchunks; i++)
        free(s->pool.chunks[i]);
    free(s->pool.chunks);
    for (uint32_t h = 0; h < s->n_hosts; h++)
        free(s->nics[h].qps);
    for (uint32_t i = 0; i < s->n_flows; i++)
        free(s->flows[i].irn_rx);
    free(s->nodes);
    free(s->ports);
    free(s->nics);
    free(s->host_index);
    free(s->route_off);
    free(s->route_cnt);
    free(s->route_ports);
    free(s->flows);
    free(s->start_order);
    free(s->cc_state);
    free(s->cc_pstate);
    free(s->aux_state);
    free(s->aux_pstate);
    memset(s, 0, sizeof *s);
}
