/* The host NIC: ACK/NACK/CNP queue first, then active QPs round-robin,
 * paced at each QP's rate (ns-3 HPCC's RdmaEgressQueue and RdmaHw send path). */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

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

void nic_wake_at(struct sim *s, struct nic *nic, simtime_t t)
{
    if (t < s->now)
        t = s->now;
    if (nic->wake_at > s->now && nic->wake_at <= t)
        return; /* an earlier wake-up is already pending */
    if (s->p.ns3_timing && nic->wake_at != T_NEVER) {
        /* ns-3 cancels the pending m_nextSend it replaces
         * (QbbNetDevice::UpdateNextAvail: Simulator::Cancel). Here it stays
         * queued, so its time is remembered and the event skipped when it
         * comes due (nic_wake_stale). Its time alone does not tell: when a
         * later wake-up lands on the same time (a wake-up at T moved to
         * T' < T, then armed again at T after T' ran), the old event would
         * run first, in its own earlier place among the events at T, and
         * the NIC would send before what ns-3 runs in between (an arrival
         * elsewhere, another NIC's send) instead of after it. Same-time
         * events at T run in push order, so the stale ones come first. */
        if (nic->nstale == nic->capstale) {
            nic->capstale = nic->capstale ? 2 * nic->capstale : 4;
            nic->stale = xrealloc(nic->stale, nic->capstale * sizeof *nic->stale);
        }
        nic->stale[nic->nstale++] = nic->wake_at;
    }
    nic->wake_at = t;
    uint32_t handle = (uint32_t)EV_NIC_WAKE << EV_ID_BITS | (uint32_t)s->host_index[nic->node];
    struct node *nd = &s->nodes[nic->node];
    if (nd->lazy) /* run by its node's catch-up (port.c) */
        lazy_note(s, nd, handle, t);
    else
        evq_push(&s->evq, t, EV_NIC_WAKE, handle & EV_ID_MAX);
}

bool nic_wake_stale(struct nic *nic, simtime_t now)
{
    for (uint32_t i = 0; i < nic->nstale; i++)
        if (nic->stale[i] == now) {
            nic->stale[i] = nic->stale[--nic->nstale];
            return true;
        }
    return false;
}

/* The data packet starting at byte `seq`: new data at snd_nxt, or an IRN
 * retransmission of a hole below it. */
struct pkt *make_data(struct sim *s, struct qp *f, uint64_t seq)
{
    struct pkt *p = pkt_alloc(s);
    uint64_t left = f->size - seq;
    uint32_t payload = left < s->p.mtu ? (uint32_t)left : s->p.mtu;
    flow_header(p, f, PKT_DATA, false);
    p->seq = seq;
    p->size = payload + s->data_hdr;
    p->ts = s->now;
    bool retx = seq < f->snd_high;
    if (retx) {
        s->c.bytes_retx += payload;
    } else {
        s->c.bytes_sent += payload;
    }
    if (seq == f->snd_nxt)
        f->snd_nxt += payload;
    else
        f->retx_next = seq + payload;
    if (f->snd_nxt > f->snd_high) {
        f->snd_high = f->snd_nxt;
        if (__builtin_expect(s->deps != NULL, 0) && f->snd_high == f->size) /* its last new byte: deps.c */
            deps_sent(s, f);
    }
    f->last_pkt_size = p->size;
    const struct port *np = &s->ports[nic_of(s, f->src)->port];
    f->next_avail = s->now + (f->rate == np->rate ? port_tx_time(s, np, p->size) : gap_time(s, p->size, f->rate));
    s->c.data_packets++;
    if (f->last_tx >= 0) { /* the gap since the flow's previous packet, as HF2T measures it */
        simtime_t g = s->now - f->last_tx;
        f->gaps++;
        f->gaps_rtt[0] += g >= f->base_rtt;
        f->gaps_rtt[1] += g >= 2 * f->base_rtt;
        f->gaps_rtt[2] += g >= 3 * f->base_rtt;
        if (g < f->gap_min || f->gaps == 1)
            f->gap_min = g;
        if (g > f->gap_max)
            f->gap_max = g;
    }
    f->last_tx = s->now;
    for (uint32_t k = 0; k < s->n_slot; k++)
        if (s->slot[k].ops->on_send)
            s->slot[k].ops->on_send(s, f, slot_state(&s->slot[k], f->id), s->slot[k].par, p);
    if (s->lb->host_send) { /* a sender-side balancer picks the path (lb.h) */
        s->lb->host_send(s, &s->lbsw[f->src], s->lb_par, f, p, retx);
        if (p->lb.path != PATH_NONE) { /* path switches of sender-routed flows are counted here */
            if (f->host_path && p->lb.path != f->tx_path)
                f->path_switches++;
            f->tx_path = p->lb.path;
            f->host_path = true;
        }
    }
    return p;
}

/* The latest time any scheme (the CC, then the companions) holds f's next
 * packet until; each hold is counted once, with its length. */
static simtime_t tx_hold(struct sim *s, struct qp *f)
{
    simtime_t until = -1;
    for (uint32_t k = 0; k < s->n_slot; k++)
        if (s->slot[k].ops->tx_hold) {
            simtime_t t = s->slot[k].ops->tx_hold(s, f, slot_state(&s->slot[k], f->id), s->slot[k].par);
            until = t > until ? t : until;
        }
    if (until > s->now && until != f->hold_until) {
        f->held++;
        f->held_time += until - s->now;
        f->hold_until = until;
    }
    return until;
}

/* nic_wake = ns3: ns-3's RdmaEgressQueue::GetNextQindex removes finished QPs
 * from its list only when a scan has passed one: every finished QP from the
 * first one it passed (`first`) to the end of the list goes, the others close
 * up, and the QP it chose (`pick`, UINT32_MAX for none) is renumbered; its
 * round-robin position (m_rrlast) is not, so the next scan may start at
 * another QP than with the finished ones gone at once. Returns pick's new index. */
static uint32_t nic_qps_compact(struct sim *s, struct nic *nic, uint32_t first, uint32_t pick)
{
    uint32_t nxt = first;
    nic->ndone--;
    for (uint32_t i = first + 1; i < nic->nqps; i++) {
        if (s->flows[nic->qps[i]].state == FLOW_DONE) {
            nic->ndone--;
            continue;
        }
        if (i == pick)
            pick = nxt;
        nic->qps[nxt++] = nic->qps[i];
    }
    nic->nqps = nxt;
    return pick;
}

struct pkt *nic_dequeue(struct sim *s, uint32_t pid)
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
    uint32_t n = nic->nqps, first_done = UINT32_MAX;
    simtime_t soonest = T_NEVER, due = T_NEVER, held = T_NEVER;
    /* round robin from the QP after the last one served; one division per
     * call, not per QP visited (a host with many QPs visits them all) */
    uint32_t idx = n ? nic->rr_last % n : 0;
    for (uint32_t i = 1; i <= n; i++) {
        idx = idx + 1 == n ? 0 : idx + 1;
        struct qp *f = &s->flows[nic->qps[idx]];
        if (__builtin_expect(nic->ndone != 0, 0) && f->state == FLOW_DONE) {
            if (idx < first_done) /* nic_qp_done: it leaves when a scan passes it */
                first_done = idx;
            continue;
        }
        /* IRN retransmits holes first, whatever the window (they are already in flight) */
        uint64_t seq = s->p.irn ? irn_next_retx(s, f) : UINT64_MAX;
        if ((seq != UINT64_MAX || f->snd_nxt < f->size || s->p.nic_wake_sent) && f->next_avail < due)
            due = f->next_avail; /* nic_wake = ns3: window-bound and paused QPs count too; simai: and sent ones */
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
        if (s->n_hold) { /* a scheme may hold the packet (HF2T): like pacing, the QP keeps its turn */
            simtime_t until = tx_hold(s, f);
            if (until > s->now) {
                if (until < soonest)
                    soonest = until;
                if (until < held)
                    held = until;
                continue;
            }
        }
        if (__builtin_expect(first_done != UINT32_MAX, 0))
            idx = nic_qps_compact(s, nic, first_done, idx);
        nic->rr_last = idx;
        return make_data(s, f, seq);
    }
    if (__builtin_expect(first_done != UINT32_MAX, 0))
        (void)nic_qps_compact(s, nic, first_done, UINT32_MAX);
    if (s->p.nic_wake_ns3) {
        /* ns-3's QbbNetDevice::DequeueAndTransmit: with nothing to send it
         * schedules its one wake-up (m_nextSend), only if none is pending, at
         * the earliest m_nextAvail of every QP with data left, and not at all
         * if that time is not in the future: a window-bound (or paused) QP
         * whose turn has come leaves the paced ones to the next ACK or
         * transmission end. (A scheme's hold, which ns-3 lacks, keeps its own.)
         * nic_wake = simai: SimAI's ns-3-alibabacloud (c2bfbf4) dropped the
         * loop's skip of QPs with no bytes left, so a QP that has sent all
         * its data and waits for the ACKs (it leaves the NIC when they are
         * in) counts with its last m_nextAvail, usually past: the paced QPs
         * beside it then wait for the next ACK, CNP or new QP. */
        if (nic->wake_at != T_NEVER && nic->wake_at >= s->now)
            return NULL;
        if (due > s->now && due != T_NEVER)
            nic_wake_at(s, nic, due);
        else if (held != T_NEVER)
            nic_wake_at(s, nic, held);
        return NULL;
    }
    if (soonest != T_NEVER)
        nic_wake_at(s, nic, soonest);
    return NULL;
}

bool nic_may_send(struct sim *s, uint32_t node)
{
    const struct nic *nic = nic_of(s, node);
    return nic->ackq.head || nic->nqps;
}

void nic_add_qp(struct sim *s, struct nic *nic, uint32_t id)
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

/* A QP has finished: it leaves the round robin now, or, with nic_wake = ns3,
 * when a scan passes it (nic_qps_compact), as in ns-3. */
void nic_qp_done(struct sim *s, struct nic *nic, uint32_t id)
{
    if (s->p.nic_wake_ns3)
        nic->ndone++;
    else
        nic_remove_qp(nic, id);
}
