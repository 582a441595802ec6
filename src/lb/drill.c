/* DRILL — Ghorbani et al., "DRILL: Micro Load Balancing for Low-latency Data
 * Center Networks", SIGCOMM 2017: per packet, at every switch, the power of
 * two choices with memory, DRILL(d, m): sample d random egress ports among
 * the equal-cost next hops, add the m least loaded ports remembered from the
 * last decision, send the packet to the one with the shortest queue and
 * remember the m shortest. The paper's choice, and the default, is d = 2,
 * m = 1. Defaults where the paper leaves room follow ConWeave's ns-3
 * artifact (lb-baselines.md): the d samples are distinct, the memory is kept
 * per destination, the load is the egress port's bytes over all its queues
 * (lb_port_bytes), and only data packets are balanced (ACK/NACK/CNP: ECMP).
 *
 * Memory per destination edge switch, not per host: a switch's candidates
 * depend only on the destination's edge (per-edge routing tables), so hosts
 * under one edge would share the same ports anyway. It is kept as candidate
 * indices (+1, 0 = empty), valid because a switch's candidate list toward an
 * edge is fixed; an index beyond the current list is ignored.
 *
 * Ties go to the remembered port first, then to the samples in draw order:
 * keeping a packet on the port the last one took avoids a reordering that buys
 * nothing.
 */
#include <stddef.h>
#include "net/lb.h"

#define DRILL_MAX_D 16
#define DRILL_MAX_M 4

struct drill_par {
    int64_t d, m;
};

/* Per switch and destination edge: the m least loaded candidates last time. */
struct drill_mem {
    uint16_t idx[DRILL_MAX_M]; /* candidate index + 1, best first; 0 = empty */
};

#define P(f) offsetof(struct drill_par, f)
static const struct param drill_params[] = {
    {"d", P_INT, P(d), "2", "random egress ports sampled per packet (distinct; all of them if fewer)", NULL, 1,
     DRILL_MAX_D},
    {"m", P_INT, P(m), "1", "least loaded ports remembered per switch and destination, compared with the samples",
     NULL, 0, DRILL_MAX_M},
    PARAM_END};

struct cand {
    int i;
    uint64_t bytes;
};

/* Insert candidate i unless already there; keep c[] sorted by bytes, stable. */
static int add(struct cand *c, int k, int i, uint64_t bytes)
{
    for (int j = 0; j < k; j++)
        if (c[j].i == i)
            return k;
    int j = k;
    while (j > 0 && c[j - 1].bytes > bytes) {
        c[j] = c[j - 1];
        j--;
    }
    c[j] = (struct cand){i, bytes};
    return k + 1;
}

static int drill_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports,
                        int n)
{
    const struct drill_par *dp = par;
    struct drill_mem *mem = (struct drill_mem *)sw->st + lb_host_edge(s, p->dst);
    struct cand c[DRILL_MAX_M + DRILL_MAX_D];
    int k = 0, m = (int)dp->m, d = (int)dp->d < n ? (int)dp->d : n;
    for (int j = 0; j < m && mem->idx[j]; j++)
        if (mem->idx[j] - 1 < n)
            k = add(c, k, mem->idx[j] - 1, lb_port_bytes(s, ports[mem->idx[j] - 1]));
    /* d distinct indices, an ordered uniform draw (order matters for ties):
     * the j-th is the t-th index not drawn yet, t uniform below n - j */
    int drawn[DRILL_MAX_D]; /* ascending */
    for (int j = 0; j < d; j++) {
        int t = (int)rng_below(&sw->rng, (uint64_t)(n - j)), x = 0;
        for (; x < j && drawn[x] <= t; x++)
            t++;
        for (int y = j; y > x; y--)
            drawn[y] = drawn[y - 1];
        drawn[x] = t;
        k = add(c, k, t, lb_port_bytes(s, ports[t]));
    }
    for (int j = 0; j < m; j++)
        mem->idx[j] = j < k ? (uint16_t)(c[j].i + 1) : 0;
    return c[0].i;
}

const struct lb_ops lb_drill = {
    .name = "drill",
    .help = "DRILL (SIGCOMM'17): per packet at every switch, the shortest queue of d random ports and m remembered",
    .params = drill_params,
    .params_size = sizeof(struct drill_par),
    .node_state_per_edge = sizeof(struct drill_mem),
    .choose = drill_choose,
};
