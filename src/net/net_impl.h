/* Private to src/net/: what the event loop, switch, port, NIC and transport
 * files share. Schemes never include this. The small helpers are inline here
 * so the per-hop path costs what it did in one file (the release build also
 * links with LTO, which inlines across these files). */
#ifndef ROCESIM_NET_IMPL_H
#define ROCESIM_NET_IMPL_H
#include "net/net.h"
#include "core/ns3time.h"
#include "engine/engine.h"

enum ev_kind {
    EV_TX_DONE,    /* port id: transmission finished, start the next */
    EV_ARRIVE,     /* port id: head of its wire reaches the peer */
    EV_NIC_WAKE,   /* host index: a paced QP may send now */
    EV_FLOW_START, /* next flow(s) in start order */
    EV_TIMER0,     /* flow id: CC timer k is EV_TIMER0 + k, RTO is EV_TIMER0 + CC_TIMERS */
    EV_MONITOR = EV_TIMER0 + CC_TIMERS + 1, /* hooks.sample: the stats layer's monitors (one pending at most) */
    EV_NODE_TIMER, /* node * LB_TIMERS + kind: a load balancer's switch timer */
    EV_CTRL,       /* control packets sent by a load balancer enter their switch */
    EV_LINK,       /* index into link_ev[]: a link fails or recovers (fault.c) */
    EV_DEADLOCK,   /* PFC deadlock check (deadlock.c; one pending at most) */
    EV_HOLD,       /* node * lb_nhold + k: an LB hold queue's deadline (lbapi.c) */
    EV_FLOW_DEP,   /* flow id: a flow whose prerequisites finished starts (deps.c) */
    EV_LOCAL,      /* 2 x flow id + end (0 sender, 1 receiver): a transfer inside a GPU server reaches its next stage (nvswitch.c) */
};
_Static_assert(EV_LOCAL < 16, "event kinds are 4 bits");
#define TIMER_RTO CC_TIMERS

/* A flow's statistics that switches and links anywhere write (lost,
 * ever_paused, sw_paused, culprit: docs/parallel.md), for a run whose
 * partitions share the flow records: relaxed atomics, so two threads may
 * count at once. A set flag is a plain byte store on x86 and ARM; a count is
 * a locked add, for drops only. Read after the run (fct.csv, summary.json). */
#define FLOW_FLAG_SET(x)                                  \
    do {                                                  \
        if (!__atomic_load_n(&(x), __ATOMIC_RELAXED))     \
            __atomic_store_n(&(x), true, __ATOMIC_RELAXED); \
    } while (0) /* read first: a set flag's line is not written again */
#define FLOW_COUNT(x) ((void)__atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED))

/* deps.c: flow f finished, release the flows waiting for it; a released
 * flow's EV_FLOW_DEP starts it. */
void deps_release(struct sim *s, const struct qp *f);
void deps_start(struct sim *s, uint32_t id);
void deps_sent(struct sim *s, const struct qp *f);
void deps_recv(struct sim *s, const struct qp *f); /* f's receiver has its last byte */
void deps_started(struct sim *s, const struct qp *f); /* f starts (SIM_DEP_START) */
/* nvswitch.c: a transfer inside a GPU server (qp.local) starts at its sender;
 * its stages are EV_LOCAL(id); nvs_arrive pushes one at `at` where it runs
 * (a parallel run's message for another partition lands here: par_post). */
void nvs_start(struct sim *s, struct qp *f);
void nvs_stage(struct sim *s, uint32_t id);
void nvs_arrive(struct sim *s, simtime_t at, uint32_t id, simtime_t sent);
void sim_deps_free(struct sim *s);

static inline void q_push(struct pktq *q, struct pkt *p)
{
    p->next = NULL;
    if (q->tail)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
    q->bytes += p->size;
    q->n++;
}

static inline struct pkt *q_pop(struct pktq *q)
{
    struct pkt *p = q->head;
    q->head = p->next;
    if (!q->head)
        q->tail = NULL;
    q->bytes -= p->size;
    q->n--;
    return p;
}

/* Egress queues of a port keep a bitmask of which are non-empty. */
static inline void port_q_push(struct port *pt, int q, struct pkt *p)
{
    q_push(&pt->q[q], p);
    pt->qmask |= (uint8_t)(1u << q);
}

static inline struct pkt *port_q_pop(struct port *pt, int q)
{
    struct pkt *p = q_pop(&pt->q[q]);
    if (!pt->q[q].n)
        pt->qmask &= (uint8_t)~(1u << q);
    return p;
}

/* The one place an ARRIVE is pushed: for the packet at the head of port
 * pid's wire, due at t. */
static inline void arrive_push(struct sim *s, uint32_t pid, simtime_t t) { evq_push(&s->evq, t, EV_ARRIVE, pid); }

/* ns-3 keeps time in whole nanoseconds and truncates every serialisation and
 * pacing gap to them (a 1048-byte packet takes 83 ns at 100 Gbps there, 83.84
 * here; a 200-byte one 15 ns, not 16: core/ns3time.h): run.ns3_timing = on
 * does the same, to compare with it to the ns. */
static inline simtime_t ns3_tx_cached(struct sim *s, uint32_t bytes, uint64_t bps)
{
    struct ns3_txc *c = &s->ns3_txc[(bytes ^ (uint32_t)(bps >> 27)) & (NS3_TXC - 1)];
    if (c->bytes != bytes || c->bps != bps) {
        c->bytes = bytes;
        c->bps = bps;
        c->t = ns3_tx_time(bytes, bps);
    }
    return c->t;
}

static inline simtime_t gap_time(struct sim *s, uint32_t bytes, uint64_t bps)
{
    return __builtin_expect(s->p.ns3_timing, 0) ? ns3_tx_cached(s, bytes, bps) : tx_time(bytes, bps);
}

/* run.ns3_timing: ns3_tx_time(bytes, bps) for every size below s->ns3_tx_n
 * (the largest data packet's and up), made once per port rate (sim.c), so a
 * port's serialisation is one load of its table. */
const simtime_t *ns3_tx_table(struct sim *s, uint64_t bps);

static inline simtime_t port_tx_time(struct sim *s, const struct port *pt, uint32_t bytes)
{
    if (__builtin_expect(s->p.ns3_timing, 0))
        return __builtin_expect(bytes < s->ns3_tx_n, 1) ? pt->ns3_tx[bytes] : ns3_tx_cached(s, bytes, pt->rate);
    return pt->ps_per_byte ? (simtime_t)bytes * pt->ps_per_byte : tx_time(bytes, pt->rate);
}

/* run.ns3_timing: the time of a port's TX_DONE place (held only for the
 * transmission that ends at busy_until, port.c; fault.c keeps it while the
 * link is down). */
static inline simtime_t port_place_time(const struct port *pt) { return pt->down ? pt->tx_place_down : pt->busy_until; }

/* The addresses of a packet of flow f: toward its receiver (data), or back
 * toward its sender as its ACKs go (addresses and ports reversed, so switches
 * hash it as they hash the ACKs). The one place a flow's header is written. */
static inline void flow_header(struct pkt *p, const struct qp *f, int type, bool back)
{
    p->type = (uint8_t)type;
    p->prio = f->pg;
    p->flow = f->id;
    p->src = back ? f->dst : f->src;
    p->dst = back ? f->src : f->dst;
    p->sport = back ? f->dport : f->sport;
    p->dport = back ? f->sport : f->dport;
}

/* pkt_payload, inline: a data packet's size less the run's data header. */
static inline uint32_t data_payload(const struct sim *s, const struct pkt *p) { return p->size - s->data_hdr; }

static inline struct nic *nic_of(struct sim *s, uint32_t node) { return &s->nics[s->host_index[node]]; }

/* port.c */
void port_kick(struct sim *s, uint32_t pid);
/* Lazy transmission ends and NIC wake-ups (port.c): which nodes keep them
 * (at sim_start); one noted (handle EV_TX_DONE << 28 | port or EV_NIC_WAKE <<
 * 28 | host index, due at t); node n's, or every node's, with key before
 * (t, h), run now; a lazy node's deadline (its EV_TX_DONE) came. */
void lazy_init(struct sim *s);
void lazy_free(struct sim *s);
void lazy_note(struct sim *s, struct node *nd, uint32_t handle, simtime_t t);
void lazy_catch_up(struct sim *s, uint32_t n, simtime_t t, uint32_t h);
void lazy_catch_up_all(struct sim *s, simtime_t t, uint32_t h);
void lazy_deadline(struct sim *s, uint32_t pid);
/* Before an event with key (t, h) acts on node n: its lazy entries due first. */
static inline void lazy_before(struct sim *s, uint32_t n, simtime_t t, uint32_t h)
{
    if (s->nodes[n].lz_next <= t)
        lazy_catch_up(s, n, t, h);
}
void pfc_receive(struct sim *s, uint32_t pid, struct pkt *p);
/* switch.c */
void send_pfc(struct sim *s, uint32_t pid, int q, bool pause);
struct pkt *switch_dequeue(struct sim *s, uint32_t pid);
void switch_receive(struct sim *s, uint32_t node, uint32_t in_pid, struct pkt *p);
void switch_discard(struct sim *s, uint32_t pid, int q, struct pkt *p);
int switch_queue(const struct sim *s, const struct pkt *p);
void switch_forward(struct sim *s, uint32_t out, int q, struct pkt *p);
/* An admitted packet leaves its ingress accounting without leaving the switch
 * (lb_hold_outside: held beside the buffer), which may RESUME its ingress
 * port; switch_readmit admits it again at its release, as a packet arriving
 * then (false: no room, dropped and counted). */
void switch_unadmit(struct sim *s, struct pkt *p);
bool switch_readmit(struct sim *s, struct pkt *p);
/* nic.c */
struct pkt *nic_dequeue(struct sim *s, uint32_t pid);
bool nic_may_send(struct sim *s, uint32_t node);
void nic_wake_at(struct sim *s, struct nic *nic, simtime_t t);
/* run.ns3_timing: whether a NIC_WAKE due now is one a newer wake-up
 * superseded (forgetting it: each is asked about once) */
bool nic_wake_stale(struct nic *nic, simtime_t now);
struct pkt *make_data(struct sim *s, struct qp *f, uint64_t seq);
void nic_add_qp(struct sim *s, struct nic *nic, uint32_t id);
void nic_qp_done(struct sim *s, struct nic *nic, uint32_t id);
/* paths.c */
void lb_paths_free(struct sim *s);
void lb_paths_alloc(struct sim *s);
/* lbapi.c */
void lb_mem_free(struct sim *s);
void lb_hold_fire(struct sim *s, uint32_t id);
/* fault.c */
bool fault_lose(struct sim *s, uint32_t pid, struct pkt *p);
/* A packet lost with a failed link: counted (packets_lost_link, its flow's
 * lost; PFC frames are not), not freed. */
void link_lost(struct sim *s, const struct pkt *p);
/* deadlock.c */
void deadlock_arm(struct sim *s);
/* Parallel run (shard.c, the model's side of the engine, engine/engine.h;
 * sim.c runs a partition's window). A partition is quiet when its flows are
 * done, its starts made and none of its packets in use. */
uint64_t sim_run_window(struct sim *s, simtime_t bt, uint32_t bh, struct eng_quiet *q);
void sim_global_event(struct sim *s, const struct event *ev);
void sim_mark_paused_waiting(struct sim *s);
void par_send(struct sim *s, uint32_t pid, struct pkt *p);
/* A partition's pool is empty: packets from the run's spares (those other
 * partitions of this process gave back), true if any came (net/shard.c). */
bool par_pool_refill(struct sim *s);
/* The packets s's pool has allocated (sim.c). */
uint64_t sim_pool_packets(const struct sim *s);
static inline struct pktq *par_wire(const struct sim *s, uint32_t pid) { return s->port_wire[pid]; }
struct sim *par_owner(struct sim *s, uint32_t pid);
void par_held(struct sim *s, int32_t delta);
/* A shard's EV_LOCAL(id) at `at` for host node `node` (nvswitch.c): false if
 * that node is in this partition (push it here), else sent there as a message
 * (at is at least a lookahead ahead: topo/partition.h) and true. */
bool par_post(struct sim *s, uint32_t node, simtime_t at, uint32_t id, simtime_t sent);
/* The sim that owns port pid: s itself, or in a parallel run (s the run's
 * own sim, between windows) the partition holding the port. */
static inline struct sim *sim_end(struct sim *s, uint32_t pid) { return s->par && !s->is_shard ? par_owner(s, pid) : s; }
/* Between windows, after a link event changed the routes (fault.c): the
 * partitions take the new tables, and messages still on their way over a
 * failed link are lost. */
void par_tables_changed(struct sim *s, uint32_t pid, bool up);
void par_deadlock_request(struct sim *s);
bool par_pending(const struct sim *s);
/* Across MPI ranks, at rank 0 after the run: the packets left in the whole
 * network (results_to_root); false otherwise. */
bool par_net_packets(const struct sim *s, uint64_t *n);
/* Across MPI ranks (collective, every rank at the same global event): every rank's
 * bytes [*buf, *buf + *len), concatenated in rank order, in place of this
 * one's (valid until the next collective; unchanged in one process); whether
 * `mine` holds at any rank. */
void par_gather_all(struct sim *s, const uint8_t **buf, size_t *len);
bool par_any(struct sim *s, bool mine);
/* The sample hook (EV_MONITOR) of a parallel run: across ranks, rank 0's
 * monitors read the state of every rank's ports and flows (gathered to it
 * for the call) and every rank takes rank 0's next sample time. */
simtime_t par_sample(struct sim *s);
void par_free(struct sim *s);
void deadlock_check(struct sim *s);
/* transport.c */
uint64_t irn_next_retx(const struct sim *s, struct qp *f);
void irn_recover(struct qp *f, uint64_t high);
void timer_set(struct sim *s, struct qp *f, int kind, simtime_t at);
void flow_complete(struct sim *s, struct qp *f);
void reply_header(struct pkt *a, const struct qp *f, int type, uint8_t flags);
void ctrl_from(struct sim *s, struct qp *f, int type, uint8_t flags, struct pkt *a, uint64_t aux);
void host_receive(struct sim *s, struct pkt *p);
void flow_start(struct sim *s, struct qp *f);
/* ...continuing prev's queue pair (deps.c), or as flow_start if prev is NULL */
void flow_start_on(struct sim *s, struct qp *f, const struct qp *prev);
void flows_due(struct sim *s);
void flows_due_ns3(struct sim *s, uint32_t hop);
void rto_fire(struct sim *s, struct qp *f);

#endif
