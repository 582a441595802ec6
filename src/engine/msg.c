/* Messages between partitions (docs/parallel.md, "Messages"): one growable
 * outbox per (sender, receiver, window parity), filled during a window and
 * read by the receiver at the start of its next; across MPI ranks the
 * outboxes to another rank's partitions go there after each window in one
 * all-to-all (exchange). */
#include "engine/eng_impl.h"
#include <assert.h>
#include <stdlib.h>

/* The next message at *at: its id, and its bytes (their length). */
static inline const uint8_t *ob_next(const uint8_t **at, uint32_t *id, uint32_t *len)
{
    uint32_t hdr[2];
    memcpy(hdr, *at, MSG_HDR);
    *id = hdr[0];
    *len = hdr[1];
    const uint8_t *bytes = *at + MSG_HDR;
    *at = bytes + hdr[1];
    return bytes;
}

/* p's outbox to `to` in window parity par, listed in touched[par] when it
 * gets its first message. */
static inline struct outbox *outbox_of(struct eng *e, struct eng_part *p, uint32_t par, uint32_t to)
{
    struct outbox *ob = &p->out[par][to];
    if (ob->n == 0) {
        if (!p->touched[par])
            p->touched[par] = xmalloc(e->n * sizeof(uint32_t));
        p->touched[par][p->ntouched[par]++] = to;
    }
    return ob;
}

/* always_inline: with len a constant (eng_send_ref) the copies become moves,
 * and the buffer's growth is the only call left. */
static inline __attribute__((always_inline)) void send(struct eng_part *p, uint32_t to, uint32_t id, simtime_t arrive,
                                                       const void *bytes, uint32_t len)
{
    struct eng *e = p->e;
    assert(arrive >= e->bt); /* the lookahead: a message never lands in the window that sent it */
    struct outbox *ob = outbox_of(e, p, e->parity, to);
    uint32_t hdr[2] = {id, len};
    unsigned char *at = ob->m.len + MSG_HDR + len <= ob->m.cap ? ob->m.b + ob->m.len : bytes_room(&ob->m, MSG_HDR + len);
    memcpy(at, hdr, MSG_HDR);
    memcpy(at + MSG_HDR, bytes, len);
    ob->m.len += MSG_HDR + len;
    ob->n++;
    if (arrive < p->min_sent)
        p->min_sent = arrive;
    p->sent++;
}

void eng_send(struct eng_part *p, uint32_t to, uint32_t id, simtime_t arrive, const void *bytes, uint32_t len)
{
    send(p, to, id, arrive, bytes, len);
}

void eng_send_ref(struct eng_part *p, uint32_t to, uint32_t id, simtime_t arrive, const void *ptr)
{
    send(p, to, id, arrive, &ptr, sizeof ptr);
}

/* The previous window's messages to p, in each sender's order (the model
 * puts a link's messages on one wire, and a wire's all come from one sender). */
const void *eng_recv_next(struct eng_part *p, uint32_t *id, uint32_t *len)
{
    struct eng *e = p->e;
    while (p->rat == p->rend) {
        if (p->rk > 0) { /* the outbox just read: empty again */
            struct outbox *ob = &e->part[p->inbox[p->rk - 1]].out[e->parity ^ 1][p->id];
            ob->n = 0;
            ob->m.len = 0;
        }
        if (p->rk == p->ninbox) {
            p->ninbox = p->rk = 0;
            p->rat = p->rend = NULL;
            return NULL;
        }
        const struct outbox *ob = &e->part[p->inbox[p->rk++]].out[e->parity ^ 1][p->id];
        p->rat = ob->m.b;
        p->rend = ob->m.b + ob->m.len;
    }
    return ob_next(&p->rat, id, len);
}

/* Receivers learn which senders wrote to them in the window that just ran,
 * whose outboxes become the ones to deliver (the window parity turns). */
void eng_turn_window(struct eng *e)
{
    uint32_t prev = e->parity;
    e->parity ^= 1;
    for (uint32_t i = 0; i < e->n; i++) {
        struct eng_part *p = &e->part[i];
        for (uint32_t k = 0; k < p->ntouched[prev]; k++) {
            uint32_t to = p->touched[prev][k];
            if (e->rank_of[to] != e->rank)
                continue; /* sent there after the window (exchange) */
            struct eng_part *r = &e->part[to];
            r->inbox[r->ninbox++] = i;
        }
        p->ntouched[prev] = 0;
        p->min_sent = T_NEVER;
        p->sent = 0;
        p->req = T_NEVER;
    }
}

/* After a window: messages from this rank's partitions to another rank's go
 * there, into the sending partition's stub (whose outbox eng_recv_next
 * reads): per outbox (sender << 32 | receiver, count << 32 | bytes) and its
 * bytes as they are. A message is counted in `sent` where it is delivered. */
void eng_exchange(struct eng *e)
{
    const struct eng_comm *C = e->comm;
    uint32_t par = e->parity;
    e->x.len = 0;
    for (int r = 0; r < C->size; r++) {
        size_t start = e->x.len;
        for (uint32_t k = 0; r != e->rank && k < e->nmine; k++) {
            struct eng_part *p = &e->part[e->mine[k]];
            for (uint32_t j = 0; j < p->ntouched[par]; j++) {
                uint32_t to = p->touched[par][j];
                struct outbox *ob = &p->out[par][to];
                if (e->rank_of[to] != r || !ob->n)
                    continue;
                uint64_t hdr[2] = {(uint64_t)p->id << 32 | to, (uint64_t)ob->n << 32 | ob->m.len};
                bytes_put(&e->x, hdr, sizeof hdr);
                bytes_put(&e->x, ob->m.b, ob->m.len);
                p->sent -= ob->n;
                ob->n = 0;
                ob->m.len = 0;
            }
        }
        e->scount[r] = e->x.len - start;
    }
    C->alltoallv(e->x.b, e->scount, &e->rbuf, &e->rcap, e->rcount);
    size_t total = 0;
    for (int r = 0; r < C->size; r++)
        total += e->rcount[r];
    const uint8_t *at = e->rbuf, *end = at + total;
    while (at < end) {
        uint64_t hdr[2];
        eng_get(&at, hdr, sizeof hdr);
        uint32_t from = (uint32_t)(hdr[0] >> 32), to = (uint32_t)hdr[0], n = (uint32_t)(hdr[1] >> 32);
        size_t len = (uint32_t)hdr[1];
        struct eng_part *stub = &e->part[from];
        struct outbox *ob = outbox_of(e, stub, par, to);
        eng_get(&at, bytes_room(&ob->m, len), len);
        ob->m.len += len;
        ob->n += n;
        stub->sent += n;
    }
}

void eng_drop(struct eng *e, uint32_t from, uint32_t to, uint32_t id, void (*lost)(void *ctx, const void *bytes, uint32_t len),
              void *ctx)
{
    struct eng_part *p = &e->part[from];
    struct outbox *ob = &p->out[e->parity][to];
    uint32_t k = 0;
    size_t kept = 0;
    for (const uint8_t *at = ob->m.b, *end = at + ob->m.len; at < end;) {
        const uint8_t *msg = at;
        uint32_t mid, len;
        const uint8_t *bytes = ob_next(&at, &mid, &len);
        if (mid != id) {
            memmove(ob->m.b + kept, msg, MSG_HDR + len);
            kept += MSG_HDR + len;
            k++;
            continue;
        }
        lost(ctx, bytes, len);
    }
    p->sent -= ob->n - k;
    ob->n = k;
    ob->m.len = kept;
}

bool eng_in_flight(const struct eng *e)
{
    for (uint32_t i = 0; i < e->n; i++)
        if (e->part[i].sent || e->part[i].ninbox)
            return true;
    return false;
}
