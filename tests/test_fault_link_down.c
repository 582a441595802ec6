/* Link failure at a time (topology.fail): on a leaf-spine, a fabric link dies
 * while flows cross it. Every flow must still complete, the loss is counted
 * (packets_lost_link) and recovered by NACK or timeout, a lossless run drops
 * nothing anywhere else, the switch MMUs drain to zero (so dropping queued
 * packets released their ingress accounting), no route points at the dead
 * link afterwards, and it carries nothing more until it recovers. */
#include "testutil.h"
#include <stdio.h>
#include <string.h>
#include "simrun.h"

/* 2 leaves x 2 spines x 8 hosts, 100 Gbps, 2 MB buffers (so the lossless run
 * pauses and the lossy one drops); hosts 0-7 on leaf0 (node 16) send 1 MB
 * each to hosts 8-15; leaf0-spine0 (nodes 16-18) fails at 40 us, when every
 * flow is sending and leaf0's uplink queues are full. */
#define LEAF0 16u
#define SPINE0 18u

static void check_mmu_idle(const struct sim *s)
{
    for (uint32_t p = 0; p < s->n_ports; p++) {
        const struct port *pt = &s->ports[p];
        assert_int_equal(pt->paused_mask, 0);
        for (int q = 0; q < NQ; q++) {
            assert_int_equal(pt->ingress_bytes[q], 0);
            assert_int_equal(pt->hdrm_bytes[q], 0);
            assert_false(pt->pause_sent[q]);
        }
    }
}

static void check_no_route_to(const struct sim *s, uint32_t pa, uint32_t pb)
{
    size_t nent = (size_t)s->route_rows * s->n_edges;
    for (size_t i = 0; i < nent; i++)
        for (uint32_t j = 0; j < s->route_cnt[i]; j++) {
            uint32_t p = s->route_ports[s->route_off[i] + j];
            assert_true(p != pa && p != pb);
        }
}

static void run_failure(const char *extra, bool recover)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 8\n"
             "fail = leaf0-spine0@40us%s\n[switch]\nbuffer = 2MB\n%s[transport]\nrto = 500us\n[traffic]\npattern = none\n",
             recover ? "-300us" : "", extra);
    struct run r;
    run_setup(&r, ini);
    for (uint32_t i = 0; i < 8; i++)
        run_add_flow(&r, i, 8 + i, 1000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t up = run_port_to(s, LEAF0, SPINE0), down = s->ports[up].peer;
    s->p.stop = 40 * T_US;
    sim_run(s);
    assert_true(s->ports[up].tx_bytes > 0); /* ECMP put some flows on it */
    if (s->p.pfc) /* the MMU is in play when the queued packets are dropped */
        assert_true(s->c.pfc_pause_frames > 0);
    s->p.stop = 40 * T_US + 1;
    sim_run(s);
    assert_true(s->ports[up].down && s->ports[down].down);
    assert_int_equal(s->c.link_changes, 1);
    check_no_route_to(s, up, down);
    uint64_t tx_up = s->ports[up].tx_bytes, tx_down = s->ports[down].tx_bytes;
    if (recover) {
        s->p.stop = 300 * T_US - 1;
        sim_run(s);
        assert_int_equal(s->ports[up].tx_bytes, tx_up); /* dead: sent nothing */
        assert_int_equal(s->ports[down].tx_bytes, tx_down);
        s->p.stop = 300 * T_US;
        sim_run(s);
        assert_false(s->ports[up].down);
        assert_int_equal(s->c.link_changes, 2);
    }
    s->p.stop = 0;
    sim_run(s);
    print_message("link failure%s%s: %llu packets lost on the link, %llu timeouts, %llu NACKs, %llu B resent, "
                  "%llu PAUSEs, %llu dropped elsewhere, all done at %.1f us\n",
                  recover ? " and recovery" : "", strstr(extra, "pfc = off") ? " (lossy)" : " (lossless)",
                  (unsigned long long)s->c.packets_lost_link, (unsigned long long)s->c.timeouts,
                  (unsigned long long)s->c.nacks, (unsigned long long)s->c.bytes_retx,
                  (unsigned long long)s->c.pfc_pause_frames, (unsigned long long)s->c.packets_dropped,
                  (double)s->now / T_US);
    run_check_invariants(&r); /* every flow done, lossless: no drop, nothing left, buffers at zero */
    check_mmu_idle(s);
    assert_true(s->c.packets_lost_link > 0);
    assert_true(s->c.bytes_retx > 0);
    assert_true(s->c.timeouts + s->c.nacks > 0);
    if (recover) /* routes use it again */
        assert_true(s->ports[up].tx_bytes > tx_up);
    else
        assert_int_equal(s->ports[up].tx_bytes, tx_up);
    run_free(&r);
}

static void test_fail_lossless(void **st)
{
    (void)st;
    run_failure("", false);
}

static void test_fail_recover_lossless(void **st)
{
    (void)st;
    run_failure("", true);
}

static void test_fail_lossy(void **st)
{
    (void)st;
    run_failure("pfc = off\n", false);
}

/* A host's own link fails and comes back: while it is down the host is
 * unreachable (packets for it are lost at the switch that finds no route,
 * and counted), and its flows finish after the recovery. Host 8 (on leaf1,
 * node 17) receives from host 0 and sends to host 1. */
static void test_host_link(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 8\n"
                  "fail = host8-leaf1@20us-400us\n[transport]\nrto = 300us\n[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 8, 1000000, 0);
    run_add_flow(&r, 8, 1, 1000000, 0);
    run_add_flow(&r, 2, 9, 1000000, 0); /* a bystander on the same leaves */
    run_build(&r);
    struct sim *s = &r.sc.sim;
    s->p.stop = 20 * T_US + 1;
    sim_run(s);
    uint32_t hp = s->nodes[8].port0;
    assert_true(s->ports[hp].down);
    assert_int_equal(s->host_edge[8], UINT32_MAX); /* unreachable while down */
    assert_int_equal(s->host_edge[9], s->host_edge[10]); /* its neighbours keep their edge switch */
    s->p.stop = 400 * T_US - 1;
    sim_run(s);
    assert_int_equal(s->flows[2].state, FLOW_DONE);
    assert_true(s->flows[0].state != FLOW_DONE && s->flows[1].state != FLOW_DONE);
    s->p.stop = 0;
    sim_run(s);
    print_message("host link down 20-400 us: %llu packets lost, %llu timeouts, flows done at %.1f / %.1f us "
                  "(bystander %.1f us)\n",
                  (unsigned long long)s->c.packets_lost_link, (unsigned long long)s->c.timeouts,
                  (double)s->flows[0].finish / T_US, (double)s->flows[1].finish / T_US,
                  (double)s->flows[2].finish / T_US);
    run_check_invariants(&r);
    check_mmu_idle(s);
    assert_true(s->c.packets_lost_link > 0);
    assert_true(s->c.timeouts > 0); /* nothing got through to NACK: only the timeout recovers */
    assert_true(s->flows[0].finish > 400 * T_US && s->flows[1].finish > 400 * T_US);
    assert_int_equal(s->host_edge[8], s->host_edge[9]);
    run_free(&r);
}

/* Timeouts by time w of a go-back-N flow whose data went out just after 0
 * and is never ACKed: the n-th expiry comes rto << min(n - 1, cap) after the
 * one before (each timeout doubles the RTO, at most cap times). */
static uint32_t backoff_timeouts(simtime_t rto, uint32_t cap, simtime_t w)
{
    uint32_t n = 0;
    for (simtime_t t = rto, r = rto; t <= w; n++) {
        if (n + 1 <= cap)
            r *= 2;
        t += r;
    }
    return n;
}

/* A link fails for good at 1 us, after two flows have sent from hosts 0 and
 * 1 (leafspine: host 0's own link, both flows from host 0; dumbbell: the only
 * link between the switches): nothing is ever ACKed, and each flow's RTO
 * keeps firing on the backoff schedule. Checked just before and at every
 * expiry. Host 0's NIC cannot send at all after its first timeout (its port
 * is dead), so its timer must run while data sent is unACKed, not only while
 * packets are in flight: that read gave 1 timeout in 1.5 s instead of 7. */
static void dead_link_backoff(const char *name, const char *topo, uint32_t src1, simtime_t rto, uint32_t cap, simtime_t until)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[run]\nstop = %lldus\nwatchdog = off\n[topology]\n%s\n"
             "[transport]\nrto = %lldus\nrto_backoff = %u\n[traffic]\npattern = none\n",
             (long long)(until / T_US), topo, (long long)(rto / T_US), cap);
    struct run r;
    run_setup(&r, ini);
    run_add_flow(&r, 0, 2, 1000000, 0);
    run_add_flow(&r, src1, 3, 1000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t checked = 0;
    for (simtime_t t = rto, step = rto; t <= until; checked++) {
        for (int at = 0; at < 2; at++) { /* just before this expiry, and at it */
            s->p.stop = at ? t : t - 1;
            sim_run(s);
            uint32_t want = backoff_timeouts(rto, cap, s->p.stop);
            for (uint32_t i = 0; i < 2; i++) {
                assert_true(s->flows[i].snd_high > 0); /* it sent before the failure */
                assert_int_equal(s->flows[i].snd_una, 0);
                assert_int_equal(s->flows[i].timeouts, want);
            }
        }
        if (checked + 1 <= cap)
            step *= 2;
        t += step;
    }
    print_message("%s dead, rto %.0f us x2 at most %u times: %u timeouts per flow by %.0f ms (analytic %u)\n", name,
                  (double)rto / T_US, cap, s->flows[0].timeouts, (double)s->now / T_MS,
                  backoff_timeouts(rto, cap, s->now));
    assert_true(checked >= cap + 2); /* past the cap: the RTO stays at rto << cap */
    run_free(&r);
}

static void test_dead_host_link_backoff(void **st)
{
    (void)st;
    /* the lossless defaults: 10 ms, doubled at most 6 times: 10, 30, 70, 150, 310, 630, 1270 ms */
    dead_link_backoff("host0-leaf0", "type = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\nfail = host0-leaf0@1us", 0,
                      10 * T_MS, 6, 2000 * T_MS);
    assert_int_equal(backoff_timeouts(10 * T_MS, 6, 1500 * T_MS), 7);
    assert_int_equal(backoff_timeouts(10 * T_MS, 6, 2000 * T_MS), 8); /* then 1910 ms */
    dead_link_backoff("host0-leaf0", "type = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\nfail = host0-leaf0@1us", 0,
                      1 * T_MS, 2, 40 * T_MS);
}

static void test_dead_fabric_link_backoff(void **st)
{
    (void)st; /* the NIC still sends; the switch finds no route */
    dead_link_backoff("s0-s1", "type = dumbbell\nsenders = 2\nreceivers = 2\nfail = s0-s1@1us", 1, 1 * T_MS, 2, 40 * T_MS);
}

/* Host 0's link is down from 1 us to 50 ms: its two flows time out at 10 and
 * 30 ms (backoff), and resume when the link comes back, not at the next
 * expiry (70 ms): the NIC sends as soon as its port is up. */
static void test_dead_host_link_resumes(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n"
                  "fail = host0-leaf0@1us-50ms\n[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 2, 1000000, 0);
    run_add_flow(&r, 0, 3, 1000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    sim_run(s);
    print_message("host0 link down 1 us-50 ms: flows done at %.3f / %.3f ms, %u / %u timeouts\n",
                  (double)s->flows[0].finish / T_MS, (double)s->flows[1].finish / T_MS, s->flows[0].timeouts,
                  s->flows[1].timeouts);
    run_check_invariants(&r);
    for (uint32_t i = 0; i < 2; i++) {
        assert_int_equal(s->flows[i].timeouts, backoff_timeouts(10 * T_MS, 6, 50 * T_MS));
        assert_true(s->flows[i].finish > 50 * T_MS && s->flows[i].finish < 51 * T_MS);
    }
    assert_int_equal(s->flows[0].timeouts, 2);
    run_free(&r);
}

/* ns-3's LINK_DOWN key becomes a failure at 2 s + its microseconds (HPCC's
 * third.cc), checked against the topology with the config's line. */
static void test_link_down_key(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 1\n[traffic]\npattern = none\n");
    r.cfg.ns3.link_down_us = 5, r.cfg.ns3.link_down_a = 2, r.cfg.ns3.link_down_b = 5;
    scenario_free(&r.sc);
    struct err e;
    assert_int_equal(scenario_load(&r.sc, &r.cfg, &e), 0);
    assert_int_equal(r.sc.topo.n_fails, 1);
    assert_int_equal(r.sc.topo.fails[0].down, 2 * T_SEC + 5 * T_US);
    assert_int_equal(r.sc.topo.fails[0].up, T_NEVER);
    r.cfg.ns3.link_down_b = 3; /* leaf-leaf: no such link */
    assert_int_equal(config_validate(&r.cfg, &e), -1);
    assert_non_null(strstr(e.msg, "LINK_DOWN: no link between node 2 and node 3"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_lossless),
        cmocka_unit_test(test_fail_recover_lossless),
        cmocka_unit_test(test_fail_lossy),
        cmocka_unit_test(test_host_link),
        cmocka_unit_test(test_dead_host_link_backoff),
        cmocka_unit_test(test_dead_fabric_link_backoff),
        cmocka_unit_test(test_dead_host_link_resumes),
        cmocka_unit_test(test_link_down_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
