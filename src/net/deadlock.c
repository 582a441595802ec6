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

void deadlock_arm(struct sim *s)
{
    struct deadlock *d = &s->dl;
    if (d->timeout && s->is_shard) { /* the check is global: asked for between windows (net/par.c) */
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

/* Depth-first search from every blocked queue. A node is (port, prio),
 * index port * NQ + prio; its successors are the upstream queues that wait
 * for it: for each packet it holds, the egress port at the far end of the
 * port the packet came in by, if that one is blocked at the same priority
 * (its PAUSE came from our ingress port, holding our packets).
 * scratch: 0 unvisited, -1 done, > 0 on the stack at depth value-1. */
static bool find_cycle(struct sim *s, simtime_t limit)
{
    struct deadlock *d = &s->dl;
    size_t n = (size_t)s->n_ports * NQ;
    if (!d->scratch)
        d->scratch = xmalloc(2 * n * sizeof *d->scratch + n * sizeof(struct pkt *));
    int32_t *mark = d->scratch, *stack = d->scratch + n;
    const struct pkt **cur = (const struct pkt **)(void *)(d->scratch + 2 * n);
    for (size_t i = 0; i < n; i++)
        mark[i] = 0;
    for (uint32_t p0 = 0; p0 < s->n_ports; p0++)
        for (int q0 = 1; q0 < NQ; q0++) { /* queue 0 is never paused */
            size_t root = (size_t)p0 * NQ + (size_t)q0;
            if (mark[root] || !blocked(s, &s->ports[p0], q0, limit))
                continue;
            d->blocked++;
            int32_t depth = 0;
            stack[depth] = (int32_t)root;
            cur[depth] = s->ports[p0].q[q0].head;
            mark[root] = 1;
            while (depth >= 0) {
                uint32_t v = (uint32_t)stack[depth];
                int q = (int)(v % NQ);
                const struct pkt *x = cur[depth];
                if (!x) { /* every packet followed: no cycle through v */
                    mark[v] = -1;
                    depth--;
                    continue;
                }
                cur[depth] = x->next;
                if (x->in_port >= s->n_ports)
                    continue; /* made by the switch itself (queue 0 only) */
                const struct port *in = &s->ports[x->in_port];
                if (!in->pause_sent[q])
                    continue;
                uint32_t up = in->peer;
                size_t w = (size_t)up * NQ + (size_t)q;
                if (mark[w] > 0) {
                    /* a cycle: stack[mark[w]-1 .. depth]; each waits for the one below it */
                    uint32_t k = 0;
                    for (int32_t i = depth; i >= mark[w] - 1 && k < DEADLOCK_MAX_HOPS; i--, k++) {
                        uint32_t node = (uint32_t)stack[i];
                        d->hop[k].port = node / NQ;
                        d->hop[k].prio = (uint8_t)(node % NQ);
                        d->hop[k].since = s->ports[node / NQ].paused_since[node % NQ];
                    }
                    d->n = k;
                    return true;
                }
                if (mark[w] < 0 || !blocked(s, &s->ports[up], q, limit))
                    continue;
                depth++;
                stack[depth] = (int32_t)w;
                cur[depth] = s->ports[up].q[q].head;
                mark[w] = depth + 1;
            }
        }
    return false;
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
    for (uint32_t p = 0; p < s->n_ports; p++)
        if (s->ports[p].paused_mask && s->nodes[s->ports[p].node].is_switch) {
            simtime_t step = d->timeout / 4 ? d->timeout / 4 : 1;
            d->check_at = s->now + step;
            evq_push(&s->evq, d->check_at, EV_DEADLOCK, 0);
            return;
        }
}
