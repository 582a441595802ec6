/* The engine's own structures: private to src/engine/ (others include
 * engine/engine.h). */
#ifndef ROCESIM_ENG_IMPL_H
#define ROCESIM_ENG_IMPL_H

#include "engine/engine.h"
#include <pthread.h>
#include <stdatomic.h>

/* Messages from one partition to another in one window, as bytes: per
 * message its id and length, then its bytes. Across ranks the same bytes
 * travel as they are. */
struct outbox {
    struct bytes m;
    uint32_t n; /* messages */
};
#define MSG_HDR (2 * sizeof(uint32_t)) /* id, length */

/* One partition's block: what it writes during a window, on its own cache
 * lines (with them shared, a 2-thread run used ~1.5x the serial CPU).
 *
 * Across MPI ranks every process holds a block for every partition but runs
 * only its own (eng_local); another rank's partition is a stub here: its
 * outboxes receive that rank's messages to this one's partitions
 * (exchange), so eng_recv_next reads them as if a thread of this process
 * had sent them, and its `sent` counts them (each message is counted once,
 * where it is delivered). A stub runs no event and stays quiet. */
struct eng_part {
    _Alignas(64) struct eng *e;
    void *model;               /* the model's partition */
    uint32_t id;
    struct outbox *out[2];     /* [window parity][receiving partition] */
    uint32_t *touched[2];      /* receiving partitions written in that window */
    uint32_t ntouched[2];
    uint32_t *inbox;           /* senders with messages for this one, from the previous window */
    uint32_t ninbox;
    uint32_t rk;               /* eng_recv_next: the inbox entry being read, */
    const uint8_t *rat, *rend; /* ...and where in its outbox */
    simtime_t min_sent;        /* earliest arrival sent this window, T_NEVER if none */
    uint64_t sent;             /* messages sent this window */
    struct eng_quiet q;
    struct eng_rec *rec;
    size_t nrec, caprec;
    uint32_t rec_seq;
    simtime_t req;             /* earliest eng_request this window */
    uint64_t load;             /* events in its last window */
};

struct eng {
    const struct eng_ops *ops;
    void *model;
    struct eng_part *part;
    uint32_t n, threads;
    simtime_t la;
    bool quiet_ends;
    uint32_t parity;           /* this window's */
    simtime_t bt;              /* this window's bound key (bt, bh) */
    uint32_t bh;
    uint32_t *order;           /* this process's partitions by load, for this window */
    uint64_t *sortkey;
    atomic_uint next;          /* next index into order to take */
    atomic_uint bar_count;
    atomic_bool bar_sense;
    atomic_bool finish;
    unsigned spin_limit;       /* barrier spins before yielding */
    struct eng_rec *merge;
    size_t capmerge;
    pthread_t *tid;
    struct eng_stats stat;
    /* MPI ranks (NULL comm: one process) */
    const struct eng_comm *comm;
    int rank;                  /* this process's; 0 without comm */
    int *rank_of;              /* partition -> its rank */
    uint32_t *mine, nmine;     /* the partitions this process runs */
    struct bytes x;            /* what this rank sends in a collective */
    void *rbuf;                /* ...and receives */
    size_t rcap;
    size_t *scount, *rcount;   /* per rank */
};

/* msg.c */
void eng_turn_window(struct eng *e);
void eng_exchange(struct eng *e);
/* comm.c */
#define REC_UNKNOWN UINT64_MAX
void eng_rec_flush(struct eng *e, uint64_t total);

#endif
