/* The event queue: a 4-ary min-heap of 16-byte entries ordered by (time,
 * insertion sequence), so same-time events run in the order they were
 * scheduled and every run is bit-for-bit repeatable. An event carries no
 * closure: a 4-bit kind and a 28-bit object id, dispatched by a switch in the
 * simulator loop. Cancellation is lazy: the owner keeps the time it expects
 * and ignores a stale event. */
#ifndef ROCESIM_EVENTQ_H
#define ROCESIM_EVENTQ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/simtime.h"

#define EV_ID_BITS 28
#define EV_ID_MAX ((1u << EV_ID_BITS) - 1)

struct event {
    simtime_t time;
    uint32_t seq;    /* wraps; compared as a signed difference */
    uint32_t handle; /* kind << 28 | id */
};

struct eventq {
    struct event *heap;
    size_t n, cap;
    uint32_t seq;
    uint64_t pushed; /* total scheduled, for statistics */
};

void evq_init(struct eventq *q);
void evq_free(struct eventq *q);
void evq_push(struct eventq *q, simtime_t t, unsigned kind, uint32_t id);
/* Removes the earliest event into *ev; false when empty. */
bool evq_pop(struct eventq *q, struct event *ev);
static inline bool evq_empty(const struct eventq *q) { return q->n == 0; }
static inline simtime_t evq_top_time(const struct eventq *q) { return q->n ? q->heap[0].time : T_NEVER; }
static inline unsigned ev_kind(const struct event *e) { return e->handle >> EV_ID_BITS; }
static inline uint32_t ev_id(const struct event *e) { return e->handle & EV_ID_MAX; }

#endif
