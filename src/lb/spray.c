/* Packet spraying — every data packet, at every switch, goes out of any of the
 * equal-cost next hops: uniformly at random (Dixit et al., "On the Impact of
 * Packet Spraying in Data Center Networks", INFOCOM 2013: random packet
 * spraying, RPS), or round robin (Cao et al., "Per-packet Load-balanced,
 * Low-latency Routing for Clos-based Data Center Networks" (DRB), CoNEXT 2013).
 * ConWeave's public simulator has no sprayer, Hermes's has DRB
 * (lb-baselines.md); neither sets a parameter the papers leave open.
 *
 * mode = random draws from the switch's own random stream (lb_switch.rng), so
 * a run is reproducible for a seed and adding a scheme elsewhere shifts
 * nothing here. mode = rr keeps ONE counter per switch, shared by all
 * destinations: at a leaf every remote destination has the same uplinks, so
 * one counter spreads the switch's packets exactly evenly over them (per
 * destination counters would each be even, but their sum need not be).
 *
 * Only data packets are sprayed; ACK/NACK/CNP take ECMP (as ConWeave does for
 * its balancers), so spraying reorders data, never the feedback.
 */
#include <stddef.h>
#include "net/lb.h"

enum { SPRAY_RANDOM, SPRAY_RR };

struct spray_par {
    int mode;
};

struct spray {
    uint32_t rr; /* next round-robin position (mode = rr) */
};

#define P(m) offsetof(struct spray_par, m)
static const struct param spray_params[] = {
    {"mode", P_ENUM, P(mode), "random",
     "random: a uniform draw per packet and hop; rr: round robin, one counter per switch (all destinations)",
     "random|rr", 0, 0},
    PARAM_END};

static int spray_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports,
                        int n)
{
    (void)s;
    (void)p;
    (void)ports;
    const struct spray_par *sp = par;
    if (sp->mode == SPRAY_RR) {
        struct spray *st = sw->st;
        return (int)(st->rr++ % (uint32_t)n);
    }
    return (int)rng_below(&sw->rng, (uint64_t)n);
}

const struct lb_ops lb_spray = {
    .name = "spray",
    .help = "per-packet spraying over the equal-cost next hops at every switch, random or round robin (RPS, INFOCOM'13)",
    .params = spray_params,
    .params_size = sizeof(struct spray_par),
    .node_state_size = sizeof(struct spray),
    .choose = spray_choose,
};
