/* The event queue: 4-ary min-heaps of 16-byte entries ordered by (time,
 * insertion sequence), so same-time events run in the order they were
 * scheduled and every run is bit-for-bit repeatable. An event carries no
 * closure: a 4-bit kind and a 28-bit object id, dispatched by a switch in the
 * simulator loop. Cancellation is lazy: the owner keeps the time it expects
 * and ignores a stale event.
 *
 * Two heaps share one sequence counter: packet events (many, due soon) and
 * timers (few fire, many wait). Popping the earlier of the two tops gives
 * exactly the order of a single heap, while packet events pay for a shallow
 * heap. */
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

struct heap4 {
    struct event *v;
    size_t n, cap;
};

struct eventq {
    struct heap4 fast, slow;
    uint32_t seq;
};

void evq_init(struct eventq *q);
void evq_free(struct eventq *q);
/* A packet event (transmission done, arrival, wake-up). */
void evq_push(struct eventq *q, simtime_t t, unsigned kind, uint32_t id);
/* A timer: most are re-armed or outlive their flow before they fire. */
void evq_push_timer(struct eventq *q, simtime_t t, unsigned kind, uint32_t id);
/* Removes the earliest event into *ev; false when empty. */
bool evq_pop(struct eventq *q, struct event *ev);
static inline bool evq_empty(const struct eventq *q) { return q->fast.n == 0 && q->slow.n == 0; }
static inline size_t evq_size(const struct eventq *q) { return q->fast.n + q->slow.n; }
static inline bool ev_before(const struct event *a, const struct event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    return (int32_t)(a->seq - b->seq) < 0;
}
static inline simtime_t evq_top_time(const struct eventq *q)
{
    if (!q->fast.n)
        return q->slow.n ? q->slow.v[0].time : T_NEVER;
    if (!q->slow.n)
        return q->fast.v[0].time;
    return ev_before(&q->fast.v[0], &q->slow.v[0]) ? q->fast.v[0].time : q->slow.v[0].time;
}
static inline unsigned ev_kind(const struct event *e) { return e->handle >> EV_ID_BITS; }
static inline uint32_t ev_id(const struct event *e) { return e->handle & EV_ID_MAX; }

#endif
