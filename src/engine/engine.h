/* The engine of a parallel run (docs/parallel.md; issue 39): conservative
 * windows over partitions on threads of one process and across MPI ranks,
 * the messages between partitions, the ranks' collectives, and records
 * merged in event order. It knows nothing of the model it runs: a partition
 * is a pointer it hands back to the model (struct eng_ops), a message is an
 * id and bytes, a record is a key and 16 opaque bytes. net/shard.c is the
 * model's side (the fabric's partitions as shards of struct sim).
 *
 * Layering: net/ -> engine/ -> core/. This is the only engine header
 * anyone includes; engine/ never includes net/.
 *
 * Rules for the model (after OMNeT++'s parsim constraints and ROSS's
 * lookahead check): never call a collective during a window; never write
 * another partition's objects; never eng_send with `arrive` below the
 * window's bound (asserted in debug builds); never do I/O in a partition,
 * emit records instead. */
#ifndef ROCESIM_ENGINE_H
#define ROCESIM_ENGINE_H

#include "core/simtime.h"
#include "core/xalloc.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A run across processes (MPI ranks: cli/dist_mpi.c provides this, so the
 * library never links MPI). Every rank builds the same model; rank r runs
 * the partitions eng_rank_of gives it, on its own threads, and the ranks
 * exchange what crosses between them after each window. Both calls are
 * collective: every rank makes them in the same order. */
struct eng_comm {
    int rank, size;
    int node_sharing; /* ranks of the run on this rank's machine whose CPUs overlap its own, itself included
                       * (MPI_COMM_TYPE_SHARED and each one's affinity): their threads share its CPUs */
    /* Every rank's n bytes from `mine`, in rank order, into `all` (size * n bytes). */
    void (*allgather)(const void *mine, void *all, size_t n);
    /* scount[r] bytes of `send` (concatenated in rank order) to rank r; what
     * each rank sent here, concatenated in rank order, into *recv (grown
     * with realloc to *rcap bytes as needed), rcount[r] bytes from rank r. */
    void (*alltoallv)(const void *send, const size_t *scount, void **recv, size_t *rcap, size_t *rcount);
};
/* The run's threads that share the CPUs this process may run on (*cpus,
 * proc_cpus; *bound if its launcher narrowed them): `threads` of each rank
 * whose CPUs overlap its own (comm->node_sharing). More than *cpus means
 * they take turns. */
uint64_t eng_sharing(uint32_t threads, const struct eng_comm *comm, unsigned *cpus, bool *bound);
/* The rank that runs partition `part` of `parts`: contiguous blocks, so that
 * neighbouring partitions (a pod's) share a rank. */
static inline int eng_rank_of(uint32_t part, uint32_t parts, int size) { return (int)((uint64_t)part * (uint64_t)size / parts); }

/* A parallel run's engine, for parallel.json (wall times in seconds). */
struct eng_stats {
    uint32_t ranks;     /* processes (MPI ranks), 1 without */
    uint32_t threads, partitions;
    uint32_t cpus;      /* the CPUs this rank may run on (proc_cpus; 0: unknown) */
    uint32_t sharing;   /* the run's threads that share them (eng_sharing); above cpus a barrier's wait yields soon */
    simtime_t lookahead;
    uint64_t windows, messages, global_events;
    double loop;    /* the run's event loop, wall */
    double *busy;   /* per thread: running partitions (the rest of loop it waits at barriers or runs the global work) */
    bool peer_stop; /* across ranks: another rank's progress hook stopped the run (its signal came first) */
    uint64_t *rss;  /* across ranks, at rank 0: each rank's peak resident memory in bytes, then each rank's at the
                     * end of the run, then the bytes of the port array it holds then (proc_held_bytes: its own
                     * ports, not another rank's), 3 x ranks; NULL otherwise (the model's: net/shard.c) */
};

/* When a partition last became quiet (its work done, nothing of it in
 * flight): since the event at (t, h). `handle` is the event running now,
 * which the model keeps up to date while it runs a window. */
struct eng_quiet {
    bool quiet;
    simtime_t t;
    uint32_t h;
    uint32_t handle;
};

/* An event's key (time, handle): the order of the serial loop. */
static inline bool eng_key_less(simtime_t t, uint32_t h, simtime_t bt, uint32_t bh)
{
    return t < bt || (t == bt && h < bh);
}

/* A record: what a partition did that the model reports in event order
 * across the whole run; merged by (t, handle, seq) after each window. body is
 * the model's (a fixed layout without pointers: it crosses ranks). */
struct eng_rec {
    simtime_t t;
    uint32_t handle, seq;
    uint8_t body[16];
};

struct eng;
struct eng_part;

/* What the engine calls in the model. `part` is the pointer given to
 * eng_create for that partition, `model` the one given for the whole run.
 * Each is called once per partition per window, or once per window. */
struct eng_ops {
    /* Run the partition's events with key below (bt, bh) (bh = 0: time
     * below bt), after placing the messages eng_recv_next gives; keep q.
     * Returns the events run. */
    uint64_t (*run)(void *part, simtime_t bt, uint32_t bh, struct eng_quiet *q);
    /* The partition's earliest pending event (T_NEVER if none) and its clock. */
    simtime_t (*next)(void *part, simtime_t *now);
    /* The run's next global event's key; false if there is none. */
    bool (*global_next)(void *model, simtime_t *t, uint32_t *h);
    /* Run that global event between windows (every partition stopped
     * before it); global_events: those run before it. */
    void (*global_run)(void *model, uint64_t global_events);
    /* The window's records, in event order (at rank 0 across ranks). */
    void (*records)(void *model, const struct eng_rec *r, size_t n);
    /* A partition asked for a check at t (eng_request): the earliest of the window's. */
    void (*request)(void *model, simtime_t t);
    /* Every ~65,536 events (t0: the next window's start): -1 if the model
     * has no progress hook, else whether it asks to stop. */
    int (*progress)(void *model, uint64_t global_events, simtime_t t0);
    /* The current stop time (0: none); read every window (a global event may set it). */
    simtime_t (*stop)(void *model);
    /* The run's clock (global events and requests move it). */
    simtime_t (*clock)(void *model);
};

/* n partitions (the model's partition i is set with eng_part_set); threads
 * per process; lookahead L (the smallest delay of a link between
 * partitions); comm NULL in one process; quiet_ends: the run ends once every
 * partition is quiet and no message is in flight (else only when nothing is
 * left). Partition blocks are allocated here, each on its own cache lines. */
struct eng *eng_create(const struct eng_ops *ops, void *model, uint32_t n, uint32_t threads, simtime_t lookahead,
                       const struct eng_comm *comm, bool quiet_ends);
void eng_part_set(struct eng *e, uint32_t i, void *part);
struct eng_part *eng_part(struct eng *e, uint32_t i);
/* Whether this process runs partition i (always, but across ranks). */
bool eng_local(const struct eng *e, uint32_t i);

/* How eng_run ended, and at what time. */
enum eng_end { ENG_DONE, ENG_QUIET, ENG_STOP, ENG_PROGRESS };
/* Runs windows until nothing is left (ENG_DONE, at the clock of the last
 * event), every partition is quiet with no message in flight (ENG_QUIET, at
 * the latest quiet key), the stop time is passed (ENG_STOP, at it) or the
 * progress call asked to stop (ENG_PROGRESS). Then the messages of the last
 * window are turned for delivery (eng_recv_next) and its records flushed.
 * May be called again to continue. */
enum eng_end eng_run(struct eng *e, simtime_t *at);
void eng_stats(const struct eng *e, struct eng_stats *st);
void eng_free(struct eng *e);

/* ---- in a window, from partition p ---- */

/* A message to partition `to`: len bytes, arriving at `arrive` (>= the
 * window's bound), for the receiver's `id` (a port). A direct call. */
void eng_send(struct eng_part *p, uint32_t to, uint32_t id, simtime_t arrive, const void *bytes, uint32_t len);
/* The same for a pointer (its 8 bytes: eng_recv_next gives len = sizeof
 * ptr), between partitions of one process only (eng_local): what it points
 * to is the receiver's from then on. The model's objects cross without being
 * copied. */
void eng_send_ref(struct eng_part *p, uint32_t to, uint32_t id, simtime_t arrive, const void *ptr);
/* The previous window's messages to p, one by one in the serial order (in
 * the order the senders were touched, each sender's in its order): its
 * bytes, id and length, or NULL when none is left. */
const void *eng_recv_next(struct eng_part *p, uint32_t *id, uint32_t *len);
/* The record `body` (16 bytes) for event (t, handle). */
void eng_record(struct eng_part *p, simtime_t t, uint32_t handle, const void *body);
/* The model asks for ops->request at t (the earliest asked for in the window). */
void eng_request(struct eng_part *p, simtime_t t);
/* p's quiet record (the model keeps its `handle` as it runs p). */
struct eng_quiet *eng_part_quiet(struct eng_part *p);

/* ---- between windows ---- */

/* Messages to `to` from `from` sent in the last window with this id are
 * dropped: each is handed to lost(ctx, bytes, len) first. */
void eng_drop(struct eng *e, uint32_t from, uint32_t to, uint32_t id, void (*lost)(void *ctx, const void *bytes, uint32_t len),
              void *ctx);
/* Whether a message is in flight in this process (sent, or not yet delivered). */
bool eng_in_flight(const struct eng *e);

/* Collectives (every rank in the same order; between windows only). In one
 * process they do what one rank would alone. */
int eng_rank(const struct eng *e);
int eng_ranks(const struct eng *e);
/* Every rank's n bytes from mine into all, in rank order. */
void eng_allgather(struct eng *e, const void *mine, void *all, size_t n);
/* Whether mine holds at any rank. */
bool eng_any(struct eng *e, bool mine);
/* [buf, buf + len) of every rank to rank 0, concatenated in rank order at
 * *out (valid until the next collective); returns its length there, 0 at
 * the other ranks. */
size_t eng_to_root(struct eng *e, const void *buf, size_t len, const uint8_t **out);
/* Every rank's bytes [*buf, *buf + *len), concatenated in rank order, in
 * place of this one's (valid until the next collective; unchanged in one
 * process). */
void eng_gather_all(struct eng *e, const uint8_t **buf, size_t *len);

/* Reads n bytes at *at and moves past them (a collective's buffer). */
static inline void eng_get(const uint8_t **at, void *x, size_t n)
{
    memcpy(x, *at, n);
    *at += n;
}

#endif
