#include "core/eventq.h"
#include "core/xalloc.h"
#include <stdlib.h>

static void heap_init(struct heap4 *h, size_t cap)
{
    h->n = 0;
    h->cap = cap;
    h->v = xmalloc(cap * sizeof *h->v);
}

static void heap_push(struct heap4 *h, struct event e)
{
    if (h->n == h->cap) {
        h->cap *= 2;
        h->v = xrealloc(h->v, h->cap * sizeof *h->v);
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) >> 2;
        if (!ev_before(&e, &h->v[parent]))
            break;
        h->v[i] = h->v[parent];
        i = parent;
    }
    h->v[i] = e;
}

static void heap_pop(struct heap4 *h, struct event *out)
{
    *out = h->v[0];
    struct event last = h->v[--h->n];
    size_t n = h->n, i = 0;
    if (n == 0)
        return;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (ev_before(&h->v[j], &h->v[best]))
                best = j;
        if (!ev_before(&h->v[best], &last))
            break;
        h->v[i] = h->v[best];
        i = best;
    }
    h->v[i] = last;
}

void evq_init(struct eventq *q)
{
    heap_init(&q->fast, 1024);
    heap_init(&q->slow, 1024);
    q->seq = 0;
}

void evq_free(struct eventq *q)
{
    free(q->fast.v);
    free(q->slow.v);
    q->fast.v = q->slow.v = NULL;
    q->fast.n = q->slow.n = q->fast.cap = q->slow.cap = 0;
}

void evq_push(struct eventq *q, simtime_t t, unsigned kind, uint32_t id)
{
    heap_push(&q->fast, (struct event){ t, q->seq++, (kind << EV_ID_BITS) | (id & EV_ID_MAX) });
}

void evq_push_timer(struct eventq *q, simtime_t t, unsigned kind, uint32_t id)
{
    heap_push(&q->slow, (struct event){ t, q->seq++, (kind << EV_ID_BITS) | (id & EV_ID_MAX) });
}

bool evq_pop(struct eventq *q, struct event *out)
{
    if (q->fast.n && (!q->slow.n || ev_before(&q->fast.v[0], &q->slow.v[0])))
        heap_pop(&q->fast, out);
    else if (q->slow.n)
        heap_pop(&q->slow, out);
    else
        return false;
    return true;
}
