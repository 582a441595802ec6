/* Flows that start when others have finished (collectives, the flow file's
 * dependency column): a gated flow is left out of the start order; when the
 * last of its prerequisites is met, one EV_FLOW_DEP is pushed for it at that
 * time plus its delay, or at its own start if that is later. A prerequisite
 * is met when the flow completes (flow_complete: the sender has the last
 * ACK, as the FCT counts); for a SIM_DEP_SENT or SIM_DEP_QP one, when its last
 * new byte is handed to the sender's link (make_data: a next message follows
 * back to back, as a NIC takes a queue pair's next work request); for a
 * SIM_DEP_RECV one, when its receiver has the last byte in order
 * (receive_data: a collective's next step is triggered by the data having
 * arrived, at the receiving host, as NCCL's and htsim's recv_done triggers).
 * A flow that continues a queue pair (SIM_DEP_QP) takes over the previous
 * message's CC and balancer state at its start (flow_start_on).
 * A SIM_DEP_START prerequisite is met when that flow starts (flow_start_on),
 * and only bounds the dependent's start from below: it starts no earlier than
 * that flow did, its delay counting from its other prerequisites (SimAI's
 * receive posting, simai.c). Such a flow keeps its start floor as each of its
 * prerequisites is met, since the one met last may be the start.
 * Dependents are released in ascending flow id, so a seed still reproduces
 * a run bit for bit. */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>

/* CSR of the flows waiting for each flow, those with one of the flags in `want` (0: none). */
static void csr(uint32_t n, const uint32_t *off, const uint32_t *pre, uint32_t want, uint32_t **o_off, uint32_t **o_v)
{
    const uint32_t flags = SIM_DEP_SENT | SIM_DEP_RECV | SIM_DEP_QP | SIM_DEP_START;
    uint32_t *so = xcalloc((size_t)n + 1, sizeof *so), m = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = off[i]; k < off[i + 1]; k++)
            if (want ? (pre[k] & want) != 0 : !(pre[k] & flags)) {
                so[(pre[k] & SIM_DEP_ID) + 1]++;
                m++;
            }
    for (uint32_t i = 0; i < n; i++)
        so[i + 1] += so[i];
    uint32_t *v = xcalloc(m ? m : 1, sizeof *v), *fill = xcalloc(n ? n : 1, sizeof *fill);
    for (uint32_t i = 0; i < n; i++)
        fill[i] = so[i];
    for (uint32_t i = 0; i < n; i++) /* ascending dependent within each list */
        for (uint32_t k = off[i]; k < off[i + 1]; k++)
            if (want ? (pre[k] & want) != 0 : !(pre[k] & flags))
                v[fill[pre[k] & SIM_DEP_ID]++] = i;
    free(fill);
    *o_off = so;
    *o_v = v;
}

void sim_deps_set(struct sim *s, const uint32_t *off, const uint32_t *pre, const simtime_t *delay)
{
    uint32_t n = s->n_flows;
    struct sim_deps *d = xcalloc(1, sizeof *d);
    d->gated = xcalloc(n ? n : 1, 1);
    d->wait = xcalloc(n ? n : 1, sizeof *d->wait);
    d->delay = xcalloc(n ? n : 1, sizeof *d->delay);
    for (uint32_t i = 0; i < n; i++) {
        d->wait[i] = off[i + 1] - off[i];
        d->gated[i] = d->wait[i] > 0;
        d->delay[i] = delay[i];
    }
    csr(n, off, pre, 0, &d->succ_off, &d->succ);
    csr(n, off, pre, SIM_DEP_SENT | SIM_DEP_QP, &d->sent_off, &d->sent);
    csr(n, off, pre, SIM_DEP_RECV, &d->recv_off, &d->recv);
    csr(n, off, pre, SIM_DEP_START, &d->start_off, &d->start);
    d->floor = xcalloc(n ? n : 1, 1);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = off[i]; k < off[i + 1]; k++)
            if (pre[k] & SIM_DEP_START)
                d->floor[i] = 1;
    d->qp_prev = xcalloc(n ? n : 1, sizeof *d->qp_prev);
    for (uint32_t i = 0; i < n; i++) {
        d->qp_prev[i] = UINT32_MAX;
        for (uint32_t k = off[i]; k < off[i + 1]; k++)
            if (pre[k] & SIM_DEP_QP)
                d->qp_prev[i] = pre[k] & SIM_DEP_ID;
    }
    s->deps = d;
}

/* by_start: the prerequisites met are starts (SIM_DEP_START): no delay. */
static void release(struct sim *s, const uint32_t *v, uint32_t from, uint32_t to, bool by_start)
{
    struct sim_deps *d = s->deps;
    for (uint32_t k = from; k < to; k++) {
        uint32_t j = v[k];
        struct qp *g = &s->flows[j];
        simtime_t at = s->now + (by_start ? 0 : d->delay[j]);
        if (d->floor[j] && g->start < at)
            g->start = at;
        if (--d->wait[j])
            continue;
        if (g->start > at)
            at = g->start;
        g->start = at;
        evq_push(&s->evq, at, EV_FLOW_DEP, j); /* never started from inside the NIC's loop */
    }
}

void deps_release(struct sim *s, const struct qp *f)
{
    release(s, s->deps->succ, s->deps->succ_off[f->id], s->deps->succ_off[f->id + 1], false);
}

void deps_sent(struct sim *s, const struct qp *f)
{
    release(s, s->deps->sent, s->deps->sent_off[f->id], s->deps->sent_off[f->id + 1], false);
}

void deps_recv(struct sim *s, const struct qp *f)
{
    release(s, s->deps->recv, s->deps->recv_off[f->id], s->deps->recv_off[f->id + 1], false);
}

void deps_started(struct sim *s, const struct qp *f)
{
    if (s->deps->start_off[f->id] != s->deps->start_off[f->id + 1])
        release(s, s->deps->start, s->deps->start_off[f->id], s->deps->start_off[f->id + 1], true);
}

void deps_start(struct sim *s, uint32_t id)
{
    struct qp *f = &s->flows[id];
    uint32_t prev = s->deps->qp_prev[id];
    if (f->state == FLOW_PENDING)
        flow_start_on(s, f, prev == UINT32_MAX ? NULL : &s->flows[prev]);
}

/* A release pushes its EV_FLOW_DEP on the queue of whoever met the last
 * prerequisite, and counts the flow's wait down there; a parallel run runs a
 * flow's start at its source's partition (sim.c dispatch). So the serial run's
 * release is made as is when every prerequisite is met in the partition of the
 * released flow's own source host, where it is met:
 *  - none (completion: the last ACK at the prerequisite's sender, flow_complete),
 *    SIM_DEP_SENT and SIM_DEP_QP (make_data at its sender), SIM_DEP_START (its
 *    start): at src(pre);
 *  - SIM_DEP_RECV (receive_data at its receiver): at dst(pre).
 * A collective's prerequisites all are (docs/collectives.md: a step waits for
 * what its rank received and sent; an iteration's first piece for its rank's
 * last step, plus compute_gap at that rank), except on multi-port NICs, where
 * a GPU's port-1 flows wait for what its port 0 (another leaf's host)
 * received. A flow file's may not be: a flow after a flow of a host in another
 * partition completed, sent or received would have to be a message, which the
 * engine does not send. A QP chain copies its predecessor's
 * per-flow balancer state at the sender, which must then be the sender's
 * alone (lb_ops.flow_state_at_dst). */
const char *deps_parallel_refusal(const struct sim *s, const uint32_t *part)
{
    struct sim_deps *d = s->deps;
    static const char *const kind[] = {"completion (its last ACK at its sender)", "last byte sent",
                                       "last byte received (at its receiver)", "start"};
    const uint32_t *lists[4][2] = {{d->succ_off, d->succ}, {d->sent_off, d->sent}, {d->recv_off, d->recv},
                                   {d->start_off, d->start}};
    for (uint32_t i = 0; i < s->n_flows; i++)
        for (int k = 0; k < 4; k++) {
            uint32_t at = k == 2 ? s->flows[i].dst : s->flows[i].src;
            for (uint32_t e = lists[k][0][i]; e < lists[k][0][i + 1]; e++) {
                uint32_t j = lists[k][1][e];
                if (part[s->flows[j].src] != part[at]) {
                    snprintf(d->why, sizeof d->why,
                             "flow %u waits for flow %u's %s, met at host%u, in another partition than its own source "
                             "host%u: the release would have to cross partitions",
                             j, i, kind[k], s->host_index[at], s->host_index[s->flows[j].src]);
                    return d->why;
                }
            }
        }
    if (s->lb && s->lb->flow_state_at_dst)
        for (uint32_t j = 0; j < s->n_flows; j++)
            if (d->qp_prev[j] != UINT32_MAX) {
                snprintf(d->why, sizeof d->why,
                         "flow %u continues flow %u's queue pair and takes over its balancer state, which %s's "
                         "destination switch writes too, in the destination's partition",
                         j, d->qp_prev[j], s->lb->name);
                return d->why;
            }
    return NULL;
}

void sim_deps_free(struct sim *s)
{
    struct sim_deps *d = s->deps;
    if (!d)
        return;
    free(d->gated);
    free(d->wait);
    free(d->delay);
    free(d->succ_off);
    free(d->succ);
    free(d->sent_off);
    free(d->sent);
    free(d->recv_off);
    free(d->recv);
    free(d->start_off);
    free(d->start);
    free(d->floor);
    free(d->qp_prev);
    free(d);
    s->deps = NULL;
}
