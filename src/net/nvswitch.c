/* Transfers between two GPUs of one server, over the server's NVSwitch
 * (issue 37: GPU servers, topology.type = rail; docs/collectives.md).
 *
 * The model: a non-blocking switch with one port per GPU of nvs.rate bps each
 * way. A transfer sends no packets. It holds its sender's port out for
 * size / rate (after the transfers that port already took), then its
 * receiver's port in for as long (after what that port was taking in, and not
 * before the sender's port let go of the last byte); its last byte is there
 * nvs.delay later, and the sender learns it nvs.delay after that (as an ACK
 * would tell it). Bytes are payload only (no headers on NVLink).
 *
 * Each end runs its own half, as a NIC's sender and receiver do, so that each
 * end writes only its own fields and its own GPU's port (struct qp's sender and
 * receiver blocks, nvs.free's out and in halves), and a server whose GPUs lie
 * in different partitions of a parallel run needs only messages that come a
 * whole nvs.delay ahead (topo/partition.h counts it as a cut link of that
 * delay). Four stages, each an EV_LOCAL whose id is 2 x flow + the end (0: the
 * sender's, 1: the receiver's):
 *   t0          sender:   the flow starts; its out port reserved until `sent`;
 *   sent        sender:   its last byte left the GPU (SIM_DEP_SENT, SIM_DEP_QP);
 *   t0 + delay  receiver: the transfer reaches the receiver's port (the reservation
 *                         of the in port, in the order the transfers started);
 *   got + delay receiver: the last byte is there (SIM_DEP_RECV), with
 *                         got = max(in port free + size / rate, sent);
 *   got + 2 delay sender: it completes (the FCT's end).
 * The event for the other end is pushed on this partition's queue, or, in a
 * parallel run where the other GPU is in another partition, sent to it as a
 * message with its time and handle (net/shard.c: par_post), which lands in
 * the serial run's order. The receiver's reservation carries `sent` (struct
 * qp's nv_sent, the receiver's). */
#include "net/net_impl.h"
#include "core/xalloc.h"

int nvs_setup(struct sim *s, uint32_t gpus, uint64_t rate, simtime_t delay)
{
    s->nvs.rate = rate;
    s->nvs.delay = delay;
    uint32_t n = 0;
    for (uint32_t i = 0; gpus > 1 && i < s->n_flows; i++) {
        struct qp *f = &s->flows[i];
        if ((uint32_t)s->host_index[f->src] / gpus != (uint32_t)s->host_index[f->dst] / gpus)
            continue;
        f->local = true;
        f->ideal_fct = tx_time(f->size, rate) + 2 * delay;
        n++;
    }
    if (n && (uint64_t)s->n_flows * 2 - 1 > EV_ID_MAX) /* an EV_LOCAL's id is 2 x flow + the end */
        return -1;
    if (n)
        s->nvs.free = xcalloc(2 * (size_t)s->n_hosts, sizeof *s->nvs.free);
    return 0;
}

/* The stage `id` (2 x flow + end) at `at`, at host node `node`: here, or in its
 * own partition (a message); a receiver's reservation carries `sent`. */
static void post(struct sim *s, uint32_t node, simtime_t at, uint32_t id, simtime_t sent)
{
    if (s->is_shard && par_post(s, node, at, id, sent))
        return;
    nvs_arrive(s, at, id, sent);
}

void nvs_arrive(struct sim *s, simtime_t at, uint32_t id, simtime_t sent)
{
    if (id & 1)
        s->flows[id >> 1].nv_sent = sent;
    evq_push(&s->evq, at, EV_LOCAL, id);
}

void nvs_start(struct sim *s, struct qp *f)
{
    f->state = FLOW_ACTIVE;
    simtime_t *out = &s->nvs.free[2 * (size_t)s->host_index[f->src]];
    simtime_t sent = (*out > s->now ? *out : s->now) + tx_time(f->size, s->nvs.rate);
    *out = sent;
    evq_push(&s->evq, sent, EV_LOCAL, 2 * f->id);
    post(s, f->dst, sent + s->nvs.delay, 2 * f->id + 1, sent);
}

void nvs_stage(struct sim *s, uint32_t id)
{
    struct qp *f = &s->flows[id >> 1];
    if (!(id & 1)) { /* the sender's */
        if (f->snd_high < f->size) { /* its last byte left the sender's GPU */
            f->snd_nxt = f->snd_high = f->size;
            if (s->deps)
                deps_sent(s, f);
        } else {
            f->snd_una = f->size;
            flow_complete(s, f);
        }
    } else if (f->nv_sent >= 0) { /* the receiver's port takes it in */
        simtime_t *in = &s->nvs.free[2 * (size_t)s->host_index[f->dst] + 1];
        simtime_t got = *in + tx_time(f->size, s->nvs.rate);
        if (got < f->nv_sent)
            got = f->nv_sent;
        *in = got;
        f->nv_sent = -1;
        evq_push(&s->evq, got + s->nvs.delay, EV_LOCAL, id);
    } else { /* the last byte is there */
        f->rcv_nxt = f->size;
        f->rcv_done = s->now;
        if (s->deps)
            deps_recv(s, f);
        post(s, f->src, s->now + s->nvs.delay, id - 1, -1);
    }
}
