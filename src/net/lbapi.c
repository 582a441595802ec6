/* The helper API load balancers call (lb.h): time, per-flow state, switch
 * timers, control packets, edges and fabric facts. */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

simtime_t lb_now(const struct sim *s) { return s->now; }

void *lb_flow_state(struct sim *s, uint32_t flow) { return s->lb_fstate + (size_t)flow * s->lb_fstride; }

struct lb_mem {
    struct lb_mem *next;
    max_align_t data[];
};

void *lb_alloc(struct sim *s, size_t bytes)
{
    struct lb_mem *m = xcalloc(1, sizeof *m + bytes);
    m->next = s->lb_mem;
    s->lb_mem = m;
    return m->data;
}

void lb_mem_free(struct sim *s)
{
    while (s->lb_mem) {
        struct lb_mem *m = s->lb_mem;
        s->lb_mem = m->next;
        free(m);
    }
}

void lb_timer_set(struct sim *s, struct lb_switch *sw, int kind, simtime_t at)
{
    sw->timer_at[kind] = at;
    if (sw->timer_ev[kind] >= 0 && sw->timer_ev[kind] <= at)
        return; /* the entry in the heap re-pushes itself for the later time */
    sw->timer_ev[kind] = at;
    evq_push_timer(&s->evq, at, EV_NODE_TIMER, sw->node * LB_TIMERS + (uint32_t)kind);
}

uint32_t lb_host_edge(const struct sim *s, uint32_t host_node) { return s->host_edge[s->host_index[host_node]]; }
uint32_t lb_edge_node(const struct sim *s, uint32_t edge) { return s->edge_node[edge]; }
uint32_t lb_edge_count(const struct sim *s) { return s->n_edges; }
uint32_t lb_node_count(const struct sim *s) { return s->n_nodes; }
uint32_t lb_host_count(const struct sim *s) { return s->n_hosts; }
uint32_t lb_host_node(const struct sim *s, uint32_t host_index) { return s->nics[host_index].node; }
uint32_t lb_flow_count(const struct sim *s) { return s->n_flows; }
struct lb_switch *lb_switch_of(const struct sim *s, uint32_t node) { return s->nodes[node].is_switch ? &s->lbsw[node] : NULL; }
const void *lb_running_params(const struct sim *s, const struct lb_ops *ops) { return s->lb == ops ? s->lb_par : NULL; }
uint64_t lb_switch_buffer(const struct sim *s, uint32_t node) { return s->nodes[node].buffer; }
bool lb_lossless(const struct sim *s) { return s->p.pfc; }
bool lb_cc_paired(const struct sim *s)
{
    const struct cc_ops *cc = s->n_slot ? s->slot[0].ops : NULL;
    return cc && cc->lb_pair && s->lb && strcmp(cc->lb_pair, s->lb->name) == 0;
}

int lb_ecmp_pick(const struct sim *s, const struct lb_switch *sw, const struct pkt *p, int n)
{
    uint32_t w[3] = { s->nodes[p->src].ip, s->nodes[p->dst].ip, (uint32_t)p->sport | ((uint32_t)p->dport << 16) };
    return (int)(ecmp_hash((const uint8_t *)w, sizeof w, sw->node) % (uint32_t)n);
}

uint32_t lb_host_active_flows(const struct sim *s, uint32_t host_node)
{
    const struct nic *nic = &s->nics[s->host_index[host_node]];
    return nic->nqps - nic->ndone; /* finished QPs may linger in qps[] (nic_qp_done) */
}

void lb_probe_send(struct sim *s, uint32_t from, uint32_t to, uint32_t path, uint8_t prio)
{
    struct pkt *p = pkt_alloc(s);
    p->type = PKT_PROBE;
    p->prio = prio;
    p->flow = UINT32_MAX;
    p->src = from;
    p->dst = to;
    p->sport = p->dport = 0;
    p->size = s->ack_size;
    p->ts = s->now;
    p->lb.path = path;
    s->c.lb_probes++;
    struct nic *nic = nic_of(s, from);
    q_push(&nic->ackq, p);
    port_kick(s, nic->port);
}

void lb_stat_add(struct sim *s, int i, uint64_t n) { s->c.lb_stat[i] += n; }
uint64_t lb_stat(const struct sim *s, int i) { return s->c.lb_stat[i]; }

struct pkt *lb_ctrl_packet(struct sim *s, uint32_t from, uint32_t to, uint8_t proto, uint32_t size)
{
    struct pkt *p = pkt_alloc(s);
    p->type = PKT_CTRL;
    p->prio = 0;
    p->flow = UINT32_MAX;
    p->size = size;
    p->ts = s->now;
    p->src = from;
    p->lb.proto = proto;
    p->lb.to_node = to;
    p->in_port = from; /* where it enters, until ctrl_inject */
    if (s->host_index[to] >= 0) {
        p->dst = to;
    } else { /* an edge switch: route toward its first host, consume on the way */
        uint32_t e = (uint32_t)s->lbsw[to].edge;
        p->dst = UINT32_MAX;
        for (uint32_t h = 0; h < s->n_hosts && p->dst == UINT32_MAX; h++)
            if (s->host_edge[h] == e)
                p->dst = s->nics[h].node;
    }
    p->sport = p->dport = 0;
    return p;
}

void lb_ctrl_send(struct sim *s, struct pkt *p)
{
    s->c.lb_ctrl_packets++;
    if (!s->ctrl_pending.head)
        evq_push(&s->evq, s->now, EV_CTRL, 0);
    q_push(&s->ctrl_pending, p);
}

uint64_t lb_port_queue_bytes(const struct sim *s, uint32_t port, int q) { return s->ports[port].q[q].bytes; }

uint64_t lb_port_bytes(const struct sim *s, uint32_t port)
{
    /* only the non-empty queues (qmask; an empty one holds no bytes): schemes call this per path per packet */
    const struct port *pt = &s->ports[port];
    uint64_t b = 0;
    for (unsigned m = pt->qmask; m; m &= m - 1)
        b += pt->q[__builtin_ctz(m)].bytes;
    return b;
}

/* (another rank's port: its rate as set up, for a scheme's set-up over every switch) */
uint64_t lb_port_rate(const struct sim *s, uint32_t port)
{
    return s->node_here && !sim_port_here(s, port) ? s->plink[port].rate : s->ports[port].rate;
}
uint64_t lb_port_tx_bytes(const struct sim *s, uint32_t port) { return s->ports[port].tx_bytes; }
bool lb_port_paused(const struct sim *s, uint32_t port, int q) { return port_paused(&s->ports[port], q); }

simtime_t lb_port_paused_since(const struct sim *s, uint32_t port, int q)
{
    return port_paused(&s->ports[port], q) ? s->ports[port].paused_since[q] : T_NEVER;
}

simtime_t lb_port_predicted_delay(const struct sim *s, uint32_t port, int q)
{
    const struct port *pt = &s->ports[port];
    if (port_paused(pt, q) || pt->down) /* a failed link's port never sends (busy_until = T_NEVER) */
        return T_NEVER;
    /* queue 0 goes first, then round robin: at worst every queued byte */
    simtime_t busy = pt->busy_until > s->now ? pt->busy_until - s->now : 0;
    return busy + tx_time(lb_port_bytes(s, port), pt->rate);
}

bool lb_port_blocked(const struct sim *s, uint32_t port, int q)
{
    return port_paused(&s->ports[port], q) || s->ports[port].down;
}

uint32_t lb_port_peer_node(const struct sim *s, uint32_t port) { return sim_peer_node(s, port); }
uint32_t lb_port_node(const struct sim *s, uint32_t port) { return sim_port_node(s, port); }
simtime_t lb_port_delay(const struct sim *s, uint32_t port) { return s->plink[port].delay; }
bool lb_port_to_host(const struct sim *s, uint32_t port)
{
    return s->node_here && !sim_port_here(s, port) ? !s->nodes[sim_peer_node(s, port)].is_switch : s->ports[port].to_host;
}
uint32_t lb_port_queue_packets(const struct sim *s, uint32_t port, int q) { return s->ports[port].q[q].n; }

uint32_t lb_port_requeue(struct sim *s, uint32_t port, int q, uint32_t (*to)(struct sim *s, void *ctx, struct pkt *p),
                         void *ctx)
{
    struct port *pt = &s->ports[port];
    struct pktq keep = {0};
    struct pkt *p = pt->q[q].head;
    uint32_t moved = 0, kick[16], nkick = 0, left = pt->q[q].paused_left;
    pt->q[q] = (struct pktq){0};
    while (p) {
        struct pkt *next = p->next;
        uint32_t out = to(s, ctx, p);
        if (out == UINT32_MAX || out == port || s->ports[out].node != pt->node) {
            q_push(&keep, p);
        } else {
            port_q_push(&s->ports[out], q, p);
            moved++;
            uint32_t k = 0;
            while (k < nkick && kick[k] != out)
                k++;
            if (k == nkick) {
                if (nkick < 16)
                    kick[nkick++] = out;
                else
                    port_kick(s, out); /* more targets than the list holds: start this one now */
            }
        }
        p = next;
    }
    /* the ones that waited through a PAUSE: at most those left */
    keep.paused_left = left < keep.n ? left : keep.n;
    pt->q[q] = keep;
    if (!keep.n)
        pt->qmask &= (uint8_t)~(1u << q);
    for (uint32_t k = 0; k < nkick; k++)
        port_kick(s, kick[k]);
    return moved;
}

/* ---------------------------------------------------------------- hold queues
 * Per switch, lb_nhold FIFOs made on the switch's first lb_hold (memory for
 * the switches that hold, never per packet). A queue's deadline has one heap
 * entry at a time, as lb_timer_set's timers: moving it later pushes nothing,
 * the entry re-pushes itself when it comes due. */

static struct lb_holdq *holdq(struct sim *s, struct lb_switch *sw, uint32_t k)
{
    if (!s->lb_nhold) {
        s->lb_nhold = s->lb->hold_queues ? s->lb->hold_queues(s->lb_par) : 0;
        if (!s->lb_nhold || (uint64_t)s->n_nodes * s->lb_nhold >= 1u << EV_ID_BITS) {
            fprintf(stderr, "rocesim: load balancer %s: hold queue %u at node %u: %u queues per switch\n",
                    s->lb->name, k, sw->node, s->lb_nhold);
            abort(); /* a scheme's defect, not an input error: its parameter ranges bound the count */
        }
    }
    if (k >= s->lb_nhold) {
        fprintf(stderr, "rocesim: load balancer %s: hold queue %u of %u\n", s->lb->name, k, s->lb_nhold);
        abort();
    }
    if (!sw->hold) {
        sw->hold = lb_alloc(s, s->lb_nhold * sizeof *sw->hold);
        for (uint32_t i = 0; i < s->lb_nhold; i++)
            sw->hold[i].at = sw->hold[i].ev = -1;
    }
    return &sw->hold[k];
}

void lb_hold_deadline(struct sim *s, struct lb_switch *sw, uint32_t k, simtime_t at)
{
    struct lb_holdq *h = holdq(s, sw, k);
    if (at < s->now)
        at = s->now;
    h->at = at;
    if (h->ev >= 0 && h->ev <= at)
        return; /* the entry in the heap re-pushes itself for the later time */
    h->ev = at;
    evq_push_timer(&s->evq, at, EV_HOLD, sw->node * s->lb_nhold + k);
}

void lb_hold(struct sim *s, struct lb_switch *sw, uint32_t k, struct pkt *p, uint32_t out, simtime_t deadline)
{
    struct lb_holdq *h = holdq(s, sw, k);
    p->lb.held_out = out;
    p->next = NULL;
    if (h->tail)
        h->tail->next = p;
    else
        h->head = p;
    h->tail = p;
    h->n++;
    s->c.lb_held++;
    if (++s->lb_held_now > s->c.lb_held_peak)
        s->c.lb_held_peak = s->lb_held_now;
    if (s->is_shard) /* the fabric's peak is of a sum over partitions: net/shard.c */
        par_held(s, 1);
    if (h->at < 0) /* the first packet of an empty queue sets its deadline */
        lb_hold_deadline(s, sw, k, deadline == T_NEVER ? s->now : deadline);
}

#define HELD_OUTSIDE 0x80000000u /* in lb.held_out: held outside the buffer accounting */

void lb_hold_outside(struct sim *s, struct lb_switch *sw, uint32_t k, struct pkt *p, uint32_t out, simtime_t deadline)
{
    switch_unadmit(s, p);
    lb_hold(s, sw, k, p, out, deadline);
    p->lb.held_out |= HELD_OUTSIDE;
}

void lb_hold_release(struct sim *s, struct lb_switch *sw, uint32_t k)
{
    struct lb_holdq *h = holdq(s, sw, k);
    struct pkt *p = h->head;
    h->head = h->tail = NULL;
    s->lb_held_now -= h->n;
    if (s->is_shard && h->n)
        par_held(s, -(int32_t)h->n);
    h->n = 0;
    h->at = -1; /* a pending heap entry finds no deadline and does nothing */
    while (p) {
        struct pkt *next = p->next;
        uint32_t out = p->lb.held_out & ~HELD_OUTSIDE;
        bool outside = p->lb.held_out & HELD_OUTSIDE;
        int q = switch_queue(s, p);
        if (outside && !s->ports[out].down && !switch_readmit(s, p)) {
            pkt_free(s, p); /* no room at its release: dropped (counted there) */
        } else if (s->ports[out].down) { /* its link failed while it was held: lost as on the link */
            link_lost(s, p);
            if (q != 0 && !outside)
                switch_discard(s, out, q, p);
            pkt_free(s, p);
        } else {
            switch_forward(s, out, q, p);
        }
        p = next;
    }
}

uint32_t lb_hold_count(const struct lb_switch *sw, uint32_t k) { return sw->hold ? sw->hold[k].n : 0; }
simtime_t lb_hold_at(const struct lb_switch *sw, uint32_t k) { return sw->hold ? sw->hold[k].at : -1; }

/* EV_HOLD: a hold queue's deadline came (or an outdated entry of it). */
void lb_hold_fire(struct sim *s, uint32_t id)
{
    struct lb_switch *sw = &s->lbsw[id / s->lb_nhold];
    uint32_t k = id % s->lb_nhold;
    struct lb_holdq *h = &sw->hold[k];
    if (h->ev != s->now)
        return;
    h->ev = -1;
    if (h->at < 0)
        return;
    if (h->at > s->now) {
        h->ev = h->at;
        evq_push_timer(&s->evq, h->at, EV_HOLD, id);
        return;
    }
    lb_hold_release(s, sw, k);
    if (s->lb->on_release)
        s->lb->on_release(s, sw, s->lb_par, k);
}

uint32_t lb_port_peer(const struct sim *s, uint32_t port) { return sim_port_peer(s, port); }

bool lb_ctrl_route(struct sim *s, struct pkt *p, const uint32_t *ports, int n)
{
    uint32_t word = 0;
    if (n > 4 || p->dst == UINT32_MAX)
        return false;
    for (int j = 0; j < n; j++) {
        int nc;
        const uint32_t *cand = sim_route(s, sim_port_node(s, ports[j]), (uint32_t)s->host_index[p->dst], &nc);
        int k = 0;
        while (k < nc && cand[k] != ports[j])
            k++;
        if (k == nc || k > 0xff)
            return false; /* not a shortest way toward it: leave the packet to ECMP */
        word |= (uint32_t)k << (8 * j);
    }
    p->lb.path = word;
    p->lb.path_hop = 0;
    return true;
}
