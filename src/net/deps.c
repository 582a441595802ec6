/* Flows that start when others have finished (collectives, the flow file's
 * dependency column): a gated flow is left out of the start order; when the
 * last of its prerequisites is met, one EV_FLOW_DEP is pushed for it at that
 * time plus its delay, or at its own start if that is later. A prerequisite
 * is met when the flow completes (flow_complete: the sender has the last
 * ACK, as the FCT counts) or, for a SIM_DEP_SENT one, when its last new byte
 * is handed to the sender's link (make_data): a collective's next chunk
 * follows back to back, as a NIC takes a queue pair's next work request.
 * Dependents are released in ascending flow id, so a seed still reproduces
 * a run bit for bit. */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdlib.h>

/* CSR of the flows waiting for each flow, those with (want_sent) or without the flag. */
static void csr(uint32_t n, const uint32_t *off, const uint32_t *pre, bool want_sent, uint32_t **o_off, uint32_t **o_v)
{
    uint32_t *so = xcalloc((size_t)n + 1, sizeof *so), m = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = off[i]; k < off[i + 1]; k++)
            if (!(pre[k] & SIM_DEP_SENT) == !want_sent) {
                so[(pre[k] & ~SIM_DEP_SENT) + 1]++;
                m++;
            }
    for (uint32_t i = 0; i < n; i++)
        so[i + 1] += so[i];
    uint32_t *v = xcalloc(m ? m : 1, sizeof *v), *fill = xcalloc(n ? n : 1, sizeof *fill);
    for (uint32_t i = 0; i < n; i++)
        fill[i] = so[i];
    for (uint32_t i = 0; i < n; i++) /* ascending dependent within each list */
        for (uint32_t k = off[i]; k < off[i + 1]; k++)
            if (!(pre[k] & SIM_DEP_SENT) == !want_sent)
                v[fill[pre[k] & ~SIM_DEP_SENT]++] = i;
    free(fill);
    *o_off = so;
    *o_v = v;
}

void sim_deps_set(struct sim *s, const uint32_t *off, const uint32_t *pre, const simtime_t *delay)
{
    uint32_t n = s->n_flows;
    struct sim_deps *d = xcalloc(1, sizeof *d);
    d->gated = xcalloc(n ? n : 1, 1);
    d->wait = xcalloc(n ? n : 1, sizeof *d->wait);
    d->delay = xcalloc(n ? n : 1, sizeof *d->delay);
    for (uint32_t i = 0; i < n; i++) {
        d->wait[i] = off[i + 1] - off[i];
        d->gated[i] = d->wait[i] > 0;
        d->delay[i] = delay[i];
    }
    csr(n, off, pre, false, &d->succ_off, &d->succ);
    csr(n, off, pre, true, &d->sent_off, &d->sent);
    s->deps = d;
}

static void release(struct sim *s, const uint32_t *v, uint32_t from, uint32_t to)
{
    struct sim_deps *d = s->deps;
    for (uint32_t k = from; k < to; k++) {
        uint32_t j = v[k];
        if (--d->wait[j])
            continue;
        struct qp *g = &s->flows[j];
        simtime_t at = s->now + d->delay[j];
        if (g->start > at)
            at = g->start;
        g->start = at;
        evq_push(&s->evq, at, EV_FLOW_DEP, j); /* never started from inside the NIC's loop */
    }
}

void deps_release(struct sim *s, const struct qp *f)
{
    release(s, s->deps->succ, s->deps->succ_off[f->id], s->deps->succ_off[f->id + 1]);
}

void deps_sent(struct sim *s, const struct qp *f)
{
    release(s, s->deps->sent, s->deps->sent_off[f->id], s->deps->sent_off[f->id + 1]);
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
    free(d->sent_off);
    free(d->sent);
    free(d);
    s->deps = NULL;
}
