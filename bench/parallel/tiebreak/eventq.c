/* bench/parallel/tiebreak: see eventq.h. */
#include "core/eventq.h"
#include <string.h>
#include "core/xalloc.h"

#ifndef TB_VARIANT
#define TB_VARIANT 1
#endif

static bool less(const struct tb_ent *a, const struct tb_ent *b)
{
    if (a->time != b->time)
        return a->time < b->time;
#if TB_VARIANT == 0
    return a->seq < b->seq; /* today's order: control */
#endif
#if TB_VARIANT == 1
    if (a->ptime != b->ptime)
        return a->ptime < b->ptime;
#endif
    return a->handle < b->handle; /* kind << 28 | id */
}

void evq_init(struct eventq *q) { memset(q, 0, sizeof *q); }
void evq_free(struct eventq *q)
{
    free(q->h);
    memset(q, 0, sizeof *q);
}

void evq_push(struct eventq *q, simtime_t t, unsigned kind, uint32_t id)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 1024;
        q->h = realloc(q->h, q->cap * sizeof *q->h);
        if (!q->h)
            abort();
    }
    struct tb_ent e = {t, q->now, q->seq++, kind << EV_ID_BITS | id};
    size_t i = q->n++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (!less(&e, &q->h[p]))
            break;
        q->h[i] = q->h[p];
        i = p;
    }
    q->h[i] = e;
}

void evq_push_timer(struct eventq *q, simtime_t t, unsigned kind, uint32_t id) { evq_push(q, t, kind, id); }

bool evq_pop(struct eventq *q, struct event *ev)
{
    if (!q->n)
        return false;
    ev->time = q->h[0].time;
    ev->handle = q->h[0].handle;
    q->now = ev->time;
    struct tb_ent e = q->h[--q->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && less(&q->h[c + 1], &q->h[c]))
            c++;
        if (!less(&q->h[c], &e))
            break;
        q->h[i] = q->h[c];
        i = c;
    }
    if (q->n)
        q->h[i] = e;
    return true;
}
