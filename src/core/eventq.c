#include "core/eventq.h"
#include <assert.h>
#include "core/err.h"
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* key[-3..-1] unused: the children of i (4i+1..4i+4) then sit at mem[4i+4..],
 * 32 aligned bytes, one cache line. The tail keeps 3 sentinels past cap. */
#define PAD 3
/* At most this many entries keep ranks after a renumbering, so at least as
 * many pushes come before the next one; the rest wait in the far list. */
#define NEAR_CAP (1u << 19)

static void heap_alloc(struct heap4 *h, size_t cap)
{
    size_t bytes = ((cap + 2 * PAD) * sizeof(uint64_t) + 63) & ~(size_t)63;
    uint64_t *mem = aligned_alloc(64, bytes);
    if (!mem) {
        fprintf(stderr, "rocesim: out of memory (event queue of %zu entries): the scenario is too large for this "
                        "machine's memory\n", cap);
        exit(EXIT_BADINPUT);
    }
    uint64_t *key = mem + PAD;
    size_t n = h->mem ? h->n : 0;
    if (n)
        memcpy(key, h->key, n * sizeof *key);
    for (size_t i = n; i < cap + PAD; i++)
        key[i] = EV_KEY_NONE;
    free(h->mem);
    h->mem = mem;
    h->key = key;
    h->n = n;
    h->cap = cap;
}

/* The heaps hold keys only: in handle order a key's low half is its
 * handle, in insertion order its rank names the handle in q->rh[]. */
static inline void heap_push(struct heap4 *h, uint64_t key)
{
    if (h->n == h->cap)
        heap_alloc(h, 2 * h->cap);
    uint64_t *k = h->key;
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) >> 2;
        if (key > k[parent]) /* keys are unique, but for a stale entry's twin in handle order */
            break;
        k[i] = k[parent];
        i = parent;
    }
    k[i] = key;
}

/* Removes the root. Slots past n hold EV_KEY_NONE, so every node compares four
 * children without a bounds test, and pairwise minima compile to cmov. */
static inline void heap_pop_root(struct heap4 *h)
{
    uint64_t *k = h->key;
    size_t n = --h->n;
    uint64_t lk = k[n];
    k[n] = EV_KEY_NONE;
    size_t i = 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        const uint64_t *ch = &k[c];
        size_t b01 = ch[1] < ch[0];
        uint64_t m01 = b01 ? ch[1] : ch[0];
        size_t b23 = 2 + (ch[3] < ch[2]);
        uint64_t m23 = ch[3] < ch[2] ? ch[3] : ch[2];
        /* the pick by a mask, not `lt ? b23 : b01`: GCC 12 compiled that
         * into a branch, taken or not at random (which half holds the least
         * child), a mispredicted jump at about every other level */
        size_t lt = m23 < m01;
        size_t b = b01 + ((b23 - b01) & (0 - lt));
        uint64_t m = lt ? m23 : m01;
        if (m > lk)
            break;
        k[i] = m;
        i = c + b;
    }
    if (n)
        k[i] = lk;
}

void evq_init(struct eventq *q)
{
    memset(q, 0, sizeof *q);
    heap_alloc(&q->fast, 1024);
    heap_alloc(&q->slow, 1024);
    q->base = 0;
    q->limit = EV_SPAN;
    q->span = 0; /* no rank table yet: the first push or take goes the slow way, which makes it (rh_init) */
    q->far_min = T_NEVER;
    q->cur_ord = -1;
    q->shift = EV_SEQ_BITS;
}

/* Insertion order's rank table, made by the first push or take (so that a
 * queue switched to handle order never has one: a 4 MB block allocated and
 * freed would raise glibc's mmap threshold, and the packet pool's chunks
 * would then be zeroed by calloc instead of coming zeroed from the kernel).
 * Virtual until written: the pages of ranks in use (all, after the first
 * EV_SEQ_LIMIT pushes). Whether t now fits the window with a rank free. */
static __attribute__((noinline, cold)) bool rh_init(struct eventq *q, simtime_t t)
{
    q->rh = xmalloc(EV_SEQ_LIMIT * sizeof *q->rh);
    q->span = (uint64_t)(q->limit - q->base);
    return (uint64_t)t - (uint64_t)q->base < q->span && q->seq < EV_SEQ_LIMIT;
}

void evq_order_by_handle(struct eventq *q)
{
    assert(evq_empty(q) && q->seq == 0 && "the order is chosen before the first push");
    q->by_handle = true;
    q->shift = EV_HANDLE_SHIFT; /* the key holds the handle: no rank table */
    q->limit = EV_HSPAN;
    q->span = EV_HSPAN;
}

void evq_free(struct eventq *q)
{
    free(q->fast.mem);
    free(q->slow.mem);
    free(q->rh);
    free(q->far);
    free(q->xp);
    free(q->used);
    free(q->below);
    memset(q, 0, sizeof *q);
}

/* Every place the caller keeps that is still live, into q->xp (those behind
 * the clock are set to EV_PLACE_NONE by evq_place_visit). */
static void places_collect(struct eventq *q)
{
    q->nxp = 0;
    if (q->places)
        q->places(q->places_ctx);
}

void evq_set_places(struct eventq *q, void (*places)(void *ctx), void *ctx)
{
    q->places = places;
    q->places_ctx = ctx;
}

void evq_place_visit(struct eventq *q, simtime_t t, uint32_t *ord)
{
    if (*ord == EV_PLACE_NONE)
        return;
    if (!evq_place_ahead(q, t, *ord)) {
        *ord = EV_PLACE_NONE; /* behind the clock: it can no longer be used, and must not hold base back */
        return;
    }
    if (q->nxp == q->capxp) {
        q->capxp = q->capxp ? 2 * q->capxp : 256;
        q->xp = xrealloc(q->xp, q->capxp * sizeof *q->xp);
    }
    q->xp[q->nxp++] = (struct ev_xplace){ t, ord };
}

/* The earliest pending event or live place: base may not pass it. */
static simtime_t live_min(struct eventq *q)
{
    uint64_t k = q->fast.key[0] < q->slow.key[0] ? q->fast.key[0] : q->slow.key[0];
    simtime_t lo = q->far_min;
    if (k != EV_KEY_NONE && q->base + (simtime_t)(k >> q->shift) < lo)
        lo = q->base + (simtime_t)(k >> q->shift);
    places_collect(q);
    for (uint32_t i = 0; i < q->nxp; i++)
        if (q->xp[i].time < lo)
            lo = q->xp[i].time;
    return lo;
}

static void far_add_seq(struct eventq *q, simtime_t t, uint64_t seq, uint32_t handle)
{
    if (q->nfar == q->capfar) {
        q->capfar = q->capfar ? 2 * q->capfar : 64;
        q->far = xrealloc(q->far, q->capfar * sizeof *q->far);
    }
    q->far[q->nfar++] = (struct far_ev){ t, seq, handle };
    if (t < q->far_min)
        q->far_min = t;
}

static void far_add(struct eventq *q, simtime_t t, uint32_t handle) { far_add_seq(q, t, q->far_seq++, handle); }

struct ent {
    simtime_t time;
    uint64_t ord;  /* rank in the heaps, or past every rank for far events */
    uint32_t handle;
    uint32_t heap; /* 0 fast, 1 slow (far events join the timers), ENT_PLACE: handle is an index into q->xp */
};
#define ENT_PLACE 2

static int ent_cmp(const void *a, const void *b)
{
    const struct ent *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

#define RANK_MASK ((1u << EV_SEQ_BITS) - 1)
#define RANK_WORDS ((EV_SEQ_LIMIT + 63) / 64)

/* renumber_in_place: a rank's new rank, the count of marked ranks below it */
static inline uint32_t rank_below(const struct eventq *q, uint32_t r)
{
    return q->below[r >> 6] + (uint32_t)__builtin_popcountll(q->used[r >> 6] & ((1ull << (r & 63)) - 1));
}

/* renumber without a sort, when every one of the n entries (events and
 * live places) keeps a rank: no far event or far place, base not
 * lowered, no more than NEAR_CAP. The ranks in use, marked in a bitmap, are
 * ranked again in their own order (a rank's new one is the count of ranks in
 * use below it), which keeps every tie's order, as the sort would; the heaps'
 * keys are rewritten in place (their order kept, so each stays a heap) and
 * rh[] packed down in rank order (a new rank is never above the old). The
 * usual case: ranks run out with nothing beyond 17.59 s. false when it does
 * not apply. */
static bool renumber_in_place(struct eventq *q, simtime_t newbase, size_t n)
{
    if (q->nfar || newbase < q->base || n > NEAR_CAP)
        return false;
    for (uint32_t i = 0; i < q->nxp; i++)
        if (q->xp[i].time >= q->limit)
            return false;
    if (!q->used) {
        q->used = xmalloc(RANK_WORDS * sizeof *q->used);
        q->below = xmalloc(RANK_WORDS * sizeof *q->below);
    }
    uint32_t nw = (q->seq + 63) / 64; /* every rank in use is below seq */
    memset(q->used, 0, nw * sizeof *q->used);
    struct heap4 *hs[2] = { &q->fast, &q->slow };
    for (int w = 0; w < 2; w++)
        for (size_t i = 0; i < hs[w]->n; i++) {
            uint32_t r = (uint32_t)hs[w]->key[i] & RANK_MASK;
            q->used[r >> 6] |= 1ull << (r & 63);
        }
    for (uint32_t i = 0; i < q->nxp; i++)
        q->used[*q->xp[i].ord >> 6] |= 1ull << (*q->xp[i].ord & 63);
    uint32_t c = 0;
    for (uint32_t w = 0; w < nw; w++) {
        q->below[w] = c;
        for (uint64_t b = q->used[w]; b; b &= b - 1)
            q->rh[c++] = q->rh[w * 64 + (uint32_t)__builtin_ctzll(b)];
    }
    assert(c == n && "every entry has a rank of its own");
    uint64_t d = (uint64_t)(newbase - q->base) << EV_SEQ_BITS;
    for (int w = 0; w < 2; w++)
        for (size_t i = 0; i < hs[w]->n; i++) {
            uint64_t k = hs[w]->key[i];
            hs[w]->key[i] = ((k & ~(uint64_t)RANK_MASK) - d) | rank_below(q, (uint32_t)k & RANK_MASK);
        }
    for (uint32_t i = 0; i < q->nxp; i++)
        *q->xp[i].ord = rank_below(q, *q->xp[i].ord);
    q->base = newbase;
    q->limit = newbase > INT64_MAX - EV_SPAN ? INT64_MAX : newbase + EV_SPAN;
    q->span = (uint64_t)(q->limit - q->base);
    q->seq = c;
    q->far_seq = 0;
    q->cur_ord = -1; /* every entry left at now follows the current event */
    return true;
}

/* Every pending event and live place, in (time, insertion) order, ranked
 * again from 0 with times relative to newbase (<= all of them); those that do
 * not fit (too far ahead, or past NEAR_CAP) go to the far list (a place: a
 * far sequence), cut between two times so that no tie is split. Rare: every
 * ~0.5-1 M pushes, or when the heaps run dry. Without a sort when every entry
 * keeps a rank (renumber_in_place). */
static void renumber(struct eventq *q, simtime_t newbase)
{
    size_t n = q->fast.n + q->slow.n + q->nfar, m = 0;
    places_collect(q); /* (a place behind the clock is dropped there: ranks restart below, it must not look ahead) */
    n += q->nxp;
    if (renumber_in_place(q, newbase, n))
        return;
    struct ent *e = xmalloc(n * sizeof *e);
    const struct heap4 *hs[2] = { &q->fast, &q->slow };
    for (uint32_t w = 0; w < 2; w++)
        for (size_t i = 0; i < hs[w]->n; i++) {
            uint64_t k = hs[w]->key[i];
            e[m++] = (struct ent){ q->base + (simtime_t)(k >> EV_SEQ_BITS), k & ((1u << EV_SEQ_BITS) - 1),
                                   q->rh[k & ((1u << EV_SEQ_BITS) - 1)], w };
        }
    /* far events are later than every heap entry (time >= limit), so any ord
     * past the ranks keeps the order; among them, their own sequence */
    for (size_t i = 0; i < q->nfar; i++)
        e[m++] = (struct ent){ q->far[i].time, (uint64_t)1 << EV_SEQ_BITS | q->far[i].seq, q->far[i].handle, 1 };
    /* a place's ord is a rank or a far sequence by the same rule as events' */
    for (uint32_t i = 0; i < q->nxp; i++)
        e[m++] = (struct ent){ q->xp[i].time,
                               q->xp[i].time < q->limit ? *q->xp[i].ord : (uint64_t)1 << EV_SEQ_BITS | *q->xp[i].ord,
                               i, ENT_PLACE };
    qsort(e, n, sizeof *e, ent_cmp);

    simtime_t limit = newbase > INT64_MAX - EV_SPAN ? INT64_MAX : newbase + EV_SPAN;
    size_t cut = 0;
    while (cut < n && cut < NEAR_CAP && e[cut].time < limit)
        cut++;
    if (cut < n && cut == NEAR_CAP)
        while (cut > 0 && e[cut - 1].time == e[cut].time)
            cut--;
    if (cut < n && cut == 0 && e[0].time < limit) {
        fprintf(stderr, "rocesim: more than %u events pending at the same picosecond (%.12g s): beyond the event "
                        "queue's capacity\n", NEAR_CAP, (double)e[0].time / (double)T_SEC);
        exit(EXIT_BADINPUT);
    }
    if (cut < n && e[cut].time < limit)
        limit = e[cut].time;

    size_t oldn[2] = { q->fast.n, q->slow.n };
    q->fast.n = q->slow.n = 0;
    struct heap4 *hw[2] = { &q->fast, &q->slow };
    for (size_t i = 0; i < cut; i++) {
        if (e[i].heap == ENT_PLACE) {
            *q->xp[e[i].handle].ord = (uint32_t)i;
            continue;
        }
        /* appended in increasing key order: a sorted array is a heap */
        struct heap4 *h = hw[e[i].heap];
        if (h->n == h->cap)
            heap_alloc(h, 2 * h->cap);
        h->key[h->n++] = (uint64_t)(e[i].time - newbase) << EV_SEQ_BITS | i;
        q->rh[i] = e[i].handle;
    }
    for (uint32_t w = 0; w < 2; w++)
        for (size_t i = hw[w]->n; i < oldn[w]; i++)
            hw[w]->key[i] = EV_KEY_NONE;
    q->nfar = 0;
    q->far_seq = 0;
    q->far_min = T_NEVER;
    for (size_t i = cut; i < n; i++) {
        if (e[i].heap == ENT_PLACE)
            *q->xp[e[i].handle].ord = (uint32_t)q->far_seq++; /* < EV_PLACE_NONE: a far sequence restarts here */
        else
            far_add(q, e[i].time, e[i].handle);
    }
    q->base = newbase;
    q->limit = limit;
    q->span = (uint64_t)(q->limit - q->base);
    q->seq = (uint32_t)cut;
    q->cur_ord = -1; /* every entry left at now follows the current event */
    free(e);
}

/* ---- handle order */

static inline uint64_t hkey(const struct eventq *q, simtime_t t, uint32_t handle)
{
    return (uint64_t)(t - q->base) << EV_HANDLE_SHIFT | handle;
}

static void set_window(struct eventq *q, simtime_t newbase)
{
    q->base = newbase;
    q->limit = newbase > INT64_MAX - EV_HSPAN ? INT64_MAX : newbase + EV_HSPAN;
    q->span = (uint64_t)(q->limit - q->base);
}

/* Far events now inside the window move into the timers' heap (either heap
 * would do: pops compare both tops). */
static void far_pull(struct eventq *q)
{
    size_t j = 0;
    simtime_t lo = T_NEVER;
    for (size_t i = 0; i < q->nfar; i++) {
        struct far_ev f = q->far[i];
        if (f.time < q->limit) {
            heap_push(&q->slow, hkey(q, f.time, f.handle));
        } else {
            q->far[j++] = f;
            if (f.time < lo)
                lo = f.time;
        }
    }
    q->nfar = j;
    q->far_min = lo;
}

/* base up to newbase (<= every pending event's time): the same amount off
 * every key keeps each heap a heap. */
static void rebase_up(struct eventq *q, simtime_t newbase)
{
    struct heap4 *hs[2] = { &q->fast, &q->slow };
    if (newbase == q->base)
        return;
    uint64_t d = (uint64_t)(newbase - q->base) << EV_HANDLE_SHIFT; /* < 2^32 while a heap holds an entry */
    for (int w = 0; w < 2; w++)
        for (size_t i = 0; i < hs[w]->n; i++)
            hs[w]->key[i] -= d;
    set_window(q, newbase);
    far_pull(q);
}

/* base down to newbase (a push before it: before the clock, which the heap
 * always allowed): entries pushed again, those now beyond the window into the
 * far list. Rare. */
static __attribute__((noinline, cold)) void rebase_down(struct eventq *q, simtime_t newbase)
{
    struct heap4 *hs[2] = { &q->fast, &q->slow };
    size_t n = q->fast.n + q->slow.n, m = 0;
    struct ent0 { simtime_t time; uint32_t handle, heap; } *e = xmalloc((n ? n : 1) * sizeof *e);
    for (uint32_t w = 0; w < 2; w++) {
        for (size_t i = 0; i < hs[w]->n; i++) {
            e[m++] = (struct ent0){ q->base + (simtime_t)(hs[w]->key[i] >> EV_HANDLE_SHIFT), (uint32_t)hs[w]->key[i], w };
            hs[w]->key[i] = EV_KEY_NONE;
        }
        hs[w]->n = 0;
    }
    set_window(q, newbase);
    for (size_t i = 0; i < m; i++) {
        if (e[i].time < q->limit)
            heap_push(hs[e[i].heap], hkey(q, e[i].time, e[i].handle));
        else
            far_add(q, e[i].time, e[i].handle);
    }
    free(e);
}

static __attribute__((noinline)) void push_slow_handle(struct eventq *q, struct heap4 *h, simtime_t t, uint32_t handle)
{
    if (t < q->base) {
        rebase_down(q, t);
    } else {
        /* beyond the window: base follows the clock once it has moved a
         * quarter window, so the heaps are rewritten at most once per ~1 ms
         * of simulated time */
        simtime_t lo = live_min(q);
        if (q->now < lo)
            lo = q->now;
        if (lo - q->base >= EV_HSPAN / 4)
            rebase_up(q, lo);
    }
    if (t >= q->limit)
        far_add(q, t, handle);
    else
        heap_push(h, hkey(q, t, handle));
}

/* The key's shift is a constant here: no load of the mode per push. */
static inline void push_handle(struct eventq *q, struct heap4 *h, simtime_t t, uint32_t handle)
{
    uint64_t d = (uint64_t)t - (uint64_t)q->base;
    if (__builtin_expect(d >= q->span, 0)) {
        push_slow_handle(q, h, t, handle);
        return;
    }
    heap_push(h, d << EV_HANDLE_SHIFT | handle);
}

static __attribute__((noinline)) bool pop_far(struct eventq *q, struct event *out);

static inline bool pop_handle(struct eventq *q, struct event *out)
{
    struct heap4 *h = q->fast.key[0] < q->slow.key[0] ? &q->fast : &q->slow;
    uint64_t k = h->key[0];
    if (__builtin_expect(k == EV_KEY_NONE, 0))
        return pop_far(q, out);
    out->time = q->now = q->base + (simtime_t)(k >> EV_HANDLE_SHIFT);
    out->handle = (uint32_t)k;
    heap_pop_root(h);
    return true;
}

/* ---- insertion order */

/* The key takes the next rank, under which q->rh keeps the handle (t in
 * [base, limit), a rank free). */
static inline void push_rank(struct eventq *q, struct heap4 *h, simtime_t t, uint32_t handle)
{
    uint32_t r = q->seq++;
    q->rh[r] = handle;
    heap_push(h, (uint64_t)(t - q->base) << EV_SEQ_BITS | r);
}

/* Whether a push (or place) that missed the heaps' window, with lo the
 * earliest of it and everything pending, needs a renumbering first: when
 * ranks ran out, or lo is before base, or base can move up and so extend the
 * horizon. Not when the horizon was cut short by the heaps' capacity
 * (NEAR_CAP entries before it: span < EV_SPAN): moving base up leaves it
 * where it is, and beyond it t joins the far list, in its order there, as it
 * would after the renumbering. (Renumbering there anyway sorted every pending
 * entry at each such push: SimAI's 128-GPU all-reduce, ~526,000 timers
 * pending, spent 85 % of its CPU in it.) */
static inline bool renumber_helps(const struct eventq *q, simtime_t lo)
{
    return q->seq >= EV_SEQ_LIMIT || lo < q->base || (lo != q->base && q->span >= (uint64_t)EV_SPAN);
}

static __attribute__((noinline)) void push_slow(struct eventq *q, struct heap4 *h, simtime_t t, uint32_t handle)
{
    if (__builtin_expect(!q->rh, 0) && rh_init(q, t)) {
        push_rank(q, h, t, handle);
        return;
    }
    simtime_t lo = live_min(q);
    if (t < lo)
        lo = t;
    if (renumber_helps(q, lo))
        renumber(q, lo);
    if (t >= q->limit)
        far_add(q, t, handle);
    else
        push_rank(q, h, t, handle);
}

static inline void push(struct eventq *q, struct heap4 *h, simtime_t t, uint32_t handle)
{
    /* one unsigned compare: t in [base, limit) */
    uint64_t d = (uint64_t)t - (uint64_t)q->base;
    if (__builtin_expect(d >= q->span || q->seq >= EV_SEQ_LIMIT, 0)) {
        push_slow(q, h, t, handle);
        return;
    }
    push_rank(q, h, t, handle);
}

/* An event's handle. The id must fit its 28 bits (a wider one would name
 * another object of the kind): scenario_build refuses networks whose ids
 * could not (too many ports, flows, nodes' timers, link events), and debug
 * and sanitizer builds assert it here on every push. */
static inline uint32_t handle_of(unsigned kind, uint32_t id)
{
    assert(kind < 1u << (32 - EV_ID_BITS) && "event kinds are 4 bits");
    assert(id <= EV_ID_MAX && "event ids are 28 bits");
    return (kind << EV_ID_BITS) | (id & EV_ID_MAX);
}

void evq_push(struct eventq *q, simtime_t t, unsigned kind, uint32_t id)
{
    if (q->by_handle)
        push_handle(q, &q->fast, t, handle_of(kind, id));
    else
        push(q, &q->fast, t, handle_of(kind, id));
}

void evq_push_timer(struct eventq *q, simtime_t t, unsigned kind, uint32_t id)
{
    if (q->by_handle)
        push_handle(q, &q->slow, t, handle_of(kind, id));
    else
        push(q, &q->slow, t, handle_of(kind, id));
}

static __attribute__((noinline)) bool pop_far(struct eventq *q, struct event *out)
{
    if (!q->nfar)
        return false;
    /* the clock moves there: a place before it can no longer be used */
    q->now = q->far_min;
    q->cur_ord = -1; /* nothing at that time has run yet */
    if (q->by_handle)
        rebase_up(q, q->far_min); /* the heaps are empty */
    else
        renumber(q, q->far_min);
    return evq_pop(q, out);
}

bool evq_pop(struct eventq *q, struct event *out)
{
    if (q->by_handle)
        return pop_handle(q, out);
    struct heap4 *h = q->fast.key[0] < q->slow.key[0] ? &q->fast : &q->slow;
    uint64_t k = h->key[0];
    if (__builtin_expect(k == EV_KEY_NONE, 0))
        return pop_far(q, out);
    out->time = q->now = q->base + (simtime_t)(k >> EV_SEQ_BITS);
    uint32_t r = (uint32_t)k & ((1u << EV_SEQ_BITS) - 1);
    q->cur_ord = r;
    out->handle = q->rh[r];
    heap_pop_root(h);
    return true;
}

void evq_place_take_slow(struct eventq *q, uint32_t *ord, simtime_t t)
{
    if (__builtin_expect(!q->rh, 0) && rh_init(q, t)) {
        *ord = q->seq++;
        return;
    }
    *ord = EV_PLACE_NONE; /* its old place is given up */
    /* as push_slow: after this, base <= t, and a rank is free if t < limit;
     * a far sequence must also fit the place's 32 bits */
    simtime_t lo = live_min(q);
    if (t < lo)
        lo = t;
    if (renumber_helps(q, lo) || q->far_seq >= EV_PLACE_NONE)
        renumber(q, lo);
    *ord = t < q->limit ? q->seq++ : (uint32_t)q->far_seq++;
}

void evq_push_place(struct eventq *q, simtime_t t, uint32_t *ord, unsigned kind, uint32_t id)
{
    uint32_t r = *ord;
    uint32_t handle = handle_of(kind, id);
    *ord = EV_PLACE_NONE;
    /* a live place is never before base (renumbering and evq_place_take keep
     * base at or below it), and its ord is a rank exactly when t < limit */
    if (__builtin_expect(t < q->limit, 1)) {
        q->rh[r] = handle;
        heap_push(&q->fast, (uint64_t)(t - q->base) << EV_SEQ_BITS | r);
    } else
        far_add_seq(q, t, r, handle);
}
