/* Engine units: event order and ties, serialisation arithmetic, RNG
 * determinism, the ECMP hash against MurmurHash3 reference values. */
#include "testutil.h"
#include <stdlib.h>
#include <string.h>
#include "core/eventq.h"
#include "core/rng.h"
#include "core/simtime.h"
#include "net/lb.h"

static void test_event_order_and_ties(void **st)
{
    (void)st;
    struct eventq q;
    evq_init(&q);
    /* same time: must come out in insertion order; different times: by time */
    evq_push(&q, 50, 1, 100);
    evq_push(&q, 10, 2, 200);
    for (uint32_t i = 0; i < 2000; i++)
        evq_push(&q, 30, 3, i);
    evq_push(&q, 10, 2, 201);
    evq_push(&q, 5, 0, 7);
    struct event e;
    assert_true(evq_pop(&q, &e));
    assert_int_equal(e.time, 5);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 200);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 201);
    for (uint32_t i = 0; i < 2000; i++) {
        assert_true(evq_pop(&q, &e));
        assert_int_equal(e.time, 30);
        assert_int_equal(ev_kind(&e), 3);
        assert_int_equal(ev_id(&e), i);
    }
    assert_true(evq_pop(&q, &e));
    assert_int_equal(e.time, 50);
    assert_int_equal(ev_kind(&e), 1);
    assert_false(evq_pop(&q, &e));
    evq_free(&q);
}

static void test_event_heap_random(void **st)
{
    (void)st;
    struct eventq q;
    struct rng r;
    evq_init(&q);
    rng_seed(&r, 42, 0);
    for (int i = 0; i < 100000; i++)
        evq_push(&q, (simtime_t)rng_below(&r, 1000), 0, (uint32_t)i);
    struct event prev = {0, 0}, e;
    int n = 0;
    while (evq_pop(&q, &e)) {
        if (n) {
            assert_true(e.time >= prev.time);
            if (e.time == prev.time)
                assert_true(ev_id(&e) > ev_id(&prev)); /* ties in insertion order */
        }
        prev = e;
        n++;
    }
    assert_int_equal(n, 100000);
    evq_free(&q);
}

/* The simulator loop prefetches for the events evq_peek_handle and
 * evq_peek2_handle name: the first is exactly the next pop (timers included),
 * the second exactly the one after among packet events. */
static void test_event_peek(void **st)
{
    (void)st;
    struct eventq q;
    struct rng r;
    evq_init(&q);
    assert_int_equal(evq_peek_handle(&q), EV_HANDLE_NONE);
    assert_int_equal(evq_peek2_handle(&q), EV_HANDLE_NONE);
    rng_seed(&r, 7, 0);
    for (uint32_t i = 0; i < 20000; i++)
        evq_push(&q, (simtime_t)rng_below(&r, 5000), i % 3, i);
    struct event e;
    int n = 0;
    while (!evq_empty(&q)) {
        uint32_t h1 = evq_peek_handle(&q), h2 = evq_peek2_handle(&q);
        assert_true(evq_pop(&q, &e));
        assert_int_equal(e.handle, h1);
        assert_int_equal(evq_peek_handle(&q), h2);
        n++;
    }
    assert_int_equal(n, 20000);
    assert_int_equal(evq_peek2_handle(&q), EV_HANDLE_NONE);
    /* with timers too, the first is still exact */
    for (uint32_t i = 0; i < 5000; i++) {
        if (i % 4 == 0)
            evq_push_timer(&q, (simtime_t)rng_below(&r, 5000), 5, i);
        else
            evq_push(&q, (simtime_t)rng_below(&r, 5000), 1, i);
    }
    while (!evq_empty(&q)) {
        uint32_t h1 = evq_peek_handle(&q);
        assert_true(evq_pop(&q, &e));
        assert_int_equal(e.handle, h1);
    }
    assert_int_equal(evq_peek_handle(&q), EV_HANDLE_NONE);
    evq_free(&q);
}

/* Packet events and timers live in two heaps; together they must still pop in
 * exact (time, insertion) order, as one heap would. */
static void test_event_two_heaps_one_order(void **st)
{
    (void)st;
    struct eventq q;
    struct rng r;
    evq_init(&q);
    rng_seed(&r, 9, 0);
    for (uint32_t i = 0; i < 50000; i++) {
        simtime_t t = (simtime_t)rng_below(&r, 500);
        if (rng_below(&r, 3) == 0)
            evq_push_timer(&q, t, 1, i);
        else
            evq_push(&q, t, 0, i);
    }
    struct event prev = {0, 0}, e;
    uint32_t n = 0;
    while (evq_pop(&q, &e)) {
        if (n) {
            assert_true(e.time >= prev.time);
            if (e.time == prev.time)
                assert_true(ev_id(&e) > ev_id(&prev));
        }
        prev = e;
        n++;
    }
    assert_int_equal(n, 50000);
    assert_true(evq_empty(&q));
    evq_free(&q);
}

/* As the simulator uses it: pops interleaved with pushes at now + delta,
 * deltas from zero (ties) to past the wheel's horizon (its overflow heap),
 * timers mixed in. Every pop must be the earliest, ties in push order. */
static void test_event_interleaved_with_wheel(void **st)
{
    (void)st;
    struct eventq q;
    struct rng r;
    evq_init(&q);
    rng_seed(&r, 11, 0);
    static const simtime_t scale[] = { 0, 1, 80000, 1000000, 70 * T_US, 3 * T_MS };
    uint32_t pushed = 0;
    for (int i = 0; i < 64; i++)
        evq_push(&q, (simtime_t)rng_below(&r, 1000000), 0, pushed++);
    simtime_t now = 0;
    uint32_t last_id = 0, popped = 0;
    struct event e;
    while (popped < 300000 && evq_pop(&q, &e)) {
        assert_true(e.time >= now);
        if (e.time == now && popped)
            assert_true(ev_id(&e) > last_id); /* same time: scheduling order */
        now = e.time;
        last_id = ev_id(&e);
        popped++;
        int k = (int)rng_below(&r, 3); /* 0..2 new events per pop keeps the queue alive */
        for (int j = 0; j < k && pushed < EV_ID_MAX; j++) {
            simtime_t sc = scale[rng_below(&r, 6)];
            simtime_t t = now + (sc ? (simtime_t)rng_below(&r, (uint64_t)sc) : 0);
            if (rng_below(&r, 10) == 0)
                evq_push_timer(&q, t, 1, pushed++);
            else
                evq_push(&q, t, 0, pushed++);
        }
    }
    assert_true(popped > 1000);
    evq_free(&q);
}

/* Pops must come out in (time, push order): with ids in push order, a popped
 * sequence that never goes back in (time, id) and pops everything is it. */
struct order_check {
    simtime_t time;
    uint32_t id, n;
};

static void check_next(struct order_check *c, const struct event *e)
{
    if (c->n) {
        assert_true(e->time >= c->time);
        if (e->time == c->time)
            assert_true(ev_id(e) > c->id);
    }
    c->time = e->time;
    c->id = ev_id(e);
    c->n++;
}

/* The 64-bit keys hold 20 bits of rank: past ~1 M pushes the queue renumbers
 * its entries, and base follows the clock far past the 17.59 s the key's time
 * field spans. Order must hold across every renumbering. */
static void test_event_renumber_and_rebase(void **st)
{
    (void)st;
    struct eventq q;
    struct rng r;
    evq_init(&q);
    rng_seed(&r, 5, 0);
    static const simtime_t scale[] = { 0, 1, 100 * T_NS, 10 * T_US, 2 * T_MS, 3 * T_SEC };
    uint32_t pushed = 0;
    for (int i = 0; i < 3000; i++)
        evq_push(&q, (simtime_t)rng_below(&r, 1000), 0, pushed++);
    struct order_check c = { 0 };
    struct event e;
    while (pushed < 1500000 && evq_pop(&q, &e)) {
        check_next(&c, &e);
        int k = (int)rng_below(&r, 3);
        for (int j = 0; j < k; j++) {
            simtime_t sc = scale[rng_below(&r, 6)];
            simtime_t t = e.time + (sc ? (simtime_t)rng_below(&r, (uint64_t)sc) : 0);
            if (rng_below(&r, 4) == 0)
                evq_push_timer(&q, t, 1, pushed++);
            else
                evq_push(&q, t, 0, pushed++);
        }
    }
    while (evq_pop(&q, &e))
        check_next(&c, &e);
    assert_int_equal(c.n, pushed);
    assert_true(c.time > 20 * T_SEC); /* well past one span of the key */
    evq_free(&q);
}

/* Events further ahead than the key spans (17.59 s) wait in the far list and
 * still come out in order, ties with nearer pushes included; so does an event
 * scheduled before the last one popped, as the heap always allowed. */
static void test_event_far_ahead(void **st)
{
    (void)st;
    struct eventq q;
    evq_init(&q);
    evq_push(&q, 100 * T_SEC, 0, 1);
    evq_push_timer(&q, 1000 * T_SEC, 0, 2);
    evq_push(&q, 0, 0, 0);
    evq_push(&q, 100 * T_SEC, 0, 3);    /* tie with a far event: after it */
    evq_push(&q, INT64_MAX - 1, 0, 4);  /* beyond any span */
    assert_int_equal(evq_top_time(&q), 0);
    struct event e;
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 0);
    assert_int_equal(evq_top_time(&q), 100 * T_SEC); /* from the far list */
    assert_true(evq_pop(&q, &e));
    assert_int_equal(e.time, 100 * T_SEC);
    assert_int_equal(ev_id(&e), 1);
    evq_push(&q, 100 * T_SEC, 0, 5);    /* now near: after the two before it */
    evq_push(&q, 50 * T_SEC, 0, 6);     /* in the past */
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 6);
    assert_int_equal(e.time, 50 * T_SEC);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 3);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 5);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 2);
    assert_int_equal(e.time, 1000 * T_SEC);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 4);
    assert_int_equal(e.time, INT64_MAX - 1);
    assert_false(evq_pop(&q, &e));
    assert_int_equal(evq_top_time(&q), T_NEVER);
    evq_free(&q);
}

/* More pending events than a renumbering gives ranks to (2^19), in blocks of
 * ties: the excess waits in the far list, cut between two times (never inside
 * a tie), and order still holds. */
static void test_event_many_ties(void **st)
{
    (void)st;
    struct eventq q;
    evq_init(&q);
    uint32_t n = 0;
    for (; n < 1100000; n++) {
        simtime_t t = n < 300000 ? 7 : n < 700000 ? 9 : 11;
        if (n % 2)
            evq_push_timer(&q, t, 0, n);
        else
            evq_push(&q, t, 0, n);
    }
    struct order_check c = { 0 };
    struct event e;
    while (evq_pop(&q, &e))
        check_next(&c, &e);
    assert_int_equal(c.n, n);
    evq_free(&q);
}

/* More than 2^19 pending events at distinct times: a renumbering ranks the
 * first 2^19 and cuts the horizon there (limit before base + 17.59 s). A push
 * beyond that horizon joins the far list without renumbering, although base
 * could move up to the next pending event: that would not move the horizon,
 * and sorted every pending entry at each such push (SimAI's 128-GPU job: 85 %
 * of its CPU). Order holds throughout. */
static void test_event_capped_horizon(void **st)
{
    (void)st;
    struct eventq q;
    evq_init(&q);
    uint32_t n = 0;
    for (; n < 1100000; n++) /* ranks run out at 2^20 - 1: one renumbering, the horizon cut at 2^19 */
        evq_push_timer(&q, (simtime_t)n + 1, 0, n);
    assert_true(q.limit - q.base < EV_SPAN);
    struct order_check c = { 0 };
    struct event e;
    assert_true(evq_pop(&q, &e));
    check_next(&c, &e);
    simtime_t base = q.base;
    for (uint32_t i = 0; i < 50; i++) { /* base lags the next pending event; each push is past the horizon */
        assert_true(evq_pop(&q, &e));
        check_next(&c, &e);
        evq_push_timer(&q, (simtime_t)(2000000 + i), 0, n++);
        assert_int_equal(q.base, base);
    }
    while (evq_pop(&q, &e))
        check_next(&c, &e);
    assert_int_equal(c.n, n);
    evq_free(&q);
}

/* ---- handle order (evq_order_by_handle): ties by kind << 28 | id */

static void handle_queue(struct eventq *q)
{
    evq_init(q);
    evq_order_by_handle(q);
}

/* Same-time events pushed in descending handle pop in ascending handle,
 * whichever heap holds them: insertion order would give the reverse. */
static void test_event_handle_order(void **st)
{
    (void)st;
    struct eventq q;
    handle_queue(&q);
    evq_push(&q, 50, 1, 100);
    for (uint32_t i = 2000; i-- > 0;) {
        if (i % 3 == 0)
            evq_push_timer(&q, 30, 5, i);
        else
            evq_push(&q, 30, 1, i);
    }
    evq_push(&q, 30, 0, 9);  /* kind before id: kind 0 first */
    evq_push(&q, 10, 2, 201);
    evq_push(&q, 10, 2, 200);
    evq_push(&q, 10, 1, EV_ID_MAX);
    struct event e;
    assert_true(evq_pop(&q, &e));
    assert_int_equal(e.time, 10);
    assert_int_equal(e.handle, 1u << EV_ID_BITS | EV_ID_MAX);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 200);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 201);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(e.time, 30);
    assert_int_equal(ev_kind(&e), 0);
    uint32_t prev = e.handle, n = 0;
    while (evq_top_time(&q) == 30) {
        assert_true(evq_pop(&q, &e));
        assert_true(e.handle > prev);
        assert_int_equal(ev_kind(&e), ev_id(&e) % 3 == 0 ? 5 : 1);
        prev = e.handle;
        n++;
    }
    assert_int_equal(n, 2000);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(e.time, 50);
    assert_false(evq_pop(&q, &e));
    assert_int_equal(evq_top_time(&q), T_NEVER);
    evq_free(&q);
}

/* A reference: a plain binary heap of (time, handle). */
struct ref_heap {
    struct event *a;
    size_t n, cap;
};

static bool ev_less(const struct event *x, const struct event *y)
{
    return x->time < y->time || (x->time == y->time && x->handle < y->handle);
}

static void ref_push(struct ref_heap *h, simtime_t t, uint32_t handle)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 1024;
        h->a = realloc(h->a, h->cap * sizeof *h->a);
        assert_non_null(h->a);
    }
    size_t i = h->n++;
    struct event e = { t, handle };
    while (i > 0 && ev_less(&e, &h->a[(i - 1) / 2])) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = e;
}

static struct event ref_pop(struct ref_heap *h)
{
    struct event top = h->a[0], last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && ev_less(&h->a[c + 1], &h->a[c]))
            c++;
        if (!ev_less(&h->a[c], &last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = last;
    return top;
}

/* As the simulator uses it, against the reference: pops interleaved with
 * pushes from now (ties) to seconds ahead, past the 4.29 ms window (so base
 * moves many times), some before the clock (base moves down), timers mixed
 * in, kinds and ids at random (ties among them). Every pop, evq_top_time and
 * evq_peek_handle must be the reference's exactly. */
static void test_event_handle_random(void **st)
{
    (void)st;
    struct eventq q;
    struct ref_heap ref = { 0 };
    struct rng r;
    handle_queue(&q);
    rng_seed(&r, 13, 0);
    static const simtime_t scale[] = { 0, 1, 84000, 10 * T_US, 3 * T_MS, 6 * T_MS, 20 * T_MS, 2 * T_SEC };
    for (int i = 0; i < 2000; i++) {
        simtime_t t = (simtime_t)rng_below(&r, 10 * T_MS);
        uint32_t kind = (uint32_t)rng_below(&r, 3), id = (uint32_t)rng_below(&r, 50);
        evq_push(&q, t, kind, id);
        ref_push(&ref, t, kind << EV_ID_BITS | id);
    }
    uint32_t popped = 0, far = 0, past = 0;
    struct event e;
    while (popped < 1000000 && !evq_empty(&q)) {
        assert_int_equal(evq_size(&q), ref.n);
        assert_int_equal(evq_top_time(&q), ref.a[0].time);
        uint32_t peek = evq_peek_handle(&q);
        assert_true(evq_pop(&q, &e));
        struct event x = ref_pop(&ref);
        assert_int_equal(e.time, x.time);
        assert_int_equal(e.handle, x.handle);
        if (peek != EV_HANDLE_NONE)
            assert_int_equal(peek, x.handle);
        popped++;
        int k = (int)rng_below(&r, 3);
        for (int j = 0; j < k; j++) {
            simtime_t sc = scale[rng_below(&r, 8)];
            simtime_t t = e.time + (sc ? (simtime_t)rng_below(&r, (uint64_t)sc) : 0);
            if (rng_below(&r, 5000) == 0 && e.time > 5 * T_MS) {
                t = e.time - (simtime_t)rng_below(&r, 5 * T_MS); /* before the clock */
                past++;
            }
            far += t - e.time >= EV_HSPAN;
            uint32_t kind = (uint32_t)rng_below(&r, 8), id = (uint32_t)rng_below(&r, 1000);
            if (kind >= 4)
                evq_push_timer(&q, t, kind, id);
            else
                evq_push(&q, t, kind, id);
            ref_push(&ref, t, kind << EV_ID_BITS | id);
        }
    }
    while (evq_pop(&q, &e)) {
        struct event x = ref_pop(&ref);
        assert_int_equal(e.time, x.time);
        assert_int_equal(e.handle, x.handle);
    }
    assert_int_equal(ref.n, 0);
    assert_true(popped == 1000000);
    assert_true(far > 1000 && past > 10);
    assert_true(e.time > 100 * EV_HSPAN); /* base moved far past one window */
    free(ref.a);
    evq_free(&q);
}

/* Events beyond the window wait in the far list: months ahead, ties among
 * far events and with nearer pushes by handle, a push before the clock,
 * evq_top_time from the far list, the empty queue. */
static void test_event_handle_far(void **st)
{
    (void)st;
    struct eventq q;
    handle_queue(&q);
    const simtime_t month = 30 * 24 * 3600 * T_SEC;
    assert_int_equal(evq_top_time(&q), T_NEVER);
    assert_int_equal(evq_peek_handle(&q), EV_HANDLE_NONE);
    assert_int_equal(evq_peek2_handle(&q), EV_HANDLE_NONE);
    evq_push(&q, 100 * T_SEC, 0, 7);
    evq_push_timer(&q, 2 * month, 3, 2);
    evq_push(&q, 2 * month, 3, 1);      /* a tie months ahead: by handle */
    evq_push(&q, 0, 0, 0);
    evq_push(&q, 100 * T_SEC, 0, 3);    /* a tie with a far event: before it */
    evq_push(&q, INT64_MAX - 1, 0, 4);  /* beyond any window */
    evq_push(&q, 5 * T_MS, 1, 9);       /* just beyond the first window */
    assert_int_equal(evq_top_time(&q), 0);
    struct event e;
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 0);
    assert_int_equal(evq_top_time(&q), 5 * T_MS); /* from the far list */
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 9);
    assert_int_equal(evq_top_time(&q), 100 * T_SEC);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(e.time, 100 * T_SEC);
    assert_int_equal(ev_id(&e), 3);
    evq_push(&q, 100 * T_SEC, 0, 5);    /* now near: between 3 and 7 */
    evq_push(&q, 100 * T_SEC, 0, 1);    /* before the current handle: next */
    evq_push(&q, 50 * T_SEC, 0, 6);     /* before the clock */
    assert_int_equal(evq_peek_handle(&q), 6);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 6);
    assert_int_equal(e.time, 50 * T_SEC);
    static const uint32_t at100[] = { 1, 5, 7 };
    for (int i = 0; i < 3; i++) {
        assert_true(evq_pop(&q, &e));
        assert_int_equal(e.time, 100 * T_SEC);
        assert_int_equal(ev_id(&e), at100[i]);
    }
    assert_int_equal(evq_top_time(&q), 2 * month);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(e.time, 2 * month);
    assert_int_equal(ev_id(&e), 1);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(e.time, 2 * month);
    assert_int_equal(ev_id(&e), 2);
    assert_int_equal(ev_kind(&e), 3);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 4);
    assert_int_equal(e.time, INT64_MAX - 1);
    assert_false(evq_pop(&q, &e));
    assert_true(evq_empty(&q));
    assert_int_equal(evq_top_time(&q), T_NEVER);
    assert_int_equal(evq_peek_handle(&q), EV_HANDLE_NONE);
    evq_free(&q);
}

/* evq_peek2_handle in handle order: exactly the packet event after the top. */
static void test_event_handle_peek(void **st)
{
    (void)st;
    struct eventq q;
    struct rng r;
    handle_queue(&q);
    rng_seed(&r, 8, 0);
    for (uint32_t i = 0; i < 20000; i++)
        evq_push(&q, (simtime_t)rng_below(&r, 5000), i % 3, (uint32_t)rng_below(&r, 20000));
    struct event e;
    while (!evq_empty(&q)) {
        uint32_t h1 = evq_peek_handle(&q), h2 = evq_peek2_handle(&q);
        assert_true(evq_pop(&q, &e));
        assert_int_equal(e.handle, h1);
        assert_int_equal(evq_peek_handle(&q), h2);
    }
    assert_int_equal(evq_peek2_handle(&q), EV_HANDLE_NONE);
    evq_free(&q);
}

/* Places the caller keeps (evq_set_places, as the simulator keeps a
 * packet's ARRIVE place in the packet and a port's TX_DONE place in the
 * port): here (time, ord) pairs in the test's own arrays, which renumbering
 * finds through the callback. */
struct place_set {
    struct eventq *q;
    simtime_t *t;
    uint32_t *ord, n;
};

static void visit_places(void *ctx)
{
    struct place_set *ps = ctx;
    for (uint32_t i = 0; i < ps->n; i++)
        evq_place_visit(ps->q, ps->t[i], &ps->ord[i]);
}

static void place_init(struct place_set *ps, struct eventq *q, simtime_t *t, uint32_t *ord, uint32_t n)
{
    *ps = (struct place_set){ q, t, ord, n };
    for (uint32_t i = 0; i < n; i++)
        t[i] = -1, ord[i] = EV_PLACE_NONE;
    evq_set_places(q, visit_places, ps);
}

static void take(struct eventq *q, struct place_set *ps, uint32_t i, simtime_t t)
{
    ps->t[i] = t;
    evq_place_take(q, &ps->ord[i], t);
}

/* Places (run.ns3_timing): an event pushed into a place runs among events
 * at its time exactly where it would have had it been pushed when the place
 * was taken, as ns-3 orders a packet's arrival by its transmission's start.
 * Ids here are that scheduling order. */
static void test_event_place_ties(void **st)
{
    (void)st;
    struct eventq q;
    evq_init(&q);
    simtime_t t[4];
    uint32_t ord[4];
    struct place_set ps;
    place_init(&ps, &q, t, ord, 4);
    enum { A, B, C, D };
    evq_push(&q, 100, 0, 0);
    take(&q, &ps, A, 100); /* place 1 */
    evq_push(&q, 100, 0, 2);
    take(&q, &ps, B, 100); /* place 3 */
    take(&q, &ps, C, 50);  /* earlier time: first whenever pushed */
    take(&q, &ps, D, 100); /* given up below: takes no place at 100 */
    evq_push_place(&q, t[B], &ord[B], 0, 3);
    evq_push(&q, 100, 0, 4);
    evq_push_place(&q, t[A], &ord[A], 0, 1);
    evq_push_place(&q, t[C], &ord[C], 0, 9);
    assert_true(ord[A] == EV_PLACE_NONE); /* pushed: holds no place */
    evq_push(&q, 100, 0, 5);
    take(&q, &ps, D, 300); /* a new place replaces the old one */
    evq_push_place(&q, t[D], &ord[D], 0, 6);
    struct event e;
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 9);
    assert_int_equal(e.time, 50);
    for (uint32_t i = 0; i <= 5; i++) {
        assert_true(evq_pop(&q, &e));
        assert_int_equal(e.time, 100);
        assert_int_equal(ev_id(&e), i);
    }
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 6);
    assert_int_equal(e.time, 300);
    assert_false(evq_pop(&q, &e));
    evq_free(&q);
}

/* A place taken before ~1 M pushes (renumbering) keeps it: after the events
 * pushed at its time before, before those pushed after; one beyond the key's
 * span (a far place) too. */
static void test_event_place_across_renumbering(void **st)
{
    (void)st;
    struct eventq q;
    evq_init(&q);
    simtime_t t[2];
    uint32_t ord[2];
    struct place_set ps;
    place_init(&ps, &q, t, ord, 2);
    enum { NEAR, FAR };
    for (uint32_t i = 0; i < 500; i++) /* the place's first rank is not its rank after renumbering */
        evq_push(&q, 6000, 2, i);
    evq_push(&q, 5000, 0, 0);
    take(&q, &ps, NEAR, 5000);
    evq_push(&q, 40 * T_SEC, 0, 7);
    take(&q, &ps, FAR, 40 * T_SEC);
    evq_push(&q, 5000, 0, 2);
    uint32_t renumbered = 0, last_seq = q.seq;
    struct event e;
    for (uint32_t i = 0; i < 2200000; i++) { /* ties at 1..4401 churn the ranks */
        evq_push(&q, 1 + i / 500, 1, 0);
        assert_true(evq_pop(&q, &e));
        assert_int_equal(ev_kind(&e), 1);
        renumbered += q.seq < last_seq;
        last_seq = q.seq;
    }
    assert_int_equal(renumbered, 2);
    evq_push(&q, 5000, 0, 3);
    evq_push_place(&q, t[NEAR], &ord[NEAR], 0, 1);
    evq_push(&q, 40 * T_SEC, 0, 9);
    evq_push_place(&q, t[FAR], &ord[FAR], 0, 8);
    for (uint32_t i = 0; i < 4; i++) {
        assert_true(evq_pop(&q, &e));
        assert_int_equal(e.time, 5000);
        assert_int_equal(ev_id(&e), i);
    }
    for (uint32_t i = 0; i < 500; i++) {
        assert_true(evq_pop(&q, &e));
        assert_int_equal(e.time, 6000);
        assert_int_equal(ev_id(&e), i);
    }
    for (uint32_t i = 7; i <= 9; i++) {
        assert_true(evq_pop(&q, &e));
        assert_int_equal(e.time, 40 * T_SEC);
        assert_int_equal(ev_id(&e), i);
    }
    assert_false(evq_pop(&q, &e));
    evq_free(&q);
}

/* A place never used (an idle port's TX_DONE) is dead once the clock passes
 * its time: it must not hold base back, or nothing more than 17.59 s after
 * it could be keyed. */
static void test_event_place_dead(void **st)
{
    (void)st;
    struct eventq q;
    evq_init(&q);
    simtime_t t[2];
    uint32_t ord[2];
    struct place_set ps;
    place_init(&ps, &q, t, ord, 2);
    enum { IDLE, LIVE };
    take(&q, &ps, IDLE, 5);
    evq_push(&q, 10, 0, 0);
    evq_push(&q, 30 * T_SEC, 0, 1); /* far */
    struct event e;
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 0);
    take(&q, &ps, LIVE, 31 * T_SEC); /* live: holds base down to its time, no further */
    for (uint32_t i = 2; i < 6; i++)
        evq_push(&q, (simtime_t)(20 * i) * T_SEC, 0, i); /* 40 .. 100 s, each far from the last */
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 1);
    assert_int_equal(q.base, 30 * T_SEC);
    assert_true(ord[IDLE] == EV_PLACE_NONE); /* renumbering dropped it */
    evq_push_place(&q, t[LIVE], &ord[LIVE], 0, 9);
    assert_true(evq_pop(&q, &e));
    assert_int_equal(ev_id(&e), 9);
    assert_int_equal(e.time, 31 * T_SEC);
    evq_push(&q, 200 * T_SEC, 0, 6); /* beyond the span: base may move up, to the clock at least */
    assert_true(q.base >= 31 * T_SEC);
    for (uint32_t i = 2; i < 7; i++) {
        assert_true(evq_pop(&q, &e));
        assert_int_equal(ev_id(&e), i);
        assert_int_equal(e.time, (simtime_t)(i < 6 ? 20 * i : 200) * T_SEC);
    }
    assert_false(evq_pop(&q, &e));
    evq_free(&q);
}

/* As the simulator uses places, at random: each takes a place ahead (some
 * beyond the key's span) and is pushed by a trigger event at or before it, or
 * given up with its place still held (a packet lost with its link); one keeps
 * an unused place for long stretches (an idle port's TX_DONE), which must not
 * hold base back once passed. Slots are reused, as packets are. Ids are the
 * scheduling order (a push's, or its place's), so pops must come out in
 * (time, id) order, every event once, across renumbering and rebasing. */
static void test_event_place_random(void **st)
{
    (void)st;
    struct eventq q;
    struct rng r;
    evq_init(&q);
    rng_seed(&r, 23, 0);
    static const simtime_t scale[] = { 0, 1, 100 * T_NS, 10 * T_US, 2 * T_MS, 3 * T_SEC, 30 * T_SEC };
    enum { N = 1600000 };
    uint32_t *pl_of = malloc(N * sizeof *pl_of), *id_of = malloc(N * sizeof *id_of), *spare = malloc(N * sizeof *spare);
    struct place_set ps = { &q, malloc(N * sizeof *ps.t), malloc(N * sizeof *ps.ord), 1 };
    evq_set_places(&q, visit_places, &ps);
    uint32_t vseq = 0, pushes = 0, nspare = 0, renumbered = 0, last_seq = 0, idle = 0;
    ps.ord[idle] = EV_PLACE_NONE;
    ps.t[idle] = -1;
    for (int i = 0; i < 1000; i++, pushes++)
        evq_push(&q, (simtime_t)rng_below(&r, 1000), 0, vseq++);
    struct order_check c = { 0 };
    struct event e;
    while (evq_pop(&q, &e)) {
        check_next(&c, &e);
        renumbered += q.seq < last_seq;
        last_seq = q.seq;
        if (ev_kind(&e) == 2) { /* a trigger: push its place's event, or give it up */
            uint32_t pl = pl_of[ev_id(&e)];
            assert_true(ps.ord[pl] != EV_PLACE_NONE && ps.t[pl] >= e.time);
            if (rng_below(&r, 8)) {
                evq_push_place(&q, ps.t[pl], &ps.ord[pl], 1, id_of[ev_id(&e)]);
                assert_true(ps.ord[pl] == EV_PLACE_NONE);
                pushes++;
            } /* else given up, its place still held until the clock passes it */
            spare[nspare++] = pl;
        }
        if ((ps.ord[idle] == EV_PLACE_NONE || ps.t[idle] < e.time) && rng_below(&r, 1000) == 0) {
            ps.t[idle] = e.time + (simtime_t)rng_below(&r, 100 * T_NS); /* never pushed */
            evq_place_take(&q, &ps.ord[idle], ps.t[idle]);
            vseq++;
        }
        int k = vseq < N - 8 ? (int)rng_below(&r, 3) : 0;
        for (int j = 0; j < k; j++) {
            simtime_t sc = scale[rng_below(&r, 7)];
            if (sc > 3 * T_SEC && rng_below(&r, 1000))
                sc = 0;
            simtime_t t = e.time + (sc >= 8 ? (simtime_t)rng_below(&r, 8) * (sc / 8) : 0);
            uint32_t u = (uint32_t)rng_below(&r, 3);
            if (u == 0) {
                evq_push_timer(&q, t, 0, vseq++);
                pushes++;
            } else if (u == 1 && t > e.time) {
                uint32_t pl = nspare ? spare[--nspare] : ps.n++, id = vseq++;
                ps.t[pl] = t;
                ps.ord[pl] = EV_PLACE_NONE;
                evq_place_take(&q, &ps.ord[pl], t);
                simtime_t at = e.time + (simtime_t)rng_below(&r, (uint64_t)(t - e.time));
                pl_of[vseq] = pl;
                id_of[vseq] = id;
                evq_push(&q, at, 2, vseq++);
                pushes++;
            } else {
                evq_push(&q, t, 0, vseq++);
                pushes++;
            }
        }
    }
    assert_int_equal(c.n, pushes);
    assert_true(c.time > 20 * T_SEC);
    assert_true(renumbered >= 1);
    free(pl_of);
    free(id_of);
    free(spare);
    free(ps.t);
    free(ps.ord);
    evq_free(&q);
}

static void test_tx_time(void **st)
{
    (void)st;
    assert_int_equal(tx_time(1036, 100000000000ULL), 82880);  /* 82.88 ns */
    assert_int_equal(tx_time(48, 100000000000ULL), 3840);
    assert_int_equal(tx_time(1000, 400000000000ULL), 20000);
    assert_int_equal(tx_time(1, 3), 2666666666667LL);           /* rounds up */
    assert_int_equal(tx_time(30000000, 100000000000ULL), 2400000000LL);
}

static void test_rng_deterministic(void **st)
{
    (void)st;
    struct rng a, b, c;
    rng_seed(&a, 7, 1);
    rng_seed(&b, 7, 1);
    rng_seed(&c, 7, 2);
    int same_c = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = rng_next(&a);
        assert_true(x == rng_next(&b));
        same_c += x == rng_next(&c);
    }
    assert_true(same_c < 2);
    double sum = 0;
    for (int i = 0; i < 200000; i++) {
        double u = rng_uniform(&a);
        assert_true(u >= 0 && u < 1);
        sum += rng_exp(&b, 5.0);
    }
    assert_true(sum / 200000 > 4.9 && sum / 200000 < 5.1);
}

/* Reference values from the MurmurHash3_x86_32 definition (the published
 * test vectors, and a Python transcription for the 12-byte ECMP key). */
static void test_ecmp_hash(void **st)
{
    (void)st;
    assert_int_equal(ecmp_hash((const uint8_t *)"", 0, 0), 0);
    assert_int_equal(ecmp_hash((const uint8_t *)"", 0, 1), 0x514e28b7);
    assert_int_equal(ecmp_hash((const uint8_t *)"test", 4, 0), 0xba6bd213);
    assert_int_equal(ecmp_hash((const uint8_t *)"Hello, world!", 13, 1234), 0xfaf6cdb3);
    const char *fox = "The quick brown fox jumps over the lazy dog";
    assert_int_equal(ecmp_hash((const uint8_t *)fox, strlen(fox), 0), 0x2e4ff723);
    /* ns-3 key for host 0 -> host 5, sport 10000, dport 100 */
    uint32_t ip0 = 0x0b000001, ip5 = 0x0b000001 + (5 << 8);
    uint32_t key[3] = { ip0, ip5, 10000u | (100u << 16) };
    assert_int_equal(ecmp_hash((const uint8_t *)key, 12, 320), 0x014c6fd4);
    assert_int_equal(ecmp_hash((const uint8_t *)key, 12, 0), 0x50cf8f38);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_order_and_ties),
        cmocka_unit_test(test_event_heap_random),
        cmocka_unit_test(test_event_peek),
        cmocka_unit_test(test_event_two_heaps_one_order),
        cmocka_unit_test(test_event_interleaved_with_wheel),
        cmocka_unit_test(test_event_renumber_and_rebase),
        cmocka_unit_test(test_event_far_ahead),
        cmocka_unit_test(test_event_capped_horizon),
        cmocka_unit_test(test_event_many_ties),
        cmocka_unit_test(test_event_handle_order),
        cmocka_unit_test(test_event_handle_random),
        cmocka_unit_test(test_event_handle_far),
        cmocka_unit_test(test_event_handle_peek),
        cmocka_unit_test(test_event_place_ties),
        cmocka_unit_test(test_event_place_across_renumbering),
        cmocka_unit_test(test_event_place_dead),
        cmocka_unit_test(test_event_place_random),
        cmocka_unit_test(test_tx_time),
        cmocka_unit_test(test_rng_deterministic),
        cmocka_unit_test(test_ecmp_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
