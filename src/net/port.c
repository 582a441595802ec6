/* Ports and links: starting the next transmission on an idle port, a lazy
 * node's transmission ends and NIC wake-ups run without events (below), and
 * a PFC frame's arrival (pause/resume of the peer's egress queue). */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

static inline bool port_has_queued(const struct port *pt) { return pt->qmask != 0; }

/* ---------------------------------------------------------------- lazy ends
 * A busy port's TX_DONE, and a NIC's wake-up, without the event
 * (bench/README.md, Appendices L and O). In handle order (core/eventq.h)
 * same-time events run by (kind, object): a TX_DONE at t at key (t, 0, port),
 * a NIC_WAKE at (t, EV_NIC_WAKE, host). What either does (port_kick: a
 * switch's or NIC's dequeue and the next transmission) reads and writes only
 * its own node's state (a switch's queues, MMU, RED stream and the CC's
 * per-port state; a NIC's queues, its QPs' sending side and its pacing) and
 * pushes nothing earlier than t + its link's delay but the node's own next
 * end or wake-up. So a lazy node keeps those as entries (time, handle) in a
 * small heap, each valid while the port's tx_at (the NIC's wake_at) still
 * says its time, as the event's would, and runs them in key order at the
 * first of:
 *   - an event that acts on the node (an ARRIVE into it, a timer of one of its
 *     flows, a flow starting there: sim.c, transport.c): every entry before
 *     that event's key, first;
 *   - its deadline, an EV_TX_DONE of the node's first port at the earliest
 *     entry + slack (the least delay of its links), before anything an entry
 *     pushes is due;
 *   - an event that reads any node (monitors, link changes, the deadlock
 *     check: lazy_catch_up_all) and the run's stop.
 * Same state when anything reads it, same events at the same keys: the same
 * bytes. What keeps a node explicit (lazy_init): ns-3 timing (insertion
 * order: when an event is pushed decides its place); hooks.event (it counts
 * the events); a link of zero delay (no slack); a balancer that acts at a
 * switch's dequeue, on timers, control packets or hold queues, or at hosts;
 * at hosts, a scheme that acts as a packet is sent or holds it (on_send,
 * tx_hold), flow dependencies (a sent flow releases others) and more than
 * one port; and a cut link of a parallel run (its messages must leave at a
 * transmission's start: the engine's lookahead; net/shard.c). */

static inline bool lz_before(const struct lz_end *a, const struct lz_end *b)
{
    return a->t < b->t || (a->t == b->t && a->handle < b->handle);
}

static void lz_heap_push(struct lazy_node *z, simtime_t t, uint32_t handle)
{
    if (z->n == z->cap) {
        z->cap = z->cap ? 2 * z->cap : 8;
        z->h = xrealloc(z->h, z->cap * sizeof *z->h);
    }
    struct lz_end e = {t, handle};
    uint32_t i = z->n++;
    while (i) {
        uint32_t up = (i - 1) / 2;
        if (!lz_before(&e, &z->h[up]))
            break;
        z->h[i] = z->h[up];
        i = up;
    }
    z->h[i] = e;
}

static void lz_heap_pop(struct lazy_node *z)
{
    struct lz_end e = z->h[--z->n];
    uint32_t i = 0, n = z->n;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && lz_before(&z->h[c + 1], &z->h[c]))
            c++;
        if (!lz_before(&z->h[c], &e))
            break;
        z->h[i] = z->h[c];
        i = c;
    }
    z->h[i] = e;
}

void lazy_note(struct sim *s, struct node *nd, uint32_t handle, simtime_t t)
{
    struct lazy_node *z = &s->lz[nd - s->nodes];
    lz_heap_push(z, t, handle);
    if (t < nd->lz_next)
        nd->lz_next = t;
    simtime_t d = t + z->slack;
    if (z->dl_at < 0 || d < z->dl_at) {
        z->dl_at = d;
        evq_push(&s->evq, d, EV_TX_DONE, nd->port0);
    }
}

void lazy_catch_up(struct sim *s, uint32_t n, simtime_t t, uint32_t h)
{
    struct node *nd = &s->nodes[n];
    if (!s->lz) { /* (a sim set up without sim_start: nothing is lazy) */
        nd->lz_next = T_NEVER;
        return;
    }
    struct lazy_node *z = &s->lz[n];
    simtime_t now = s->now;
    while (z->n) {
        struct lz_end e = z->h[0];
        if (e.t > t || (e.t == t && e.handle >= h))
            break;
        lz_heap_pop(z);
        uint32_t id = e.handle & EV_ID_MAX;
        if (e.handle >> EV_ID_BITS == EV_TX_DONE) {
            struct port *pt = &s->ports[id];
            if (pt->tx_at != e.t)
                continue; /* stale, as its event would have been */
            pt->tx_at = -1;
            s->now = e.t;
            port_kick(s, id);
        } else { /* EV_NIC_WAKE */
            struct nic *nic = &s->nics[id];
            if (nic->wake_at != e.t)
                continue; /* superseded */
            nic->wake_at = T_NEVER;
            s->now = e.t;
            port_kick(s, nic->port);
        }
    }
    s->now = now;
    nd->lz_next = z->n ? z->h[0].t : T_NEVER;
}

void lazy_deadline(struct sim *s, uint32_t pid)
{
    uint32_t n = s->ports[pid].node;
    struct lazy_node *z = &s->lz[n];
    lazy_catch_up(s, n, s->now, pid + 1); /* its key is (now, TX_DONE, pid): the entries up to it */
    if (z->dl_at != s->now)
        return; /* superseded by an earlier one, which ran */
    z->dl_at = -1;
    if (z->n) {
        z->dl_at = z->h[0].t + z->slack;
        evq_push(&s->evq, z->dl_at, EV_TX_DONE, pid);
    }
}

void lazy_catch_up_all(struct sim *s, simtime_t t, uint32_t h)
{
    if (!s->lz)
        return;
    for (uint32_t n = 0; n < s->n_nodes; n++)
        if (s->nodes[n].lz_next <= t)
            lazy_catch_up(s, n, t, h);
}

void lazy_init(struct sim *s)
{
    for (uint32_t n = 0; n < s->n_nodes; n++) {
        s->nodes[n].lazy = false;
        s->nodes[n].lz_next = T_NEVER;
    }
    if (s->p.ns3_timing || s->hooks.event)
        return;
    bool sw_ok = true, host_ok = !s->n_hold && !s->deps;
    const struct lb_ops *lbs[2] = {s->lb, s->lb_ctl};
    for (int k = 0; k < 2; k++) {
        if (!lbs[k])
            continue;
        if (lbs[k]->on_dequeue || lbs[k]->on_timer || lbs[k]->on_ctrl || lbs[k]->hold_queues)
            sw_ok = false;
        if (lbs[k]->host_init || lbs[k]->host_send || lbs[k]->host_ack || lbs[k]->host_timeout || lbs[k]->host_probe)
            sw_ok = host_ok = false; /* (probes go through switches too: keep it simple) */
    }
    for (uint32_t k = 0; k < s->n_slot; k++)
        if (s->slot[k].ops->on_send || s->slot[k].ops->tx_hold)
            host_ok = false;
    if (!sw_ok && !host_ok)
        return;
    s->lz = xcalloc_aligned(s->n_nodes, sizeof *s->lz, _Alignof(struct lazy_node));
    for (uint32_t n = 0; n < s->n_nodes; n++) {
        struct node *nd = &s->nodes[n];
        struct lazy_node *z = &s->lz[n];
        z->dl_at = -1;
        if (!(nd->is_switch ? sw_ok : host_ok && nd->nports == 1) || !nd->nports || !sim_node_here(s, n))
            continue;
        simtime_t slack = T_NEVER;
        for (uint32_t p = nd->port0; p < nd->port0 + nd->nports; p++)
            if (s->plink[p].delay < slack)
                slack = s->plink[p].delay;
        if (slack <= 0)
            continue;
        z->slack = slack;
        nd->lazy = true;
    }
}

void lazy_free(struct sim *s)
{
    if (!s->lz)
        return;
    for (uint32_t n = 0; n < s->n_nodes; n++)
        free(s->lz[n].h);
    free(s->lz);
    s->lz = NULL;
}

/* One live TX_DONE per port: a transmission started by another event at the
 * very instant a TX_DONE was due leaves that event stale, and it must not
 * arm a second one (that duplicated itself on every packet). */
static inline void tx_done_at(struct sim *s, struct port *pt, uint32_t pid, simtime_t t)
{
    if (pt->tx_at == t)
        return;
    pt->tx_at = t;
    struct node *nd = &s->nodes[pt->node];
    if (nd->lazy) {
        lazy_note(s, nd, pid, t);
        return;
    }
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

