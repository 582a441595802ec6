/* PFC deadlock detection (net/deadlock.c): the shipped ring scenario forms a
 * cyclic buffer dependency and must be reported as exactly that cycle, soon
 * after run.deadlock_timeout; the same ring without detection really is
 * stuck; and a long congestion tree that keeps moving is never reported,
 * even with a timeout far shorter than its pauses. */
#include "testutil.h"
#include <stdio.h>
#include <string.h>
#include "simrun.h"

/* scenarios/deadlock-ring.ini with its topology file found from here, and
 * extra --set options. */
static void ring_setup(struct run *r, const char *const *sets)
{
    struct err e;
    memset(r, 0, sizeof *r);
    assert_int_equal(config_init(&r->cfg), 0);
    if (config_load_file(&r->cfg, ROCESIM_SOURCE_DIR "/scenarios/deadlock-ring.ini", &e) < 0 ||
        config_apply_set(&r->cfg, "topology.file=" ROCESIM_SOURCE_DIR "/scenarios/deadlock-ring.topo", &e) < 0)
        fail_msg("%s", e.msg);
    for (; sets && *sets; sets++)
        if (config_apply_set(&r->cfg, *sets, &e) < 0)
            fail_msg("%s", e.msg);
    if (config_validate(&r->cfg, &e) < 0 || scenario_load(&r->sc, &r->cfg, &e) < 0)
        fail_msg("%s", e.msg);
    run_build(r);
    sim_run(&r->sc.sim);
}

static void test_ring_deadlock_reported(void **st)
{
    (void)st;
    struct run r;
    ring_setup(&r, NULL);
    const struct sim *s = &r.sc.sim;
    const struct deadlock *d = &s->dl;
    print_message("ring: cycle of %u found at %.3f us after %llu checks\n", d->n, (double)d->found_at / T_US,
                  (unsigned long long)d->checks);
    /* the five clockwise ring ports, each waiting for the next switch's */
    assert_int_equal(d->n, 5);
    bool seen[5] = {false};
    for (uint32_t i = 0; i < d->n; i++) {
        const struct deadlock_hop *h = &d->hop[i], *nx = &d->hop[(i + 1) % d->n];
        const struct port *pt = &s->ports[h->port];
        uint32_t sw = pt->node, to = s->ports[pt->peer].node;
        assert_true(sw >= 10 && sw <= 14);
        assert_int_equal(to, 10 + (sw - 10 + 1) % 5); /* clockwise */
        assert_int_equal(s->ports[nx->port].node, to); /* waits for the next switch's port */
        assert_int_equal(h->prio, 3);
        assert_true(h->since <= d->found_at - d->timeout); /* paused the whole timeout */
        assert_true(pt->paused_mask >> 3 & 1);
        assert_false(seen[sw - 10]);
        seen[sw - 10] = true;
    }
    /* found within a quarter timeout of the earliest possible moment, and the run stopped there */
    simtime_t latest = 0;
    for (uint32_t i = 0; i < d->n; i++)
        if (d->hop[i].since > latest)
            latest = d->hop[i].since;
    assert_true(d->found_at >= latest + d->timeout);
    assert_true(d->found_at <= latest + d->timeout + d->timeout / 4);
    assert_int_equal(s->now, d->found_at);
    assert_int_equal(s->c.flows_completed, 0);
    assert_int_equal(s->c.packets_dropped, 0);
    run_free(&r);
}

/* Without the detector the ring sits still until the stop time: nothing is
 * delivered after the cycle forms (so the report above is no false alarm). */
static void test_ring_really_stuck(void **st)
{
    (void)st;
    static const char *const sets[] = {"run.deadlock_timeout=0", "run.stop=3ms", NULL};
    struct run r;
    ring_setup(&r, sets);
    struct sim *s = &r.sc.sim;
    assert_int_equal(s->dl.n, 0);
    assert_int_equal(s->dl.checks, 0);
    assert_true(s->stopped);
    uint64_t at_stop = s->c.bytes_delivered;
    s->p.stop = 6 * T_MS; /* three more milliseconds: not one more byte */
    sim_run(&r.sc.sim);
    assert_int_equal(s->c.bytes_delivered, at_stop);
    assert_int_equal(s->c.flows_completed, 0);
    run_free(&r);
}

/* A hard incast plus a permutation through 2 MB buffers: a congestion tree
 * whose queues stay paused far longer than a 10 us timeout, but it drains. */
static void test_congestion_tree_not_reported(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[run]\ndeadlock_timeout = 10us\n"
                  "[topology]\ntype = leafspine\nleaves = 5\nspines = 4\nhosts_per_leaf = 16\n"
                  "[switch]\nbuffer = 2MB\n[transport]\ncc = none\n"
                  "[traffic]\npattern = incast\nfan_in = 79\nsize = 256KB\nreceiver = 0\n"
                  "[traffic.perm]\npattern = permutation\nsize = 256KB\n");
    run_build(&r);
    sim_run(&r.sc.sim);
    const struct sim *s = &r.sc.sim;
    print_message("tree: %llu PAUSEs, %llu checks, %llu queues paused over the timeout, none in a cycle\n",
                  (unsigned long long)s->c.pfc_pause_frames, (unsigned long long)s->dl.checks,
                  (unsigned long long)s->dl.blocked);
    assert_int_equal(s->dl.n, 0);
    assert_true(s->dl.checks > 10);
    assert_true(s->dl.blocked > 10); /* the detector had long pauses to look at */
    run_check_clean(&r);
    run_free(&r);
}

/* PCN Fig. 21 (scenarios/pcn-fig21.ini): one pod, L0-T3 and L1-T0 failed
 * from the start. With TIMELY, seed 1 deadlocks (about 33 ms in) and the
 * cycle is the up-down-up one: four queues alternating between the
 * aggregation switches and the two transit ToRs T1, T2, never T0 or T3
 * (whose failed links leave them one uplink each) and never a host port.
 * Nothing is dropped on the way: the run stops stuck, not lossy. */
static void test_pcn_fig21_cycle(void **st)
{
    (void)st;
    struct run r;
    struct err e;
    memset(&r, 0, sizeof r);
    assert_int_equal(config_init(&r.cfg), 0);
    if (config_load_file(&r.cfg, ROCESIM_SOURCE_DIR "/scenarios/pcn-fig21.ini", &e) < 0 ||
        config_apply_set(&r.cfg, "transport.cc=timely", &e) < 0 || config_validate(&r.cfg, &e) < 0 ||
        scenario_load(&r.sc, &r.cfg, &e) < 0)
        fail_msg("%s", e.msg);
    run_build(&r);
    sim_run(&r.sc.sim);
    const struct sim *s = &r.sc.sim;
    const struct deadlock *d = &s->dl;
    print_message("pcn-fig21 (TIMELY, seed 1): cycle of %u found at %.3f ms, %llu PAUSEs, %llu flows done\n", d->n,
                  (double)d->found_at / T_MS, (unsigned long long)s->c.pfc_pause_frames,
                  (unsigned long long)s->c.flows_completed);
    /* hosts 0-31, ToRs T0-T3 = 32-35, L0 = 36, L1 = 37 */
    assert_int_equal(d->n, 4);
    for (uint32_t i = 0; i < d->n; i++) {
        const struct port *pt = &s->ports[d->hop[i].port];
        uint32_t sw = pt->node, to = s->ports[pt->peer].node;
        uint32_t tor = sw >= 36 ? to : sw, agg = sw >= 36 ? sw : to;
        assert_true(tor == 33 || tor == 34);
        assert_true(agg == 36 || agg == 37);
        assert_int_equal(s->ports[d->hop[(i + 1) % d->n].port].node, to); /* waits for the next switch's queue */
    }
    uint32_t down = 0; /* L0-T3 and L1-T0, both ends, and nothing else */
    for (uint32_t p = 0; p < s->n_ports; p++)
        if (s->ports[p].down) {
            uint32_t a = s->ports[p].node, b = s->ports[s->ports[p].peer].node;
            assert_true((a == 36 && b == 35) || (a == 35 && b == 36) || (a == 37 && b == 32) || (a == 32 && b == 37));
            down++;
        }
    assert_int_equal(down, 4);
    assert_int_equal(s->c.packets_dropped, 0);
    assert_int_equal(s->c.packets_lost_link, 0);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_deadlock_reported),
        cmocka_unit_test(test_ring_really_stuck),
        cmocka_unit_test(test_congestion_tree_not_reported),
        cmocka_unit_test(test_pcn_fig21_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
