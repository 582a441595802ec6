/* The window loop of a parallel run (docs/parallel.md, "Windows").
 *
 * Conservative windows: every partition runs its events with time in
 * [t0, t0 + L), t0 the earliest pending event or message of all, L the
 * smallest delay of a link between partitions; a message sent at t >= t0
 * arrives at >= t + L, so in a later window. Partitions are taken by the
 * threads in decreasing order of their previous window's events (Unison's
 * load-adaptive rule), each by whichever thread is free, then the threads
 * meet at a barrier. Between windows one thread (per rank) exchanges the
 * ranks' messages, merges the records in event order, runs a due global
 * event (the model's), and decides whether the run is over. A window bounded
 * by a global event at (t, h) runs only the events that precede it in the
 * serial order.
 *
 * Across MPI ranks (struct eng_comm) the same loop runs in every process,
 * each on its own partitions: the window's start, its sums and the end are
 * decided from all-gathered figures. */
#include "engine/eng_impl.h"
#include "core/proc.h"
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

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
static void barrier(struct eng *e, bool *sense)
{
    *sense = !*sense;
    if (atomic_fetch_add(&e->bar_count, 1) == e->threads - 1) {
        atomic_store(&e->bar_count, 0);
        atomic_store(&e->bar_sense, *sense);
        return;
    }
    for (unsigned spins = 0; atomic_load_explicit(&e->bar_sense, memory_order_acquire) != *sense;) {
        cpu_relax();
        if (++spins > e->spin_limit)
            sched_yield();
    }
}

/* ---------------------------------------------------------------- set-up */

uint64_t eng_sharing(uint32_t threads, const struct eng_comm *comm, unsigned *cpus, bool *bound)
{
    *cpus = proc_cpus(bound);
    return (uint64_t)threads * (uint64_t)(comm && comm->node_sharing > 1 ? comm->node_sharing : 1);
}

struct eng *eng_create(const struct eng_ops *ops, void *model, uint32_t n, uint32_t threads, simtime_t la,
                       const struct eng_comm *comm, bool quiet_ends)
{
    struct eng *e = xcalloc(1, sizeof *e);
    e->ops = ops;
    e->model = model;
    e->n = n;
    e->threads = threads;
    e->la = la;
    e->quiet_ends = quiet_ends;
    e->part = xcalloc_aligned(n, sizeof *e->part, _Alignof(struct eng_part));
    e->order = xmalloc(n * sizeof *e->order);
    e->sortkey = xmalloc(n * sizeof *e->sortkey);
    e->comm = comm;
    e->rank = comm ? comm->rank : 0;
    e->rank_of = xmalloc(n * sizeof *e->rank_of);
    e->mine = xmalloc(n * sizeof *e->mine);
    for (uint32_t i = 0; i < n; i++) {
        e->rank_of[i] = comm ? eng_rank_of(i, n, comm->size) : 0;
        if (e->rank_of[i] == e->rank)
            e->mine[e->nmine++] = i;
    }
    if (comm) {
        e->scount = xcalloc((size_t)comm->size, sizeof *e->scount);
        e->rcount = xcalloc((size_t)comm->size, sizeof *e->rcount);
    }
    for (uint32_t i = 0; i < n; i++) {
        struct eng_part *p = &e->part[i];
        p->e = e;
        p->id = i;
        p->out[0] = xcalloc(n, sizeof(struct outbox));
        p->out[1] = xcalloc(n, sizeof(struct outbox));
        p->inbox = xmalloc(n * sizeof *p->inbox);
        p->min_sent = T_NEVER;
        p->req = T_NEVER;
    }
    e->tid = xcalloc(threads, sizeof *e->tid);
    unsigned cpus;
    bool bound;
    uint64_t sharing = eng_sharing(threads, comm, &cpus, &bound);
    e->spin_limit = cpus > 0 && sharing > cpus ? 64 : 2048;
    e->stat.cpus = cpus;
    e->stat.sharing = sharing > UINT32_MAX ? UINT32_MAX : (uint32_t)sharing;
    e->stat.ranks = comm ? (uint32_t)comm->size : 1;
    e->stat.threads = threads;
    e->stat.partitions = n;
    e->stat.lookahead = la;
    e->stat.busy = xcalloc(threads, sizeof *e->stat.busy);
    return e;
}

struct eng_part *eng_part(struct eng *e, uint32_t i) { return &e->part[i]; }
void eng_part_set(struct eng *e, uint32_t i, void *part) { e->part[i].model = part; }
bool eng_local(const struct eng *e, uint32_t i) { return e->rank_of[i] == e->rank; }
struct eng_quiet *eng_part_quiet(struct eng_part *p) { return &p->q; }

void eng_request(struct eng_part *p, simtime_t t)
{
    if (p->req == T_NEVER)
        p->req = t; /* events run in time order: the first is the earliest */
}

void eng_stats(const struct eng *e, struct eng_stats *st) { *st = e->stat; }

void eng_free(struct eng *e)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < e->n; i++) {
        struct eng_part *p = &e->part[i];
        for (int b = 0; b < 2; b++) {
            for (uint32_t j = 0; j < e->n; j++)
                free(p->out[b][j].m.b);
            free(p->out[b]);
            free(p->touched[b]);
        }
        free(p->inbox);
        free(p->rec);
    }
    free(e->part);
    free(e->order);
    free(e->sortkey);
    free(e->merge);
    free(e->rank_of);
    free(e->mine);
    free(e->x.b);
    free(e->rbuf);
    free(e->scount);
    free(e->rcount);
    free(e->tid);
    free(e->stat.busy);
    free(e);
}

/* ---------------------------------------------------------------- windows */

/* Thread t takes partitions until none is left in this window; its busy
 * time is counted (the rest of the window it waits at the barrier). */
static void take_parts(struct eng *e, uint32_t t)
{
    double t0 = proc_wall();
    for (;;) {
        uint32_t i = atomic_fetch_add(&e->next, 1);
        if (i >= e->nmine)
            break;
        struct eng_part *p = &e->part[e->order[i]];
        p->load = e->ops->run(p->model, e->bt, e->bh, &p->q);
    }
    e->stat.busy[t] += proc_wall() - t0;
}

struct worker_arg {
    struct eng *e;
    uint32_t t;
};

static void *worker(void *arg)
{
    struct eng *e = ((struct worker_arg *)arg)->e;
    uint32_t t = ((struct worker_arg *)arg)->t;
    bool sense = false;
    for (;;) {
        barrier(e, &sense);
        if (atomic_load(&e->finish))
            return NULL;
        take_parts(e, t);
        barrier(e, &sense);
    }
}

static int desc_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* This process's partitions in decreasing order of their last window's
 * events (ties: lower id first). */
static void order_by_load(struct eng *e)
{
    for (uint32_t k = 0; k < e->nmine; k++) {
        uint32_t i = e->mine[k];
        uint64_t l = e->part[i].load < 0xffffffffu ? e->part[i].load : 0xffffffffu;
        e->sortkey[k] = l << 32 | (0xffffffffu - i);
    }
    qsort(e->sortkey, e->nmine, sizeof *e->sortkey, desc_u64);
    for (uint32_t k = 0; k < e->nmine; k++)
        e->order[k] = 0xffffffffu - (uint32_t)e->sortkey[k];
}

/* What a window did, over the partitions: messages, events, records for
 * rank 0, whether all are quiet and the latest (time, handle) at which one
 * became so, the earliest request; and where the next window starts (the
 * earliest pending event or message, t0) and the latest clock. */
struct wsum {
    uint64_t sent, ev, nrec;
    simtime_t qt, dl, t0, last;
    uint32_t qh, quiet;
};

/* This process's part of t0 and last (struct wsum). */
static void next_window(const struct eng *e, simtime_t *t0, simtime_t *last)
{
    for (uint32_t k = 0; k < e->nmine; k++) {
        const struct eng_part *p = &e->part[e->mine[k]];
        simtime_t now, t = e->ops->next(p->model, &now);
        if (t < *t0)
            *t0 = t;
        if (p->min_sent < *t0)
            *t0 = p->min_sent;
        if (now > *last)
            *last = now;
    }
}

/* Across ranks: the same over every rank's partitions (collective). */
static void wsum_ranks(struct eng *e, struct wsum *w)
{
    struct wsum all[e->comm->size];
    e->comm->allgather(w, all, sizeof *w);
    *w = (struct wsum){.quiet = 1, .dl = T_NEVER, .t0 = T_NEVER};
    for (int r = 0; r < e->comm->size; r++) {
        w->sent += all[r].sent;
        w->ev += all[r].ev;
        w->nrec += all[r].nrec;
        w->t0 = all[r].t0 < w->t0 ? all[r].t0 : w->t0;
        w->last = all[r].last > w->last ? all[r].last : w->last;
        w->quiet = w->quiet && all[r].quiet;
        if (!eng_key_less(all[r].qt, all[r].qh, w->qt, w->qh))
            w->qt = all[r].qt, w->qh = all[r].qh;
        if (all[r].dl < w->dl)
            w->dl = all[r].dl;
    }
}

enum eng_end eng_run(struct eng *e, simtime_t *at)
{
    const struct eng_ops *ops = e->ops;
    void *m = e->model;
    atomic_store(&e->finish, false);
    atomic_store(&e->bar_count, 0);
    atomic_store(&e->bar_sense, false);
    struct worker_arg *wa = xcalloc(e->threads, sizeof *wa);
    for (uint32_t t = 1; t < e->threads; t++) {
        wa[t] = (struct worker_arg){e, t};
        pthread_create(&e->tid[t], NULL, worker, &wa[t]);
    }
    double start = proc_wall();
    bool sense = false;
    uint64_t global_events = 0, since_progress = 0;
    bool known = false; /* t0 and last are the last window's sums' (no global event since) */
    simtime_t t0 = T_NEVER, last = ops->clock(m);
    enum eng_end end;
    for (;;) {
        /* the next window: from the earliest pending event or message */
        if (!known) {
            struct wsum w = {.quiet = 1, .dl = T_NEVER, .t0 = T_NEVER, .last = ops->clock(m)};
            next_window(e, &w.t0, &w.last);
            if (e->comm) /* the earliest of every rank's, and the latest clock */
                wsum_ranks(e, &w);
            t0 = w.t0, last = w.last;
        }
        simtime_t gt = T_NEVER, stop = ops->stop(m);
        uint32_t gh = 0;
        if (!ops->global_next(m, &gt, &gh))
            gt = T_NEVER, gh = 0;
        if (t0 == T_NEVER && gt == T_NEVER) { /* nothing left anywhere: the clock at the last event run */
            *at = last;
            end = ENG_DONE;
            break;
        }
        if (stop && (t0 < gt ? t0 : gt) > stop) {
            *at = stop;
            end = ENG_STOP;
            break;
        }
        simtime_t bt = t0 == T_NEVER ? T_NEVER : t0 + e->la;
        uint32_t bh = 0;
        bool global = gt != T_NEVER && eng_key_less(gt, gh, bt, bh);
        if (global)
            bt = gt, bh = gh;
        if (stop && eng_key_less(stop + 1, 0, bt, bh))
            bt = stop + 1, bh = 0, global = false;
        e->bt = bt;
        e->bh = bh;
        eng_turn_window(e);
        order_by_load(e);
        atomic_store(&e->next, 0);
        barrier(e, &sense);
        take_parts(e, 0);
        barrier(e, &sense);
        e->stat.windows++;
        /* between windows: one thread (per rank) */
        if (e->comm)
            eng_exchange(e);
        struct wsum w = {.quiet = 1, .dl = T_NEVER, .t0 = T_NEVER, .last = ops->clock(m)};
        next_window(e, &w.t0, &w.last); /* (the global work below may change it: then asked again) */
        for (uint32_t i = 0; i < e->n; i++) { /* (a stub: no events, quiet; its sent: messages received) */
            const struct eng_part *p = &e->part[i];
            w.sent += p->sent;
            w.ev += p->load;
            w.nrec += p->nrec;
            w.quiet = w.quiet && p->q.quiet;
            if (!eng_key_less(p->q.t, p->q.h, w.qt, w.qh))
                w.qt = p->q.t, w.qh = p->q.h;
            if (p->req < w.dl)
                w.dl = p->req;
        }
        if (e->comm)
            wsum_ranks(e, &w);
        eng_rec_flush(e, w.nrec);
        t0 = w.t0, last = w.last, known = !global;
        since_progress += w.ev;
        e->stat.messages += w.sent;
        if (w.dl != T_NEVER) /* a partition asked for a check (the PFC deadlock detector) */
            ops->request(m, w.dl);
        if (e->quiet_ends && w.quiet && !w.sent) { /* the serial loop's end: all done, nothing in flight */
            *at = w.qt;
            end = ENG_QUIET;
            break;
        }
        if (global) { /* the global event the window stopped before */
            ops->global_run(m, global_events);
            global_events++;
            e->stat.global_events++;
        }
        if (since_progress >= 65536) {
            int own = ops->progress(m, global_events, t0);
            if (own >= 0) {
                since_progress = 0;
                bool stop_all = eng_any(e, own); /* a signal, or a full disk, at any rank stops them all */
                e->stat.peer_stop = stop_all && !own;
                if (stop_all) {
                    *at = ops->clock(m);
                    end = ENG_PROGRESS;
                    break;
                }
            }
        }
    }
    atomic_store(&e->finish, true);
    barrier(e, &sense);
    for (uint32_t t = 1; t < e->threads; t++)
        pthread_join(e->tid[t], NULL);
    free(wa);
    e->stat.loop += proc_wall() - start;
    /* the last window's messages, for the model to place (eng_recv_next), and its records */
    eng_turn_window(e);
    eng_rec_flush(e, REC_UNKNOWN);
    return end;
}
