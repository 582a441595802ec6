/* Links that fail and recover at a time (topology.fail, flap, switch_fail,
 * ns-3's LINK_DOWN; a flapping link or a failed switch is just more of these
 * events), and links whose rate is cut at a time (topology.slow).
 * A failed link loses every packet on its wire and in the egress queues of
 * its two ports (counted in packets_lost_link; PFC frames are not counted),
 * sends nothing until it recovers, and forgets PFC state across it (neither
 * side can hear a RESUME). The scenario's reroute hook then recomputes the
 * routing tables without the link, so nothing is forwarded to it, and the
 * path sets are dropped to be enumerated again from the new tables (a packet
 * already carrying a path word still works: each hop takes its byte modulo
 * the candidates it has now); lossless
 * runs recover the loss by NACK or retransmission timeout.
 * A dead port is idle for ever: busy_until = tx_at = T_NEVER makes port_kick
 * return without sending or arming a TX_DONE, so the packet path needs no
 * extra test; the wire's pending ARRIVE finds no packet due and is stale. */
#include "net/net_impl.h"
#include <string.h>

void link_lost(struct sim *s, const struct pkt *p)
{
    if (p->type != PKT_PFC) {
        s->c.packets_lost_link++;
        if (p->flow < s->n_flows) /* fct.csv lost_packets: the flow's own losses, wherever */
            FLOW_COUNT(s->flows[p->flow].lost);
    }
}

static void lose(struct sim *s, struct pkt *p)
{
    link_lost(s, p);
    pkt_free(s, p);
}

static void port_down(struct sim *s, uint32_t pid)
{
    struct port *pt = &s->ports[pid];
    bool sw = s->nodes[pt->node].is_switch;
    pt->down = true;
    pt->tx_place_down = pt->busy_until; /* run.ns3_timing: its TX_DONE place's time, if it holds one */
    pt->busy_until = T_NEVER;
    pt->tx_at = T_NEVER;
    while (pt->wire.head) {
        struct pkt *p = q_pop(&pt->wire);
        p->place = EV_PLACE_NONE; /* run.ns3_timing: its ARRIVE's place, never to be used */
        lose(s, p);
    }
    for (int q = 0; q < NQ; q++)
        while (pt->q[q].head) {
            struct pkt *p = port_q_pop(pt, q);
            if (sw)
                switch_discard(s, pid, q, p);
            lose(s, p);
        }
    if (!sw) { /* the NIC's ACK/NACK/CNP queue feeds only this port */
        struct nic *nic = nic_of(s, pt->node);
        while (nic->ackq.head)
            lose(s, q_pop(&nic->ackq));
    }
    for (int q = 0; q < NQ; q++)
        if (port_paused(pt, q))
            pt->paused_time += s->now - pt->paused_since[q];
    pt->paused_mask = 0;
    memset(pt->pause_sent, 0, sizeof pt->pause_sent);
    /* schemes' per-port state described what was queued: start afresh (zeroed, as at setup) */
    for (uint32_t i = 0; i < s->n_slot; i++)
        if (s->slot[i].pstride)
            memset(slot_pstate(&s->slot[i], pid), 0, s->slot[i].pstride);
}

/* Each end of the link is changed by the sim that owns it: in a parallel run
 * its partition (packets go back to that partition's pool; net/shard.c runs
 * this between windows, every partition stopped at this instant). Across MPI
 * ranks an end another rank runs keeps only its `down` flag here (its port
 * was never set up: build_ports). */
void sim_link_set(struct sim *s, uint32_t pid, bool up)
{
    uint32_t peer = sim_port_peer(s, pid);
    if (s->ports[pid].down == !up)
        return;
    if (up) {
        for (int i = 0; i < 2; i++) {
            struct port *pt = &s->ports[i ? peer : pid];
            pt->down = false;
            if (!sim_port_here(s, i ? peer : pid))
                continue;
            pt->busy_until = s->now;
            pt->tx_at = -1;
            /* run.ns3_timing: a TX_DONE place held since the link went down
             * stays the port's only if its time is now (port.c) */
            if (s->p.ns3_timing && pt->tx_place != EV_PLACE_NONE && pt->tx_place_down != s->now)
                pt->tx_place = EV_PLACE_NONE;
        }
    } else {
        for (int i = 0; i < 2; i++) {
            uint32_t end = i ? peer : pid;
            if (sim_port_here(s, end))
                port_down(sim_end(s, end), end);
            else
                s->ports[end].down = true;
        }
    }
    sim_end(s, pid)->c.link_changes++;
    if (s->reroute)
        s->reroute(s->reroute_ctx, s, pid, up);
    lb_paths_free(s); /* path sets follow the new tables, enumerated again on first use */
    if (s->par)
        par_tables_changed(s, pid, up);
    if (up) /* a NIC may have waited to send */
        for (int i = 0; i < 2; i++)
            if (sim_port_here(s, i ? peer : pid))
                port_kick(sim_end(s, i ? peer : pid), i ? peer : pid);
}

/* A slowed link (topology.slow): both ends run at the new rate from now on.
 * A packet being serialised finishes at the rate it started at (its end was
 * already scheduled); the next one takes the new time per byte. ECN kmin /
 * kmax and the dynamic PFC threshold's shift follow the new rate as if the
 * port had been set up at it (the scenario computed them); the PFC headroom
 * stays as set up for the link's own rate, which is higher, so it still
 * covers what can arrive after a PAUSE, and the shared pool does not move
 * under queued packets. Congestion control learns the rate the way it
 * learns anything (HPCC reads the port's rate in its INT; a NIC's flows keep
 * their line rate, and the NIC port's serialisation paces them). */
static void link_rate(struct sim *s, const struct sim_link_event *ev)
{
    for (int i = 0; i < 2; i++) {
        uint32_t pid = i ? sim_port_peer(s, ev->port) : ev->port;
        if (!sim_port_here(s, pid))
            continue; /* another rank's (build_ports) */
        struct port *pt = &s->ports[pid];
        pt->rate = ev->rate;
        if (s->p.ns3_timing) /* ps_per_byte's bytes then hold the port's TX_DONE place (net.h) */
            pt->ns3_tx = ns3_tx_table(s, ev->rate);
        else
            pt->ps_per_byte = (8 * T_SEC) % ev->rate == 0 ? (uint32_t)((8 * T_SEC) / ev->rate) : 0;
        if (s->nodes[pt->node].is_switch) {
            pt->kmin = ev->kmin[i];
            pt->kmax = ev->kmax[i];
            pt->pfc_shift = ev->pfc_shift[i];
        }
    }
    sim_end(s, ev->port)->c.link_changes++;
}

void sim_link_event(struct sim *s, const struct sim_link_event *ev)
{
    if (ev->rate)
        link_rate(s, ev);
    else
        sim_link_set(s, ev->port, ev->up);
}

/* Random loss: a link with loss > 0
 * corrupts each packet crossing it (either direction) with that probability,
 * drawn from the link direction's own seeded stream; the receiver discards
 * it, so it counts as a drop ("corrupted") and the transport recovers it
 * (go-back-N NACK or timeout, IRN selective repeat). PFC frames are exempt:
 * PAUSE here is a state without expiry, so a lost RESUME would stall a queue
 * forever, where real PFC refreshes its pauses. */

bool fault_lose(struct sim *s, uint32_t pid, struct pkt *p)
{
    if (rng_uniform(&s->loss_rng[pid]) >= s->plink[pid].loss)
        return false;
    s->c.packets_dropped++;
    s->c.packets_corrupted++;
    if (p->flow < s->n_flows)
        FLOW_COUNT(s->flows[p->flow].lost);
    pkt_free(s, p);
    return true;
}
