/* PFC deadlock detection: a cyclic buffer dependency (Hu et al., HotNets'16;
 * PCN, NSDI'20 sec. 2) is a cycle of switch egress queues, each paused by
 * its peer, where the peer's ingress went over its threshold because its
 * packets wait in the next queue of the cycle. Nothing in the cycle can
 * move: the run is stopped and the cycle reported.
 *
 * Cost: nothing on the packet path. A PAUSE arriving at a switch port arms
 * one check `timeout` later; a check re-arms itself (every timeout/4) only
 * while some switch queue is still paused. A check looks at queues paused
 * without a break for at least `timeout` (a paused queue sends nothing, so
 * that is "no packet left it for that long") and follows, from each, the
 * packets it holds back to the upstream queues their ingress ports paused:
 * a depth-first search of that waits-for graph finds any cycle. */
#include "net/net_impl.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

void deadlock_arm(struct sim *s)
{
    struct deadlock *d = &s->dl;
    if (d->timeout && s->is_shard) { /* the check is global: asked for between windows (net/shard.c) */
        par_deadlock_request(s);
        return;
    }
    if (!d->timeout || d->check_at >= 0 || d->n)
        return;
    d->check_at = s->now + d->timeout;
    evq_push(&s->evq, d->check_at, EV_DEADLOCK, 0);
}

/* (port, prio) blocked for the whole timeout with packets waiting. */
static bool blocked(const struct sim *s, const struct port *pt, int q, simtime_t limit)
{
    return port_paused(pt, q) && pt->q[q].n && pt->paused_since[q] <= limit && s->nodes[pt->node].is_switch;
}

/* The waits-for graph. A node is (port, prio), index port * NQ + prio, and
 * is in the graph if that queue is blocked; its successors are the upstream
 * queues that wait for it: for each packet it holds, the egress port at the
 * far end of the port the packet came in by, at the same priority, if our
 * ingress port sent the PAUSE that holds it (and if that queue is blocked
 * too, which the search checks). Each node is written as a struct dl_node
 * and its successors' indices, each once, in the order of the first packet
 * that leads there: the search follows them in that order, which is what
 * following the packets one by one would do (a node met again is finished or
 * on the stack already). Only the ports of this process's partitions are
 * walked: across MPI ranks each rank writes its own and all of them are
 * gathered (the other ranks' queues are empty here). */
struct dl_node {
    uint32_t v;      /* port * NQ + prio */
    uint32_t nsucc;  /* successors (uint32_t each) that follow */
    simtime_t since; /* paused without a break since */
};

static void dl_graph_local(struct sim *s, simtime_t limit, struct bytes *g, int32_t *seen)
{
    for (uint32_t p = 0; p < s->n_ports; p++)
        for (int q = 1; q < NQ && sim_port_here(s, p); q++) { /* queue 0 is never paused */
            const struct port *pt = &s->ports[p];
            if (!blocked(s, pt, q, limit))
                continue;
            struct dl_node nd = {p * NQ + (uint32_t)q, 0, pt->paused_since[q]};
            uint32_t v = nd.v;
            size_t at = g->len;
            bytes_put(g, &nd, sizeof nd);
            for (const struct pkt *x = pt->q[q].head; x; x = x->next) {
                if (x->in_port >= s->n_ports || !s->ports[x->in_port].pause_sent[q])
                    continue; /* made by the switch itself (queue 0 only), or not what the PAUSE holds */
                uint32_t w = s->ports[x->in_port].peer * NQ + (uint32_t)q;
                if (seen[w] == (int32_t)v + 1)
                    continue;
                seen[w] = (int32_t)v + 1;
                bytes_put(g, &w, sizeof w);
                nd.nsucc++;
            }
            memcpy(g->b + at, &nd, sizeof nd);
        }
}

/* The node written at g + at, and its i-th successor. */
static inline struct dl_node dl_at(const uint8_t *g, size_t at)
{
    struct dl_node nd;
    memcpy(&nd, g + at, sizeof nd);
    return nd;
}

static inline uint32_t dl_succ(const uint8_t *g, size_t at, uint32_t i)
{
    uint32_t w;
    memcpy(&w, g + at + sizeof(struct dl_node) + (size_t)i * sizeof w, sizeof w);
    return w;
}

/* Depth-first search from every blocked queue, in (port, prio) order, over
 * the graph in g[0 .. len). scratch: mark (0 unvisited, -1 done, > 0 on the
 * stack at depth value-1), the stack, each stack entry's next successor,
 * and each node's place in g (-1: not blocked). */
static bool dl_search(struct sim *s, const uint8_t *g, size_t len)
{
    struct deadlock *d = &s->dl;
    size_t n = (size_t)s->n_ports * NQ;
    int32_t *mark = d->scratch, *stack = mark + n, *cur = stack + n, *at = cur + n;
    for (size_t i = 0; i < n; i++)
        mark[i] = 0, at[i] = -1;
    for (size_t o = 0; o < len;) {
        struct dl_node nd = dl_at(g, o);
        at[nd.v] = (int32_t)o;
        o += sizeof nd + (size_t)nd.nsucc * sizeof(uint32_t);
    }
    for (size_t root = 0; root < n; root++) {
        if (mark[root] || at[root] < 0)
            continue;
        d->blocked++;
        int32_t depth = 0;
        stack[depth] = (int32_t)root;
        cur[depth] = 0;
        mark[root] = 1;
        while (depth >= 0) {
            uint32_t v = (uint32_t)stack[depth];
            if ((uint32_t)cur[depth] == dl_at(g, (size_t)at[v]).nsucc) { /* every successor followed: no cycle through v */
                mark[v] = -1;
                depth--;
                continue;
            }
            uint32_t w = dl_succ(g, (size_t)at[v], (uint32_t)cur[depth]++);
            if (mark[w] > 0) {
                /* a cycle: stack[mark[w]-1 .. depth]; each waits for the one below it */
                uint32_t k = 0;
                for (int32_t i = depth; i >= mark[w] - 1 && k < DEADLOCK_MAX_HOPS; i--, k++) {
                    uint32_t node = (uint32_t)stack[i];
                    d->hop[k].port = node / NQ;
                    d->hop[k].prio = (uint8_t)(node % NQ);
                    d->hop[k].since = dl_at(g, (size_t)at[node]).since;
                }
                d->n = k;
                return true;
            }
            if (mark[w] < 0 || at[w] < 0)
                continue;
            depth++;
            stack[depth] = (int32_t)w;
            cur[depth] = 0;
            mark[w] = depth + 1;
        }
    }
    return false;
}

static bool find_cycle(struct sim *s, simtime_t limit)
{
    struct deadlock *d = &s->dl;
    size_t n = (size_t)s->n_ports * NQ;
    if (!d->scratch)
        d->scratch = xmalloc(4 * n * sizeof *d->scratch);
    for (size_t i = 0; i < n; i++)
        d->scratch[i] = 0; /* dl_graph_local's "successor seen for node v" (v + 1) */
    struct bytes g = {0};
    dl_graph_local(s, limit, &g, d->scratch);
    const uint8_t *all = g.b;
    size_t len = g.len;
    par_gather_all(s, &all, &len); /* across ranks: every rank's graph */
    bool found = dl_search(s, all, len);
    free(g.b);
    return found;
}

void deadlock_check(struct sim *s)
{
    struct deadlock *d = &s->dl;
    if (d->check_at != s->now)
        return; /* stale */
    d->check_at = -1;
    d->checks++;
    if (find_cycle(s, s->now - d->timeout)) {
        d->found_at = s->now;
        s->p.stop = s->now; /* sim_run stops after the events of this instant */
        return;
    }
    uint8_t paused = 0; /* (only this process's ports are ever paused here) */
    for (uint32_t p = 0; p < s->n_ports && !paused; p++)
        paused = sim_port_here(s, p) && s->ports[p].paused_mask && s->nodes[s->ports[p].node].is_switch;
    if (par_any(s, paused)) {
        simtime_t step = d->timeout / 4 ? d->timeout / 4 : 1;
        d->check_at = s->now + step;
        evq_push(&s->evq, d->check_at, EV_DEADLOCK, 0);
    }
}
