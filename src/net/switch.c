/* The switch: forwarding (route lookup, the LB's choice), the shared-buffer
 * MMU with PFC (ns-3 HPCC's SwitchMmu), the egress scheduler with ECN marking
 * and INT stamping at dequeue. */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- switch MMU
 * ns-3 HPCC's SwitchMmu, per ingress (port, queue): a reserve, then the shared
 * pool up to a dynamic threshold, then per-port headroom once PAUSE is due.
 * With switch.pfc_threshold the threshold is static instead (FLB's setup):
 * p.pfc_static = that minus the reserve, so PAUSE comes once the ingress
 * queue holds pfc_threshold bytes and RESUME once it is resume_offset below. */

uint32_t mmu_shared_used(const struct sim *s, const struct port *in, int q)
{
    uint32_t used = in->ingress_bytes[q];
    return used > s->p.reserve ? used - (uint32_t)s->p.reserve : 0;
}

uint32_t mmu_pfc_threshold(const struct sim *s, const struct node *sw, const struct port *in)
{
    int64_t free_b = (int64_t)sw->buffer - (int64_t)sw->total_hdrm - (int64_t)sw->total_rsrv - (int64_t)sw->shared_used;
    if (s->p.pfc_static) /* switch.pfc_threshold, in shared bytes; never more than what is free */
        return free_b <= 0 ? 0 : (uint64_t)free_b < s->p.pfc_static ? (uint32_t)free_b : s->p.pfc_static;
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

void send_pfc(struct sim *s, uint32_t pid, int q, bool pause)
{
    if (s->ports[pid].down) /* nobody to hear it (fault.c forgets PFC state on both sides) */
        return;
    struct pkt *p = pkt_alloc(s);
    p->type = PKT_PFC;
    p->size = PFC_FRAME_BYTES;
    p->prio = 0;
    p->seq = (uint64_t)q;
    p->flags = pause ? PF_PAUSE : 0;
    p->src = p->dst = s->ports[pid].node;
    p->flow = UINT32_MAX;
    if (s->red_ns3) /* ns-3's SendPfc draws the frame's IPv4 identification from a new stream */
        ns3_streams_skip(s->red_ns3);
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

/* RED on the egress queue after the packet left it, as ns-3's ShouldSendCN.
 * Each port draws from its own stream, so its marks do not depend on the
 * order of other ports' events (a partitioned run: docs/parallel.md). Under
 * run.ns3_timing a draw is ns-3's instead: the first output of a new
 * MRG32k3a stream numbered by ns-3's process-wide counter (core/mrg32k3a.h),
 * in ns-3's event order. */
static bool red_mark(struct sim *s, const struct port *pt, int q)
{
    uint64_t b = pt->q[q].bytes;
    if (b > pt->kmax)
        return true;
    if (b > pt->kmin) {
        double prob = pt->pmax * (double)(b - pt->kmin) / (double)(pt->kmax - pt->kmin);
        return (s->red_ns3 ? ns3_streams_first(s->red_ns3) : rng_uniform(&s->red_rng[pt - s->ports])) < prob;
    }
    return false;
}

struct pkt *switch_dequeue(struct sim *s, uint32_t pid)
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
    if (s->p.sojourn)
        p->lb.sojourn += s->now - p->lb.t_enq;
    {
        const struct lb_ops *lb = p->type == PKT_DATA ? s->lb : s->lb_ctl;
        if (lb->on_dequeue)
            lb->on_dequeue(s, &s->lbsw[pt->node], p->type == PKT_DATA ? s->lb_par : s->lb_ctl_par, p, pid, q);
    }
    if (pt->q[q].paused_left) { /* it waited through a PAUSE (pfc_receive) */
        pt->q[q].paused_left--;
        if (p->flow != UINT32_MAX) {
            FLOW_FLAG_SET(s->flows[p->flow].ever_paused);
            FLOW_FLAG_SET(s->flows[p->flow].sw_paused);
        }
    }
    if (q != 0) {
        pt->rr_last = (uint8_t)q;
        struct node *sw = &s->nodes[pt->node];
        mmu_remove(s, sw, &s->ports[p->in_port], q, p->size);
        if (s->p.ecn && (p->type == PKT_DATA ? (s->slot[0].ops->sw_mark ? s->slot[0].ops->sw_mark(s, pid, sim_cc_pstate(s, pid), s->slot[0].par, p, q)
                                                             : red_mark(s, pt, q))
                                             : p->type == PKT_PROBE && !(p->flags & PF_ECHO) && red_mark(s, pt, q))) {
            /* a probe sees the fabric's RED (a CC's own marking keeps per-flow state) */
            p->flags |= PF_ECN;
            s->c.ecn_marks++;
        } else if (s->red_ns3 && s->p.ecn && p->type != PKT_DATA && p->type != PKT_PROBE) {
            (void)red_mark(s, pt, q); /* ns-3 asks ShouldSendCN about ACKs too: its draw moves the counter */
        }
        if (s->p.pfc)
            check_resume(s, sw, p->in_port, q);
    }
    /* INT as ns-3 HPCC stamps it: after the dequeue, before this packet's
     * bytes are added to the port's transmitted count. */
    if (s->slot[0].ops->int_stamp && p->type == PKT_DATA && p->nhop < INT_MAX_HOPS) {
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
/* A queued packet that will never be sent (its link failed): release its
 * ingress accounting as a dequeue would, which may RESUME its ingress port. */
void switch_discard(struct sim *s, uint32_t pid, int q, struct pkt *p)
{
    if (q == 0) /* queue 0 bypasses the MMU */
        return;
    struct node *sw = &s->nodes[s->ports[pid].node];
    mmu_remove(s, sw, &s->ports[p->in_port], q, p->size);
    if (s->p.pfc)
        check_resume(s, sw, p->in_port, q);
}

void switch_unadmit(struct sim *s, struct pkt *p)
{
    int q = switch_queue(s, p);
    if (q == 0)
        return;
    struct node *sw = &s->nodes[s->ports[p->in_port].node];
    mmu_remove(s, sw, &s->ports[p->in_port], q, p->size);
    if (s->p.pfc)
        check_resume(s, sw, p->in_port, q);
}

bool switch_readmit(struct sim *s, struct pkt *p)
{
    int q = switch_queue(s, p);
    if (q == 0)
        return true;
    struct node *sw = &s->nodes[s->ports[p->in_port].node];
    struct port *in = &s->ports[p->in_port];
    if (!mmu_admit(s, sw, in, q, p->size)) {
        s->c.packets_dropped++;
        if (p->flow < s->n_flows)
            FLOW_COUNT(s->flows[p->flow].lost);
        if (s->p.pfc)
            s->c.drops_lossless++;
        return false;
    }
    mmu_add(s, sw, in, q, p->size);
    if (s->p.pfc)
        check_pause(s, sw, p->in_port, q);
    return true;
}

/* ---------------------------------------------------------------- switch */

/* At the first switch (the packet came from a host): the flow's flowlets
 * (gaps of at least flowlet_gap) and path switches, the same measurement
 * whichever scheme runs. */
static void first_hop_stats(struct sim *s, const struct pkt *p, uint32_t out)
{
    struct qp *f = &s->flows[p->flow];
    if (f->lb_last < 0 || s->now - f->lb_last >= s->p.flowlet_gap)
        f->flowlets++;
    f->lb_last = s->now;
    if (f->lb_out != out) {
        if (f->lb_out != UINT32_MAX && !f->host_path) /* else counted at the sender (nic.c) */
            f->path_switches++;
        f->lb_out = out;
    }
}

/* Forwarding: the LB sees the packet, the route gives the candidates, a
 * carried path (source route) or the LB's choice picks one, the MMU admits it
 * at its ingress, the LB may still re-steer it, and it joins the egress queue.
 * Control packets addressed to this switch end here. */
void switch_receive(struct sim *s, uint32_t node, uint32_t in_pid, struct pkt *p)
{
    struct node *sw = &s->nodes[node];
    struct lb_switch *lsw = &s->lbsw[node];
    bool data = p->type == PKT_DATA;
    const struct lb_ops *lb = data ? s->lb : s->lb_ctl;
    const void *lpar = data ? s->lb_par : s->lb_ctl_par;
    if (p->type == PKT_CTRL && p->lb.to_node == node) {
        p->in_port = in_pid; /* the scheme may look where it came in */
        if (s->lb->on_ctrl)
            s->lb->on_ctrl(s, lsw, s->lb_par, p);
        pkt_free(s, p);
        return;
    }
    if (lb->on_arrival)
        lb->on_arrival(s, lsw, lpar, p, in_pid);
    int n;
    const uint32_t *cand = sim_route(s, node, (uint32_t)s->host_index[p->dst], &n);
    if (n == 0) { /* unreachable: only failed links partition a topology (setup checks every flow's path) */
        s->c.packets_lost_link++;
        if (p->flow < s->n_flows)
            FLOW_COUNT(s->flows[p->flow].lost);
        pkt_free(s, p);
        return;
    }
    uint32_t out;
    if (n == 1)
        out = cand[0];
    else if (p->lb.path != PATH_NONE && p->lb.path_hop < 4)
        out = cand[((p->lb.path >> (8 * p->lb.path_hop)) & 0xffu) % (uint32_t)n];
    else
        out = cand[lb->choose(s, lsw, lpar, p, cand, n)];
    if (p->lb.path != PATH_NONE)
        p->lb.path_hop++;
    int q = switch_queue(s, p);
    if (q != 0) {
        struct port *in = &s->ports[in_pid];
        if (!mmu_admit(s, sw, in, q, p->size)) {
            s->c.packets_dropped++;
            if (p->flow < s->n_flows)
                FLOW_COUNT(s->flows[p->flow].lost);
            if (s->p.pfc) {
                s->c.drops_lossless++;
                s->c.drops_lossless_cause[!in->pause_sent[q] ? LDROP_NOT_PAUSED
                                          : p->type == PKT_ACK || p->type == PKT_NACK ? LDROP_ACK_PAUSED
                                          : in->to_host ? LDROP_DATA_PAUSED_HOST : LDROP_DATA_PAUSED_SW]++;
            }
            pkt_free(s, p);
            return;
        }
        mmu_add(s, sw, in, q, p->size);
        if (s->p.pfc)
            check_pause(s, sw, in_pid, q);
    }
    p->in_port = in_pid; /* before on_enqueue: a packet it holds keeps its ingress accounting */
    if (lb->on_enqueue) {
        lb->on_enqueue(s, lsw, lpar, p, &out, q);
        if (out == LB_HELD)
            return; /* parked in a hold queue (lb_hold); switch_forward at its release */
    }
    switch_forward(s, out, q, p);
}

/* The egress queue a packet takes at a switch: queue 0 for control traffic,
 * else its priority class. */
int switch_queue(const struct sim *s, const struct pkt *p)
{
    return (p->type == PKT_CNP || p->type == PKT_FEEDBACK || p->type == PKT_CTRL ||
            (s->p.ack_high_prio_switch && (p->type == PKT_ACK || p->type == PKT_NACK ||
                                           (p->type == PKT_PROBE && (p->flags & PF_ECHO))))) ? 0 : p->prio;
}

/* An admitted packet (p->in_port set) joins egress `out` at queue q: from
 * switch_receive, or when an LB hold queue releases it. */
void switch_forward(struct sim *s, uint32_t out, int q, struct pkt *p)
{
    uint32_t in_pid = p->in_port;
    if (p->type == PKT_DATA && in_pid != UINT32_MAX && s->ports[in_pid].to_host)
        first_hop_stats(s, p, out);
    if (s->p.sojourn)
        p->lb.t_enq = s->now;
    struct port *pt = &s->ports[out];
    /* Victim statistics (fct.csv): a flow joining a congestion port is one of
     * the congestion's own flows. A congestion port (TCD's, SIGCOMM'21) queues
     * because its link is busy, not because PFC stopped it: not paused, no
     * packet in it that waited through a PAUSE, and at least as many bytes as
     * one ingress may hold before PAUSE. The queue's bytes are tested first,
     * so the flow's record is touched only at such a port. */
    if (p->type == PKT_DATA && q != 0 && s->p.pfc && !pt->q[q].paused_left && !(pt->paused_mask & (1u << q)) &&
        pt->q[q].bytes && pt->q[q].bytes >= mmu_pfc_threshold(s, &s->nodes[pt->node], pt) && p->flow < s->n_flows)
        FLOW_FLAG_SET(s->flows[p->flow].culprit);
    port_q_push(pt, q, p);
    for (uint32_t k = 0; k < s->n_slot; k++)
        if (s->slot[k].ops->sw_enqueue)
            s->slot[k].ops->sw_enqueue(s, out, slot_pstate(&s->slot[k], out), s->slot[k].par, p, q);
    port_kick(s, out);
}
