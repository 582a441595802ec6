/* The event loop and everything a packet meets on its way: NIC scheduler,
 * link, switch MMU (ns-3 HPCC's SwitchMmu), egress scheduler, receiver and
 * transport (go-back-N as ns-3, or IRN), and the hooks schemes plug into.
 * This file: the packet pool, the event loop and the life cycle; the rest is
 * in switch.c, port.c, nic.c, transport.c, scheme.c and fault.c (shared inlines in
 * net_impl.h).
 * Per packet hop an ARRIVE at the far end of the link, whose in-flight packets
 * sit in a FIFO with one pending event for the head, and a TX_DONE at the
 * egress port when more is waiting, which on a lazy node is no event but an
 * entry its catch-up runs (port.c). */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

#define POOL_CHUNK 4096

/* ---------------------------------------------------------------- packets */

static void pool_grow(struct sim *s)
{
    struct pkt_pool *pl = &s->pool;
    if (s->is_shard && par_pool_refill(s))
        return; /* packets other partitions had to spare (net/shard.c) */
    pl->owned += POOL_CHUNK;
    if (pl->nchunks == pl->capchunks) {
        pl->capchunks = pl->capchunks ? 2 * pl->capchunks : 16;
        pl->chunks = xrealloc(pl->chunks, pl->capchunks * sizeof *pl->chunks);
    }
    struct pkt *c = xcalloc(POOL_CHUNK, sizeof *c);
    pl->chunks[pl->nchunks++] = c;
    for (int i = POOL_CHUNK - 1; i >= 0; i--) {
        c[i].place = EV_PLACE_NONE;
        c[i].next = pl->free;
        pl->free = &c[i];
    }
}

uint64_t sim_pool_packets(const struct sim *s) { return (uint64_t)s->pool.nchunks * POOL_CHUNK; }

struct pkt *pkt_alloc(struct sim *s)
{
    if (!s->pool.free)
        pool_grow(s);
    struct pkt *p = s->pool.free;
    s->pool.free = p->next;
    if (++s->pool.in_use > s->pool.peak)
        s->pool.peak = s->pool.in_use;
    /* Every field a later owner might read without writing it first: the
     * pool hands out packets as their last user left them. */
    p->next = NULL;
    p->flags = 0;
    p->nhop = 0;
    p->seq = 0;
    p->aux = 0;
    p->lb = (struct lb_hdr){.path = PATH_NONE, .to_node = UINT32_MAX, .echo_path = PATH_NONE};
    return p;
}

void pkt_free(struct sim *s, struct pkt *p)
{
    p->next = s->pool.free;
    s->pool.free = p;
    s->pool.in_use--;
}

/* ---------------------------------------------------------------- loop */

/* run.ns3_timing: every eventq place the ports and packets hold (port.c),
 * for renumbering (eventq.h). */
static void sim_places(void *ctx)
{
    struct sim *s = ctx;
    for (uint32_t i = 0; i < s->n_ports; i++) {
        struct port *pt = &s->ports[i];
        evq_place_visit(&s->evq, port_place_time(pt), &pt->tx_place);
        for (struct pkt *p = pt->wire.head; p; p = p->next)
            evq_place_visit(&s->evq, p->t_arrive, &p->place);
    }
}

const simtime_t *ns3_tx_table(struct sim *s, uint64_t bps)
{
    for (uint32_t i = 0; i < s->n_ns3_tx_tabs; i++)
        if (s->ns3_tx_tabs[i].bps == bps)
            return s->ns3_tx_tabs[i].t;
    if (!s->ns3_tx_n)
        s->ns3_tx_n = s->p.mtu + s->data_hdr + 1;
    simtime_t *t = xmalloc(s->ns3_tx_n * sizeof *t);
    for (uint32_t b = 0; b < s->ns3_tx_n; b++)
        t[b] = ns3_tx_time(b, bps);
    s->ns3_tx_tabs = xrealloc(s->ns3_tx_tabs, (s->n_ns3_tx_tabs + 1) * sizeof *s->ns3_tx_tabs);
    s->ns3_tx_tabs[s->n_ns3_tx_tabs++] = (struct ns3_txtab){ bps, t };
    return t;
}

int sim_init(struct sim *s)
{
    memset(s, 0, sizeof *s);
    evq_init(&s->evq);
    return 0;
}

void sim_start(struct sim *s)
{
    for (uint32_t h = 0; h < s->n_hosts; h++)
        s->nics[h].wake_at = T_NEVER;
    for (uint32_t p = 0; p < s->n_ports; p++)
        if (sim_port_here(s, p)) /* (across ranks another rank's ports stay unwritten: build_ports) */
            s->ports[p].tx_at = -1;
    if (s->p.ns3_timing) { /* (one process: parallel runs refuse it) */
        evq_set_places(&s->evq, sim_places, s);
        for (uint32_t p = 0; p < s->n_ports; p++) {
            s->ports[p].tx_place = EV_PLACE_NONE; /* in place of ps_per_byte, which ns3_tx replaces */
            s->ports[p].ns3_tx = ns3_tx_table(s, s->ports[p].rate);
        }
    }
    s->dl.check_at = -1;
    s->dl.n = 0;
    lazy_init(s);
    s->n_starts = s->n_src = s->n_flows;
    if (s->n_flows) /* a gated first flow only makes flows_due skip it */
        evq_push(&s->evq, s->flows[s->start_order[0]].start, EV_FLOW_START, 0);
    for (uint32_t i = 0; i < s->n_link_ev; i++)
        evq_push(&s->evq, s->link_ev[i].at, EV_LINK, i);
}

/* Out of line and cold, so the packet events' code is laid out as without it.
 * Not rescheduled once the work is done (every flow finished) or nothing
 * else is pending, so a monitor never keeps a run alive. */
static __attribute__((noinline, cold)) void monitor_fire(struct sim *s)
{
    simtime_t next = s->par ? par_sample(s) : s->hooks.sample(s->hooks.ctx, s);
    bool work = s->c.flows_completed < s->n_flows || s->next_start < s->n_flows;
    bool pending = s->par ? par_pending(s) : !evq_empty(&s->evq);
    if (next != T_NEVER && work && pending)
        evq_push(&s->evq, next > s->now ? next : s->now + 1, EV_MONITOR, 0);
}

/* A switch timer fired: the same one-entry rule as flow timers. */
static void node_timer_fire(struct sim *s, uint32_t id)
{
    struct lb_switch *sw = &s->lbsw[id / LB_TIMERS];
    int kind = (int)(id % LB_TIMERS);
    if (sw->timer_ev[kind] != s->now)
        return;
    sw->timer_ev[kind] = -1;
    simtime_t want = sw->timer_at[kind];
    if (want < 0)
        return;
    if (want > s->now) {
        sw->timer_ev[kind] = want;
        evq_push_timer(&s->evq, want, EV_NODE_TIMER, id);
        return;
    }
    sw->timer_at[kind] = -1;
    if (s->lb->on_timer)
        s->lb->on_timer(s, sw, s->lb_par, kind);
}

/* Control packets a load balancer sent during a hook enter their switch now,
 * after that hook returned (the switch is stored in in_port until then). */
static void ctrl_inject(struct sim *s)
{
    while (s->ctrl_pending.head) {
        struct pkt *p = q_pop(&s->ctrl_pending);
        switch_receive(s, p->in_port, UINT32_MAX, p);
    }
}

/* Events that are neither packet events nor flow timers, out of line. */
static __attribute__((noinline, cold)) void rare_event(struct sim *s, unsigned kind, uint32_t id)
{
    if (kind == EV_MONITOR)
        monitor_fire(s);
    else if (kind == EV_NODE_TIMER)
        node_timer_fire(s, id);
    else if (kind == EV_CTRL)
        ctrl_inject(s);
    else if (kind == EV_LINK)
        sim_link_event(s, &s->link_ev[id]);
    else if (kind == EV_DEADLOCK)
        deadlock_check(s);
    else if (kind == EV_HOLD)
        lb_hold_fire(s, id);
    else if (kind == EV_FLOW_DEP)
        deps_start(s, id);
    else if (kind == EV_LOCAL)
        nvs_stage(s, id);
}

/* Its flows (those whose source is here: all of them in the serial loop,
 * sim_start) done, its starts made, none of its packets in use and no
 * receiver's timer armed here (PCN's NP, which ends on its own evidence: it
 * may still send a CNP after its sender completed): the serial run's end, and
 * a partition's quiet (sim_run_window). */
static inline bool all_done(const struct sim *s)
{
    return s->c.flows_completed == s->n_src && s->next_start == s->n_starts && s->pool.in_use == 0 && !s->rx_armed;
}

/* shard: a parallel run's partition (sim_run_window), a constant, so the serial loop
 * compiles without its branches. always_inline: the loop is compiled twice (run_loop), and GCC would
 * otherwise call it out of line from both: ~2 % more instructions. */
static inline __attribute__((always_inline)) void dispatch(struct sim *s, const struct event *ev, const bool shard)
{
    uint32_t id = ev_id(ev);
    switch (ev_kind(ev)) {
    case EV_TX_DONE:
        if (s->nodes[s->ports[id].node].lazy) {
            lazy_deadline(s, id); /* a lazy node's deadline (port.c) */
            break;
        }
        if (s->ports[id].tx_at != s->now)
            break; /* stale */
        s->ports[id].tx_at = -1;
        port_kick(s, id);
        break;
    case EV_ARRIVE: {
        struct port *pt = &s->ports[id];
        struct pktq *w = &pt->wire;
        if (shard)
            w = par_wire(s, id); /* a cut link's packets wait at the receiving port (net/shard.c) */
        if (__builtin_expect(!w->head || w->head->t_arrive != s->now, 0))
            break; /* stale: the packet it was for was lost with its link (fault.c) */
        struct pkt *p = q_pop(w);
        if (w->head) {
            if (__builtin_expect(s->p.ns3_timing, 0)) { /* in the place its transmission's start reserved (port.c) */
                struct pkt *h = w->head;
                evq_push_place(&s->evq, h->t_arrive, &h->place, EV_ARRIVE, id);
            } else
                arrive_push(s, id, w->head->t_arrive);
        }
        s->c.packet_hops++;
        if (s->loss_rng && (shard ? s->plink[id].loss : pt->loss) > 0 && p->type != PKT_PFC && fault_lose(s, id, p))
            break;
        uint32_t in = shard ? s->port_peer[id] : pt->peer, node = s->ports[in].node;
        lazy_before(s, node, s->now, ev->handle); /* its lazy ends and wake-ups due first (port.c) */
        if (p->type == PKT_PFC) {
            pfc_receive(s, in, p);
            pkt_free(s, p);
        } else if (s->nodes[node].is_switch) {
            switch_receive(s, node, in, p);
        } else {
            host_receive(s, p);
        }
        break;
    }
    case EV_NIC_WAKE: {
        struct nic *nic = &s->nics[id];
        if (__builtin_expect(nic->nstale != 0, 0) && nic_wake_stale(nic, s->now))
            break; /* superseded (run.ns3_timing: nic_wake_at) */
        if (nic->wake_at != s->now)
            break; /* superseded */
        nic->wake_at = T_NEVER;
        port_kick(s, nic->port);
        break;
    }
    case EV_FLOW_START:
        if (__builtin_expect(s->p.ns3_timing, 0))
            flows_due_ns3(s, id);
        else
            flows_due(s);
        break;
    default: {
        /* here rather than as a case: the switch over the packet events then
         * compiles exactly as without monitors (measured with cachegrind) */
        if (ev_kind(ev) >= EV_MONITOR) {
            /* those that read any node find every lazy node's entries before
             * them run (a parallel run's: shard.c, before its global events);
             * a release or an NVSwitch stage its host's (port.c) */
            if (!shard && (ev_kind(ev) == EV_MONITOR || ev_kind(ev) == EV_LINK || ev_kind(ev) == EV_DEADLOCK))
                lazy_catch_up_all(s, s->now, ev->handle);
            else if (ev_kind(ev) == EV_FLOW_DEP)
                lazy_before(s, s->flows[id].src, s->now, ev->handle);
            else if (ev_kind(ev) == EV_LOCAL)
                lazy_before(s, id & 1 ? s->flows[id >> 1].dst : s->flows[id >> 1].src, s->now, ev->handle);
            rare_event(s, ev_kind(ev), id);
            break;
        }
        int kind = (int)ev_kind(ev) - EV_TIMER0;
        struct qp *f = &s->flows[id];
        /* A receiver's timer (cc_ops.rx_timers) ends where its scheme says, not
         * when the sender completes: its receiver cannot see that in time
         * (docs/parallel.md, PCN) */
        bool rx = s->slot[0].ops->rx_timers >> kind & 1;
        if ((f->state != FLOW_ACTIVE && !rx) || f->timer_ev[kind] != s->now)
            break; /* the flow is done, or an earlier entry superseded this one */
        f->timer_ev[kind] = -1;
        simtime_t want = f->timer_at[kind];
        if (want < 0)
            break; /* cancelled */
        if (want > s->now) { /* moved later since this entry was pushed */
            f->timer_ev[kind] = want;
            evq_push_timer(&s->evq, want, EV_TIMER0 + (unsigned)kind, id);
            break;
        }
        f->timer_at[kind] = -1;
        s->rx_armed -= rx;
        lazy_before(s, rx ? f->dst : f->src, s->now, ev->handle);
        if (kind == TIMER_RTO)
            rto_fire(s, f);
        else if (s->slot[0].ops->on_timer) /* the CC's timers (companions have none), the receiver's with its record */
            s->slot[0].ops->on_timer(s, f, rx ? slot_rx_state(&s->slot[0], id) : sim_cc_state(s, id),
                                     s->slot[0].par, kind);
        break;
    }
    }
}

/* Packets that waited through a PAUSE mark their flow ever_paused as they
 * leave the queue (switch_dequeue); those still queued when the run stops
 * are marked here, so fct.csv says the same whenever the run ends. */
void sim_mark_paused_waiting(struct sim *s)
{
    for (uint32_t i = 0; i < s->n_ports; i++)
        for (int q = 0; q < NQ && sim_port_here(s, i); q++) {
            uint32_t n = s->ports[i].q[q].paused_left;
            for (const struct pkt *x = s->ports[i].q[q].head; n && x; x = x->next, n--)
                if (x->flow != UINT32_MAX)
                    s->flows[x->flow].ever_paused = s->flows[x->flow].sw_paused = true;
        }
}

/* A hop is a chain of dependent cache misses (the port, the packet at the
 * head of its wire, ...): at scale each is a DRAM miss. The next event is
 * known while this one runs, so its object starts loading now: a port's line
 * 0 for TX_DONE and ARRIVE (what both read first), the NIC for NIC_WAKE.
 * always_inline: GCC 12 finds a function made of prefetches pure and drops
 * the call before it would inline it. */
static inline __attribute__((always_inline)) void prefetch_event(const struct sim *s, uint32_t handle)
{
    uint32_t id = handle & EV_ID_MAX;
    unsigned kind = handle >> EV_ID_BITS;
    if (kind <= EV_ARRIVE)
        __builtin_prefetch(&s->ports[id]);
    else if (kind == EV_NIC_WAKE)
        __builtin_prefetch(&s->nics[id]);
}

/* Two events ahead: the event after next gets its port (or NIC) line
 * loading; the next one, whose port was asked for one event ago, has it by
 * now, so an ARRIVE's next loads start too: the packet at the head of the
 * wire, and the receiving port's lines 0 (its node) and 1 (the MMU's
 * ingress counters). */
static inline __attribute__((always_inline)) void prefetch_next(const struct sim *s)
{
    uint32_t h = evq_peek_handle(&s->evq);
    prefetch_event(s, evq_peek2_handle(&s->evq));
    if (h >> EV_ID_BITS == EV_ARRIVE) {
        const struct port *pt = &s->ports[h & EV_ID_MAX];
        const char *in = (const char *)&s->ports[pt->peer];
        __builtin_prefetch(pt->wire.head); /* NULL when stale: a prefetch never faults */
        __builtin_prefetch(in);
        __builtin_prefetch(in + 64);
    } else {
        prefetch_event(s, h);
    }
}

/* After an event ran: the next one's head packet was asked for when this one
 * began (prefetch_next), so the packet behind it on the wire, whose arrival
 * time the next ARRIVE reads to push its successor, can start loading. */
static inline __attribute__((always_inline)) void prefetch_wire_next(const struct sim *s)
{
    uint32_t h = evq_peek_handle(&s->evq);
    if (h >> EV_ID_BITS == EV_ARRIVE) {
        const struct pkt *p = s->ports[h & EV_ID_MAX].wire.head;
        if (p)
            __builtin_prefetch(p->next);
    }
}

/* Prefetching pays only when a hop's objects miss the last-level cache;
 * below this many bytes of ports and packets in use they mostly hit, and the
 * prefetch code is pure cost (leafspine-128, ~5 MB: ~10 % slower with it). */
#define PREFETCH_MIN_BYTES ((uint64_t)16 << 20)

static bool prefetch_worth(const struct sim *s)
{
    return (uint64_t)s->pool.in_use * sizeof(struct pkt) + (uint64_t)s->n_ports * sizeof(struct port) >
           PREFETCH_MIN_BYTES;
}

/* hooks.event: which node the event acts on (see net.h), out of line. */
static __attribute__((noinline, cold)) void event_observe(struct sim *s, const struct event *ev)
{
    uint32_t id = ev_id(ev), node = SIM_NODE_GLOBAL, from = SIM_NODE_GLOBAL;
    bool pfc = false;
    unsigned kind = ev_kind(ev);
    switch (kind) {
    case EV_TX_DONE:
        node = s->ports[id].node;
        break;
    case EV_ARRIVE: {
        const struct port *pt = &s->ports[id];
        node = s->ports[pt->peer].node;
        if (pt->wire.head && pt->wire.head->t_arrive == ev->time) { /* not stale */
            from = pt->node;
            pfc = pt->wire.head->type == PKT_PFC;
        }
        break;
    }
    case EV_NIC_WAKE:
        node = s->nics[id].node;
        break;
    case EV_FLOW_START:
        if (s->next_start < s->n_starts)
            node = s->flows[s->start_order[s->next_start]].src;
        break;
    case EV_MONITOR:
    case EV_LINK:
    case EV_DEADLOCK:
        break;
    case EV_NODE_TIMER:
        node = id / LB_TIMERS;
        break;
    case EV_CTRL:
        if (s->ctrl_pending.head)
            node = s->ctrl_pending.head->in_port; /* the switch it enters (lbapi.c) */
        break;
    case EV_HOLD:
        if (s->lb_nhold)
            node = id / s->lb_nhold;
        break;
    case EV_FLOW_DEP:
        node = s->flows[id].src;
        break;
    case EV_LOCAL: /* 2 x flow + end (nvswitch.c) */
        node = id & 1 ? s->flows[id >> 1].dst : s->flows[id >> 1].src;
        break;
    default: /* flow timers: the RTO and CC timers live at the sender, unless the CC says otherwise */
        node = kind - EV_TIMER0 < CC_TIMERS && s->slot[0].ops->rx_timers >> (kind - EV_TIMER0) & 1 ? s->flows[id].dst
                                                                                                : s->flows[id].src;
        break;
    }
    s->hooks.event(s->hooks.ctx, s, node, from, pfc);
}

/* The loop, compiled twice: `observe` is a constant, so the copy without
 * hooks.event has no trace of it (bench/README.md: instruction counts). */
static inline __attribute__((always_inline)) void run_loop(struct sim *s, const bool observe)
{
    struct event ev;
    bool pf = prefetch_worth(s);
    while (!evq_empty(&s->evq)) {
        /* peek first, so a later sim_run with a later stop time resumes exactly */
        if (s->p.stop && evq_top_time(&s->evq) > s->p.stop) {
            s->now = s->p.stop;
            lazy_catch_up_all(s, s->p.stop, UINT32_MAX); /* every entry up to the stop, as its events would have */
            s->stopped = true;
            break;
        }
        evq_pop(&s->evq, &ev);
        if (pf)
            prefetch_next(s);
        s->now = ev.time;
        if (observe)
            event_observe(s, &ev);
        dispatch(s, &ev, false);
        if (pf)
            prefetch_wire_next(s);
        if ((++s->c.events & 0xffff) == 0) {
            pf = prefetch_worth(s); /* packets in use change with the load */
            if (s->hooks.progress && s->hooks.progress(s->hooks.ctx, s)) {
                lazy_catch_up_all(s, s->now, ev.handle + 1); /* interrupted: the entries up to the last event's key */
                break;
            }
        }
        /* Every flow done and no packet anywhere (all are pool-allocated): what
         * is left are timers of finished flows, so the run is over. */
        if (all_done(s))
            break;
    }
}

/* noinline: LTO would inline it into its one caller once the engine's entry point moved
 * (scenario_run), and the serial loop's code came out 0.1 % longer in instructions. */
__attribute__((noinline)) void sim_run(struct sim *s)
{
    s->stopped = false;
    if (s->hooks.event)
        run_loop(s, true);
    else
        run_loop(s, false);
    sim_mark_paused_waiting(s);
}

/* A parallel run's partition (net/shard.c): its events with key below (bt, bh),
 * that is time < bt, or time == bt and handle < bh (a global event's place).
 * q tracks when the partition last became quiet: its flows all done, its
 * starts all made and none of its packets in use (the serial loop's end,
 * seen from one partition). Returns the events run. */
uint64_t sim_run_window(struct sim *s, simtime_t bt, uint32_t bh, struct eng_quiet *q)
{
    struct event ev;
    uint64_t n = 0;
    while (!evq_empty(&s->evq)) {
        simtime_t t = evq_top_time(&s->evq);
        if (t >= bt) {
            if (t > bt || !bh)
                break;
            uint32_t h = evq_peek_handle(&s->evq);
            if (h == EV_HANDLE_NONE || h >= bh)
                break;
        }
        evq_pop(&s->evq, &ev);
        s->now = ev.time;
        q->handle = ev.handle;
        dispatch(s, &ev, true);
        n++;
        bool quiet = all_done(s);
        if (quiet != q->quiet) {
            q->quiet = quiet;
            if (quiet) {
                q->t = s->now;
                q->h = ev.handle;
            }
        }
    }
    s->c.events += n;
    return n;
}

/* A parallel run's global event (monitor, deadlock check), on the run's sim
 * between windows. */
void sim_global_event(struct sim *s, const struct event *ev)
{
    rare_event(s, ev_kind(ev), ev_id(ev));
}

const char *sim_parallel_refusal(const struct sim *s)
{
    const char *why = sim_serial_only_reason(s);
    if (why)
        return why;
    if (s->p.ns3_timing)
        return "run.ns3_timing keeps ns-3's one global order of same-time events (the order they were scheduled in), which "
               "partitions on their own threads cannot (docs/parallel.md); an ns-3 configuration runs in parallel with "
               "--set run.ns3_timing=off (that mode's serial bytes)";
    return NULL; /* flow dependencies: deps_parallel_refusal, once the partitions are known */
}

void sim_monitor_start(struct sim *s, simtime_t first)
{
    if (s->hooks.sample)
        evq_push(&s->evq, first > s->now ? first : s->now, EV_MONITOR, 0);
}

uint64_t sim_packets_in_network(const struct sim *s)
{
    uint64_t n = 0;
    if (s->par && !s->is_shard && par_net_packets(s, &n))
        return n;
    for (uint32_t i = 0; i < s->n_ports; i++) {
        if (!sim_port_here(s, i))
            continue;
        n += s->ports[i].wire.n;
        for (int q = 0; q < NQ; q++)
            n += s->ports[i].q[q].n;
    }
    for (uint32_t h = 0; h < s->n_hosts; h++)
        n += s->nics[h].ackq.n;
    return n + s->ctrl_pending.n + s->lb_held_now;
}

void sim_routes_free(struct sim *s)
{
    free(s->route_off);
    free(s->route_cnt);
    free(s->route_ports);
    free(s->edge_node);
    free(s->host_edge);
    free(s->host_port);
    s->route_off = s->route_ports = s->edge_node = s->host_edge = s->host_port = NULL;
    s->route_cnt = NULL;
}

void sim_free(struct sim *s)
{
    par_free(s);
    lazy_free(s);
    evq_free(&s->evq);
    for (uint32_t i = 0; i < s->n_ns3_tx_tabs; i++)
        free(s->ns3_tx_tabs[i].t);
    free(s->ns3_tx_tabs);
    for (size_t i = 0; i < s->pool.nchunks; i++)
        free(s->pool.chunks[i]);
    free(s->pool.chunks);
    for (uint32_t h = 0; h < s->n_hosts; h++) {
        free(s->nics[h].qps);
        free(s->nics[h].stale);
    }
    for (uint32_t i = 0; i < s->n_flows; i++) {
        free(s->flows[i].irn_rx);
        free(s->flows[i].irn_tx);
    }
    free(s->nodes);
    xfree_pages(s->ports, s->n_ports, sizeof *s->ports);
    free(s->plink);
    free((void *)s->node_here);
    free(s->nics);
    free(s->host_index);
    sim_routes_free(s);
    free(s->flows);
    free(s->start_order);
    sim_deps_free(s);
    free(s->nvs.free);
    s->nvs.free = NULL;
    lb_paths_free(s);
    lb_mem_free(s);
    free(s->lbsw);
    free(s->lb_nstate);
    free(s->lb_fstate);
    free(s->link_ev);
    for (uint32_t k = 0; k < s->n_slot; k++) {
        free(s->slot[k].state);
        free(s->slot[k].rx_state);
        free(s->slot[k].pstate);
    }
    free(s->dl.scratch);
    free(s->loss_rng);
    free(s->red_rng);
    free(s->red_ns3);
    memset(s, 0, sizeof *s);
}

