/* bench/parallel/tiebreak: an experiment, not part of rocesim. A plain binary
 * heap with the event queue's API (src/core/eventq.h), ordered among same-time
 * events by TB_VARIANT: 0 insertion order (today's rule: the control), 1 (push
 * time, kind, id), 2 (kind, id). Tickets (run.ns3_timing) abort. tiebreak.sh
 * builds rocesim with it in a scratch copy; docs/parallel.md has the results. */
#ifndef ROCESIM_EVENTQ_H
#define ROCESIM_EVENTQ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "core/simtime.h"

#define EV_ID_BITS 28
#define EV_ID_MAX ((1u << EV_ID_BITS) - 1)

struct event {
    simtime_t time;
    uint32_t handle;
};
struct tb_ent {
    simtime_t time, ptime;
    uint64_t seq;
    uint32_t handle;
};
struct eventq {
    struct tb_ent *h;
    size_t n, cap;
    simtime_t now;
    uint64_t seq;
};
void evq_init(struct eventq *q);
void evq_free(struct eventq *q);
void evq_push(struct eventq *q, simtime_t t, unsigned kind, uint32_t id);
void evq_push_timer(struct eventq *q, simtime_t t, unsigned kind, uint32_t id);
#define EV_TICKET_NONE UINT32_MAX
static inline uint32_t evq_ticket_new(struct eventq *q) { (void)q; abort(); }
static inline void evq_take(struct eventq *q, uint32_t ticket, simtime_t t) { (void)q, (void)ticket, (void)t; abort(); }
static inline void evq_push_ticket(struct eventq *q, uint32_t ticket, unsigned kind, uint32_t id)
{
    (void)q, (void)ticket, (void)kind, (void)id;
    abort();
}
static inline simtime_t evq_ticket_time(const struct eventq *q, uint32_t ticket) { (void)q, (void)ticket; abort(); }
static inline bool evq_ticket_ahead(const struct eventq *q, uint32_t ticket) { (void)q, (void)ticket; abort(); }
bool evq_pop(struct eventq *q, struct event *ev);
static inline bool evq_empty(const struct eventq *q) { return q->n == 0; }
static inline size_t evq_size(const struct eventq *q) { return q->n; }
static inline simtime_t evq_top_time(const struct eventq *q) { return q->n ? q->h[0].time : T_NEVER; }
static inline uint32_t evq_peek_handle(const struct eventq *q) { return q->n ? q->h[0].handle : UINT32_MAX; }
static inline uint32_t evq_peek2_handle(const struct eventq *q) { return q->n > 1 ? q->h[1].handle : UINT32_MAX; }
static inline unsigned ev_kind(const struct event *e) { return e->handle >> EV_ID_BITS; }
static inline uint32_t ev_id(const struct event *e) { return e->handle & EV_ID_MAX; }
#endif
