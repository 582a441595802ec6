#include "core/eventq.h"
#include <stdio.h>
#include <stdlib.h>

static inline bool ev_less(const struct event *a, const struct event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    return (int32_t)(a->seq - b->seq) < 0;
}

void evq_init(struct eventq *q)
{
    q->n = 0;
    q->cap = 1024;
    q->seq = 0;
    q->pushed = 0;
    q->heap = malloc(q->cap * sizeof *q->heap);
    if (!q->heap) {
        perror("rocesim: event queue");
        exit(1);
    }
}

void evq_free(struct eventq *q)
{
    free(q->heap);
    q->heap = NULL;
    q->n = q->cap = 0;
}

void evq_push(struct eventq *q, simtime_t t, unsigned kind, uint32_t id)
{
    if (q->n == q->cap) {
        q->cap *= 2;
        struct event *h = realloc(q->heap, q->cap * sizeof *h);
        if (!h) {
            perror("rocesim: event queue");
            exit(1);
        }
        q->heap = h;
    }
    struct event e = { t, q->seq++, (kind << EV_ID_BITS) | (id & EV_ID_MAX) };
    q->pushed++;
    size_t i = q->n++;
    while (i > 0) {
        size_t parent = (i - 1) >> 2;
        if (!ev_less(&e, &q->heap[parent]))
            break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = e;
}

bool evq_pop(struct eventq *q, struct event *out)
{
    if (q->n == 0)
        return false;
    *out = q->heap[0];
    struct event last = q->heap[--q->n];
    size_t n = q->n, i = 0;
    if (n == 0)
        return true;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (ev_less(&q->heap[j], &q->heap[best]))
                best = j;
        if (!ev_less(&q->heap[best], &last))
            break;
        q->heap[i] = q->heap[best];
        i = best;
    }
    q->heap[i] = last;
    return true;
}
