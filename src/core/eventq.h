/* The event queue: 4-ary min-heaps ordered by time, then by one of two
 * tie-breaks chosen before the first push, so every run is bit-for-bit
 * repeatable. An event carries no closure: a 4-bit kind and a 28-bit object
 * id, dispatched by a switch in the simulator loop. Cancellation is lazy: the
 * owner keeps the time it expects and ignores a stale event.
 *
 * Handle order (evq_order_by_handle; the simulator's unless run.ns3_timing):
 * same-time events run in increasing handle, kind << 28 | id, that is by
 * (time, kind, object id), whatever the order they were pushed in. The order
 * then depends only on the events, so a run split into partitions that push
 * at different moments pops what the serial loop pops (docs/parallel.md). A
 * (kind, object) has at most one live entry per time; a stale entry with the
 * same time and handle as a live one is indistinguishable from it. The key
 * is (time - base) << 32 | handle: a window of 2^32 - 1 ps (4.29 ms) from
 * base; an event beyond it waits in the far list (below). base moves up to
 * the clock (subtracting from every key, which keeps the heaps' order) when a
 * push lands beyond the window and the clock has moved a quarter window since
 * the last move, or when the heaps run dry; far events then inside the
 * window move into the heaps. No ranks, no renumbering, no places. The
 * key holds the handle, and this mode's push and pop are its own, the shift
 * a constant.
 *
 * Insertion order (the default; run.ns3_timing, for ns-3's own order): same-
 * time events run in the order they were scheduled. The rest of this comment
 * describes that mode.
 *
 * Two heaps share one sequence counter: packet events (many, due soon) and
 * timers (few fire, many wait). Popping the earlier of the two tops gives
 * exactly the order of a single heap, while packet events pay for a shallow
 * heap.
 *
 * One 64-bit key per entry, so ordering is one integer compare (the heap is
 * about half of all instructions): (time - base) << 20 | rank. The rank is the
 * insertion sequence, 20 bits, renumbered in order when it runs out (every ~1 M
 * pushes: sorting the live entries keeps their order and each heap stays a
 * heap); base moves up to the earliest pending time at the same moment, so
 * 44 bits of picoseconds (17.59 s) bound how far apart pending events are,
 * not how long a run lasts. An event further ahead than that (a link
 * failure at 100 s, flows starting minutes apart) waits in an unsorted "far"
 * list, later than every heap entry by construction, and moves in when the
 * heaps run dry or base moves. The heaps hold keys only, in either order (a
 * sift compares and moves keys, four children in half a cache line): here
 * the rank names the handle, rh[rank], a table of 2^20 handles written by
 * the push (and again by renumbering) and read by the pop. The table's
 * lines in use are those of ranks pushed lately (a pop mostly takes an event
 * pushed a few thousand ranks before).
 *
 * Places (used under run.ns3_timing): ns-3 gives an event its place among
 * same-time events when it schedules it, and it schedules a transmission's
 * end and its arrival when the transmission starts; rocesim pushes them
 * later (an arrival when the packet before it on the wire arrives, an end
 * when something is queued behind it). Taking a place at the transmission's
 * start gives it the rank an event at time t pushed then would get; pushing
 * into it later puts the event in exactly that place. A place is a (time,
 * rank) that renumbering ranks again with the entries, so it stays valid
 * across renumbering. The simulator keeps its places itself (evq_set_places,
 * below): a packet's ARRIVE place in the packet, a port's TX_DONE place in
 * the port, so taking one is a test and two stores, on lines the
 * transmission touches anyway. A place holds nothing once pushed, or once it is behind the
 * queue's clock (before the last popped event: an idle port's unused
 * TX_DONE place, a packet lost with its link); renumbering drops it, so an
 * old place never holds base back. evq_place_ahead tells
 * whether a place at the current time is still to come (ns-3 would not yet
 * have run the event it stands for). */
#ifndef ROCESIM_EVENTQ_H
#define ROCESIM_EVENTQ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/simtime.h"

#define EV_ID_BITS 28
#define EV_ID_MAX ((1u << EV_ID_BITS) - 1)

#define EV_SEQ_BITS 20
/* Ranks 0..EV_SEQ_LIMIT-1; the top key value stays free as the empty sentinel. */
#define EV_SEQ_LIMIT ((1u << EV_SEQ_BITS) - 1)
#define EV_SPAN ((simtime_t)1 << (64 - EV_SEQ_BITS)) /* 2^44 ps = 17.59 s */
#define EV_KEY_NONE UINT64_MAX
/* Handle order: the key's low 32 bits are the handle; offsets 0..2^32-2, so
 * that no key equals EV_KEY_NONE. */
#define EV_HANDLE_SHIFT 32
#define EV_HSPAN ((simtime_t)UINT32_MAX) /* 2^32 - 1 ps = 4.29 ms */

struct event {
    simtime_t time;
    uint32_t handle; /* kind << 28 | id */
};

struct heap4 {
    uint64_t *key;   /* key[n..cap+2] = EV_KEY_NONE: a sift reads four children unchecked */
    uint64_t *mem;   /* key - 3: the allocation, aligned so children share a line */
    size_t n, cap;
};

struct far_ev {
    simtime_t time;
    uint64_t seq;    /* insertion order among far events */
    uint32_t handle;
};

/* A place the caller keeps (evq_set_places), as renumbering finds it. */
struct ev_xplace {
    simtime_t time;
    uint32_t *ord;
};

struct eventq {
    struct heap4 fast, slow;
    simtime_t base;  /* every heap entry's time is in [base, limit) */
    simtime_t limit; /* every far event's time is >= limit */
    uint64_t span;   /* limit - base: t in [base, limit) is one unsigned compare, t - base < span */
    unsigned shift;  /* of a key's time offset: EV_SEQ_BITS, or EV_HANDLE_SHIFT in handle order */
    bool by_handle;  /* ties by handle (evq_order_by_handle), not by insertion */
    uint32_t seq;    /* next rank (insertion order; 0 in handle order) */
    uint32_t *rh;    /* insertion order: rh[r] is the handle of the entry of rank r; made by the first push or
                      * take (eventq.c, rh_init), so NULL until then and in handle order */
    struct far_ev *far;
    size_t nfar, capfar;
    uint64_t far_seq;
    simtime_t far_min; /* earliest far event, T_NEVER when none */
    simtime_t now;     /* time of the last popped event */
    int64_t cur_ord;   /* its rank; -1 after renumbering (every entry at now is then after it) */
    void (*places)(void *ctx); /* names every place the caller keeps (evq_set_places); NULL if none */
    void *places_ctx;
    struct ev_xplace *xp;      /* those places, while renumbering */
    uint32_t nxp, capxp;
    uint64_t *used;            /* renumbering in place: ranks in use, a bit each */
    uint32_t *below;           /* ...and how many are in use below each word of used[] */
};

/* An empty queue in insertion order. */
void evq_init(struct eventq *q);
/* Switches an empty queue to handle order. */
void evq_order_by_handle(struct eventq *q);
void evq_free(struct eventq *q);
/* A packet event (transmission done, arrival, wake-up). */
void evq_push(struct eventq *q, simtime_t t, unsigned kind, uint32_t id);
/* A timer: most are re-armed or outlive their flow before they fire. */
void evq_push_timer(struct eventq *q, simtime_t t, unsigned kind, uint32_t id);
/* Places the caller keeps (insertion order): a rank (or far sequence) in a
 * uint32_t the caller stores beside the time it is for, EV_PLACE_NONE while
 * it holds none. The simulator keeps
 * a packet's ARRIVE place in the packet (its time is the packet's t_arrive)
 * and a port's TX_DONE place in the port, so taking and using a place
 * touches nothing but the queue's counters and the line that holds it.
 * Renumbering must find them: it calls places(ctx), which calls
 * evq_place_visit for each place held (in any order; a place whose time is
 * behind the queue's clock is set to EV_PLACE_NONE there). */
#define EV_PLACE_NONE UINT32_MAX
void evq_set_places(struct eventq *q, void (*places)(void *ctx), void *ctx);
void evq_place_visit(struct eventq *q, simtime_t t, uint32_t *ord);
void evq_place_take_slow(struct eventq *q, uint32_t *ord, simtime_t t);
/* *ord: the place a packet event at t (>= the last popped time) pushed now
 * would take. */
static inline void evq_place_take(struct eventq *q, uint32_t *ord, simtime_t t)
{
    uint64_t d = (uint64_t)t - (uint64_t)q->base;
    if (__builtin_expect(d >= q->span || q->seq >= EV_SEQ_LIMIT, 0)) {
        evq_place_take_slow(q, ord, t);
        return;
    }
    *ord = q->seq++;
}
/* Whether the place (t, ord), held, is still ahead: later than the last
 * popped event, at a later time or at the same time with a later rank (an
 * event pushed into it would run after the current one). */
static inline bool evq_place_ahead(const struct eventq *q, simtime_t t, uint32_t ord)
{
    return t > q->now || (t == q->now && (int64_t)ord > q->cur_ord);
}
/* Pushes a packet event into the held place (t, *ord), which then holds none. */
void evq_push_place(struct eventq *q, simtime_t t, uint32_t *ord, unsigned kind, uint32_t id);
/* Removes the earliest event into *ev; false when empty. */
bool evq_pop(struct eventq *q, struct event *ev);
static inline bool evq_empty(const struct eventq *q)
{
    return q->fast.n == 0 && q->slow.n == 0 && q->nfar == 0;
}
static inline size_t evq_size(const struct eventq *q) { return q->fast.n + q->slow.n + q->nfar; }
static inline simtime_t evq_top_time(const struct eventq *q)
{
    uint64_t k = q->fast.key[0] < q->slow.key[0] ? q->fast.key[0] : q->slow.key[0];
    if (k == EV_KEY_NONE)
        return q->far_min;
    return q->base + (simtime_t)(k >> q->shift);
}
/* The handle of the event evq_pop would return next, without removing it;
 * EV_HANDLE_NONE when neither heap holds one (far events are not looked at).
 * A hint for prefetching what that event will touch: pushes made before the
 * next pop may still come first. */
#define EV_HANDLE_NONE UINT32_MAX
static inline uint32_t evq_peek_handle(const struct eventq *q)
{
    const struct heap4 *h = q->fast.key[0] < q->slow.key[0] ? &q->fast : &q->slow;
    uint64_t k = h->key[0];
    /* in handle order the key's low half is the handle, in insertion order its rank names it */
    return k == EV_KEY_NONE ? EV_HANDLE_NONE : q->by_handle ? (uint32_t)k : q->rh[k & ((1u << EV_SEQ_BITS) - 1)];
}
/* The handle of the packet event after that top, if the top is a packet
 * event: the least of the root's four children (half a line); timers are not
 * looked at. EV_HANDLE_NONE when there is none. A hint, as above. */
static inline uint32_t evq_peek2_handle(const struct eventq *q)
{
    const uint64_t *c = &q->fast.key[1]; /* readable: sentinels past n (eventq.c) */
    uint64_t m01 = c[1] < c[0] ? c[1] : c[0];
    uint64_t m23 = c[3] < c[2] ? c[3] : c[2];
    uint64_t m = m23 < m01 ? m23 : m01;
    return m == EV_KEY_NONE ? EV_HANDLE_NONE : q->by_handle ? (uint32_t)m : q->rh[m & ((1u << EV_SEQ_BITS) - 1)];
}
static inline unsigned ev_kind(const struct event *e) { return e->handle >> EV_ID_BITS; }
static inline uint32_t ev_id(const struct event *e) { return e->handle & EV_ID_MAX; }

#endif
