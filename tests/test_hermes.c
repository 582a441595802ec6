/* Hermes (src/lb/hermes.c) and the sender-side hooks it uses (lb.h):
 *  - a flow placed on a path through a slowed spine link (queue, CE marks,
 *    RTT far above T_RTT_high) is moved to the other path, and the link then
 *    carries little of it; with ΔRTT above the difference it stays;
 *  - the host-set path word is applied from the source edge switch on (the
 *    bytes go where the word says);
 *  - probes go out, come back, and leave nothing in the network;
 *  - the invariants (bytes delivered = bytes sent, lossless never drops, no
 *    packet left) under an incast with every CC, with PFC on and off, IRN,
 *    a fat-tree with Poisson traffic, and the shipped scenario (a failing
 *    link on an asymmetric leaf-spine). */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "simrun.h"
#include "net/cc.h"

static uint64_t stat(const struct sim *s, const char *name)
{
    for (int i = 0; i < LB_STATS && s->lb->stat_names[i]; i++)
        if (strcmp(s->lb->stat_names[i], name) == 0)
            return s->c.lb_stat[i];
    fail_msg("no statistic %s", name);
    return 0;
}

/* Host 0 on leaf 3; hosts 1 and 2 on leaf 4; spines 5 and 6; 100 Gbps and
 * 1 us everywhere but spine 5 -> leaf 4 at `slow`. Host 0 sends 4 MB to each
 * of hosts 1 and 2 at once, at line rate (cc = none, PFC on): Hermes puts the
 * second flow on the path the first does not use, so one of them starts on
 * the slow path, whose queue soon holds hundreds of KB, all CE-marked. */
struct slow_result {
    uint64_t slow_bytes;  /* through spine 5 -> leaf 4 */
    uint64_t reroutes, switches, probes, echoes, congested;
    simtime_t fct[2];
};

static void slow_run(const char *slow, const char *extra, struct slow_result *res)
{
    char path[64], ini[1024], topo[512];
    snprintf(topo, sizeof topo,
             "7 4 7\n3 4 5 6\n"
             "0 3 100Gbps 0.001ms 0\n1 4 100Gbps 0.001ms 0\n2 4 100Gbps 0.001ms 0\n"
             "3 5 100Gbps 0.001ms 0\n3 6 100Gbps 0.001ms 0\n5 4 %s 0.001ms 0\n6 4 100Gbps 0.001ms 0\n", slow);
    run_topo_file(path, sizeof path, topo);
    snprintf(ini, sizeof ini,
             "[topology]\ntype = file\nfile = %s\n[switch]\npfc = on\n[transport]\ncc = none\n"
             "[lb]\nscheme = hermes\n%s\n[traffic]\npattern = none\n", path, extra);
    struct run r;
    run_setup(&r, ini);
    run_add_flow(&r, 0, 1, 4000000, 0);
    run_add_flow(&r, 0, 2, 4000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    sim_run(s);
    run_check_invariants(&r);
    assert_int_equal(s->c.drops_lossless, 0);
    res->slow_bytes = s->ports[run_port_to(s, 5, 4)].tx_bytes;
    res->reroutes = stat(s, "reroutes");
    res->congested = stat(s, "to_congested");
    res->echoes = stat(s, "probe_echoes");
    res->probes = s->c.lb_probes;
    res->switches = s->flows[0].path_switches + s->flows[1].path_switches;
    for (int i = 0; i < 2; i++)
        res->fct[i] = s->flows[i].finish - s->flows[i].start;
    /* both paths carried data: the two flows were spread, one per path */
    assert_true(s->ports[run_port_to(s, 3, 5)].tx_bytes > 0);
    assert_true(s->ports[run_port_to(s, 3, 6)].tx_bytes > 0);
    run_free(&r);
    unlink(path);
}

static void test_moves_off_slow_path(void **st)
{
    (void)st;
    struct slow_result moved, stays;
    slow_run("10Gbps", "", &moved);
    print_message("slowed spine link (10 Gbps): %llu B through it, %llu reroutes, %llu path switches, %llu to congested, "
                  "%llu probes (%llu echoed); FCT %.1f / %.1f us\n",
                  (unsigned long long)moved.slow_bytes, (unsigned long long)moved.reroutes,
                  (unsigned long long)moved.switches, (unsigned long long)moved.congested,
                  (unsigned long long)moved.probes, (unsigned long long)moved.echoes, (double)moved.fct[0] / T_US,
                  (double)moved.fct[1] / T_US);
    assert_true(moved.congested >= 1);
    assert_true(moved.reroutes >= 1);
    assert_int_equal(moved.switches, moved.reroutes); /* fct.csv's path_switches counts Hermes's moves */
    assert_true(moved.slow_bytes < 1000000);           /* most of the 4 MB went the fast way */
    assert_true(moved.probes > 0);
    assert_int_equal(moved.echoes, moved.probes);      /* lossless: every probe comes back */

    /* ΔRTT above any difference the slow path can show: it is never notably better to move */
    slow_run("10Gbps", "[lb.hermes]\nd_rtt = 10ms\n", &stays);
    print_message("  with d_rtt = 10 ms: %llu B through it, %llu reroutes; FCT %.1f / %.1f us\n",
                  (unsigned long long)stays.slow_bytes, (unsigned long long)stays.reroutes,
                  (double)stays.fct[0] / T_US, (double)stays.fct[1] / T_US);
    assert_int_equal(stays.reroutes, 0);
    assert_int_equal(stays.switches, 0);
    assert_true(stays.slow_bytes >= 4000000); /* one whole flow crossed it */
    assert_true(stays.congested >= 1);         /* it was seen congested all the same */

    /* a path 20 % slower (80 Gbps) never gets a queue from this pair: no move at all */
    struct slow_result mild;
    slow_run("80Gbps", "", &mild);
    print_message("  80 Gbps link: %llu reroutes, %llu to congested\n", (unsigned long long)mild.reroutes,
                  (unsigned long long)mild.congested);
    assert_int_equal(mild.reroutes, 0);
}

/* ------------------------------------------------------------ invariants */

/* an incast with pfc off: a 400 KB switch buffer, so it does drop */
static void inv_run(const char *topo, const char *cc, bool pfc, const char *extra, const char *traffic, bool incast)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[run]\nseed = 5\n[topology]\n%s\n[switch]\npfc = %s\nbuffer = %s\n[transport]\ncc = %s\n%s\n"
             "[lb]\nscheme = hermes\n[traffic]\n%s\n",
             topo, pfc ? "on" : "off", pfc || !incast ? "32MiB" : "400KB", cc, extra, traffic);
    struct run r;
    run_setup(&r, ini);
    if (incast) /* 12 -> 1 across the fabric: 3 leaves into one host of the fourth */
        for (uint32_t h = 4; h < 16; h++)
            run_add_flow(&r, h, 0, 300000, (simtime_t)(h % 4) * T_US);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    sim_run(s);
    run_check_invariants(&r);
    if (pfc && incast)
        run_check_clean(&r); /* lossless: no drop, no timeout, nothing resent */
    if (pfc) /* a move reorders the flow, and go-back-N resends after the NACK, but no timeout */
        assert_int_equal(s->c.timeouts, 0);
    uint64_t sw = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        sw += s->flows[i].path_switches;
    print_message("  %-6s pfc %-3s %-22s: %u flows, %llu reroutes, %llu path switches, %llu probes, drops %llu, "
                  "bytes %llu\n", cc, pfc ? "on" : "off", extra[0] ? extra : "-", s->n_flows,
                  (unsigned long long)stat(s, "reroutes"), (unsigned long long)sw,
                  (unsigned long long)s->c.lb_probes, (unsigned long long)s->c.packets_dropped,
                  (unsigned long long)s->c.bytes_delivered);
    assert_int_equal(s->c.bytes_delivered, s->c.bytes_sent);
    assert_true(s->c.lb_probes > 0);
    if (incast && !pfc)
        assert_true(s->c.packets_dropped > 0); /* the lossy case did lose and recover */
    run_free(&r);
}

static const char leafspine[] = "type = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 4";

static void test_incast_every_cc(void **st)
{
    (void)st;
    for (int i = 0; cc_registry[i]; i++) {
        if (cc_registry[i]->companion || (run_sanitized() && i % 2)) /* sanitizers: every other CC */
            continue;
        if (cc_registry[i]->multipath) /* MP-RDMA chooses its own paths through ECMP: refused beside Hermes */
            continue;
        inv_run(leafspine, cc_registry[i]->name, true, "", "pattern = none", true);
    }
    /* lossy: go-back-N recovers what the incast drops, and IRN */
    inv_run(leafspine, "dcqcn", false, "", "pattern = none", true);
    inv_run(leafspine, "dcqcn", false, "recovery = irn", "pattern = none", true);
}

static void test_poisson(void **st)
{
    (void)st;
    const char *load = run_sanitized() ? "pattern = poisson\ncdf = web_search\nload = 0.7\nduration = 300us"
                                   : "pattern = poisson\ncdf = web_search\nload = 0.7\nduration = 1ms";
    inv_run("type = fattree\nk = 4", "dcqcn", true, "", load, false);
    inv_run("type = fattree\nk = 4", "dcqcn", false, "", load, false);
    if (!run_sanitized())
        inv_run(leafspine, "hpcc", true, "window = bdp", load, false);
}

/* The shipped scenario loads, selects Hermes, and runs its first ms without
 * a drop (the link failure comes at 1 ms). */
static void test_scenario(void **st)
{
    (void)st;
    struct run r;
    run_setup_file(&r, ROCESIM_SOURCE_DIR "/scenarios/lb-hermes.ini");
    run_build(&r);
    assert_string_equal(r.sc.sim.lb->name, "hermes");
    r.sc.sim.p.stop = run_sanitized() ? 200 * T_US : 900 * T_US;
    sim_run(&r.sc.sim);
    assert_int_equal(r.sc.sim.c.packets_dropped, 0);
    assert_true(r.sc.sim.c.lb_probes > 0);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moves_off_slow_path),
        cmocka_unit_test(test_incast_every_cc),
        cmocka_unit_test(test_poisson),
        cmocka_unit_test(test_scenario),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
