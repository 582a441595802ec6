/* LetFlow — Vanini et al., "Let It Flow: Resilient Asymmetric Load Balancing
 * with Flowlet Switching", NSDI 2017: flowlet switching with a random path
 * per new flowlet and nothing else. Flowlets on a congested path slow down,
 * so their gaps grow and they leave it more often: the balance comes from
 * the flowlet sizes adapting, with no congestion feedback at all.
 *
 * As ConWeave's ns-3 artifact does it (lb-baselines.md): decided at the source
 * edge switch, the packet then carries the path (a path word, source-routed
 * by every later switch); a new flowlet starts after a gap of at least
 * `timeout` (100 us there, at 100 Gbps; Hermes's simulator uses 500 us at
 * 10 Gbps, HF2T and FLB other values); traffic between hosts of one edge
 * switch bypasses it. The paths are the equal-cost paths between the two
 * edge switches (lb_path_word), drawn uniformly from the switch's own stream.
 *
 * The flowlet table is per flow (lb_flow_state): the collision-free ideal of
 * the hashed table a switch has, so ConWeave's 2 ms table ageing, which only
 * frees memory, has nothing to do here. timeout = 0 draws a path for every
 * packet; a timeout longer than the run keeps each flow on one path.
 *
 * A pair whose paths a word cannot hold (more than 4 switch hops) gets no
 * path and every switch falls back to ECMP's per-flow hash.
 */
#include <stddef.h>
#include "net/lb.h"


struct letflow_par {
    simtime_t timeout;
};

/* Per flow, at its source edge switch. */
struct letflow_flow {
    simtime_t last; /* its last packet there */
    uint32_t path;  /* the current flowlet's path word */
    bool live;      /* a flowlet has started */
};

#define P(f) offsetof(struct letflow_par, f)
static const struct param letflow_params[] = {
    {"timeout", P_TIME, P(timeout), "100us",
     "flowlet timeout: a gap this long starts a new flowlet on a random path (0: every packet)", NULL, 0, 1e15},
    PARAM_END};

static void letflow_arrival(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, uint32_t in_port)
{
    (void)in_port;
    if (sw->edge < 0)
        return;
    uint32_t se = lb_host_edge(s, p->src), de = lb_host_edge(s, p->dst);
    /* only the source edge decides; shortest paths never come back to it */
    if (se != (uint32_t)sw->edge || de == se || de == UINT32_MAX)
        return;
    const struct letflow_par *lp = par;
    struct letflow_flow *f = lb_flow_state(s, p->flow);
    simtime_t now = lb_now(s);
    if (!f->live || now - f->last >= lp->timeout) {
        uint32_t np = lb_path_count(s, se, de);
        if (!np)
            return;
        f->path = lb_path_word(s, se, de, (uint32_t)rng_below(&sw->rng, np));
        f->live = true;
    }
    f->last = now;
    p->lb.path = f->path;
    p->lb.path_hop = 0;
}

static int letflow_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports,
                          int n)
{
    (void)par;
    (void)ports;
    return lb_ecmp_pick(s, sw, p, n); /* no path: see the header */
}

static simtime_t letflow_gap(const void *par) { return ((const struct letflow_par *)par)->timeout; }

const struct lb_ops lb_letflow = {
    .name = "letflow",
    .help = "LetFlow (NSDI'17): a random path per flowlet, chosen at the source edge switch and source-routed",
    .params = letflow_params,
    .params_size = sizeof(struct letflow_par),
    .flow_state_size = sizeof(struct letflow_flow),
    .flowlet_gap = letflow_gap,
    .on_arrival = letflow_arrival,
    .choose = letflow_choose,
};
