/* The ranks' collectives (struct eng_comm, called between windows and in the
 * same order at every rank) and the records partitions log during a window,
 * merged after it in the serial loop's order: by (time, handle), then in the
 * order the event made them. */
#include "engine/eng_impl.h"
#include <stdlib.h>

int eng_rank(const struct eng *e) { return e->rank; }
int eng_ranks(const struct eng *e) { return e->comm ? e->comm->size : 1; }

void eng_allgather(struct eng *e, const void *mine, void *all, size_t n)
{
    if (e->comm)
        e->comm->allgather(mine, all, n);
    else
        memcpy(all, mine, n);
}

bool eng_any(struct eng *e, bool mine)
{
    if (!e->comm)
        return mine;
    uint8_t b = mine, all[e->comm->size];
    e->comm->allgather(&b, all, 1);
    for (int r = 0; r < e->comm->size; r++)
        b |= all[r];
    return b;
}

/* e->x's bytes to rank 0 alone; there, what every rank sent, in rank order
 * (in rbuf, the length returned); elsewhere 0. */
static size_t x_to_root(struct eng *e)
{
    const struct eng_comm *C = e->comm;
    for (int r = 0; r < C->size; r++)
        e->scount[r] = r == 0 ? e->x.len : 0;
    C->alltoallv(e->x.b, e->scount, &e->rbuf, &e->rcap, e->rcount);
    size_t n = 0;
    for (int r = 0; r < C->size; r++)
        n += e->rcount[r];
    return n;
}

size_t eng_to_root(struct eng *e, const void *buf, size_t len, const uint8_t **out)
{
    if (!e->comm) {
        *out = buf;
        return len;
    }
    e->x.len = 0;
    if (len)
        bytes_put(&e->x, buf, len);
    size_t n = x_to_root(e);
    *out = e->rbuf;
    return n;
}

void eng_gather_all(struct eng *e, const uint8_t **buf, size_t *len)
{
    if (!e->comm)
        return;
    for (int r = 0; r < e->comm->size; r++)
        e->scount[r] = *len;
    /* the same bytes to every rank: alltoallv reads each rank's from its own offset */
    e->x.len = 0;
    for (int r = 0; r < e->comm->size; r++)
        if (*len)
            bytes_put(&e->x, *buf, *len);
    e->comm->alltoallv(e->x.b, e->scount, &e->rbuf, &e->rcap, e->rcount);
    *len = 0;
    for (int r = 0; r < e->comm->size; r++)
        *len += e->rcount[r];
    *buf = e->rbuf;
}

/* ---------------------------------------------------------------- records */

void eng_record(struct eng_part *p, simtime_t t, uint32_t handle, const void *body)
{
    if (p->nrec == p->caprec) {
        p->caprec = p->caprec ? 2 * p->caprec : 256;
        p->rec = xrealloc(p->rec, p->caprec * sizeof *p->rec);
    }
    struct eng_rec *r = &p->rec[p->nrec++];
    r->t = t;
    r->handle = handle;
    r->seq = p->rec_seq++;
    memcpy(r->body, body, sizeof r->body);
}

static int rec_cmp(const void *a, const void *b)
{
    const struct eng_rec *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->handle != y->handle)
        return x->handle < y->handle ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* This process's records of the window, into merge[]; returns how many. */
static size_t rec_collect(struct eng *e)
{
    size_t n = 0;
    for (uint32_t i = 0; i < e->n; i++)
        n += e->part[i].nrec;
    if (n > e->capmerge) {
        e->capmerge = 2 * n;
        e->merge = xrealloc(e->merge, e->capmerge * sizeof *e->merge);
    }
    n = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        if (!e->part[i].nrec)
            continue; /* (its log may not exist yet: no memcpy from NULL) */
        memcpy(e->merge + n, e->part[i].rec, e->part[i].nrec * sizeof *e->merge);
        n += e->part[i].nrec;
        e->part[i].nrec = 0;
    }
    return n;
}

/* Across ranks: every rank's n records to rank 0, into its merge[]; returns
 * how many are there (0 elsewhere). total: all ranks' records, or
 * REC_UNKNOWN to count them here. */
static size_t rec_to_root(struct eng *e, size_t n, uint64_t total)
{
    if (total == REC_UNKNOWN) {
        uint64_t mine = n, all[e->comm->size];
        e->comm->allgather(&mine, all, sizeof mine);
        total = 0;
        for (int r = 0; r < e->comm->size; r++)
            total += all[r];
    }
    if (!total)
        return 0;
    e->x.len = 0;
    if (n)
        bytes_put(&e->x, e->merge, n * sizeof *e->merge);
    n = x_to_root(e) / sizeof *e->merge;
    if (n > e->capmerge) {
        e->capmerge = 2 * n;
        e->merge = xrealloc(e->merge, e->capmerge * sizeof *e->merge);
    }
    if (n)
        memcpy(e->merge, e->rbuf, n * sizeof *e->merge);
    return n;
}

/* The partitions' records of this window in the serial loop's order, to the
 * model (across ranks, at rank 0, every rank's). */
void eng_rec_flush(struct eng *e, uint64_t total)
{
    size_t n = rec_collect(e);
    if (e->comm)
        n = rec_to_root(e, n, total);
    if (!n)
        return;
    qsort(e->merge, n, sizeof *e->merge, rec_cmp);
    e->ops->records(e->model, e->merge, n);
}
