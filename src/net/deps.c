/* Flows that start when others have finished (collectives, the flow file's
 * dependency column): a gated flow is left out of the start order; when the
 * last of its prerequisites completes (flow_complete, the sender has the last
 * ACK, as the FCT counts), one EV_FLOW_DEP is pushed for it at that time plus
 * its delay, or at its own start if that is later. Dependents are released in
 * the order they were listed (ascending flow id), so a seed still reproduces a
 * run bit for bit. No per-packet cost. */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdlib.h>

void sim_deps_set(struct sim *s, const uint32_t *off, const uint32_t *pre, const simtime_t *delay)
{
    uint32_t n = s->n_flows;
    struct sim_deps *d = xcalloc(1, sizeof *d);
    d->gated = xcalloc(n ? n : 1, 1);
    d->wait = xcalloc(n ? n : 1, sizeof *d->wait);
    d->delay = xcalloc(n ? n : 1, sizeof *d->delay);
    d->succ_off = xcalloc((size_t)n + 1, sizeof *d->succ_off);
    d->succ = xcalloc(off[n] ? off[n] : 1, sizeof *d->succ);
    for (uint32_t i = 0; i < n; i++) {
        d->wait[i] = off[i + 1] - off[i];
        d->gated[i] = d->wait[i] > 0;
        d->delay[i] = delay[i];
        for (uint32_t k = off[i]; k < off[i + 1]; k++)
            d->succ_off[pre[k] + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        d->succ_off[i + 1] += d->succ_off[i];
    uint32_t *fill = xcalloc(n ? n : 1, sizeof *fill);
    for (uint32_t i = 0; i < n; i++)
        fill[i] = d->succ_off[i];
    for (uint32_t i = 0; i < n; i++) /* ascending dependent within each list */
        for (uint32_t k = off[i]; k < off[i + 1]; k++)
            d->succ[fill[pre[k]]++] = i;
    free(fill);
    s->deps = d;
}

void deps_release(struct sim *s, const struct qp *f)
{
    struct sim_deps *d = s->deps;
    for (uint32_t k = d->succ_off[f->id]; k < d->succ_off[f->id + 1]; k++) {
        uint32_t j = d->succ[k];
        if (--d->wait[j])
            continue;
        struct qp *g = &s->flows[j];
        simtime_t at = s->now + d->delay[j];
        if (g->start > at)
            at = g->start;
        g->start = at;
        evq_push(&s->evq, at, EV_FLOW_DEP, j);
    }
}

void deps_start(struct sim *s, uint32_t id)
{
    struct qp *f = &s->flows[id];
    if (f->state == FLOW_PENDING)
        flow_start(s, f);
}

void sim_deps_free(struct sim *s)
{
    struct sim_deps *d = s->deps;
    if (!d)
        return;
    free(d->gated);
    free(d->wait);
    free(d->delay);
    free(d->succ_off);
    free(d->succ);
    free(d);
    s->deps = NULL;
}
