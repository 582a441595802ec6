/* Faults beyond one link failing once (net/fault.c, topo/faults.c): a flapping link
 * (topology.flap), a switch failure (topology.switch_fail) and a slowed link
 * (topology.slow). Lossless runs lose packets only on the dead links, every
 * flow finishes (the retransmission timeout or a NACK recovers the loss),
 * bytes delivered = bytes sent, and the losses and timeouts are charged to
 * the flows they hit. A slowed link's lone flow finishes exactly when the
 * two-rate arithmetic says, and its switch ports take the ECN thresholds and
 * PFC shift of the new rate (and back). */
#include "testutil.h"
#include <stdio.h>
#include <string.h>
#include "simrun.h"

/* 2 leaves x 2 spines x 8 hosts at 100 Gbps (hosts 0-15, leaves 16-17,
 * spines 18-19); hosts 0-7 send 1 MB each to hosts 8-15 from time 0. */
#define LEAF0 16u
#define LEAF1 17u
#define SPINE0 18u

static void fault_setup(struct run *r, const char *topo_extra, const char *extra)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 8\n%s"
             "[switch]\nbuffer = 2MB\n[transport]\nrto = 200us\n%s[traffic]\npattern = none\n",
             topo_extra, extra);
    run_setup(r, ini);
    for (uint32_t i = 0; i < 8; i++)
        run_add_flow(r, i, 8 + i, 1000000, 0);
    run_build(r);
}

/* Losses and timeouts: the sum over flows matches the run's counters. */
static void check_books(const struct sim *s)
{
    uint64_t lost = 0, to = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        lost += s->flows[i].lost;
        to += s->flows[i].timeouts;
    }
    assert_int_equal(lost, s->c.packets_lost_link + s->c.packets_dropped);
    assert_int_equal(to, s->c.timeouts);
}

static void report(const char *name, const struct sim *s)
{
    print_message("%s: %llu link changes, %llu packets lost on dead links, %llu timeouts, %llu NACKs, %llu B resent, "
                  "%llu PAUSEs, %llu dropped, all done at %.1f us\n",
                  name, (unsigned long long)s->c.link_changes, (unsigned long long)s->c.packets_lost_link,
                  (unsigned long long)s->c.timeouts, (unsigned long long)s->c.nacks,
                  (unsigned long long)s->c.bytes_retx, (unsigned long long)s->c.pfc_pause_frames,
                  (unsigned long long)s->c.packets_dropped, (double)s->now / T_US);
}

/* leaf0-spine0 flaps from 20 us to 400 us: down 30 us in every 60 us, so 7
 * outages (starting 20, 80, ..., 380 us) and 14 changes. Down, it sends
 * nothing; up, it carries traffic again; lossless, nothing is dropped. */
static void test_flap(void **st)
{
    (void)st;
    struct run r;
    fault_setup(&r, "flap = leaf0-spine0@20us-400us:every=60us:down=30us\n", "");
    struct sim *s = &r.sc.sim;
    assert_int_equal(r.sc.topo.n_fails, 7);
    uint32_t up = run_port_to(s, LEAF0, SPINE0);
    s->p.stop = 20 * T_US + 1;
    sim_run(s);
    assert_true(s->ports[up].down);
    uint64_t tx = s->ports[up].tx_bytes;
    s->p.stop = 50 * T_US - 1;
    sim_run(s);
    assert_true(s->ports[up].down);
    assert_int_equal(s->ports[up].tx_bytes, tx); /* dead: sent nothing */
    s->p.stop = 50 * T_US + 1;
    sim_run(s);
    assert_false(s->ports[up].down);
    s->p.stop = 80 * T_US - 1;
    sim_run(s);
    assert_true(s->ports[up].tx_bytes > tx); /* routes use it again between outages */
    s->p.stop = 0;
    sim_run(s);
    report("flap", s);
    run_check_invariants(&r); /* every flow done, no drop, bytes delivered = sent, nothing left */
    assert_int_equal(s->c.link_changes, 14);
    assert_false(s->ports[up].down);
    assert_int_equal(s->c.packets_dropped, 0);
    assert_true(s->c.packets_lost_link > 0);
    assert_true(s->c.timeouts + s->c.nacks > 0);
    check_books(s);
    run_free(&r);
}

/* The last outage is cut at UNTIL: 100 us to 250 us every 100 us, down 80:
 * outages 100-180 and 200-250 us. */
static void test_flap_cut_at_until(void **st)
{
    (void)st;
    struct run r;
    fault_setup(&r, "flap = leaf0-spine0@100us-250us:every=100us:down=80us\n", "");
    const struct topo *t = &r.sc.topo;
    assert_int_equal(t->n_fails, 2);
    assert_int_equal(t->fails[0].down, 100 * T_US);
    assert_int_equal(t->fails[0].up, 180 * T_US);
    assert_int_equal(t->fails[1].down, 200 * T_US);
    assert_int_equal(t->fails[1].up, 250 * T_US);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    assert_int_equal(r.sc.sim.c.link_changes, 4);
    run_free(&r);
}

/* spine0 dies at 40 us (both its links) and comes back at 300 us; or for
 * good, and spine1 carries everything. */
static void switch_fail(bool recover)
{
    struct run r;
    fault_setup(&r, recover ? "switch_fail = spine0@40us-300us\n" : "switch_fail = spine0@40us\n", "");
    struct sim *s = &r.sc.sim;
    const struct node *sp = &s->nodes[SPINE0];
    assert_int_equal(sp->nports, 2);
    s->p.stop = 40 * T_US + 1;
    sim_run(s);
    uint64_t tx[2];
    for (uint32_t k = 0; k < sp->nports; k++) {
        assert_true(s->ports[sp->port0 + k].down);
        assert_true(s->ports[s->ports[sp->port0 + k].peer].down);
        tx[k] = s->ports[sp->port0 + k].tx_bytes;
    }
    assert_int_equal(s->c.link_changes, 2);
    s->p.stop = 300 * T_US - 1;
    sim_run(s);
    for (uint32_t k = 0; k < sp->nports; k++)
        assert_int_equal(s->ports[sp->port0 + k].tx_bytes, tx[k]);
    s->p.stop = 0;
    sim_run(s);
    report(recover ? "switch failure and recovery" : "switch failure", s);
    run_check_invariants(&r);
    assert_int_equal(s->c.link_changes, recover ? 4u : 2u);
    assert_int_equal(s->c.packets_dropped, 0);
    assert_true(s->c.packets_lost_link > 0);
    check_books(s);
    uint64_t after = 0;
    for (uint32_t k = 0; k < sp->nports; k++) {
        assert_int_equal(s->ports[sp->port0 + k].down, !recover);
        after += s->ports[sp->port0 + k].tx_bytes - tx[k];
    }
    if (recover) /* flows still running at 300 us use it again, or none was left to */
        assert_true(after > 0 || s->now < 300 * T_US);
    else
        assert_int_equal(after, 0);
    run_free(&r);
}

static void test_switch_fail(void **st)
{
    (void)st;
    switch_fail(false);
}

static void test_switch_fail_recover(void **st)
{
    (void)st;
    switch_fail(true);
}

/* One flow host0 -> host8 of n full packets (cc none: line rate, back to
 * back), alone. Its sender's link is cut from 100 to 25 Gbps at T (and back
 * at T2 if given). The NIC serialises each data packet in w * 80 ps at 100
 * Gbps, w * 320 ps at 25; the packet on the wire at T finishes at the old
 * rate. Nothing else changes: downstream ports are faster, so nothing
 * queues. So the FCT grows by 240 ps per byte for the data packets started
 * in the slow window, plus the final ACK's bytes if it crosses the link
 * while slow. */
static simtime_t lone_fct(const char *slow, struct run *r)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 8\nslow = %s\n"
             "[transport]\ncc = none\n[traffic]\npattern = none\n",
             slow);
    run_setup(r, ini);
    run_add_flow(r, 0, 8, 1000 * 1000, 0); /* 1000 packets of 1000 B */
    run_build(r);
    sim_run(&r->sc.sim);
    run_check_clean(r); /* slowing loses nothing */
    return r->sc.sim.flows[0].finish - r->sc.sim.flows[0].start;
}

static void test_slow_lone_flow_analytic(void **st)
{
    (void)st;
    struct run base, cut, back;
    simtime_t f0 = lone_fct("", &base);
    const struct sim *s = &base.sc.sim;
    simtime_t w = s->p.mtu + s->data_hdr, tx1 = w * 80, tx2 = w * 320;
    simtime_t T = 30 * T_US + 7 * T_NS, T2 = 50 * T_US + 3 * T_NS;
    /* packets started before T at 100 Gbps (starts at i * tx1), the rest at 25 */
    simtime_t k = (T + tx1 - 1) / tx1, n = 1000;
    simtime_t f1 = lone_fct("host0-leaf0:25Gbps@30007ns", &cut);
    simtime_t expect1 = f0 + (n - k) * (tx2 - tx1) + (simtime_t)s->ack_size * 240;
    /* restored at T2: the slow packets are those started in [k tx1, T2) at tx2 each, the one on the wire at T2 too */
    simtime_t m = (T2 - k * tx1 + tx2 - 1) / tx2;
    simtime_t f2 = lone_fct("host0-leaf0:25Gbps@30007ns-50003ns", &back);
    simtime_t expect2 = f0 + m * (tx2 - tx1);
    print_message("lone flow of 1 MB: FCT %.3f us at 100 Gbps; cut to 25 Gbps at %.3f us: %.3f us (analytic %.3f); "
                  "restored at %.3f us: %.3f us (analytic %.3f)\n",
                  (double)f0 / T_US, (double)T / T_US, (double)f1 / T_US, (double)expect1 / T_US, (double)T2 / T_US,
                  (double)f2 / T_US, (double)expect2 / T_US);
    assert_int_equal(f1, expect1);
    assert_int_equal(f2, expect2);
    assert_int_equal(cut.sc.sim.c.link_changes, 1);
    assert_int_equal(back.sc.sim.c.link_changes, 2);
    assert_int_equal(cut.sc.sim.ports[cut.sc.sim.nodes[0].port0].rate, 25000000000ULL);
    assert_int_equal(back.sc.sim.ports[back.sc.sim.nodes[0].port0].rate, 100000000000ULL);
    run_free(&base);
    run_free(&cut);
    run_free(&back);
}

/* A fabric link slowed under load (lossless, DCQCN): its switch ends take
 * the ECN thresholds and PFC shift of 25 Gbps while slow and their own
 * again after; the headroom does not move; nothing is dropped and nothing
 * times out (slowing is not losing). */
static void test_slow_fabric_link(void **st)
{
    (void)st;
    struct run r;
    fault_setup(&r, "slow = leaf0-spine0:25Gbps@20us-200us\n", "");
    struct sim *s = &r.sc.sim;
    uint32_t a = run_port_to(s, LEAF0, SPINE0), b = s->ports[a].peer;
    uint32_t kmin = s->ports[a].kmin, kmax = s->ports[a].kmax, hd = s->ports[a].headroom;
    uint8_t shift = s->ports[a].pfc_shift;
    assert_int_equal(kmin, 400000); /* 400 KB at 100 Gbps */
    s->p.stop = 20 * T_US + 1;
    sim_run(s);
    for (int i = 0; i < 2; i++) {
        const struct port *pt = &s->ports[i ? b : a];
        assert_int_equal(pt->rate, 25000000000ULL);
        assert_int_equal(pt->ps_per_byte, 320);
        assert_int_equal(pt->kmin, kmin / 4);
        assert_int_equal(pt->kmax, kmax / 4);
        assert_int_equal(pt->pfc_shift, shift); /* host links are 100 G: a port at or below them keeps the full shift */
        assert_int_equal(pt->headroom, hd);
    }
    s->p.stop = 200 * T_US + 1;
    sim_run(s);
    assert_int_equal(s->ports[a].rate, 100000000000ULL);
    assert_int_equal(s->ports[b].kmin, kmin);
    assert_int_equal(s->ports[b].kmax, kmax);
    s->p.stop = 0;
    sim_run(s);
    report("slowed fabric link", s);
    run_check_clean(&r); /* every flow done, no drop, no timeout, nothing resent */
    assert_int_equal(s->c.link_changes, 2);
    assert_int_equal(s->c.packets_lost_link, 0);
    run_free(&r);
}

/* Hosts at 25 Gbps under 100 Gbps fabric: a fabric port's PFC shift is 2
 * less than a host port's (two doublings above the host rate); cut to 25
 * Gbps it takes the host ports' shift, and gets its own back. */
static void test_slow_pfc_shift(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\nhost_link = 25Gbps\n"
                  "slow = leaf0-spine0:25Gbps@10us-20us\n[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 2, 100000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t a = run_port_to(s, 4, 6), host = s->ports[s->nodes[0].port0].peer;
    uint8_t full = s->ports[host].pfc_shift;
    assert_int_equal(s->ports[a].pfc_shift, full - 2);
    s->p.stop = 15 * T_US;
    sim_run(s);
    assert_int_equal(s->ports[a].pfc_shift, full);
    s->p.stop = 0;
    sim_run(s);
    assert_int_equal(s->ports[a].pfc_shift, full - 2);
    run_check_clean(&r);
    run_free(&r);
}

/* Parsing: a switch failure is one failure per link; slowdowns do not count
 * as failures for connectivity; errors name the key. */
static void test_parse(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n"
                  "switch_fail = spine1@1ms-2ms\nslow = leaf0-spine0:10Gbps@1ms\n[traffic]\npattern = none\n");
    const struct topo *t = &r.sc.topo;
    assert_int_equal(t->n_fails, 3);
    assert_int_equal(t->fails[2].rate, 10000000000ULL);
    assert_int_equal(t->fails[2].up, T_NEVER);
    struct err e;
    assert_int_equal(topo_check_fails_connected(t, &e), 0);
    struct topo *tw = &r.sc.topo;
    assert_int_equal(topo_parse_slows(tw, "leaf0-spine0:5Gbps@1500us", &e), -1);
    assert_non_null(strstr(e.msg, "overlaps an earlier slowdown"));
    assert_int_equal(topo_parse_flaps(tw, "leaf1-spine0@1ms-2ms:every=0", &e), -1);
    assert_non_null(strstr(e.msg, "topology.flap"));
    assert_int_equal(topo_parse_flaps(tw, "leaf1-spine0@1ms-2ms:often=1us", &e), -1);
    assert_non_null(strstr(e.msg, "unknown option"));
    assert_int_equal(topo_parse_flaps(tw, "leaf1-spine1@0-1s:every=1ns", &e), -1);
    assert_non_null(strstr(e.msg, "outages"));
    assert_int_equal(topo_parse_switch_fails(tw, "spine7@1ms", &e), -1);
    assert_non_null(strstr(e.msg, "no node 'spine7'"));
    assert_int_equal(topo_parse_switch_fails(tw, "spine1@1500us", &e), -1); /* overlaps its own failure */
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flap),
        cmocka_unit_test(test_flap_cut_at_until),
        cmocka_unit_test(test_switch_fail),
        cmocka_unit_test(test_switch_fail_recover),
        cmocka_unit_test(test_slow_lone_flow_analytic),
        cmocka_unit_test(test_slow_fabric_link),
        cmocka_unit_test(test_slow_pfc_shift),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
