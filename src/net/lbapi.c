/* The helper API load balancers call (lb.h): time, per-flow state, switch
 * timers, control packets, edges and fabric facts. */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stddef.h>
#include <stdlib.h>

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
uint32_t lb_host_active_flows(const struct sim *s, uint32_t host_node)
{
    return s->nics[s->host_index[host_node]].nqps;
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
    uint64_t b = 0;
    for (int q = 0; q < NQ; q++)
        b += s->ports[port].q[q].bytes;
    return b;
}

uint64_t lb_port_rate(const struct sim *s, uint32_t port) { return s->ports[port].rate; }
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

uint32_t lb_port_peer_node(const struct sim *s, uint32_t port) { return s->ports[s->ports[port].peer].node; }

uint32_t lb_port_requeue(struct sim *s, uint32_t port, int q, uint32_t (*to)(struct sim *s, void *ctx, struct pkt *p),
                         void *ctx)
{
    struct port *pt = &s->ports[port];
    struct pktq keep = {0};
    struct pkt *p = pt->q[q].head;
    uint32_t moved = 0, kick[16], nkick = 0;
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
    pt->q[q] = keep;
    if (!keep.n)
        pt->qmask &= (uint8_t)~(1u << q);
    if (pt->paused_left[q] > keep.n) /* the ones that waited through a PAUSE: at most those left */
        pt->paused_left[q] = keep.n;
    for (uint32_t k = 0; k < nkick; k++)
        port_kick(s, kick[k]);
    return moved;
}
