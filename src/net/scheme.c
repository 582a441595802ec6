/* The helper API schemes call (cc.h): time, timers, rate changes, CNPs,
 * switch-originated control packets and port facts. */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- CC helpers */

simtime_t cc_now(const struct sim *s) { return s->now; }

uint32_t cc_mtu(const struct sim *s) { return s->p.mtu; }

/* A receiver's timer (cc_ops.rx_timers) armed counts in s->rx_armed, which
 * keeps the run (or its partition) from ending while it is (sim.c all_done). */
static inline bool rx_timer(const struct sim *s, int kind)
{
    return s->slot[0].ops && s->slot[0].ops->rx_timers >> kind & 1; /* (no ops: a test's bare sim) */
}

void cc_timer_set(struct sim *s, struct qp *qp, int kind, simtime_t at)
{
    if (__builtin_expect(rx_timer(s, kind), 0) && qp->timer_at[kind] < 0)
        s->rx_armed++;
    timer_set(s, qp, kind, at);
}

void cc_timer_cancel(struct sim *s, struct qp *qp, int kind)
{
    if (__builtin_expect(rx_timer(s, kind), 0) && qp->timer_at[kind] >= 0)
        s->rx_armed--;
    qp->timer_at[kind] = -1;
}

void cc_change_rate(struct sim *s, struct qp *qp, uint64_t new_rate)
{
    if (qp->tx_paused) { /* next_avail stays T_NEVER; cc_resume starts from now */
        qp->rate = new_rate;
        return;
    }
    if (qp->last_pkt_size) {
        simtime_t old_t = gap_time(s, qp->last_pkt_size, qp->rate);
        simtime_t new_t = gap_time(s, qp->last_pkt_size, new_rate);
        qp->next_avail += new_t - old_t;
    }
    qp->rate = new_rate;
    struct nic *nic = nic_of(s, qp->src);
    /* nic_wake = ns3: ns-3's QbbNetDevice::UpdateNextAvail only moves a
     * pending wake-up earlier; with none pending, the next trigger decides */
    if (s->p.nic_wake_ns3 && nic->wake_at == T_NEVER)
        return;
    if (qp->next_avail < nic->wake_at)
        nic_wake_at(s, nic, qp->next_avail);
}

void cc_rate_override(struct sim *s, struct qp *qp, uint64_t new_rate)
{
    uint64_t old = qp->rate;
    cc_change_rate(s, qp, new_rate);
    const struct cc_slot *cc = &s->slot[0];
    if (s->n_slot && cc->ops->on_rate_override)
        cc->ops->on_rate_override(s, qp, sim_cc_state(s, qp->id), cc->par, old);
}

/* A paused QP is one whose next packet is due never: the NIC's pacing test
 * skips it without a new branch on the send path. */
void cc_pause(struct sim *s, struct qp *qp)
{
    (void)s;
    qp->tx_paused = true;
    qp->next_avail = T_NEVER;
}

void cc_resume(struct sim *s, struct qp *qp)
{
    if (!qp->tx_paused)
        return;
    qp->tx_paused = false;
    qp->next_avail = s->now;
    if (qp->state == FLOW_ACTIVE)
        nic_wake_at(s, nic_of(s, qp->src), s->now);
}

bool cc_paused(const struct qp *qp) { return qp->tx_paused; }

void cc_kick(struct sim *s, struct qp *qp)
{
    if (qp->state == FLOW_ACTIVE)
        port_kick(s, nic_of(s, qp->src)->port);
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

struct qp *cc_flow(struct sim *s, uint32_t flow) { return &s->flows[flow]; }
void cc_stat_add(struct sim *s, const struct cc_ops *ops, int i, uint64_t n)
{
    struct cc_stat_block *b = s->c.cc_stat;
    size_t k = 0, nb = sizeof s->c.cc_stat / sizeof *b;
    while (k < nb && b[k].ops && b[k].ops != ops)
        k++;
    if (k == nb) { /* more counting schemes than can run at once: a bug, not an input */
        fprintf(stderr, "cc_stat_add: no counter block left for %s\n", ops->name);
        abort();
    }
    b[k].ops = ops;
    b[k].v[i] += n;
}

uint64_t cc_stat(const struct sim *s, const struct cc_ops *ops, int i)
{
    for (size_t k = 0; k < sizeof s->c.cc_stat / sizeof *s->c.cc_stat && s->c.cc_stat[k].ops; k++)
        if (s->c.cc_stat[k].ops == ops)
            return s->c.cc_stat[k].v[i];
    return 0;
}

uint64_t cc_seed(const struct sim *s) { return s->seed; }
bool cc_ns3_timing(const struct sim *s) { return s->p.ns3_timing; }
uint32_t cc_ooo_window(const struct sim *s) { return s->p.ooo_window; }
uint32_t cc_data_hdr(const struct sim *s) { return s->data_hdr; }
uint32_t pkt_payload(const struct sim *s, const struct pkt *p) { return data_payload(s, p); }

uint32_t cc_hops_to_host(const struct sim *s, uint32_t sw, uint32_t h)
{
    int32_t hi = h < s->n_nodes ? s->host_index[h] : -1;
    uint32_t node = sw;
    for (uint32_t d = 1; hi >= 0 && d <= s->n_nodes; d++) {
        int n;
        const uint32_t *c = sim_route(s, node, (uint32_t)hi, &n);
        if (n == 0)
            return 0;
        node = sim_peer_node(s, c[0]);
        if (node == h)
            return d;
    }
    return 0;
}


void *cc_companion_state(struct sim *s, const struct cc_ops *ops, uint32_t flow)
{
    for (uint32_t k = 1; k < s->n_slot; k++)
        if (s->slot[k].ops == ops)
            return slot_state(&s->slot[k], flow);
    return NULL;
}

void *cc_companion_port_state(struct sim *s, const struct cc_ops *ops, uint32_t port)
{
    for (uint32_t k = 1; k < s->n_slot; k++)
        if (s->slot[k].ops == ops)
            return slot_pstate(&s->slot[k], port);
    return NULL;
}

uint32_t cc_host_port(const struct sim *s, uint32_t host_node) { return s->nics[s->host_index[host_node]].port; }

simtime_t cc_flowlet_timeout(const struct sim *s) { return s->lb->flowlet_gap ? s->lb->flowlet_gap(s->lb_par) : 0; }

/* ---------------------------------------------------------------- partitioned runs */

const char *sim_serial_only_reason(const struct sim *s)
{
    for (uint32_t k = 0; k < s->n_slot; k++)
        if (s->slot[k].ops && s->slot[k].ops->serial_only)
            return s->slot[k].ops->serial_only;
    if (s->lb && s->lb->serial_only)
        return s->lb->serial_only;
    if (s->lb_ctl && s->lb_ctl->serial_only)
        return s->lb_ctl->serial_only;
    return NULL;
}
