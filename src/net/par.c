/* A parallel run of one fabric (issue 27; docs/parallel.md has the design and
 * what each part of rocesim needs).
 *
 * The topology is split into partitions (topo/partition.h: edge switches with
 * their hosts; aggregation and core switches placed by rule), many more than
 * threads. Each partition is a shard: a shallow copy of the run's struct sim
 * that shares every table (nodes, ports, NICs, flows, scheme state) but has
 * its own event queue, packet pool, counters and clock, so the code of
 * switch.c, nic.c, transport.c and the schemes runs unchanged on it, touching
 * only its own nodes' state. A packet or PFC frame sent on a link between two
 * partitions (port.cut) is copied into the sender's outbox instead of onto the
 * wire; the receiving shard copies it into its own pool and onto the wire at
 * the start of its next window, onto the wire of the receiving port (a cut
 * port never uses its own, so each line is written by one partition), and
 * pushes the ARRIVE the serial loop would have pushed (same time, same port:
 * the same key).
 *
 * Conservative windows: every shard runs its events with time in [t0, t0 + L),
 * t0 the earliest pending event of all, L the smallest delay of a cut link; a
 * packet sent at t >= t0 arrives at >= t + L, so in a later window. Shards are
 * taken by the threads in decreasing order of their previous window's events
 * (Unison's load-adaptive rule), each by whichever thread is free. Between
 * windows one thread runs the run's global events (monitors, the watchdog, the
 * PFC deadlock check, link failures and slowdowns: the main sim's queue),
 * merges what the shards logged in event order (PFC frames into pfc.csv, hold
 * queue changes into their fabric-wide peak), and decides whether the run is
 * over.
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
 * Across MPI ranks (struct par_comm, from cli/dist_mpi.c) the same loop runs
 * in every process, each on its own partitions: the window's start, its sums
 * and the end are decided from all-gathered figures, cut-link messages to
 * another rank's partitions go there after each window (exchange), rank 0
 * merges every rank's records, and gets every result at the end
 * (results_to_root). docs/parallel.md, "Across MPI ranks". */
#include "net/net_impl.h"
#include "core/proc.h"
#include "core/xalloc.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Messages from one partition to another in one window, as bytes: per
 * packet the cut port it was sent on, its length, and the bytes of it that
 * mean something (pkt_bytes: 192 of 288 for a packet without INT). Across
 * ranks the same bytes travel as they are. */
struct outbox {
    struct bytes m;
    uint32_t n;       /* packets */
};
#define MSG_HDR (2 * sizeof(uint32_t)) /* port, length */

/* What a partition did that the serial loop reports in event order across
 * the whole fabric: a PFC frame received (pfc.csv), a change of the packets
 * held in LB hold queues (their fabric-wide peak). Merged after each window. */
enum { REC_PFC, REC_HELD };
struct rec {
    simtime_t t;
    uint32_t handle, seq;  /* the event's, and the order within the partition */
    uint32_t port;         /* REC_PFC */
    int32_t delta;         /* REC_HELD */
    uint8_t what, prio;    /* REC_PFC: prio, pause */
    bool pause;
};

struct shard {
    _Alignas(64) struct sim s; /* first: port.c and deadlock.c find the shard from the sim; each shard on its own lines */
    struct par *par;
    uint32_t id;
    struct outbox *out[2];     /* [window parity][receiving shard] */
    uint32_t *touched[2];      /* receiving shards written in that window */
    uint32_t ntouched[2];
    uint32_t *inbox;           /* senders with messages for this shard, from the previous window */
    uint32_t ninbox;
    simtime_t min_sent;        /* earliest arrival sent this window, T_NEVER if none */
    uint64_t sent;             /* messages sent this window */
    struct sim_quiet q;
    struct rec *rec;
    size_t nrec, caprec;
    uint32_t rec_seq;
    simtime_t dl_req;          /* earliest PFC deadlock arm request this window */
    uint64_t load;             /* events in its last window */
};
/* Across MPI ranks (struct par_comm), every process holds a shard for every
 * partition, but runs only its own ("local"); another rank's partition is a
 * stub here: its outboxes receive that rank's messages to this one's
 * partitions (exchange), so deliver() reads them as if a thread of this
 * process had sent them, and its `sent` counts them (each message is counted
 * once, where it is delivered). A stub runs no event and stays quiet. */

struct par {
    struct sim *main;
    struct shard *sh;
    uint32_t n, threads;
    simtime_t la;
    uint32_t parity;           /* this window's */
    simtime_t bt;              /* this window's bound key (bt, bh) */
    uint32_t bh;
    uint32_t *order;           /* shards by load, for this window */
    uint64_t *sortkey;
    atomic_uint next;          /* next index into order to take */
    atomic_uint bar_count;
    atomic_bool bar_sense;
    atomic_bool finish;
    unsigned spin_limit;       /* barrier spins before yielding */
    uint32_t *peer;            /* port -> peer port, read-only */
    uint32_t *dest;            /* port -> the shard its link delivers to (its peer's), read-only */
    struct pktq **wire;        /* port -> where its link's packets wait (port.cut: at the peer) */
    struct rec *merge;
    size_t capmerge;
    int64_t held_now;          /* packets in hold queues, fabric-wide, at the last window's end */
    uint64_t held_peak;        /* ...most at once: the serial run's lb_held_peak */
    pthread_t *tid;
    struct par_stats stat;
    /* MPI ranks (NULL comm: one process) */
    const struct par_comm *comm;
    int rank;                  /* this process's; 0 without comm */
    int *rank_of;              /* partition -> its rank */
    uint32_t *mine, nmine;     /* the partitions this process runs */
    struct bytes x;            /* what this rank sends in a collective */
    void *rbuf;                /* ...and receives */
    size_t rcap;
    size_t *scount, *rcount;   /* per rank */
    bool sample_gather;        /* rank 0's sample hook reads ports and flows anywhere (its monitors) */
    struct borrowed *lent;     /* rank 0, during a sample: other ranks' state put in its copies, and what was there */
    size_t nlent, caplent;
    uint64_t net_packets;      /* rank 0 after the run: packets in the network, fabric-wide */
    bool gathered;             /* ...once results_to_root has run */
};

/* ---------------------------------------------------------------- barrier */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Spins a little (a window's wait on idle cores is a few microseconds),
 * then yields: the thread waited for may have lost its core to another
 * process, or share this one (more threads than cores), and spinning on
 * would only delay it. */
static void barrier(struct par *P, bool *sense)
{
    *sense = !*sense;
    if (atomic_fetch_add(&P->bar_count, 1) == P->threads - 1) {
        atomic_store(&P->bar_count, 0);
        atomic_store(&P->bar_sense, *sense);
        return;
    }
    for (unsigned spins = 0; atomic_load_explicit(&P->bar_sense, memory_order_acquire) != *sense;) {
        cpu_relax();
        if (++spins > P->spin_limit)
            sched_yield();
    }
}

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

/* The next message at *at: its port, and the packet's bytes (their length). */
static inline const uint8_t *ob_next(const uint8_t **at, uint32_t *pid, uint32_t *len)
{
    uint32_t hdr[2];
    memcpy(hdr, *at, MSG_HDR);
    *pid = hdr[0];
    *len = hdr[1];
    const uint8_t *bytes = *at + MSG_HDR;
    *at = bytes + hdr[1];
    return bytes;
}

/* sh's outbox to `to` in window parity par, listed in touched[par] when it
 * gets its first message. */
static struct outbox *outbox_of(struct par *P, struct shard *sh, uint32_t par, uint32_t to)
{
    struct outbox *ob = &sh->out[par][to];
    if (ob->n == 0) {
        if (!sh->touched[par])
            sh->touched[par] = xmalloc(P->n * sizeof(uint32_t));
        sh->touched[par][sh->ntouched[par]++] = to;
    }
    return ob;
}

void par_send(struct sim *s, uint32_t pid, struct pkt *p)
{
    struct shard *sh = (struct shard *)s;
    struct par *P = sh->par;
    struct outbox *ob = outbox_of(P, sh, P->parity, P->dest[pid]);
    uint32_t len = (uint32_t)pkt_bytes(p), hdr[2] = {pid, len};
    unsigned char *at = bytes_room(&ob->m, MSG_HDR + len);
    memcpy(at, hdr, MSG_HDR);
    memcpy(at + MSG_HDR, p, len);
    ob->m.len += MSG_HDR + len;
    ob->n++;
    if (p->t_arrive < sh->min_sent)
        sh->min_sent = p->t_arrive;
    sh->sent++;
    pkt_free(s, p);
}

/* The previous window's messages to this shard onto their wires, in each
 * sender's order (a wire's packets all come from one sender). */
static void deliver(struct par *P, struct shard *sh)
{
    struct sim *s = &sh->s;
    uint32_t prev = P->parity ^ 1;
    for (uint32_t k = 0; k < sh->ninbox; k++) {
        struct outbox *ob = &P->sh[sh->inbox[k]].out[prev][sh->id];
        for (const uint8_t *at = ob->m.b, *end = at + ob->m.len; at < end;) {
            uint32_t pid, len;
            const uint8_t *bytes = ob_next(&at, &pid, &len);
            struct pktq *w = par_wire(s, pid); /* the receiving port's: this partition's own line */
            struct pkt *p = pkt_alloc(s);
            memcpy(p, bytes, len);
            p->next = NULL;
            bool idle = w->head == NULL;
            q_push(w, p);
            if (idle)
                arrive_push(s, pid, p->t_arrive);
        }
        ob->n = 0;
        ob->m.len = 0;
    }
    sh->ninbox = 0;
}

/* ---------------------------------------------------------------- ranks */

static void xput(struct par *P, const void *x, size_t n)
{
    bytes_put(&P->x, x, n);
}

/* Reads n bytes at *at of a received buffer and moves past them. */
static void xget(const uint8_t **at, void *x, size_t n)
{
    memcpy(x, *at, n);
    *at += n;
}

/* Whether `mine` holds at any rank (collective); mine in one process. */
static bool any_rank(const struct par *P, bool mine)
{
    if (!P->comm)
        return mine;
    uint8_t b = mine, all[P->comm->size];
    P->comm->allgather(&b, all, 1);
    for (int r = 0; r < P->comm->size; r++)
        b |= all[r];
    return b;
}

/* x's bytes to rank 0 alone; there, what every rank sent, in rank order
 * (in rbuf, the length returned); elsewhere 0. */
static size_t to_root(struct par *P)
{
    const struct par_comm *C = P->comm;
    for (int r = 0; r < C->size; r++)
        P->scount[r] = r == 0 ? P->x.len : 0;
    C->alltoallv(P->x.b, P->scount, &P->rbuf, &P->rcap, P->rcount);
    size_t n = 0;
    for (int r = 0; r < C->size; r++)
        n += P->rcount[r];
    return n;
}

/* After a window: messages from this rank's partitions to another rank's go
 * there, into the sending partition's stub (whose outbox deliver() reads):
 * per outbox (sender << 32 | receiver, count << 32 | bytes) and its bytes as
 * they are. A message is counted in `sent` where it is delivered. */
static void exchange(struct par *P)
{
    const struct par_comm *C = P->comm;
    uint32_t par = P->parity;
    P->x.len = 0;
    for (int r = 0; r < C->size; r++) {
        size_t start = P->x.len;
        for (uint32_t k = 0; r != P->rank && k < P->nmine; k++) {
            struct shard *sh = &P->sh[P->mine[k]];
            for (uint32_t j = 0; j < sh->ntouched[par]; j++) {
                uint32_t to = sh->touched[par][j];
                struct outbox *ob = &sh->out[par][to];
                if (P->rank_of[to] != r || !ob->n)
                    continue;
                uint64_t hdr[2] = {(uint64_t)sh->id << 32 | to, (uint64_t)ob->n << 32 | ob->m.len};
                xput(P, hdr, sizeof hdr);
                xput(P, ob->m.b, ob->m.len);
                sh->sent -= ob->n;
                ob->n = 0;
                ob->m.len = 0;
            }
        }
        P->scount[r] = P->x.len - start;
    }
    C->alltoallv(P->x.b, P->scount, &P->rbuf, &P->rcap, P->rcount);
    size_t total = 0;
    for (int r = 0; r < C->size; r++)
        total += P->rcount[r];
    const uint8_t *at = P->rbuf, *end = at + total;
    while (at < end) {
        uint64_t hdr[2];
        xget(&at, hdr, sizeof hdr);
        uint32_t from = (uint32_t)(hdr[0] >> 32), to = (uint32_t)hdr[0], n = (uint32_t)(hdr[1] >> 32);
        size_t len = (uint32_t)hdr[1];
        struct shard *stub = &P->sh[from];
        struct outbox *ob = outbox_of(P, stub, par, to);
        xget(&at, bytes_room(&ob->m, len), len);
        ob->m.len += len;
        ob->n += n;
        stub->sent += n;
    }
}

/* ---------------------------------------------------------------- hooks */

static void record(struct shard *sh, struct rec r)
{
    if (sh->nrec == sh->caprec) {
        sh->caprec = sh->caprec ? 2 * sh->caprec : 256;
        sh->rec = xrealloc(sh->rec, sh->caprec * sizeof *sh->rec);
    }
    r.t = sh->s.now;
    r.handle = sh->q.handle;
    r.seq = sh->rec_seq++;
    sh->rec[sh->nrec++] = r;
}

static void pfc_record(void *ctx, const struct sim *s, uint32_t port, int prio, bool pause)
{
    (void)s;
    record(ctx, (struct rec){.what = REC_PFC, .port = port, .prio = (uint8_t)prio, .pause = pause});
}

void par_held(struct sim *s, int32_t delta)
{
    record((struct shard *)s, (struct rec){.what = REC_HELD, .delta = delta});
}

void par_deadlock_request(struct sim *s)
{
    struct shard *sh = (struct shard *)s;
    if (sh->dl_req == T_NEVER)
        sh->dl_req = s->now; /* events run in time order: the first is the earliest */
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

/* Messages sent over the failed link in the last window are packets on its
 * wire: lost with it, as port_down loses what is on a wire; counted by the
 * partition they were going to (across ranks, the one that holds them). */
static void lose_messages(struct par *P, uint32_t pid)
{
    struct shard *from = &P->sh[P->dest[P->peer[pid]]], *to = &P->sh[P->dest[pid]];
    struct outbox *ob = &from->out[P->parity][to->id];
    uint32_t k = 0;
    size_t kept = 0;
    for (const uint8_t *at = ob->m.b, *end = at + ob->m.len; at < end;) {
        const uint8_t *msg = at;
        uint32_t port, len;
        const uint8_t *bytes = ob_next(&at, &port, &len);
        if (port != pid) {
            memmove(ob->m.b + kept, msg, MSG_HDR + len);
            kept += MSG_HDR + len;
            k++;
            continue;
        }
        struct pkt p;
        memcpy(&p, bytes, len);
        link_lost(&to->s, &p);
    }
    from->sent -= ob->n - k;
    ob->n = k;
    ob->m.len = kept;
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
    bool any = !evq_empty(&s->evq);
    for (uint32_t i = 0; i < P->n && !any; i++)
        any = (P->rank_of[i] == P->rank && !evq_empty(&P->sh[i].s.evq)) || P->sh[i].sent || P->sh[i].ninbox;
    return any_rank(P, any); /* (collective: every rank runs the same global events) */
}

/* ---------------------------------------------------------------- windows */

static void run_shard(struct par *P, struct shard *sh)
{
    deliver(P, sh);
    if (sh->s.pool.in_use) /* messages came: not quiet until they are gone */
        sh->q.quiet = false;
    sh->load = sim_run_window(&sh->s, P->bt, P->bh, &sh->q);
}


/* Thread t takes shards until none is left in this window; its busy time
 * is counted (the rest of the window it waits at the barrier). */
static void take_shards(struct par *P, uint32_t t)
{
    double t0 = proc_wall();
    for (;;) {
        uint32_t i = atomic_fetch_add(&P->next, 1);
        if (i >= P->nmine)
            break;
        run_shard(P, &P->sh[P->order[i]]);
    }
    P->stat.busy[t] += proc_wall() - t0;
}

struct worker_arg {
    struct par *P;
    uint32_t t;
};

static void *worker(void *arg)
{
    struct par *P = ((struct worker_arg *)arg)->P;
    uint32_t t = ((struct worker_arg *)arg)->t;
    bool sense = false;
    for (;;) {
        barrier(P, &sense);
        if (atomic_load(&P->finish))
            return NULL;
        take_shards(P, t);
        barrier(P, &sense);
    }
}

static int desc_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* This process's shards in decreasing order of their last window's events
 * (ties: lower id first). */
static void order_by_load(struct par *P)
{
    for (uint32_t k = 0; k < P->nmine; k++) {
        uint32_t i = P->mine[k];
        uint64_t l = P->sh[i].load < 0xffffffffu ? P->sh[i].load : 0xffffffffu;
        P->sortkey[k] = l << 32 | (0xffffffffu - i);
    }
    qsort(P->sortkey, P->nmine, sizeof *P->sortkey, desc_u64);
    for (uint32_t k = 0; k < P->nmine; k++)
        P->order[k] = 0xffffffffu - (uint32_t)P->sortkey[k];
}

static int rec_cmp(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->handle != y->handle)
        return x->handle < y->handle ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* This process's records of the window, into merge[]; returns how many. */
static size_t rec_collect(struct par *P)
{
    size_t n = 0;
    for (uint32_t i = 0; i < P->n; i++)
        n += P->sh[i].nrec;
    if (n > P->capmerge) {
        P->capmerge = 2 * n;
        P->merge = xrealloc(P->merge, P->capmerge * sizeof *P->merge);
    }
    n = 0;
    for (uint32_t i = 0; i < P->n; i++) {
        if (!P->sh[i].nrec)
            continue; /* (its log may not exist yet: no memcpy from NULL) */
        memcpy(P->merge + n, P->sh[i].rec, P->sh[i].nrec * sizeof *P->merge);
        n += P->sh[i].nrec;
        P->sh[i].nrec = 0;
    }
    return n;
}

/* Across ranks: every rank's n records to rank 0, into its merge[]; returns
 * how many are there (0 elsewhere). total: all ranks' records, or
 * REC_UNKNOWN to count them here. */
#define REC_UNKNOWN UINT64_MAX
static size_t rec_to_root(struct par *P, size_t n, uint64_t total)
{
    if (total == REC_UNKNOWN) {
        uint64_t mine = n, all[P->comm->size];
        P->comm->allgather(&mine, all, sizeof mine);
        total = 0;
        for (int r = 0; r < P->comm->size; r++)
            total += all[r];
    }
    if (!total)
        return 0;
    P->x.len = 0;
    if (n)
        xput(P, P->merge, n * sizeof *P->merge);
    n = to_root(P) / sizeof *P->merge;
    if (n > P->capmerge) {
        P->capmerge = 2 * n;
        P->merge = xrealloc(P->merge, P->capmerge * sizeof *P->merge);
    }
    if (n)
        memcpy(P->merge, P->rbuf, n * sizeof *P->merge);
    return n;
}

/* The shards' records of this window in the serial loop's order: by event
 * key, then in the order the event made them. PFC frames go to the run's
 * hook (pfc.csv); hold-queue changes make the fabric-wide count, whose
 * peak is the serial run's lb_held_peak. Across ranks, rank 0 does this for
 * all of them. */
static void rec_flush(struct par *P, uint64_t total)
{
    struct sim *m = P->main;
    size_t n = rec_collect(P);
    if (P->comm)
        n = rec_to_root(P, n, total);
    if (!n)
        return;
    qsort(P->merge, n, sizeof *P->merge, rec_cmp);
    simtime_t now = m->now;
    for (size_t k = 0; k < n; k++) {
        const struct rec *r = &P->merge[k];
        if (r->what == REC_PFC) {
            m->now = r->t;
            m->hooks.pfc(m->hooks.ctx, m, r->port, r->prio, r->pause);
        } else {
            P->held_now += r->delta;
            if (P->held_now > (int64_t)P->held_peak)
                P->held_peak = (uint64_t)P->held_now;
        }
    }
    m->now = now;
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
        if (P->rank_of[i] != P->rank)
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
        const size_t R = (size_t)P->comm->size, peak_at = head + offsetof(struct sim_counters, reorder_peak_bytes) / sizeof(uint64_t) - tail0;
        uint64_t *v = xcalloc(nv * (R + 1), sizeof *v), *all = v + nv;
        memcpy(v, cv, head * sizeof *v);
        memcpy(v + head, cv + tail0, (tail1 - tail0) * sizeof *v);
        for (uint32_t k = 0; k < m->n_slot; k++) /* by slot: scheme tables have other addresses in other processes */
            for (size_t b = 0; b < sizeof c.cc_stat / sizeof *c.cc_stat && c.cc_stat[b].ops; b++)
                if (c.cc_stat[b].ops == m->slot[k].ops)
                    memcpy(v + head + (tail1 - tail0) + k * CC_STATS, c.cc_stat[b].v, sizeof c.cc_stat[b].v);
        uint64_t *x = v + nv - EXTRA;
        x[0] = in_use, x[1] = peak, x[2] = held, x[3] = ctrl, x[4] = started;
        P->comm->allgather(v, all, nv * sizeof *v);
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

/* Receivers learn which senders wrote to them in the window that just ran,
 * whose outboxes become the ones to deliver (the window parity turns). */
static void turn_window(struct par *P)
{
    uint32_t prev = P->parity;
    P->parity ^= 1;
    for (uint32_t i = 0; i < P->n; i++) {
        struct shard *sh = &P->sh[i];
        for (uint32_t k = 0; k < sh->ntouched[prev]; k++) {
            uint32_t to = sh->touched[prev][k];
            if (P->rank_of[to] != P->rank)
                continue; /* sent there after the window (exchange) */
            struct shard *r = &P->sh[to];
            r->inbox[r->ninbox++] = i;
        }
        sh->ntouched[prev] = 0;
        sh->min_sent = T_NEVER;
        sh->sent = 0;
        sh->dl_req = T_NEVER;
    }
}

static inline bool key_less(simtime_t t, uint32_t h, simtime_t bt, uint32_t bh)
{
    return t < bt || (t == bt && h < bh);
}

/* ---------------------------------------------------------------- results */

enum { RES_SENDER, RES_RECEIVER, RES_FLAGS, RES_PORT, RES_EVENTS, RES_PACKETS, RES_RSS };
#define QP_SND offsetof(struct qp, snd_nxt)  /* struct qp: the sender's block */
#define QP_RCV offsetof(struct qp, rcv_nxt)  /* ...the receiver's */
#define QP_FLAGS offsetof(struct qp, ever_paused) /* ...what switches anywhere set */

static void res_put(struct par *P, uint8_t tag, uint32_t id)
{
    xput(P, &tag, 1);
    xput(P, &id, sizeof id);
}

/* After a run across ranks, what rank 0 writes, from the rank that holds it:
 * each flow's completion and sender's fields (from its source's rank), its
 * receiver's fields (from its destination's), the flags and loss counts that
 * switches anywhere set (or-ed and summed), the pause statistics of each
 * port, each partition's events, and the packets left in the network.
 * Pointers (the IRN bitmaps) do not travel. */
static void results_to_root(struct par *P)
{
    struct sim *m = P->main;
    uint32_t me = (uint32_t)P->rank;
    P->x.len = 0;
    uint64_t net = sim_packets_in_network(m) - m->ctrl_pending.n - m->lb_held_now; /* ports and NICs here */
    for (uint32_t k = 0; k < P->nmine; k++) {
        const struct sim *s = &P->sh[P->mine[k]].s;
        net += s->ctrl_pending.n + s->lb_held_now;
    }
    /* (before rank 0 writes what the others send into its copies of their ports) */
    uint64_t rss[3] = {proc_peak_rss(), proc_rss(), proc_held_bytes(m->ports, (size_t)m->n_ports * sizeof *m->ports)};
    if (me == 0) {
        P->net_packets = net;
        free(P->stat.rss);
        P->stat.rss = xcalloc(3 * (size_t)P->comm->size, sizeof *P->stat.rss);
        for (int i = 0; i < 3; i++)
            P->stat.rss[i * P->comm->size] = rss[i];
    } else {
        res_put(P, RES_PACKETS, 0);
        xput(P, &net, sizeof net);
        res_put(P, RES_RSS, me);
        xput(P, rss, sizeof rss);
        for (uint32_t k = 0; k < P->nmine; k++) {
            res_put(P, RES_EVENTS, P->mine[k]);
            xput(P, &P->sh[P->mine[k]].s.c.events, sizeof(uint64_t));
        }
        for (uint32_t f = 0; f < m->n_flows; f++) {
            struct qp q = m->flows[f];
            q.irn_tx = q.irn_rx = NULL;
            if (sim_node_here(m, q.src)) {
                res_put(P, RES_SENDER, f);
                xput(P, &q.finish, sizeof q.finish);
                xput(P, &q.state, sizeof q.state);
                xput(P, (const uint8_t *)&q + QP_SND, QP_RCV - QP_SND);
            }
            if (sim_node_here(m, q.dst)) {
                res_put(P, RES_RECEIVER, f);
                xput(P, (const uint8_t *)&q + QP_RCV, QP_FLAGS - QP_RCV);
            }
            if (q.ever_paused || q.sw_paused || q.culprit || q.lost) {
                uint8_t bits = (uint8_t)(q.ever_paused | q.sw_paused << 1 | q.culprit << 2);
                res_put(P, RES_FLAGS, f);
                xput(P, &bits, 1);
                xput(P, &q.lost, sizeof q.lost);
            }
        }
        for (uint32_t p = 0; p < m->n_ports; p++) {
            const struct port *pt = &m->ports[p];
            if (!sim_port_here(m, p) || !(pt->pause_frames_rx || pt->paused_time || pt->paused_mask))
                continue;
            res_put(P, RES_PORT, p);
            xput(P, &pt->paused_mask, sizeof pt->paused_mask);
            xput(P, &pt->pause_frames_rx, sizeof pt->pause_frames_rx);
            xput(P, &pt->paused_time, sizeof pt->paused_time);
            xput(P, pt->paused_since, sizeof pt->paused_since);
        }
    }
    size_t n = to_root(P);
    for (const uint8_t *at = P->rbuf, *end = at + n; at < end;) {
        uint8_t tag;
        uint32_t id;
        xget(&at, &tag, 1);
        xget(&at, &id, sizeof id);
        if (tag <= RES_FLAGS) {
            struct qp *q = &m->flows[id];
            uint64_t *keep[2] = {q->irn_rx, q->irn_tx}; /* this process's block, if any: pointers do not travel */
            if (tag == RES_SENDER) {
                xget(&at, &q->finish, sizeof q->finish);
                xget(&at, &q->state, sizeof q->state);
                xget(&at, (uint8_t *)q + QP_SND, QP_RCV - QP_SND);
            } else if (tag == RES_RECEIVER) {
                xget(&at, (uint8_t *)q + QP_RCV, QP_FLAGS - QP_RCV);
            } else {
                uint8_t bits;
                uint32_t lost;
                xget(&at, &bits, 1);
                xget(&at, &lost, sizeof lost);
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
            xget(&at, &pt->paused_mask, sizeof pt->paused_mask);
            xget(&at, &pt->pause_frames_rx, sizeof pt->pause_frames_rx);
            xget(&at, &pt->paused_time, sizeof pt->paused_time);
            xget(&at, pt->paused_since, sizeof pt->paused_since);
            break;
        }
        case RES_EVENTS:
            xget(&at, &P->sh[id].s.c.events, sizeof(uint64_t));
            break;
        case RES_RSS:
            for (int i = 0; i < 3; i++)
                xget(&at, &P->stat.rss[i * P->comm->size + id], sizeof(uint64_t));
            break;
        default: { /* RES_PACKETS */
            uint64_t x;
            xget(&at, &x, sizeof x);
            P->net_packets += x;
        }
        }
    }
    P->gathered = P->rank == 0;
}

void par_gather_all(struct sim *s, const uint8_t **buf, size_t *len)
{
    struct par *P = s->par;
    if (!P || !P->comm)
        return;
    for (int r = 0; r < P->comm->size; r++)
        P->scount[r] = *len;
    /* the same bytes to every rank: alltoallv reads each rank's from its own offset */
    P->x.len = 0;
    for (int r = 0; r < P->comm->size; r++)
        if (*len)
            xput(P, *buf, *len);
    P->comm->alltoallv(P->x.b, P->scount, &P->rbuf, &P->rcap, P->rcount);
    *len = 0;
    for (int r = 0; r < P->comm->size; r++)
        *len += P->rcount[r];
    *buf = P->rbuf;
}

bool par_any(struct sim *s, bool mine)
{
    return s->par ? any_rank(s->par, mine) : mine;
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
    if (P->rank != 0) {
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
                xput(P, &b, sizeof b);
        }
        for (uint32_t f = 0; f < m->n_flows; f++) {
            const struct qp *q = &m->flows[f];
            if (q->state == FLOW_ACTIVE && sim_node_here(m, q->src))
                xput(P, &(struct borrowed){.tag = LEND_SENDER, .id = f, .state = q->state, .rate = q->rate}, sizeof(struct borrowed));
            if (q->rcv_nxt && sim_node_here(m, q->dst))
                xput(P, &(struct borrowed){.tag = LEND_RECEIVER, .id = f, .rcv_nxt = q->rcv_nxt}, sizeof(struct borrowed));
        }
    }
    size_t n = to_root(P);
    P->nlent = 0;
    for (const uint8_t *at = P->rbuf, *end = at + n; at < end;) {
        if (P->nlent == P->caplent) {
            P->caplent = P->caplent ? 2 * P->caplent : 1024;
            P->lent = xrealloc(P->lent, P->caplent * sizeof *P->lent);
        }
        struct borrowed *b = &P->lent[P->nlent++];
        xget(&at, b, sizeof *b); /* (the same binary at every rank: the same layout) */
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
    simtime_t all[P->comm->size];
    P->comm->allgather(&next, all, sizeof next);
    return all[0]; /* rank 0's: its monitors' and its watchdog's next */
}

bool par_net_packets(const struct sim *s, uint64_t *n)
{
    const struct par *P = s->par;
    if (!P->comm || P->rank != 0 || !P->gathered)
        return false;
    *n = P->net_packets;
    return true;
}

/* What a window did, over the partitions: messages, events, records for
 * rank 0, whether all are quiet and the latest (time, handle) at which one
 * became so, the earliest deadlock-check request; and where the next window
 * starts (the earliest pending event or message, t0) and the latest clock. */
struct wsum {
    uint64_t sent, ev, nrec;
    simtime_t qt, dl, t0, last;
    uint32_t qh, quiet;
};

/* This process's part of t0 and last (struct wsum). */
static void next_window(const struct par *P, simtime_t *t0, simtime_t *last)
{
    for (uint32_t k = 0; k < P->nmine; k++) {
        const struct shard *sh = &P->sh[P->mine[k]];
        simtime_t t = evq_top_time(&sh->s.evq);
        if (t < *t0)
            *t0 = t;
        if (sh->min_sent < *t0)
            *t0 = sh->min_sent;
        if (sh->s.now > *last)
            *last = sh->s.now;
    }
}

/* Across ranks: the same over every rank's partitions (collective). */
static void wsum_ranks(struct par *P, struct wsum *w)
{
    struct wsum all[P->comm->size];
    P->comm->allgather(w, all, sizeof *w);
    *w = (struct wsum){.quiet = 1, .dl = T_NEVER, .t0 = T_NEVER};
    for (int r = 0; r < P->comm->size; r++) {
        w->sent += all[r].sent;
        w->ev += all[r].ev;
        w->nrec += all[r].nrec;
        w->t0 = all[r].t0 < w->t0 ? all[r].t0 : w->t0;
        w->last = all[r].last > w->last ? all[r].last : w->last;
        w->quiet = w->quiet && all[r].quiet;
        if (!key_less(all[r].qt, all[r].qh, w->qt, w->qh))
            w->qt = all[r].qt, w->qh = all[r].qh;
        if (all[r].dl < w->dl)
            w->dl = all[r].dl;
    }
}

void sim_run_parallel(struct sim *m, const uint32_t *part, uint32_t parts, uint32_t threads, simtime_t la,
                      const struct par_comm *comm)
{
    struct par *P = m->par;
    if (!P) { /* first call: set up the shards */
        P = xcalloc(1, sizeof *P);
        m->par = P;
        P->main = m;
        P->n = parts;
        P->threads = threads;
        const uint32_t *pt = part; /* read here only: dest[] keeps what the run needs */
        P->la = la;
        P->sh = xcalloc_aligned(parts, sizeof *P->sh, _Alignof(struct shard));
        P->order = xmalloc(parts * sizeof *P->order);
        P->sortkey = xmalloc(parts * sizeof *P->sortkey);
        P->comm = comm;
        P->rank = comm ? comm->rank : 0;
        P->rank_of = xmalloc(parts * sizeof *P->rank_of);
        P->mine = xmalloc(parts * sizeof *P->mine);
        for (uint32_t i = 0; i < parts; i++) {
            P->rank_of[i] = comm ? par_rank_of(i, parts, comm->size) : 0;
            if (P->rank_of[i] == P->rank)
                P->mine[P->nmine++] = i;
        }
        if (comm) {
            P->scount = xcalloc((size_t)comm->size, sizeof *P->scount);
            P->rcount = xcalloc((size_t)comm->size, sizeof *P->rcount);
        }
        P->peer = xmalloc(m->n_ports * sizeof *P->peer);
        P->wire = xmalloc(m->n_ports * sizeof *P->wire);
        P->dest = xmalloc(m->n_ports * sizeof *P->dest);
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
        }
        lb_paths_alloc(m); /* before the shards copy the sim: one table of path sets, each enumerated at its first use by any partition (paths.c) */
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
                uint64_t fabric;
            } mine = {m->hooks.sample ? mon_t : T_NEVER, m->hooks.sample_reads_fabric}, all[comm->size];
            comm->allgather(&mine, all, sizeof mine);
            if (all[0].t != T_NEVER)
                evq_push_timer(&m->evq, all[0].t, EV_MONITOR, 0);
            P->sample_gather = all[0].fabric;
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
            s->hooks = (struct sim_hooks){.ctx = sh, .pfc = m->hooks.pfc || comm ? pfc_record : NULL}; /* (rank 0 writes every rank's) */
            s->par = P;
            s->is_shard = true;
            s->port_peer = P->peer;
            s->port_wire = P->wire;
            sh->par = P;
            sh->id = i;
            sh->out[0] = xcalloc(parts, sizeof(struct outbox));
            sh->out[1] = xcalloc(parts, sizeof(struct outbox));
            sh->inbox = xmalloc(parts * sizeof *sh->inbox);
            sh->min_sent = T_NEVER;
            sh->dl_req = T_NEVER;
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
            bool local = P->rank_of[i] == P->rank;
            if (s->n_starts && local)
                evq_push(&s->evq, m->flows[s->start_order[0]].start, EV_FLOW_START, 0);
            P->sh[i].q.quiet = s->n_src == 0 || !local;
            P->sh[i].q.t = 0;
            P->sh[i].q.handle = P->sh[i].q.h = 0;
        }
        P->tid = xcalloc(threads, sizeof *P->tid);
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        P->spin_limit = cores > 0 && threads > (uint32_t)cores ? 64 : 2048;
        P->stat.ranks = comm ? (uint32_t)comm->size : 1;
        P->stat.threads = threads;
        P->stat.partitions = parts;
        P->stat.lookahead = la;
        P->stat.busy = xcalloc(threads, sizeof *P->stat.busy);
    }
    m->stopped = false;
    atomic_store(&P->finish, false);
    atomic_store(&P->bar_count, 0);
    atomic_store(&P->bar_sense, false);
    struct worker_arg *wa = xcalloc(threads, sizeof *wa);
    for (uint32_t t = 1; t < threads; t++) {
        wa[t] = (struct worker_arg){P, t};
        pthread_create(&P->tid[t], NULL, worker, &wa[t]);
    }
    double start = proc_wall();
    bool sense = false;
    uint64_t global_events = 0, since_progress = 0;
    bool known = false;        /* t0 and last are the last window's sums' (no global event since) */
    simtime_t t0 = T_NEVER, last = m->now;
    for (;;) {
        /* the next window: from the earliest pending event or message */
        if (!known) {
            struct wsum w = {.quiet = 1, .dl = T_NEVER, .t0 = T_NEVER, .last = m->now};
            next_window(P, &w.t0, &w.last);
            if (P->comm) /* the earliest of every rank's, and the latest clock */
                wsum_ranks(P, &w);
            t0 = w.t0, last = w.last;
        }
        simtime_t gt = evq_top_time(&m->evq);
        uint32_t gh = evq_empty(&m->evq) ? 0 : evq_peek_handle(&m->evq);
        if (t0 == T_NEVER && gt == T_NEVER) { /* nothing left anywhere: the clock at the last event run */
            m->now = last;
            break;
        }
        if (m->p.stop && (t0 < gt ? t0 : gt) > m->p.stop) {
            m->now = m->p.stop;
            m->stopped = true;
            break;
        }
        simtime_t bt = t0 == T_NEVER ? T_NEVER : t0 + P->la;
        uint32_t bh = 0;
        bool global = gt != T_NEVER && key_less(gt, gh, bt, bh);
        if (global)
            bt = gt, bh = gh;
        if (m->p.stop && key_less(m->p.stop + 1, 0, bt, bh))
            bt = m->p.stop + 1, bh = 0, global = false;
        P->bt = bt;
        P->bh = bh;
        turn_window(P);
        order_by_load(P);
        atomic_store(&P->next, 0);
        barrier(P, &sense);
        take_shards(P, 0);
        barrier(P, &sense);
        P->stat.windows++;
        /* between windows: one thread (per rank) */
        if (P->comm)
            exchange(P);
        struct wsum w = {.quiet = 1, .dl = T_NEVER, .t0 = T_NEVER, .last = m->now};
        next_window(P, &w.t0, &w.last); /* (the global work below may change it: then asked again) */
        for (uint32_t i = 0; i < P->n; i++) { /* (a stub: no events, quiet; its sent: messages received) */
            struct shard *sh = &P->sh[i];
            w.sent += sh->sent;
            w.ev += sh->load;
            w.nrec += sh->nrec;
            w.quiet = w.quiet && sh->q.quiet;
            if (!key_less(sh->q.t, sh->q.h, w.qt, w.qh))
                w.qt = sh->q.t, w.qh = sh->q.h;
            if (sh->dl_req < w.dl)
                w.dl = sh->dl_req;
        }
        if (P->comm)
            wsum_ranks(P, &w);
        rec_flush(P, w.nrec);
        t0 = w.t0, last = w.last, known = !global;
        uint64_t sent = w.sent, ev = w.ev;
        bool quiet = w.quiet;
        simtime_t qt = w.qt, dl = w.dl;
        since_progress += ev;
        P->stat.messages += sent;
        if (dl != T_NEVER) { /* a PAUSE reached a switch: deadlock_arm as the serial loop would have */
            m->now = dl;
            deadlock_arm(m);
        }
        if (quiet && !sent && m->n_flows) { /* the serial loop's end: every flow done, no packet anywhere */
            m->now = qt;
            break;
        }
        if (global) { /* the global event the window stopped before */
            merge_counters(P, global_events);
            struct event e;
            evq_pop(&m->evq, &e);
            m->now = e.time;
            global_events++;
            P->stat.global_events++;
            sim_global_event(m, &e);
        }
        if (since_progress >= 65536 && m->hooks.progress) {
            since_progress = 0;
            merge_counters(P, global_events);
            if (t0 != T_NEVER && t0 > m->now)
                m->now = t0;
            bool own = m->hooks.progress(m->hooks.ctx, m), stop = any_rank(P, own); /* a signal, or a full disk, at any rank stops them all */
            P->stat.peer_stop = stop && !own;
            if (stop)
                break;
        }
    }
    atomic_store(&P->finish, true);
    barrier(P, &sense);
    for (uint32_t t = 1; t < threads; t++)
        pthread_join(P->tid[t], NULL);
    free(wa);
    P->stat.loop += proc_wall() - start;
    /* Messages of the last window are packets on their wires, as the serial
     * run's are when it stops (packets_left_in_network; a later sim_run_parallel
     * takes them from there) */
    turn_window(P);
    for (uint32_t k = 0; k < P->nmine; k++)
        deliver(P, &P->sh[P->mine[k]]);
    rec_flush(P, REC_UNKNOWN);
    merge_counters(P, global_events);
    sim_mark_paused_waiting(m);
    if (P->comm) {
        if (P->sample_gather) /* the monitors' last sample reads them at rank 0 after the run: kept there */
            lend_to_root(P), P->nlent = 0;
        results_to_root(P);
    }
}

bool sim_parallel_stats(const struct sim *m, struct par_stats *st, uint64_t *part_events, uint32_t n)
{
    const struct par *P = m->par;
    if (!P)
        return false;
    *st = P->stat;
    for (uint32_t i = 0; i < n && i < P->n; i++)
        part_events[i] = P->sh[i].s.c.events;
    return true;
}

void par_free(struct sim *m)
{
    struct par *P = m->par;
    if (!P)
        return;
    for (uint32_t i = 0; i < P->n; i++) {
        struct shard *sh = &P->sh[i];
        struct sim *s = &sh->s;
        evq_free(&s->evq);
        for (size_t k = 0; k < s->pool.nchunks; k++)
            free(s->pool.chunks[k]);
        free(s->pool.chunks);
        lb_mem_free(s);
        free(s->start_order);
        for (int b = 0; b < 2; b++) {
            for (uint32_t j = 0; j < P->n; j++) {
                free(sh->out[b][j].m.b);
            }
            free(sh->out[b]);
            free(sh->touched[b]);
        }
        free(sh->inbox);
        free(sh->rec);
    }
    free(P->sh);
    free(P->order);
    free(P->sortkey);
    free(P->merge);
    free(P->peer);
    free(P->dest);
    free(P->wire);
    free(P->rank_of);
    free(P->mine);
    free(P->x.b);
    free(P->rbuf);
    free(P->scount);
    free(P->rcount);
    free(P->tid);
    free(P->stat.busy);
    free(P->stat.rss);
    free(P->lent);
    free(P);
    m->par = NULL;
}
