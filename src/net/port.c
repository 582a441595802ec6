/* Ports and links: starting the next transmission on an idle port, and a
 * PFC frame's arrival (pause/resume of the peer's egress queue). */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

static inline bool port_has_queued(const struct port *pt) { return pt->qmask != 0; }

/* One live TX_DONE per port: a transmission started by another event at the
 * very instant a TX_DONE was due leaves that event stale, and it must not
 * arm a second one (that duplicated itself on every packet). */
static inline void tx_done_at(struct sim *s, struct port *pt, uint32_t pid, simtime_t t)
{
    if (pt->tx_at == t)
        return;
    pt->tx_at = t;
    if (__builtin_expect(s->p.ns3_timing, 0) && pt->tx_place != EV_PLACE_NONE && pt->busy_until == t) {
        evq_push_place(&s->evq, t, &pt->tx_place, EV_TX_DONE, pid); /* run.ns3_timing: see port_kick */
        return;
    }
    evq_push(&s->evq, t, EV_TX_DONE, pid);
}

/* Start the next transmission if the port is idle and something may go. */
void port_kick(struct sim *s, uint32_t pid)
{
    struct port *pt = &s->ports[pid];
    if (pt->busy_until > s->now) {
        tx_done_at(s, pt, pid, pt->busy_until);
        return;
    }
    /* run.ns3_timing: a transmission ending now still holds the port until
     * its end's event has run, as ns-3's QbbNetDevice stays BUSY until
     * TransmitComplete; that event's place was given when the transmission
     * started (a place, eventq.h). So a packet that arrives in the same ns,
     * in an event scheduled earlier, waits for it (and a packet from another
     * port may go first). */
    if (__builtin_expect(s->p.ns3_timing, 0) && pt->busy_until == s->now &&
        (pt->tx_at == s->now || (pt->tx_place != EV_PLACE_NONE && evq_place_ahead(&s->evq, s->now, pt->tx_place)))) {
        tx_done_at(s, pt, pid, s->now);
        return;
    }
    bool sw = s->nodes[pt->node].is_switch;
    struct pkt *p = sw ? switch_dequeue(s, pid) : nic_dequeue(s, pid);
    if (!p)
        return;
    simtime_t prev_end = pt->busy_until;
    pt->busy_until = s->now + port_tx_time(s, pt, p->size);
    pt->tx_bytes += p->size;
    p->t_arrive = pt->busy_until + pt->delay;
    if (__builtin_expect(pt->cut, 0)) {
        par_send(s, pid, p); /* to another partition (net/shard.c); never under run.ns3_timing */
    } else {
        bool idle_wire = pt->wire.head == NULL;
        q_push(&pt->wire, p);
        if (__builtin_expect(s->p.ns3_timing, 0)) {
            /* ns-3 schedules a transmission's end, then its arrival, as it
             * starts, and runs same-ns events in the order scheduled: each
             * takes its place now (eventq.h), kept in the port and in the
             * packet, if it is pushed later (tx_done_at; the ARRIVE of the
             * packet ahead on the wire, sim.c). */
            if (sw ? port_has_queued(pt) : nic_may_send(s, pt->node)) {
                /* a place still held is for the transmission that ended at
                 * prev_end; it is this one's only if that is its end too (a
                 * transmission of 0 ns), as the place's time says */
                if (pt->busy_until != prev_end)
                    pt->tx_place = EV_PLACE_NONE;
                tx_done_at(s, pt, pid, pt->busy_until);
            } else {
                evq_place_take(&s->evq, &pt->tx_place, pt->busy_until);
            }
            if (idle_wire)
                arrive_push(s, pid, p->t_arrive);
            else
                evq_place_take(&s->evq, &p->place, p->t_arrive);
            return;
        }
        if (idle_wire)
            arrive_push(s, pid, p->t_arrive);
    }
    /* A port with nothing waiting needs no wake-up: whatever makes it sendable
     * later (an enqueue, an ACK to send, a new flow, a window opening, a
     * RESUME) kicks it again. */
    if (sw ? port_has_queued(pt) : nic_may_send(s, pt->node))
        tx_done_at(s, pt, pid, pt->busy_until);
}


void pfc_receive(struct sim *s, uint32_t pid, struct pkt *p)
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
        if (s->nodes[pt->node].is_switch) {
            deadlock_arm(s); /* a switch queue is paused: look for a cycle while any is */
        } else {
            /* every active QP of this priority is now head-of-line blocked */
            struct nic *nic = nic_of(s, pt->node);
            for (uint32_t i = 0; i < nic->nqps; i++)
                if (s->flows[nic->qps[i]].pg == q && s->flows[nic->qps[i]].state != FLOW_DONE)
                    FLOW_FLAG_SET(s->flows[nic->qps[i]].ever_paused); /* switches set it too */
        }
    } else if (port_paused(pt, q)) {
        pt->paused_mask &= (uint8_t)~(1u << q);
        pt->paused_time += s->now - pt->paused_since[q];
        /* A paused queue sends nothing, so what it holds now is every packet
         * that waited behind this PAUSE: their flows were held back. They
         * are the next pt->q[q].n to leave (switch_dequeue marks them). */
        pt->q[q].paused_left = pt->q[q].n;
    }
    if (s->hooks.pfc)
        s->hooks.pfc(s->hooks.ctx, s, pid, q, pause);
    if (!pause && s->nodes[pt->node].is_switch) {
        for (uint32_t k = 0; k < s->n_slot; k++)
            if (s->slot[k].ops->sw_resume)
                s->slot[k].ops->sw_resume(s, pid, slot_pstate(&s->slot[k], pid), s->slot[k].par, q);
    }
    if (!pause)
        port_kick(s, pid);
}

