/* FLB (src/lb/flb.c) and its minimal rate control (src/cc/flbrc.c), on
 * hand-built situations: Appendix A's K by hand; a CNM once an egress queue
 * crosses K and a release once it drains; n congested flows isolated on
 * ceil(Σ C/n / link rate) uplinks and uncongested flows kept off them
 * (CNMs handed to the source edge directly); flbrc pauses on a congestion
 * CNM and resumes at C/n; an incast under FLB + flbrc sends no PAUSE; and the
 * run invariants (lossless: no drop) with every CC under a small incast. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simrun.h"
#include "lb/flb.h"
#include "net/cc.h"
#include "net/net_impl.h"

/* 2 leaves x 8 hosts (hosts 0-7 on leaf 0, 8-15 on leaf 1), 4 spines; host
 * links 40 Gbps, fabric 400 Gbps (so that only leaf-to-host ports can
 * congest), 1 us links, static PFC threshold 256 KB. */
static const char two_leaves[] =
    "[topology]\ntype = leafspine\nleaves = 2\nspines = 4\nhosts_per_leaf = 8\nhost_link = 40Gbps\n"
    "fabric_link = 400Gbps\nlink_delay = 1us\n[switch]\npfc_threshold = 256KB\n[lb]\nscheme = flb\n"
    "[traffic]\npattern = none\n";

static simtime_t ser(uint64_t bytes, uint64_t bps) { return (simtime_t)(bytes * 8 * 1000000000000ULL / bps); }

/* K = 2dC: d = host link + leaf -> spine -> leaf, each its delay and one MTU. */
static void test_k_by_hand(void **st)
{
    (void)st;
    struct run r;
    char ini[1024];
    snprintf(ini, sizeof ini, "%s[transport]\ncc = none\n", two_leaves);
    run_setup(&r, ini);
    run_add_flow(&r, 0, 8, 1000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint64_t wire = s->p.mtu + 48;
    simtime_t d = (1 * T_US + ser(wire, 40000000000ULL)) + 2 * (1 * T_US + ser(wire, 400000000000ULL));
    uint32_t leaf1 = run_edge_switch(s, 1);
    uint32_t to_host = run_port_to(s, leaf1, 8);
    uint64_t k = (uint64_t)((double)d * 2 * 40e9 / 8e12);
    print_message("K at a 40 Gbps port: %llu B (d = %.3f us)\n", (unsigned long long)flb_k(s, leaf1, to_host),
                  (double)d / T_US);
    assert_int_equal(flb_k(s, leaf1, to_host), k);
    assert_int_equal(flb_k(s, leaf1, run_port_to(s, leaf1, 16 + 2)), (uint64_t)((double)d * 2 * 400e9 / 8e12)); /* C = 400G */
    run_free(&r);
}

/* A CNM handed to the source edge switch as if it had crossed the fabric. */
static void cnm_from(struct sim *s, uint32_t edge_node, uint32_t flow, int proto, uint32_t n, uint64_t rate, uint32_t cp)
{
    struct pkt *p = lb_ctrl_packet(s, edge_node, edge_node, (uint8_t)proto, 64);
    p->lb.fb = flow;
    p->aux = rate;
    memcpy(p->lb.b, &n, sizeof n);
    memcpy(p->lb.b + 4, &cp, sizeof cp); /* the congestion point that sent it (port + 1) */
    s->lb->on_ctrl(s, &s->lbsw[edge_node], s->lb_par, p);
    pkt_free(s, p);
}
static void cnm(struct sim *s, uint32_t edge_node, uint32_t flow, int proto, uint32_t n, uint64_t rate)
{
    cnm_from(s, edge_node, flow, proto, n, rate, 1);
}

/* The source edge's periodic check of its isolation table (its TIMER_ISO, 0). */
static void iso_check(struct sim *s, uint32_t edge_node)
{
    s->lb->on_timer(s, &s->lbsw[edge_node], s->lb_par, 0);
}

/* A data packet of `flow` arriving at its source edge from its host. */
static uint32_t route_packet(struct sim *s, uint32_t edge_node, uint32_t flow)
{
    struct pkt *p = pkt_alloc(s);
    const struct qp *f = &s->flows[flow];
    p->type = PKT_DATA;
    p->flow = flow;
    p->src = f->src;
    p->dst = f->dst;
    p->size = 1048;
    uint32_t in = run_port_to(s, edge_node, f->src);
    s->lb->on_arrival(s, &s->lbsw[edge_node], s->lb_par, p, in);
    pkt_free(s, p);
    return flb_flow_uplink(s, edge_node, flow);
}

/* Delay feedback as the destination edge piggybacks it: an ACK from host
 * `from` (behind the far edge) to `to` arrives at `edge_node` from its uplink,
 * carrying path i's one-way delay d. */
static void owd_feedback(struct sim *s, uint32_t edge_node, uint32_t from, uint32_t to, uint32_t i, simtime_t d)
{
    struct pkt *p = pkt_alloc(s);
    p->type = PKT_ACK;
    p->flow = 0;
    p->src = from;
    p->dst = to;
    p->size = 60;
    p->lb.fb = 1u << 31 | i << 20 | (uint32_t)(d / 8000);
    uint32_t up = UINT32_MAX;
    for (uint32_t k = 0; k < s->nodes[edge_node].nports && up == UINT32_MAX; k++)
        if (!s->ports[s->nodes[edge_node].port0 + k].to_host)
            up = s->nodes[edge_node].port0 + k;
    s->lb->on_arrival(s, &s->lbsw[edge_node], s->lb_par, p, up);
    pkt_free(s, p);
}

static uint32_t route_packet(struct sim *s, uint32_t edge_node, uint32_t flow);

/* Algorithm 1 on a hand-set delay table (paths 0-3 = spines 0-3): a new flow
 * takes the least delay; a packet moves only to the fastest path that is
 * faster by less than the gap since the flow's previous packet, else stays. */
static void test_algorithm1(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 4\nhosts_per_leaf = 8\nlink_delay = 1us\n"
                  "host_link = 40Gbps\nfabric_link = 40Gbps\n[transport]\ncc = none\n[lb]\nscheme = flb\n"
                  "[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 8, 1000000, 1000 * T_MS);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t leaf0 = run_edge_switch(s, 0);
    uint32_t se = (uint32_t)s->lbsw[leaf0].edge, de = 1 - se, up[4];
    assert_int_equal(lb_path_count(s, se, de), 4);
    for (uint32_t i = 0; i < 4; i++)
        lb_path_ports(s, se, de, lb_path_word(s, se, de, i), &up[i], 1);
    s->now = 100 * T_US;
    const simtime_t d0[4] = {20 * T_US, 10 * T_US, 12 * T_US, 30 * T_US};
    for (uint32_t i = 0; i < 4; i++)
        owd_feedback(s, leaf0, 8, 0, i, d0[i]);
    assert_int_equal(route_packet(s, leaf0, 0), up[1]); /* new flow: least delay */
    owd_feedback(s, leaf0, 8, 0, 1, 50 * T_US);     /* its path slows to 50 us */
    s->now += 1 * T_US;
    assert_int_equal(route_packet(s, leaf0, 0), up[1]); /* gap 1 us: every faster path is > 1 us faster */
    s->now += 35 * T_US;
    assert_int_equal(route_packet(s, leaf0, 0), up[0]); /* gap 35 us: 20 and 30 qualify (12 is 38 faster) */
    owd_feedback(s, leaf0, 8, 0, 0, 52 * T_US);
    s->now += 45 * T_US;
    assert_int_equal(route_packet(s, leaf0, 0), up[2]); /* gap 45 us: now 12 us (40 faster) qualifies */
    s->now += 10 * T_US;
    assert_int_equal(route_packet(s, leaf0, 0), up[2]); /* the fastest already: stays */
    s->now += 2 * T_MS;
    owd_feedback(s, leaf0, 8, 0, 2, 40 * T_US);
    owd_feedback(s, leaf0, 8, 0, 3, 25 * T_US);
    /* 2 ms idle: a new flow again (1 ms entry ageing); paths 0 and 1 were not
     * measured for 1 ms and read as their unloaded delay: the least */
    uint32_t u = route_packet(s, leaf0, 0);
    assert_true(u == up[0] || u == up[1]);
    run_free(&r);
}

/* 40 Gbps uplinks: congested flows at rates C/n are consolidated on
 * ceil(Σ C/n / 40 Gbps) uplinks, at most 3 of 4; uncongested flows never take
 * one; releases shrink the set and an empty table frees them all. */
static void test_isolation_paths(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 4\nhosts_per_leaf = 8\nlink_delay = 1us\n"
                  "host_link = 40Gbps\nfabric_link = 40Gbps\n[transport]\ncc = none\n[lb]\nscheme = flb\n"
                  "[traffic]\npattern = none\n");
    for (uint32_t h = 0; h < 8; h++) /* flows 0-7: host h -> 8 + h, never started */
        run_add_flow(&r, h, 8 + h, 1000000, 1000 * T_MS);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t leaf0 = run_edge_switch(s, 0);
    const uint64_t C = 40000000000ULL;
    for (uint32_t f = 0; f < 8; f++)
        assert_int_not_equal(route_packet(s, leaf0, f), UINT32_MAX);
    /* two flows of a port with n = 4: 2 x 10 Gbps -> 1 uplink */
    cnm(s, leaf0, 0, 1, 4, C);
    cnm(s, leaf0, 1, 1, 4, C);
    assert_int_equal(flb_n_table(s, leaf0), 2);
    assert_int_equal(flb_n_isolated(s, leaf0), 1);
    uint32_t first_up = flb_flow_uplink(s, leaf0, 0);
    assert_true(flb_isolated(s, leaf0, first_up)); /* where flow 0's last packet went */
    /* two more, alone at their ports (n = 1): 20 + 80 = 100 Gbps -> 3 uplinks */
    cnm(s, leaf0, 2, 1, 1, C);
    cnm(s, leaf0, 3, 1, 1, C);
    assert_int_equal(flb_n_isolated(s, leaf0), 3);
    /* a fifth at n = 1: 140 Gbps would need 4, but one uplink stays for the others */
    cnm(s, leaf0, 4, 1, 1, C);
    assert_int_equal(flb_n_isolated(s, leaf0), 3);
    for (int k = 0; k < 50; k++)
        for (uint32_t f = 0; f < 8; f++) {
            s->now += 100 * T_NS; /* equal delays: any gap lets a move keep the order */
            uint32_t up = route_packet(s, leaf0, f);
            assert_true(flb_isolated(s, leaf0, up) == (f <= 4)); /* congested on, uncongested off */
        }
    /* releases: 4 and 3 go (60 Gbps left): the 3 uplinks stay isolated until the periodic
     * check recounts them (sec. 3.2), then 2; then 2 goes (20 Gbps) -> 1 at the next check.
     * (Recounted at each release, flow 0-2's units flickered with every CNM of another flow.) */
    cnm(s, leaf0, 4, 2, 1, C);
    cnm(s, leaf0, 3, 2, 1, C);
    assert_int_equal(flb_n_table(s, leaf0), 3);
    assert_int_equal(flb_n_isolated(s, leaf0), 3);
    iso_check(s, leaf0);
    assert_int_equal(flb_n_isolated(s, leaf0), 2);
    cnm(s, leaf0, 2, 2, 1, C);
    assert_int_equal(flb_n_table(s, leaf0), 2);
    assert_int_equal(flb_n_isolated(s, leaf0), 2);
    iso_check(s, leaf0);
    assert_int_equal(flb_n_table(s, leaf0), 2); /* refreshed within iso_timeout: kept */
    assert_int_equal(flb_n_isolated(s, leaf0), 1);
    assert_true(flb_isolated(s, leaf0, first_up)); /* the last isolated is released first */
    s->now += 100 * T_NS;
    for (uint32_t f = 2; f < 8; f++) /* released flows left the isolated uplink */
        assert_false(flb_isolated(s, leaf0, route_packet(s, leaf0, f)));
    cnm(s, leaf0, 0, 2, 4, C);
    assert_int_equal(flb_n_isolated(s, leaf0), 1);
    cnm(s, leaf0, 1, 2, 4, C);
    assert_int_equal(flb_n_table(s, leaf0), 0);
    assert_int_equal(flb_n_isolated(s, leaf0), 0); /* the table empty: every path released at once */
    run_free(&r);
}

/* Isolation moves keep Algorithm 1's order (sec. 3.1-3.2): a flow moved onto
 * or off an isolated path goes only where owd(p) - owd(p') < the gap since
 * its previous packet, so the packet arrives after its predecessor. Paths 0
 * and 1 of a 2-spine leaf-spine, hand-set delays. Flow g (uncongested) sits
 * on path 1 when flow f, also on path 1, is reported congested: path 1 is
 * isolated. Path 0 is 5 us faster, so g stays on path 1 while its packets
 * come 100 ns apart and moves once a gap exceeds 5 us. Then flow h,
 * congested, on path 0 (not isolated) where the isolated path 1 is 5 us
 * slower: a slower path always keeps the order, so it moves at once. With
 * iso_in_order = off, g moves off at once. */
static void iso_order_case(bool in_order)
{
    struct run r;
    char ini[512];
    snprintf(ini, sizeof ini, "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n"
             "link_delay = 1us\nhost_link = 40Gbps\nfabric_link = 40Gbps\n[transport]\ncc = none\n[lb]\n"
             "scheme = flb\n[lb.flb]\niso_in_order = %s\n[traffic]\npattern = none\n", in_order ? "on" : "off");
    run_setup(&r, ini);
    for (uint32_t h = 0; h < 3; h++) /* flows 0 (g), 1 (f), 2 (h): host h -> 4 + h, never started */
        run_add_flow(&r, h, 4 + h, 1000000, 1000 * T_MS);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t leaf0 = run_edge_switch(s, 0), se = (uint32_t)s->lbsw[leaf0].edge, de = 1 - se, up[2];
    for (uint32_t i = 0; i < 2; i++)
        lb_path_ports(s, se, de, lb_path_word(s, se, de, i), &up[i], 1);
    const uint64_t C = 40000000000ULL;
    s->now = 100 * T_US;
    flb_path_set(s, leaf0, de, 0, 8 * T_US);
    flb_path_set(s, leaf0, de, 1, 3 * T_US);
    assert_int_equal(route_packet(s, leaf0, 0), up[1]); /* new flows: the faster path 1 */
    assert_int_equal(route_packet(s, leaf0, 1), up[1]);
    flb_path_set(s, leaf0, de, 0, 3 * T_US); /* path 1 slows: path 0 is now 5 us faster */
    flb_path_set(s, leaf0, de, 1, 8 * T_US);
    s->now += 100 * T_NS;
    assert_int_equal(route_packet(s, leaf0, 0), up[1]); /* Algorithm 1 alone: 5 us > 100 ns, stays */
    cnm(s, leaf0, 1, 1, 1, C);                         /* f congested: its path 1 isolated */
    assert_true(flb_isolated(s, leaf0, up[1]));
    assert_int_equal(flb_n_isolated(s, leaf0), 1);
    s->now += 100 * T_NS;
    uint32_t g = route_packet(s, leaf0, 0);
    if (!in_order) {
        assert_int_equal(g, up[0]); /* off at once: 5 us ahead of its predecessor */
        run_free(&r);
        return;
    }
    for (int k = 0; k < 20; k++) { /* every 100 ns: still on the isolated path */
        assert_int_equal(g, up[1]);
        s->now += 100 * T_NS;
        g = route_packet(s, leaf0, 0);
    }
    s->now += 6 * T_US; /* a gap of 6 us > 5 us: the move keeps the order */
    assert_int_equal(route_packet(s, leaf0, 0), up[0]);
    assert_int_equal(route_packet(s, leaf0, 1), up[1]); /* f stays on its isolated path */
    /* h: new on path 0 (the only one not isolated), then congested; the
     * isolated path 1 is 5 us slower: it moves there at once */
    assert_int_equal(route_packet(s, leaf0, 2), up[0]);
    cnm(s, leaf0, 2, 1, 2, C);
    s->now += 100 * T_NS;
    assert_int_equal(route_packet(s, leaf0, 2), up[1]);
    /* and the other way: path 1 now 5 us faster, h' (flow 0 reported
     * congested) on path 0 must wait for a gap to move onto it */
    flb_path_set(s, leaf0, de, 0, 8 * T_US);
    flb_path_set(s, leaf0, de, 1, 3 * T_US);
    cnm(s, leaf0, 0, 1, 3, C);
    s->now += 100 * T_NS;
    assert_int_equal(route_packet(s, leaf0, 0), up[0]);
    s->now += 6 * T_US;
    assert_int_equal(route_packet(s, leaf0, 0), up[1]);
    run_free(&r);
}

static void test_isolation_keeps_order(void **st)
{
    (void)st;
    iso_order_case(true);
    iso_order_case(false);
}

/* The isolation unit is a path (sec. 3.2), not a whole uplink: a 2-pod Clos,
 * one edge per pod, 2 aggregation switches per pod, 4 cores (2 per
 * aggregation), so 4 paths between the edges, 2 per uplink. Flow f takes the
 * fastest path (agg 0, core 0) and is reported congested: that path is
 * isolated. Uncongested flow g then takes the next fastest, (agg 0, core 1),
 * through the same uplink; with iso_unit = uplink the whole uplink to agg 0
 * is isolated and g goes through agg 1. */
static void unit_case(const char *unit, uint32_t *g_up, uint32_t *agg0_up)
{
    struct run r;
    char ini[512];
    snprintf(ini, sizeof ini, "[topology]\ntype = clos\npods = 2\nedges_per_pod = 1\naggs_per_pod = 2\n"
             "hosts_per_edge = 2\ncores = 4\n[transport]\ncc = none\n[lb]\nscheme = flb\n[lb.flb]\niso_unit = %s\n"
             "[traffic]\npattern = none\n", unit);
    run_setup(&r, ini);
    run_add_flow(&r, 0, 2, 1000000, 1000 * T_MS); /* f */
    run_add_flow(&r, 1, 3, 1000000, 1000 * T_MS); /* g */
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t e0 = run_edge_switch(s, 0), se = (uint32_t)s->lbsw[e0].edge, de = 1 - se;
    assert_int_equal(lb_path_count(s, se, de), 4);
    uint32_t ports[4][4], f_path = 4, g_path = 4;
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(lb_path_ports(s, se, de, lb_path_word(s, se, de, i), ports[i], 4), 4);
    /* f's path: path 0; g's: the other one through path 0's uplink */
    f_path = 0;
    for (uint32_t i = 1; i < 4; i++)
        if (ports[i][0] == ports[0][0])
            g_path = i;
    assert_true(g_path < 4);
    s->now = 100 * T_US;
    for (uint32_t i = 0; i < 4; i++)
        flb_path_set(s, e0, de, i, i == f_path ? 10 * T_US : i == g_path ? 11 * T_US : 20 * T_US);
    assert_int_equal(route_packet(s, e0, 0), ports[f_path][0]);
    cnm(s, e0, 0, 1, 1, 100000000000ULL); /* f congested, n = 1 at 100 Gbps: one unit */
    assert_int_equal(flb_n_isolated(s, e0), 1);
    *g_up = route_packet(s, e0, 1);
    *agg0_up = ports[f_path][0];
    print_message("iso_unit %s: f on uplink %u, g on uplink %u\n", unit, *agg0_up, *g_up);
    run_free(&r);
}

static void test_isolation_unit(void **st)
{
    (void)st;
    uint32_t g, a0;
    unit_case("path", &g, &a0);
    assert_int_equal(g, a0); /* the other path of the same uplink stays usable */
    unit_case("uplink", &g, &a0);
    assert_int_not_equal(g, a0);
}

/* CNMs retrace the congested flow's path hop by hop (sec. 3.2), not a
 * shortest path of their own: a 2-leaf, 4-spine leaf-spine at 400 Gbps with
 * 40 Gbps hosts; flow A (host 0 -> 8, across) and flow B (host 9 -> 8, local)
 * meet at leaf 1's port to host 8, which crosses K. A's CNM enters leaf 0 by
 * the uplink A's packets left by. */
static void test_cnm_route(void **st)
{
    (void)st;
    struct run r;
    char ini[1024];
    int same = 0, runs = 0;
    for (uint32_t seed = 1; seed <= 4; seed++) {
        snprintf(ini, sizeof ini, "[run]\nseed = %u\n%s[transport]\ncc = none\n", seed, two_leaves);
        run_setup(&r, ini);
        run_add_flow(&r, 0, 8, 2000000, 0); /* A */
        run_add_flow(&r, 9, 8, 2000000, 0); /* B */
        run_build(&r);
        struct sim *s = &r.sc.sim;
        uint32_t leaf0 = run_edge_switch(s, 0);
        s->p.stop = 100 * T_US;
        sim_run(s);
        uint32_t in = flb_cnm_in(s, 0), up = flb_flow_uplink(s, leaf0, 0);
        print_message("seed %u: A's CNM came into leaf 0 by port %u, A's uplink %u\n", seed, in, up);
        assert_int_not_equal(in, UINT32_MAX);
        assert_int_equal(in, up);
        s->p.stop = 0;
        sim_run(s);
        run_check_invariants(&r);
        run_free(&r);
        /* the same with cnm_route = shortest: ECMP's way back, for the record */
        snprintf(ini, sizeof ini, "[run]\nseed = %u\n%s[transport]\ncc = none\n[lb.flb]\ncnm_route = shortest\n", seed,
                 two_leaves);
        run_setup(&r, ini);
        run_add_flow(&r, 0, 8, 2000000, 0);
        run_add_flow(&r, 9, 8, 2000000, 0);
        run_build(&r);
        s = &r.sc.sim;
        s->p.stop = 100 * T_US;
        sim_run(s);
        same += flb_cnm_in(s, 0) == flb_flow_uplink(s, run_edge_switch(s, 0), 0);
        runs++;
        run_free(&r);
    }
    print_message("cnm_route = shortest: the CNM came back by A's own uplink in %d of %d runs\n", same, runs);
}

/* Algorithm 1 on a hand-set delay table is covered end to end below; here a
 * 3 -> 1 incast (cc none): the receiver's port crosses K, CNMs go to the source
 * edge, the three flows are isolated on ceil(3 x 40/3 / 400) = 1 uplink, a
 * fourth flow to another receiver stays off it; when the incast drains the
 * port releases everything. */
static void test_cnm_and_release(void **st)
{
    (void)st;
    struct run r;
    char ini[1024];
    snprintf(ini, sizeof ini, "%s[transport]\ncc = none\n", two_leaves);
    run_setup(&r, ini);
    for (uint32_t h = 0; h < 3; h++)
        run_add_flow(&r, h, 8, 2000000, 0);  /* flows 0-2: the incast to host 8 */
    run_add_flow(&r, 3, 9, 4000000, 0);      /* flow 3: alone to host 9 */
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t leaf0 = run_edge_switch(s, 0), leaf1 = run_edge_switch(s, 1);
    uint32_t hot = run_port_to(s, leaf1, 8);
    uint64_t k = flb_k(s, leaf1, hot);
    /* step until the port first holds more than K */
    s->p.stop = 0;
    bool seen = false;
    for (simtime_t t = 5 * T_US; t < 300 * T_US && !seen; t += 1 * T_US) {
        s->p.stop = t;
        sim_run(s);
        seen = flb_port_congested(s, leaf1, hot) > 0;
        if (!seen)
            assert_true(lb_port_bytes(s, hot) <= k); /* not congested: the queue never went above K */
    }
    assert_true(seen);
    print_message("congested at %.1f us, queue %llu B > K %llu B\n", (double)s->now / T_US,
                  (unsigned long long)lb_port_bytes(s, hot), (unsigned long long)k);
    /* let the CNMs reach the source edge */
    s->p.stop = s->now + 40 * T_US;
    sim_run(s);
    assert_int_equal(flb_port_congested(s, leaf1, hot), 3);
    assert_int_equal(flb_n_table(s, leaf0), 3);
    assert_int_equal(flb_n_isolated(s, leaf0), 1);
    uint32_t iso = flb_flow_uplink(s, leaf0, 0);
    assert_true(flb_isolated(s, leaf0, iso));
    assert_int_equal(flb_flow_uplink(s, leaf0, 1), iso);
    assert_int_equal(flb_flow_uplink(s, leaf0, 2), iso);
    assert_false(flb_isolated(s, leaf0, flb_flow_uplink(s, leaf0, 3)));
    uint64_t ctrl = s->c.lb_ctrl_packets;
    assert_true(ctrl >= 3);
    s->p.stop = 0;
    sim_run(s);
    run_check_invariants(&r);
    /* drained: released at the port and at the source edge (by CNM, not timeout: the run ends first) */
    assert_int_equal(flb_port_congested(s, leaf1, hot), 0);
    assert_int_equal(flb_n_table(s, leaf0), 0);
    assert_int_equal(flb_n_isolated(s, leaf0), 0);
    assert_true(s->c.lb_ctrl_packets >= ctrl + 3);
    run_free(&r);
}

/* A flow congested at two points (each its own flow table) is released at its
 * source edge, and its sender told so, only when the last of them releases it:
 * a release from one port while the other still holds it congested would move
 * it off its isolated path and resume it into that congestion (FLB Fig. 16's
 * incast, N = 25, seed 1: 1,191 PAUSEs and 29,844 out-of-order packets against
 * 24 and 325 when the flow stays congested until its last point releases it). */
static void test_release_at_last_point(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 4\nhosts_per_leaf = 8\nlink_delay = 1us\n"
                  "host_link = 40Gbps\nfabric_link = 40Gbps\n[transport]\ncc = flbrc\n[lb]\nscheme = flb\n"
                  "[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 8, 1000000, 1000 * T_MS); /* never started */
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t leaf0 = run_edge_switch(s, 0);
    const uint64_t C = 40000000000ULL;
    assert_int_not_equal(route_packet(s, leaf0, 0), UINT32_MAX);
    cnm_from(s, leaf0, 0, 1, 2, C, 101); /* congested at a spine's downlink (n = 2) */
    cnm_from(s, leaf0, 0, 1, 8, C, 202); /* and at its destination's port (n = 8) */
    cnm_from(s, leaf0, 0, 1, 9, C, 202); /* the same point again, n grown: still two points */
    assert_int_equal(flb_n_table(s, leaf0), 1);
    assert_int_equal(flb_n_isolated(s, leaf0), 1);
    cnm_from(s, leaf0, 0, 2, 2, C, 101); /* the spine's port drains */
    assert_int_equal(flb_n_table(s, leaf0), 1); /* still congested at the other */
    assert_true(flb_isolated(s, leaf0, flb_flow_uplink(s, leaf0, 0)));
    s->now += 100 * T_NS;
    assert_true(flb_isolated(s, leaf0, route_packet(s, leaf0, 0))); /* keeps its isolated path */
    cnm_from(s, leaf0, 0, 2, 9, C, 202); /* the last point drains */
    assert_int_equal(flb_n_table(s, leaf0), 0);
    assert_int_equal(flb_n_isolated(s, leaf0), 0);
    run_free(&r);
}

/* A queue pair's next message (lb_ops.on_qp_next) keeps its predecessor's
 * path but not its congestion: message 0 is reported congested and isolated;
 * message 1 continues the QP (flow_start_on), is not in the isolation table
 * and leaves the isolated path at its next packet; message 0's release still
 * empties the table. (With the copied state, message 1 stayed congested on the
 * isolated path with no table entry a release could clear: issue 37.) */
static void test_qp_next_message(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 4\nhosts_per_leaf = 8\nlink_delay = 1us\n"
                  "host_link = 40Gbps\nfabric_link = 40Gbps\n[transport]\ncc = none\n[lb]\nscheme = flb\n"
                  "[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 8, 1000000, 1000 * T_MS); /* message 0 of the QP host 0 -> 8 */
    run_add_flow(&r, 0, 8, 1000000, 1000 * T_MS); /* message 1 */
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t leaf0 = run_edge_switch(s, 0);
    const uint64_t C = 40000000000ULL;
    flow_start(s, &s->flows[0]); /* its packets wait on the host link: the run never steps */
    uint32_t up0 = route_packet(s, leaf0, 0);
    cnm(s, leaf0, 0, 1, 4, C);
    assert_true(flb_isolated(s, leaf0, up0));
    assert_int_equal(flb_n_table(s, leaf0), 1);
    flow_start_on(s, &s->flows[1], &s->flows[0]); /* message 1 takes over the QP */
    assert_int_equal(flb_flow_uplink(s, leaf0, 1), up0); /* its predecessor's path */
    s->now += 100 * T_NS; /* equal delays: any gap lets a move keep the order */
    assert_false(flb_isolated(s, leaf0, route_packet(s, leaf0, 1))); /* uncongested: off the isolated path */
    assert_int_equal(flb_n_table(s, leaf0), 1);
    cnm(s, leaf0, 0, 2, 4, C); /* message 0's congestion point releases it */
    assert_int_equal(flb_n_table(s, leaf0), 0);
    assert_int_equal(flb_n_isolated(s, leaf0), 0);
    run_free(&r);
}

/* Each congestion point keeps its own flow table (sec. 3.2: "FLB records flow
 * ID and the source MAC address of the previous hop in the flow table at
 * switches"; issue 39): a flow over K at two ports at once is counted, and told
 * by a CNM, at each; each releases it on its own. (One record per flow, shared
 * by every switch on the path, let only the first port count it.) */
static void test_two_congestion_points(void **st)
{
    (void)st;
    extern const struct lb_ops lb_flb;
    struct run r;
    char ini[1024];
    snprintf(ini, sizeof ini, "%s[transport]\ncc = none\n[lb.flb]\nk = 100B\n", two_leaves);
    run_setup(&r, ini);
    run_add_flow(&r, 0, 8, 1000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t leaf0 = run_edge_switch(s, 0), leaf1 = run_edge_switch(s, 1);
    uint32_t hot = run_port_to(s, leaf1, 8), up = UINT32_MAX;
    for (uint32_t i = 0; i < s->nodes[leaf0].nports && up == UINT32_MAX; i++)
        if (!lb_port_to_host(s, s->nodes[leaf0].port0 + i))
            up = s->nodes[leaf0].port0 + i;
    assert_int_not_equal(up, UINT32_MAX);
    const void *par = lb_running_params(s, &lb_flb);
    struct pkt *p = pkt_alloc(s);
    p->type = PKT_DATA;
    p->flow = 0;
    p->size = 1048; /* over K = 100 B at an empty queue */
    p->lb.path = PATH_NONE;
    uint32_t out = up;
    lb_flb.on_enqueue(s, lb_switch_of(s, leaf0), par, p, &out, 3);
    out = hot;
    lb_flb.on_enqueue(s, lb_switch_of(s, leaf1), par, p, &out, 3);
    assert_int_equal(flb_port_congested(s, leaf0, up), 1);
    assert_int_equal(flb_port_congested(s, leaf1, hot), 1);
    assert_int_equal(s->c.lb_ctrl_packets, 2); /* a CNM from each */
    lb_flb.on_enqueue(s, lb_switch_of(s, leaf1), par, p, &out, 3);
    assert_int_equal(s->c.lb_ctrl_packets, 2); /* n unchanged: told already */
    lb_flb.on_dequeue(s, lb_switch_of(s, leaf1), par, p, hot, 3); /* its queue is empty: below K */
    assert_int_equal(flb_port_congested(s, leaf1, hot), 0);
    assert_int_equal(flb_port_congested(s, leaf0, up), 1);
    assert_int_equal(s->c.lb_ctrl_packets, 3); /* the release CNM */
    pkt_free(s, p);
    run_free(&r);
}

static struct pkt *feedback(struct sim *s, uint32_t flow, int kind, uint32_t n, uint64_t rate)
{
    struct pkt *m = cc_switch_packet(s, 0, flow, 0, FLBRC_MSG_BYTES);
    m->aux = n;
    m->fb[0] = (uint64_t)kind;
    m->fb[1] = rate;
    return m;
}

/* flbrc by hand: pause on a congestion CNM, keep the largest n, resume at C/n
 * on the release; by default (§3.3: "resume transmission at the rate r", r =
 * C/n, "the rate varies with the change of n in the received CNM") it is
 * still C/n a base RTT later; with recover_rtts = 1 it is back to line rate
 * by then. */
static void flbrc_by_hand(const char *recover)
{
    struct run r;
    char ini[1024];
    snprintf(ini, sizeof ini, "%s[transport]\ncc = flbrc\n%s%s%s", two_leaves, recover ? "[cc.flbrc]\nrecover_rtts = " : "",
             recover ? recover : "", recover ? "\n" : "");
    run_setup(&r, ini);
    run_add_flow(&r, 0, 8, 10000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    s->p.stop = 10 * T_US;
    sim_run(s);
    struct qp *q = &s->flows[0];
    assert_int_equal(q->rate, 40000000000ULL); /* line rate */
    void *cst = sim_cc_state(s, 0);
    struct pkt *m = feedback(s, 0, FLBRC_CONGESTED, 4, 40000000000ULL);
    s->slot[0].ops->on_feedback(s, q, cst, s->slot[0].par, m);
    assert_true(cc_paused(q));
    uint64_t sent = q->snd_nxt;
    m->aux = 5;
    s->slot[0].ops->on_feedback(s, q, cst, s->slot[0].par, m);
    s->p.stop = 30 * T_US;
    sim_run(s);
    assert_int_equal(q->snd_nxt, sent); /* nothing sent while paused */
    m->fb[0] = FLBRC_RELEASE;
    m->aux = 3;
    s->slot[0].ops->on_feedback(s, q, cst, s->slot[0].par, m);
    pkt_free(s, m);
    assert_false(cc_paused(q));
    assert_int_equal(q->rate, 8000000000ULL); /* C / max n = 40 / 5 */
    s->p.stop = 30 * T_US + q->base_rtt / 2;
    sim_run(s);
    assert_true(q->snd_nxt > sent);
    assert_int_equal(q->rate, 8000000000ULL);
    s->p.stop = 30 * T_US + q->base_rtt + 1;
    sim_run(s);
    assert_int_equal(q->rate, recover ? 40000000000ULL : 8000000000ULL);
    s->p.stop = 0;
    sim_run(s);
    run_check_clean(&r);
    run_free(&r);
}

static void test_flbrc_by_hand(void **st)
{
    (void)st;
    flbrc_by_hand(NULL); /* the default: C/n kept */
    flbrc_by_hand("1");  /* line rate a base RTT after the resume */
}

/* A 4 -> 1 incast under FLB + flbrc (the default recover_rtts = 0: C/n is
 * kept): every sender was paused and resumed at 40/4 = 10 Gbps, and no PAUSE
 * was sent. */
static void test_flbrc_incast(void **st)
{
    (void)st;
    struct run r;
    char ini[1024];
    snprintf(ini, sizeof ini, "%s[transport]\ncc = flbrc\n", two_leaves);
    run_setup(&r, ini);
    for (uint32_t h = 0; h < 4; h++)
        run_add_flow(&r, h, 8, 2000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    sim_run(s);
    run_check_clean(&r);
    print_message("4 -> 1 under FLB + flbrc: %llu PAUSEs, %llu CNMs, %llu notices to senders; rates",
                  (unsigned long long)s->c.pfc_pause_frames, (unsigned long long)s->c.lb_ctrl_packets,
                  (unsigned long long)s->c.feedback_packets);
    for (uint32_t f = 0; f < 4; f++)
        print_message(" %.1f", (double)s->flows[f].rate / 1e9);
    print_message(" Gbps\n");
    for (uint32_t f = 0; f < 4; f++)
        assert_int_equal(s->flows[f].rate, 10000000000ULL);
    assert_int_equal(s->c.pfc_pause_frames, 0);
    assert_true(s->c.feedback_packets >= 8); /* a congestion and a release notice per flow */
    run_free(&r);
}

/* Every CC under FLB: an 8 -> 1 incast across leaves plus Poisson background
 * on a 4 x 4 leaf-spine with PFC: every flow completes, nothing is dropped. */
static void test_every_cc(void **st)
{
    (void)st;
    for (int i = 0; cc_registry[i]; i++) {
        if (cc_registry[i]->companion || cc_registry[i]->multipath || (run_sanitized() && i % 2))
            continue;
        char ini[1024];
        snprintf(ini, sizeof ini,
                 "[run]\nseed = 5\n[topology]\ntype = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 4\n"
                 "host_link = 40Gbps\nfabric_link = 40Gbps\n[switch]\npfc_threshold = 256KB\n[transport]\ncc = %s\n"
                 "[lb]\nscheme = flb\n[traffic]\npattern = poisson\ncdf = web_search\nload = 0.5\nduration = 200us\n",
                 cc_registry[i]->name);
        struct run r;
        run_setup(&r, ini);
        for (uint32_t h = 4; h < 12; h++)
            run_add_flow(&r, h, 0, 200000, 10 * T_US);
        run_build(&r);
        sim_run(&r.sc.sim);
        run_check_invariants(&r);
        const struct sim *s = &r.sc.sim;
        print_message("  flb + %-7s: %u flows, %llu PAUSEs, %llu CNMs, drops %llu\n", cc_registry[i]->name, s->n_flows,
                      (unsigned long long)s->c.pfc_pause_frames, (unsigned long long)s->c.lb_ctrl_packets,
                      (unsigned long long)s->c.packets_dropped);
        assert_int_equal(s->c.drops_lossless, 0);
        assert_true(s->c.lb_ctrl_packets > 0); /* the incast did congest a port */
        run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_k_by_hand),
        cmocka_unit_test(test_algorithm1),
        cmocka_unit_test(test_isolation_paths),
        cmocka_unit_test(test_isolation_keeps_order),
        cmocka_unit_test(test_isolation_unit),
        cmocka_unit_test(test_cnm_route),
        cmocka_unit_test(test_cnm_and_release),
        cmocka_unit_test(test_flbrc_by_hand),
        cmocka_unit_test(test_flbrc_incast),
        cmocka_unit_test(test_two_congestion_points),
        cmocka_unit_test(test_release_at_last_point),
        cmocka_unit_test(test_qp_next_message),
        cmocka_unit_test(test_every_cc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
