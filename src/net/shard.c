/* The model's side of a parallel run of one fabric (issue 27, issue 39;
 * docs/parallel.md has the design and what each part of rocesim needs). The
 * engine (src/engine/: windows, threads, messages, ranks, records) runs
 * partitions it knows only as pointers; this file makes the fabric's
 * partitions and implements struct eng_ops for them.
 *
 * The topology is split into partitions (topo/partition.h: edge switches with
 * their hosts; aggregation and core switches placed by rule), many more than
 * threads. Each partition is a shard: a shallow copy of the run's struct sim
 * that shares every table (nodes, ports, NICs, flows, scheme state) but has
 * its own event queue, packet pool, counters and clock, so the code of
 * switch.c, nic.c, transport.c and the schemes runs unchanged on it, touching
 * only its own nodes' state. A packet or PFC frame sent on a link between two
 * partitions (port.cut) becomes a message (eng_send: its bytes, for the
 * sending port) instead of going onto the wire; the receiving shard copies it
 * into its own pool at the start of its next window, onto the wire of the
 * receiving port (a cut port never uses its own, so each line is written by
 * one partition), and pushes the ARRIVE the serial loop would have pushed
 * (same time, same port: the same key).
 *
 * Between windows the engine asks the model to run the run's global events
 * (monitors, the watchdog, the PFC deadlock check, link failures and
 * slowdowns: the main sim's queue) on counters summed from the shards
 * (merge_counters), and hands it what the shards logged, in event order (PFC
 * frames into pfc.csv, hold queue changes into their fabric-wide peak).
 *
 * Same bytes as the serial loop: same-time events run in (time, kind, object)
 * order in both (core/eventq.h), which no partition's timing can change; a
 * window bounded by a global event at (t, h) runs only the events the serial
 * loop runs before it. The serial loop ends after the event that completes the
 * last flow and frees the last packet; a shard records when it last became
 * quiet (its flows done, its starts made, none of its packets in use), and the
 * run ends at the latest of those once every shard is quiet and no message is
 * in flight. Events the shards ran after that instant are timers of finished
 * flows and wake-ups with nothing to send, which change nothing.
 *
 * Across MPI ranks (struct eng_comm, from cli/dist_mpi.c) every process holds
 * a shard for every partition but runs only its own; rank 0 merges every
 * rank's records and gets every result at the end (results_to_root), and its
 * monitors read the other ranks' state lent to it (lend_to_root).
 * docs/parallel.md, "Across MPI ranks". */
#include "net/net_impl.h"
#include "core/proc.h"
#include "core/xalloc.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a shard logs for the model's event-ordered outputs (struct eng_rec's
 * body): a PFC frame received (pfc.csv), a change of the packets held in LB
 * hold queues (their fabric-wide peak), a flow completed (hooks.flow_done:
 * an ns-3 configuration's fct.txt, in completion order). */
enum { REC_PFC, REC_HELD, REC_FLOW };
struct rec_body {
    uint32_t port;  /* REC_PFC; REC_FLOW: the flow */
    int32_t delta;  /* REC_HELD */
    uint8_t what, prio;
    bool pause;
    uint8_t pad[5];
};
_Static_assert(sizeof(struct rec_body) == sizeof(((struct eng_rec *)0)->body), "a record's body is 16 bytes");

struct shard {
    _Alignas(64) struct sim s; /* first: port.c and deadlock.c find the shard from the sim; each shard on its own lines */
    struct par *par;
    struct eng_part *ep;       /* its engine block (on lines of its own) */
    struct eng_quiet *q;       /* ...whose quiet record names the event running */
    uint32_t id;
};

struct par {
    struct sim *main;
    struct eng *eng;
    const struct eng_comm *comm; /* NULL: one process */
    struct shard *sh;
    uint32_t n;
    uint32_t *peer;            /* port -> peer port, read-only */
    uint32_t *dest;            /* port -> the shard its link delivers to (its peer's), read-only */
    uint32_t *part;            /* node -> its partition, read-only (the other GPU of an NVSwitch transfer: par_post) */
    struct pktq **wire;        /* port -> where its link's packets wait (port.cut: at the peer) */
    bool *by_ref;              /* port -> its link's packets go to a partition of this process: as pointers */
    atomic_flag spare_lock;    /* spare packets, which partitions gave back and take when their pools run dry */
    struct pkt *spare;
    int64_t held_now;          /* packets in hold queues, fabric-wide, at the last window's end */
    uint64_t held_peak;        /* ...most at once: the serial run's lb_held_peak */
    struct bytes x;            /* what this rank sends rank 0 */
    bool sample_gather;        /* rank 0's sample hook reads ports and flows anywhere (its monitors) */
    struct borrowed *lent;     /* rank 0, during a sample: other ranks' state put in its copies, and what was there */
    size_t nlent, caplent;
    uint64_t net_packets;      /* rank 0 after the run: packets in the network, fabric-wide */
    bool gathered;             /* ...once results_to_root has run */
    uint64_t *rss;             /* struct eng_stats's rss (results_to_root) */
};

/* ---------------------------------------------------------------- messages */

/* The bytes of a packet that mean something: all but the INT records it
 * does not carry (the union holds feedback fields or nhop records). A
 * message copies these twice, out of the sender's pool and into the
 * receiver's: 192 of 288 bytes for a packet without INT. */
static inline size_t pkt_bytes(const struct pkt *p)
{
    size_t recs = (size_t)p->nhop * sizeof p->hop[0];
    return offsetof(struct pkt, fb) + (recs > sizeof p->fb ? recs : sizeof p->fb);
}

/* A packet to another partition of this process goes by reference: the
 * message is its pointer, and the receiver takes the packet itself (its pool
 * counts it from then on: pool.owned). Across ranks its bytes go. Copying
 * them out and in cost ~180 instructions per message (memcpy of 192 bytes
 * twice, an allocation and a free): ~43 per event on fattree-1024 with pods. */
_Static_assert(offsetof(struct pkt, fb) > sizeof(struct pkt *), "a packet's bytes are never as short as a pointer");

/* noinline: the serial loop's port_kick keeps the code it had (with the engine's send inlined into it, LTO
 * chose otherwise for port_kick and sim_run: +0.33 % instructions on leafspine-128 serially). */
__attribute__((noinline)) void par_send(struct sim *s, uint32_t pid, struct pkt *p)
{
    struct shard *sh = (struct shard *)s;
    const struct par *P = sh->par;
    if (P->by_ref[pid]) {
        eng_send_ref(sh->ep, P->dest[pid], pid, p->t_arrive, p);
        s->pool.in_use--;
        s->pool.owned--;
        return;
    }
    eng_send(sh->ep, P->dest[pid], pid, p->t_arrive, p, (uint32_t)pkt_bytes(p));
    pkt_free(s, p);
}

/* A message's packet, now this partition's: the one it points to, or a copy
 * of its bytes in a packet of this pool. */
static inline struct pkt *msg_packet(struct sim *s, const void *bytes, uint32_t len)
{
    struct pkt *p;
    if (len == sizeof p) {
        memcpy(&p, bytes, sizeof p);
        s->pool.owned++;
        if (++s->pool.in_use > s->pool.peak)
            s->pool.peak = s->pool.in_use;
    } else {
        p = pkt_alloc(s);
        memcpy(p, bytes, len);
    }
    p->next = NULL;
    return p;
}

/* A message that is not a packet: an NVSwitch transfer's stage for the
 * other GPU's partition (nvswitch.c), under an id no port has. */
#define MSG_LOCAL 0x80000000u
struct local_msg {
    simtime_t at, sent;
    uint32_t id, pad; /* (no unset bytes cross ranks) */
};

bool par_post(struct sim *s, uint32_t node, simtime_t at, uint32_t id, simtime_t sent)
{
    struct shard *sh = (struct shard *)s;
    uint32_t to = sh->par->part[node];
    if (to == sh->id)
        return false;
    struct local_msg m = {.at = at, .sent = sent, .id = id};
    eng_send(sh->ep, to, MSG_LOCAL, at, &m, sizeof m);
    return true;
}

/* The previous window's messages to this shard onto their wires, in each
 * sender's order (a wire's packets all come from one sender); an NVSwitch
 * stage onto the queue, at its own time and handle. */
static void deliver(struct shard *sh)
{
    struct sim *s = &sh->s;
    const void *bytes;
    uint32_t pid, len;
    while ((bytes = eng_recv_next(sh->ep, &pid, &len))) {
        if (pid == MSG_LOCAL) {
            struct local_msg m;
            memcpy(&m, bytes, sizeof m);
            nvs_arrive(s, m.at, m.id, m.sent);
            continue;
        }
        struct pktq *w = par_wire(s, pid); /* the receiving port's: this partition's own line */
        struct pkt *p = msg_packet(s, bytes, len);
        bool idle = w->head == NULL;
        q_push(w, p);
        if (idle)
            arrive_push(s, pid, p->t_arrive);
    }
}

/* Packets handed over by reference gather where they are freed: a
 * partition holding more than SPARE_HIGH unused gives all but SPARE_KEEP of
 * them to the run's spares (at the start of its window), and an empty pool
 * takes up to SPARE_KEEP from there before it allocates (par_pool_refill).
 * So memory stays bounded when traffic between partitions is lopsided. */
#define SPARE_KEEP 4096u
#define SPARE_HIGH (2 * SPARE_KEEP)

static void spare_lock(struct par *P)
{
    while (atomic_flag_test_and_set_explicit(&P->spare_lock, memory_order_acquire))
        ;
}

static void spare_unlock(struct par *P) { atomic_flag_clear_explicit(&P->spare_lock, memory_order_release); }

/* The first n packets of *list, cut off it (n >= 1, *list holds at least n). */
static struct pkt *list_cut(struct pkt **list, uint64_t n, struct pkt **tail)
{
    struct pkt *head = *list, *t = head;
    for (uint64_t k = 1; k < n; k++)
        t = t->next;
    *list = t->next;
    t->next = NULL;
    *tail = t;
    return head;
}

static void pool_give(struct shard *sh)
{
    struct pkt_pool *pl = &sh->s.pool;
    uint64_t n = pl->owned - pl->in_use - SPARE_KEEP;
    struct pkt *last, *tail;
    struct pkt *kept = list_cut(&pl->free, SPARE_KEEP, &last); /* its first SPARE_KEEP (the ones used last) */
    struct pkt *give = list_cut(&pl->free, n, &tail);          /* ...and all the rest */
    pl->free = kept;
    pl->owned -= n;
    spare_lock(sh->par);
    tail->next = sh->par->spare;
    sh->par->spare = give;
    spare_unlock(sh->par);
}

bool par_pool_refill(struct sim *s)
{
    struct par *P = s->par;
    spare_lock(P);
    uint64_t n = 0;
    struct pkt *tail = NULL, *got = NULL;
    if (P->spare) {
        for (tail = P->spare, n = 1; n < SPARE_KEEP && tail->next; n++)
            tail = tail->next;
        got = P->spare;
        P->spare = tail->next;
    }
    spare_unlock(P);
    if (!got)
        return false;
    tail->next = s->pool.free;
    s->pool.free = got;
    s->pool.owned += n;
    return true;
}

/* ---------------------------------------------------------------- hooks */

static void record(struct shard *sh, struct rec_body b)
{
    eng_record(sh->ep, sh->s.now, sh->q->handle, &b);
}

static void pfc_record(void *ctx, const struct sim *s, uint32_t port, int prio, bool pause)
{
    (void)s;
    record(ctx, (struct rec_body){.what = REC_PFC, .port = port, .prio = (uint8_t)prio, .pause = pause});
}

static void flow_record(void *ctx, const struct sim *s, const struct qp *f)
{
    (void)s;
    record(ctx, (struct rec_body){.what = REC_FLOW, .port = f->id});
}

void par_held(struct sim *s, int32_t delta)
{
    record((struct shard *)s, (struct rec_body){.what = REC_HELD, .delta = delta});
}

void par_deadlock_request(struct sim *s)
{
    eng_request(((struct shard *)s)->ep, s->now);
}

struct sim *par_owner(struct sim *s, uint32_t pid)
{
    struct par *P = s->par;
    struct sim *o = &P->sh[P->dest[P->peer[pid]]].s;
    o->now = s->now;
    return o;
}

/* The tables a reroute rebuilds, as the run's sim now has them. */
static void sync_tables(struct par *P)
{
    struct sim *m = P->main;
    lb_paths_alloc(m);
    for (uint32_t i = 0; i < P->n; i++) {
        struct sim *s = &P->sh[i].s;
        s->route_row0 = m->route_row0;
        s->route_rows = m->route_rows;
        s->route_off = m->route_off;
        s->route_cnt = m->route_cnt;
        s->route_ports = m->route_ports;
        s->edge_node = m->edge_node;
        s->host_edge = m->host_edge;
        s->host_port = m->host_port;
        s->paths = m->paths;
        s->paths_epoch = m->paths_epoch;
    }
}

static void message_lost(void *ctx, const void *bytes, uint32_t len)
{
    struct sim *s = ctx;
    if (len == sizeof(struct pkt *)) { /* by reference: the packet joins the receiver's pool, unused */
        struct pkt *p;
        memcpy(&p, bytes, sizeof p);
        link_lost(s, p);
        p->next = s->pool.free;
        s->pool.free = p;
        s->pool.owned++;
        return;
    }
    struct pkt p;
    memcpy(&p, bytes, len);
    link_lost(s, &p);
}

/* Messages sent over the failed link in the last window are packets on its
 * wire: lost with it, as port_down loses what is on a wire; counted by the
 * partition they were going to (across ranks, the one that holds them). */
static void lose_messages(struct par *P, uint32_t pid)
{
    eng_drop(P->eng, P->dest[P->peer[pid]], P->dest[pid], pid, message_lost, &P->sh[P->dest[pid]].s);
}

void par_tables_changed(struct sim *m, uint32_t pid, bool up)
{
    struct par *P = m->par;
    sync_tables(P);
    if (!up && P->dest[P->peer[pid]] != P->dest[pid]) { /* a cut link (its peer's peer is pid) */
        lose_messages(P, pid);
        lose_messages(P, P->peer[pid]);
    }
}

bool par_pending(const struct sim *s)
{
    const struct par *P = s->par;
    bool any = !evq_empty(&s->evq) || eng_in_flight(P->eng);
    for (uint32_t i = 0; i < P->n && !any; i++)
        any = eng_local(P->eng, i) && !evq_empty(&P->sh[i].s.evq);
    return eng_any(P->eng, any); /* (collective: every rank runs the same global events) */
}

/* ---------------------------------------------------------------- results */

enum { RES_SENDER, RES_RECEIVER, RES_FLAGS, RES_PORT, RES_EVENTS, RES_PACKETS, RES_RSS };
#define QP_SND offsetof(struct qp, snd_nxt)  /* struct qp: the sender's block */
#define QP_RCV offsetof(struct qp, rcv_nxt)  /* ...the receiver's */
#define QP_FLAGS offsetof(struct qp, ever_paused) /* ...what switches anywhere set */

static void res_put(struct par *P, uint8_t tag, uint32_t id)
{
    bytes_put(&P->x, &tag, 1);
    bytes_put(&P->x, &id, sizeof id);
}

/* After a run across ranks, what rank 0 writes, from the rank that holds it:
 * each flow's start, completion and sender's fields (from its source's rank), its
 * receiver's fields (from its destination's), the flags and loss counts that
 * switches anywhere set (or-ed and summed), the pause statistics of each
 * port, each partition's events, and the packets left in the network.
 * Pointers (the IRN bitmaps) do not travel. */
static void results_to_root(struct par *P)
{
    struct sim *m = P->main;
    uint32_t me = (uint32_t)eng_rank(P->eng);
    P->x.len = 0;
    uint64_t net = sim_packets_in_network(m) - m->ctrl_pending.n - m->lb_held_now; /* ports and NICs here */
    for (uint32_t i = 0; i < P->n; i++) {
        const struct sim *s = &P->sh[i].s;
        if (eng_local(P->eng, i))
            net += s->ctrl_pending.n + s->lb_held_now;
    }
    /* (before rank 0 writes what the others send into its copies of their ports) */
    uint64_t rss[3] = {proc_peak_rss(), proc_rss(), proc_held_bytes(m->ports, (size_t)m->n_ports * sizeof *m->ports)};
    if (me == 0) {
        P->net_packets = net;
        free(P->rss);
        P->rss = xcalloc(3 * (size_t)eng_ranks(P->eng), sizeof *P->rss);
        for (int i = 0; i < 3; i++)
            P->rss[i * eng_ranks(P->eng)] = rss[i];
    } else {
        res_put(P, RES_PACKETS, 0);
        bytes_put(&P->x, &net, sizeof net);
        res_put(P, RES_RSS, me);
        bytes_put(&P->x, rss, sizeof rss);
        for (uint32_t i = 0; i < P->n; i++) {
            if (!eng_local(P->eng, i))
                continue;
            res_put(P, RES_EVENTS, i);
            bytes_put(&P->x, &P->sh[i].s.c.events, sizeof(uint64_t));
        }
        for (uint32_t f = 0; f < m->n_flows; f++) {
            struct qp q = m->flows[f];
            q.irn_tx = q.irn_rx = NULL;
            if (sim_node_here(m, q.src)) {
                res_put(P, RES_SENDER, f);
                bytes_put(&P->x, &q.finish, sizeof q.finish);
                bytes_put(&P->x, &q.start, sizeof q.start); /* a gated flow's, set when it was released (deps.c) */
                bytes_put(&P->x, &q.state, sizeof q.state);
                bytes_put(&P->x, (const uint8_t *)&q + QP_SND, QP_RCV - QP_SND);
            }
            if (sim_node_here(m, q.dst)) {
                res_put(P, RES_RECEIVER, f);
                bytes_put(&P->x, (const uint8_t *)&q + QP_RCV, QP_FLAGS - QP_RCV);
            }
            if (q.ever_paused || q.sw_paused || q.culprit || q.lost) {
                uint8_t bits = (uint8_t)(q.ever_paused | q.sw_paused << 1 | q.culprit << 2);
                res_put(P, RES_FLAGS, f);
                bytes_put(&P->x, &bits, 1);
                bytes_put(&P->x, &q.lost, sizeof q.lost);
            }
        }
        for (uint32_t p = 0; p < m->n_ports; p++) {
            const struct port *pt = &m->ports[p];
            if (!sim_port_here(m, p) || !(pt->pause_frames_rx || pt->paused_time || pt->paused_mask))
                continue;
            res_put(P, RES_PORT, p);
            bytes_put(&P->x, &pt->paused_mask, sizeof pt->paused_mask);
            bytes_put(&P->x, &pt->pause_frames_rx, sizeof pt->pause_frames_rx);
            bytes_put(&P->x, &pt->paused_time, sizeof pt->paused_time);
            bytes_put(&P->x, pt->paused_since, sizeof pt->paused_since);
        }
    }
    const uint8_t *rb;
    size_t n = eng_to_root(P->eng, P->x.b, P->x.len, &rb);
    for (const uint8_t *at = rb, *end = at + n; at < end;) {
        uint8_t tag;
        uint32_t id;
        eng_get(&at, &tag, 1);
        eng_get(&at, &id, sizeof id);
        if (tag <= RES_FLAGS) {
            struct qp *q = &m->flows[id];
            uint64_t *keep[2] = {q->irn_rx, q->irn_tx}; /* this process's block, if any: pointers do not travel */
            if (tag == RES_SENDER) {
                eng_get(&at, &q->finish, sizeof q->finish);
                eng_get(&at, &q->start, sizeof q->start);
                eng_get(&at, &q->state, sizeof q->state);
                eng_get(&at, (uint8_t *)q + QP_SND, QP_RCV - QP_SND);
            } else if (tag == RES_RECEIVER) {
                eng_get(&at, (uint8_t *)q + QP_RCV, QP_FLAGS - QP_RCV);
            } else {
                uint8_t bits;
                uint32_t lost;
                eng_get(&at, &bits, 1);
                eng_get(&at, &lost, sizeof lost);
                q->ever_paused |= bits & 1;
                q->sw_paused |= bits >> 1 & 1;
                q->culprit |= bits >> 2 & 1;
                q->lost += lost;
            }
            q->irn_rx = keep[0], q->irn_tx = keep[1];
            continue;
        }
        switch (tag) {
        case RES_PORT: {
            struct port *pt = &m->ports[id];
            eng_get(&at, &pt->paused_mask, sizeof pt->paused_mask);
            eng_get(&at, &pt->pause_frames_rx, sizeof pt->pause_frames_rx);
            eng_get(&at, &pt->paused_time, sizeof pt->paused_time);
            eng_get(&at, pt->paused_since, sizeof pt->paused_since);
            break;
        }
        case RES_EVENTS:
            eng_get(&at, &P->sh[id].s.c.events, sizeof(uint64_t));
            break;
        case RES_RSS:
            for (int i = 0; i < 3; i++)
                eng_get(&at, &P->rss[i * eng_ranks(P->eng) + id], sizeof(uint64_t));
            break;
        default: { /* RES_PACKETS */
            uint64_t x;
            eng_get(&at, &x, sizeof x);
            P->net_packets += x;
        }
        }
    }
    P->gathered = eng_rank(P->eng) == 0;
}

/* ---------------------------------------------------------------- samples */

/* Another rank's port or flow as rank 0's monitors read it, or what rank 0's
 * copy held before (put back after the sample: its copies of other ranks'
 * flows stay as set up, and of their ports as never set up, zeros, which the
 * results rely on). */
struct borrowed {
    uint8_t tag;
    uint32_t id;
    uint64_t qbytes[NQ], tx_bytes, ack_bytes, rate, rcv_nxt;
    uint8_t paused_mask, state;
};
enum { LEND_PORT, LEND_SENDER, LEND_RECEIVER };

/* The fields the monitors read (stats/monitor.c): a port's queued bytes
 * (for a NIC's port, its ACK queue's too), bytes sent, rate and paused classes; a
 * flow's state and pacing rate at its sender, its rcv_nxt at its receiver.
 * Swaps them between the sim and b, so the same call lends and gives back. */
static void lend_swap(struct sim *m, struct borrowed *b)
{
    struct borrowed was = {.tag = b->tag, .id = b->id};
    if (b->tag == LEND_PORT) {
        struct port *pt = &m->ports[b->id];
        int32_t hi = m->host_index[sim_port_node(m, b->id)];
        for (int q = 0; q < NQ; q++) {
            was.qbytes[q] = pt->q[q].bytes;
            pt->q[q].bytes = b->qbytes[q];
        }
        was.tx_bytes = pt->tx_bytes, pt->tx_bytes = b->tx_bytes;
        was.rate = pt->rate, pt->rate = b->rate;
        was.paused_mask = pt->paused_mask, pt->paused_mask = b->paused_mask;
        if (hi >= 0)
            was.ack_bytes = m->nics[hi].ackq.bytes, m->nics[hi].ackq.bytes = b->ack_bytes;
    } else if (b->tag == LEND_SENDER) {
        struct qp *f = &m->flows[b->id];
        was.state = f->state, f->state = b->state;
        was.rate = f->rate, f->rate = b->rate;
    } else {
        struct qp *f = &m->flows[b->id];
        was.rcv_nxt = f->rcv_nxt, f->rcv_nxt = b->rcv_nxt;
    }
    *b = was;
}

/* Every rank's sampled state to rank 0, into its copies (what they held
 * kept in P->lent). Sent: ports with anything to show (rank 0's copies hold
 * zeros), active senders, receivers with bytes. */
static void lend_to_root(struct par *P)
{
    struct sim *m = P->main;
    P->x.len = 0;
    if (eng_rank(P->eng) != 0) {
        for (uint32_t p = 0; p < m->n_ports; p++) {
            if (!sim_port_here(m, p))
                continue;
            const struct port *pt = &m->ports[p];
            int32_t hi = m->host_index[pt->node];
            struct borrowed b = {.tag = LEND_PORT, .id = p, .tx_bytes = pt->tx_bytes, .rate = pt->rate, .paused_mask = pt->paused_mask,
                                 .ack_bytes = hi >= 0 ? m->nics[hi].ackq.bytes : 0};
            uint64_t any = b.tx_bytes | b.paused_mask | b.ack_bytes;
            for (int q = 0; q < NQ; q++)
                any |= b.qbytes[q] = pt->q[q].bytes;
            if (any)
                bytes_put(&P->x, &b, sizeof b);
        }
        for (uint32_t f = 0; f < m->n_flows; f++) {
            const struct qp *q = &m->flows[f];
            if (q->state == FLOW_ACTIVE && sim_node_here(m, q->src))
                bytes_put(&P->x, &(struct borrowed){.tag = LEND_SENDER, .id = f, .state = q->state, .rate = q->rate}, sizeof(struct borrowed));
            if (q->rcv_nxt && sim_node_here(m, q->dst))
                bytes_put(&P->x, &(struct borrowed){.tag = LEND_RECEIVER, .id = f, .rcv_nxt = q->rcv_nxt}, sizeof(struct borrowed));
        }
    }
    const uint8_t *rb;
    size_t n = eng_to_root(P->eng, P->x.b, P->x.len, &rb);
    P->nlent = 0;
    for (const uint8_t *at = rb, *end = at + n; at < end;) {
        if (P->nlent == P->caplent) {
            P->caplent = P->caplent ? 2 * P->caplent : 1024;
            P->lent = xrealloc(P->lent, P->caplent * sizeof *P->lent);
        }
        struct borrowed *b = &P->lent[P->nlent++];
        eng_get(&at, b, sizeof *b); /* (the same binary at every rank: the same layout) */
        lend_swap(m, b);
    }
}

simtime_t par_sample(struct sim *m)
{
    struct par *P = m->par;
    if (!P->comm)
        return m->hooks.sample(m->hooks.ctx, m);
    if (P->sample_gather)
        lend_to_root(P);
    simtime_t next = m->hooks.sample(m->hooks.ctx, m);
    for (size_t i = P->nlent; i-- > 0;) /* given back */
        lend_swap(m, &P->lent[i]);
    P->nlent = 0;
    simtime_t all[eng_ranks(P->eng)];
    eng_allgather(P->eng, &next, all, sizeof next);
    return all[0]; /* rank 0's: its monitors' and its watchdog's next */
}

/* The shards' counters summed into the main sim (peaks: the largest), for
 * the global events, the progress line and the outputs. */
static void merge_counters(struct par *P, uint64_t global_events)
{
    struct sim *m = P->main;
    struct sim_counters c;
    memset(&c, 0, sizeof c);
    uint64_t *cv = (uint64_t *)(void *)&c;
    const size_t head = offsetof(struct sim_counters, cc_stat) / sizeof(uint64_t);
    const size_t tail0 = offsetof(struct sim_counters, lb_ctrl_packets) / sizeof(uint64_t);
    const size_t tail1 = sizeof c / sizeof(uint64_t);
    uint64_t in_use = 0, peak = 0, held = 0, ctrl = 0, started = 0;
    for (uint32_t i = 0; i < P->n; i++) {
        if (!eng_local(P->eng, i))
            continue; /* a stub: its rank counts it */
        const struct sim *s = &P->sh[i].s;
        const uint64_t *sv = (const uint64_t *)(const void *)&s->c;
        for (size_t k = 0; k < head; k++)
            cv[k] += sv[k];
        for (size_t k = tail0; k < tail1; k++)
            cv[k] += sv[k];
        for (size_t b = 0; b < sizeof c.cc_stat / sizeof *c.cc_stat && s->c.cc_stat[b].ops; b++) {
            size_t k = 0;
            while (c.cc_stat[k].ops && c.cc_stat[k].ops != s->c.cc_stat[b].ops)
                k++;
            c.cc_stat[k].ops = s->c.cc_stat[b].ops;
            for (int j = 0; j < CC_STATS; j++)
                c.cc_stat[k].v[j] += s->c.cc_stat[b].v[j];
        }
        if (s->c.reorder_peak_bytes > m->c.reorder_peak_bytes)
            m->c.reorder_peak_bytes = s->c.reorder_peak_bytes;
        in_use += s->pool.in_use;
        peak += s->pool.peak;
        held += s->lb_held_now;
        ctrl += s->ctrl_pending.n;
        started += s->next_start;
    }
    c.reorder_peak_bytes = m->c.reorder_peak_bytes;
    if (P->comm) { /* every rank's sums, added up (collective) */
        enum { EXTRA = 5 };
        const size_t ncc = m->n_slot * CC_STATS, nv = head + (tail1 - tail0) + ncc + EXTRA;
        const size_t R = (size_t)eng_ranks(P->eng), peak_at = head + offsetof(struct sim_counters, reorder_peak_bytes) / sizeof(uint64_t) - tail0;
        uint64_t *v = xcalloc(nv * (R + 1), sizeof *v), *all = v + nv;
        memcpy(v, cv, head * sizeof *v);
        memcpy(v + head, cv + tail0, (tail1 - tail0) * sizeof *v);
        for (uint32_t k = 0; k < m->n_slot; k++) /* by slot: scheme tables have other addresses in other processes */
            for (size_t b = 0; b < sizeof c.cc_stat / sizeof *c.cc_stat && c.cc_stat[b].ops; b++)
                if (c.cc_stat[b].ops == m->slot[k].ops)
                    memcpy(v + head + (tail1 - tail0) + k * CC_STATS, c.cc_stat[b].v, sizeof c.cc_stat[b].v);
        uint64_t *x = v + nv - EXTRA;
        x[0] = in_use, x[1] = peak, x[2] = held, x[3] = ctrl, x[4] = started;
        eng_allgather(P->eng, v, all, nv * sizeof *v);
        for (size_t i = 0; i < nv; i++) {
            v[i] = 0;
            for (size_t r = 0; r < R; r++)
                v[i] = i == peak_at ? (all[r * nv + i] > v[i] ? all[r * nv + i] : v[i]) : v[i] + all[r * nv + i];
        }
        memcpy(cv, v, head * sizeof *v);
        memcpy(cv + tail0, v + head, (tail1 - tail0) * sizeof *v);
        memset(c.cc_stat, 0, sizeof c.cc_stat);
        for (uint32_t k = 0; k < m->n_slot; k++) {
            c.cc_stat[k].ops = m->slot[k].ops;
            memcpy(c.cc_stat[k].v, v + head + (tail1 - tail0) + k * CC_STATS, sizeof c.cc_stat[k].v);
        }
        in_use = x[0], peak = x[1], held = x[2], ctrl = x[3], started = x[4];
        m->c.reorder_peak_bytes = c.reorder_peak_bytes;
        free(v);
    }
    c.lb_held_peak = P->held_peak;
    c.events += global_events;
    m->c = c;
    m->pool.in_use = in_use;
    m->pool.peak = peak; /* the partitions' peaks, summed: an upper bound of the serial run's */
    m->lb_held_now = held;
    m->ctrl_pending.n = (uint32_t)ctrl;
    m->next_start = (uint32_t)started;
}

void par_gather_all(struct sim *s, const uint8_t **buf, size_t *len)
{
    if (s->par)
        eng_gather_all(s->par->eng, buf, len);
}

bool par_any(struct sim *s, bool mine)
{
    return s->par ? eng_any(s->par->eng, mine) : mine;
}

bool par_net_packets(const struct sim *s, uint64_t *n)
{
    const struct par *P = s->par;
    if (!P->comm || eng_rank(P->eng) != 0 || !P->gathered)
        return false;
    *n = P->net_packets;
    return true;
}

/* ---------------------------------------------------------------- eng_ops */

static uint64_t op_run(void *part, simtime_t bt, uint32_t bh, struct eng_quiet *q)
{
    struct shard *sh = part;
    deliver(sh);
    if (sh->s.pool.in_use) /* messages came: not quiet until they are gone */
        q->quiet = false;
    if (sh->s.pool.owned - sh->s.pool.in_use > SPARE_HIGH)
        pool_give(sh);
    return sim_run_window(&sh->s, bt, bh, q);
}

static simtime_t op_next(void *part, simtime_t *now)
{
    const struct shard *sh = part;
    *now = sh->s.now;
    return evq_top_time(&sh->s.evq);
}

static bool op_global_next(void *model, simtime_t *t, uint32_t *h)
{
    const struct sim *m = ((struct par *)model)->main;
    if (evq_empty(&m->evq))
        return false;
    *t = evq_top_time(&m->evq);
    *h = evq_peek_handle(&m->evq);
    return true;
}

static void op_global_run(void *model, uint64_t global_events)
{
    struct par *P = model;
    struct sim *m = P->main;
    merge_counters(P, global_events);
    struct event e;
    evq_pop(&m->evq, &e);
    m->now = e.time;
    sim_global_event(m, &e);
}

/* PFC frames go to the run's hook (pfc.csv); hold-queue changes make the
 * fabric-wide count, whose peak is the serial run's lb_held_peak. */
static void op_records(void *model, const struct eng_rec *r, size_t n)
{
    struct par *P = model;
    struct sim *m = P->main;
    simtime_t now = m->now;
    for (size_t k = 0; k < n; k++) {
        struct rec_body b;
        memcpy(&b, r[k].body, sizeof b);
        if (b.what == REC_PFC) {
            m->now = r[k].t;
            m->hooks.pfc(m->hooks.ctx, m, b.port, b.prio, b.pause);
        } else if (b.what == REC_FLOW) {
            /* (across ranks rank 0's copy of the flow learns its end only with the results: the record's time is it) */
            struct qp q = m->flows[b.port];
            q.state = FLOW_DONE;
            q.finish = m->now = r[k].t;
            m->hooks.flow_done(m->hooks.ctx, m, &q);
        } else {
            P->held_now += b.delta;
            if (P->held_now > (int64_t)P->held_peak)
                P->held_peak = (uint64_t)P->held_now;
        }
    }
    m->now = now;
}

/* A PAUSE reached a switch: deadlock_arm as the serial loop would have. */
static void op_request(void *model, simtime_t t)
{
    struct sim *m = ((struct par *)model)->main;
    m->now = t;
    deadlock_arm(m);
}

static int op_progress(void *model, uint64_t global_events, simtime_t t0)
{
    struct par *P = model;
    struct sim *m = P->main;
    if (!m->hooks.progress)
        return -1;
    merge_counters(P, global_events);
    if (t0 != T_NEVER && t0 > m->now)
        m->now = t0;
    return m->hooks.progress(m->hooks.ctx, m);
}

static simtime_t op_stop(void *model) { return ((struct par *)model)->main->p.stop; }
static simtime_t op_clock(void *model) { return ((struct par *)model)->main->now; }

static const struct eng_ops shard_ops = {
    .run = op_run,
    .next = op_next,
    .global_next = op_global_next,
    .global_run = op_global_run,
    .records = op_records,
    .request = op_request,
    .progress = op_progress,
    .stop = op_stop,
    .clock = op_clock,
};

/* ---------------------------------------------------------------- the run */

static void setup(struct sim *m, const uint32_t *pt, uint32_t parts, uint32_t threads, simtime_t la,
                  const struct eng_comm *comm)
{
    struct par *P = xcalloc(1, sizeof *P);
    m->par = P;
    P->main = m;
    P->n = parts;
    P->comm = comm;
    P->eng = eng_create(&shard_ops, P, parts, threads, la, comm, m->n_flows > 0);
    P->sh = xcalloc_aligned(parts, sizeof *P->sh, _Alignof(struct shard));
    P->peer = xmalloc(m->n_ports * sizeof *P->peer);
    P->wire = xmalloc(m->n_ports * sizeof *P->wire);
    P->dest = xmalloc(m->n_ports * sizeof *P->dest);
    P->by_ref = xmalloc(m->n_ports * sizeof *P->by_ref);
    atomic_flag_clear(&P->spare_lock);
    P->part = xmalloc(m->n_nodes * sizeof *P->part);
    memcpy(P->part, pt, m->n_nodes * sizeof *P->part);
    for (uint32_t p = 0; p < m->n_ports; p++) {
        uint32_t q = sim_port_peer(m, p);
        bool cut = pt[sim_port_node(m, p)] != pt[sim_port_node(m, q)];
        if (sim_port_here(m, p)) /* (across ranks another rank's port is never written: build_ports) */
            m->ports[p].cut = cut;
        P->peer[p] = q;
        P->dest[p] = pt[sim_port_node(m, q)]; /* once per port, not per message (and the peer's line is another thread's) */
        /* A cut port never uses its own wire (it sends messages), so its
         * link's packets wait on its peer's, written only by the
         * receiving partition. */
        P->wire[p] = cut ? &m->ports[q].wire : &m->ports[p].wire;
        P->by_ref[p] = eng_local(P->eng, P->dest[p]);
    }
    lb_paths_alloc(m); /* before the shards copy the sim: one table of path sets, each enumerated at its first use by any partition (paths.c) */
    bool flow_done = m->hooks.flow_done != NULL;
    /* the main queue keeps the global events only; shards start flows */
    struct eventq keep;
    evq_init(&keep);
    evq_order_by_handle(&keep);
    struct event ev;
    simtime_t mon_t = T_NEVER;
    while (evq_pop(&m->evq, &ev)) {
        if (ev_kind(&ev) == EV_FLOW_START)
            continue;
        if (comm && ev_kind(&ev) == EV_MONITOR) { /* across ranks: rank 0's (below) */
            mon_t = ev.time;
            continue;
        }
        evq_push_timer(&keep, ev.time, ev_kind(&ev), ev_id(&ev));
    }
    evq_free(&m->evq);
    m->evq = keep;
    if (comm) { /* the samples are rank 0's: its monitors and watchdog, at its times, taken by every rank */
        struct {
            simtime_t t;
            uint64_t fabric, flow_done;
        } mine = {m->hooks.sample ? mon_t : T_NEVER, m->hooks.sample_reads_fabric, m->hooks.flow_done != NULL}, all[comm->size];
        eng_allgather(P->eng, &mine, all, sizeof mine);
        if (all[0].t != T_NEVER)
            evq_push_timer(&m->evq, all[0].t, EV_MONITOR, 0);
        P->sample_gather = all[0].fabric;
        flow_done = all[0].flow_done; /* rank 0 writes every rank's */
    }
    for (uint32_t i = 0; i < parts; i++) {
        struct shard *sh = &P->sh[i];
        sh->s = *m;
        struct sim *s = &sh->s;
        evq_init(&s->evq);
        evq_order_by_handle(&s->evq);
        memset(&s->pool, 0, sizeof s->pool);
        memset(&s->c, 0, sizeof s->c);
        memset(&s->ctrl_pending, 0, sizeof s->ctrl_pending);
        s->lb_held_now = 0;
        s->lb_mem = NULL;  /* its own blocks (lb_alloc), freed with it */
        s->hooks = (struct sim_hooks){.ctx = sh, .pfc = m->hooks.pfc || comm ? pfc_record : NULL, /* (rank 0 writes every rank's) */
                                      .flow_done = flow_done ? flow_record : NULL};
        s->par = P;
        s->is_shard = true;
        s->port_peer = P->peer;
        s->port_wire = P->wire;
        sh->par = P;
        sh->id = i;
        sh->ep = eng_part(P->eng, i);
        sh->q = eng_part_quiet(sh->ep);
        eng_part_set(P->eng, i, sh);
        s->n_starts = s->next_start = s->n_src = 0;
    }
    for (uint32_t i = 0; i < m->n_flows; i++)
        P->sh[pt[m->flows[i].src]].s.n_src++;
    for (uint32_t i = 0; i < parts; i++) {
        struct sim *s = &P->sh[i].s;
        s->start_order = xmalloc((s->n_src ? s->n_src : 1) * sizeof *s->start_order);
    }
    for (uint32_t k = 0; k < m->n_flows; k++) { /* each shard's flows, in the run's start order */
        uint32_t f = m->start_order[k];
        struct sim *s = &P->sh[pt[m->flows[f].src]].s;
        s->start_order[s->n_starts++] = f;
    }
    for (uint32_t i = 0; i < parts; i++) {
        struct sim *s = &P->sh[i].s;
        bool local = eng_local(P->eng, i);
        if (s->n_starts && local)
            evq_push(&s->evq, m->flows[s->start_order[0]].start, EV_FLOW_START, 0);
        *P->sh[i].q = (struct eng_quiet){.quiet = s->n_src == 0 || !local};
    }
}

void sim_run_parallel(struct sim *m, const uint32_t *part, uint32_t parts, uint32_t threads, simtime_t la,
                      const struct eng_comm *comm)
{
    if (!m->par) /* first call: set up the shards */
        setup(m, part, parts, threads, la, comm);
    struct par *P = m->par;
    m->stopped = false;
    struct eng_stats st;
    eng_stats(P->eng, &st);
    uint64_t ge0 = st.global_events;
    simtime_t at;
    enum eng_end end = eng_run(P->eng, &at);
    if (end != ENG_PROGRESS)
        m->now = at;
    m->stopped = end == ENG_STOP;
    /* Messages of the last window are packets on their wires, as the serial
     * run's are when it stops (packets_left_in_network; a later sim_run_parallel
     * takes them from there) */
    for (uint32_t i = 0; i < P->n; i++)
        if (eng_local(P->eng, i))
            deliver(&P->sh[i]);
    eng_stats(P->eng, &st);
    merge_counters(P, st.global_events - ge0);
    sim_mark_paused_waiting(m);
    if (P->comm) {
        if (P->sample_gather) /* the monitors' last sample reads them at rank 0 after the run: kept there */
            lend_to_root(P), P->nlent = 0;
        results_to_root(P);
    }
}

bool sim_parallel_stats(const struct sim *m, struct eng_stats *st, uint64_t *part_events, uint32_t n)
{
    const struct par *P = m->par;
    if (!P)
        return false;
    eng_stats(P->eng, st);
    st->rss = P->rss;
    for (uint32_t i = 0; i < n && i < P->n; i++)
        part_events[i] = P->sh[i].s.c.events;
    return true;
}

uint64_t sim_parallel_pool_packets(const struct sim *m)
{
    const struct par *P = m->par;
    uint64_t n = 0;
    for (uint32_t i = 0; P && i < P->n; i++)
        n += sim_pool_packets(&P->sh[i].s);
    return n;
}

void par_free(struct sim *m)
{
    struct par *P = m->par;
    if (!P)
        return;
    for (uint32_t i = 0; i < P->n; i++) {
        struct sim *s = &P->sh[i].s;
        evq_free(&s->evq);
        for (size_t k = 0; k < s->pool.nchunks; k++)
            free(s->pool.chunks[k]);
        free(s->pool.chunks);
        lb_mem_free(s);
        free(s->start_order);
    }
    eng_free(P->eng);
    free(P->sh);
    free(P->peer);
    free(P->dest);
    free(P->part);
    free(P->wire);
    free(P->by_ref);
    free(P->x.b);
    free(P->rss);
    free(P->lent);
    free(P);
    m->par = NULL;
}
