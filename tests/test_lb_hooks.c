/* The load-balancing hooks of net/, independent of any scheme: paths as
 * values, source routing, ECMP keeps flows in order on a multipath fabric,
 * the receiver reorder buffer, the ACK's echo of the data packet's path, the
 * per-switch timers and control packets. Schemes that only exist here are
 * plugged into a built scenario by hand (s->lb). */
#include "simrun.h"
#include "testutil.h"
#include <stdio.h>
#include <string.h>
#include "net/net.h"

static const char *leafspine =
    "[topology]\ntype = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 4\n"
    "[traffic]\npattern = none\n";

/* Path count per edge pair equals the product of candidate counts, and each
 * word names a distinct egress sequence. */
static void test_paths_enumerate(void **state)
{
    (void)state;
    struct run r;
    run_setup(&r, leafspine);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    assert_int_equal(s->n_edges, 4);
    for (uint32_t a = 0; a < 4; a++)
        for (uint32_t b = 0; b < 4; b++) {
            uint32_t n = lb_path_count(s, a, b);
            assert_int_equal(n, a == b ? 1 : 4);
            uint32_t seen[4][4];
            for (uint32_t i = 0; i < n && a != b; i++) {
                int k = lb_path_ports(s, a, b, lb_path_word(s, a, b, i), seen[i], 4);
                assert_int_equal(k, 2); /* leaf -> spine -> leaf */
                assert_int_equal(lb_port_peer_node(s, seen[i][1]), lb_edge_node(s, b));
                for (uint32_t j = 0; j < i; j++)
                    assert_true(seen[j][0] != seen[i][0]); /* four distinct spines */
            }
        }
    run_free(&r);

    run_setup(&r, "[topology]\ntype = fattree\nk = 4\n[traffic]\npattern = none\n");
    run_build(&r);
    s = &r.sc.sim;
    assert_int_equal(s->n_edges, 8);
    /* edges 0 and 1 share a pod: 2 aggs; edge 2 is in the next pod: 2 x 2 via cores */
    assert_int_equal(lb_path_count(s, 0, 1), 2);
    assert_int_equal(lb_path_count(s, 0, 2), 4);
    uint32_t ports[4][4], words[4];
    for (uint32_t i = 0; i < 4; i++) {
        words[i] = lb_path_word(s, 0, 2, i);
        assert_int_equal(lb_path_ports(s, 0, 2, words[i], ports[i], 4), 4);
        for (uint32_t j = 0; j < i; j++)
            assert_true(memcmp(ports[i], ports[j], 2 * sizeof ports[i][0]) != 0);
    }
    run_free(&r);
}

/* A balancer that pins every data packet of a flow to path (flow id % n) at
 * the source edge: source routing must deliver along exactly that path. */
static void pin_arrival(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, uint32_t in_port)
{
    (void)par;
    (void)in_port;
    uint32_t se = lb_host_edge(s, p->src), de = lb_host_edge(s, p->dst);
    if (sw->edge == (int32_t)se && se != de && p->lb.path == PATH_NONE)
        p->lb.path = lb_path_word(s, se, de, p->flow % lb_path_count(s, se, de));
}
static int first_choice(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports,
                        int n)
{
    (void)s, (void)sw, (void)par, (void)p, (void)ports, (void)n;
    fail_msg("a source-routed packet asked for a per-hop choice");
    return 0;
}
static const struct lb_ops pin_ops = {.name = "pin", .on_arrival = pin_arrival, .choose = first_choice};

static void test_source_routing(void **state)
{
    (void)state;
    struct run r;
    run_setup(&r, leafspine);
    for (uint32_t i = 0; i < 4; i++) /* host i of leaf 0 -> host i of leaf 1: four flows, four paths */
        run_add_flow(&r, i, 4 + i, 200000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    s->lb = &pin_ops;
    uint64_t before[4];
    uint32_t ports[4][4];
    for (uint32_t i = 0; i < 4; i++) {
        lb_path_ports(s, 0, 1, lb_path_word(s, 0, 1, i), ports[i], 4);
        before[i] = s->ports[ports[i][0]].tx_bytes;
    }
    sim_run(s);
    run_check_clean(&r);
    for (uint32_t i = 0; i < 4; i++) { /* flow i took path i: its bytes and nothing else's */
        uint64_t sent = s->ports[ports[i][0]].tx_bytes - before[i];
        uint64_t pkts = (200000 + 999) / 1000;
        assert_int_equal(sent, 200000 + pkts * s->data_hdr);
        assert_int_equal(s->ports[ports[i][1]].tx_bytes, sent);
        assert_int_equal(s->flows[i].path_switches, 0);
        assert_int_equal(s->flows[i].flowlets, 1);
    }
    run_free(&r);
}

/* ECMP on a multipath fabric: every flow stays on one path, nothing arrives
 * out of order, and flows spread over the spines. */
static void test_ecmp_in_order(void **state)
{
    (void)state;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 4\n"
                  "[traffic]\npattern = poisson\nload = 0.5\nduration = 2ms\n");
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_clean(&r);
    const struct sim *s = &r.sc.sim;
    assert_true(s->n_flows > 50);
    for (uint32_t i = 0; i < s->n_flows; i++) {
        assert_int_equal(s->flows[i].ooo, 0);
        assert_int_equal(s->flows[i].path_switches, 0);
    }
    uint32_t used = 0; /* leaf 0's four uplinks */
    const struct node *leaf = &s->nodes[s->edge_node[0]];
    for (uint32_t k = 0; k < leaf->nports; k++)
        used += !s->ports[leaf->port0 + k].to_host && s->ports[leaf->port0 + k].tx_bytes > 0;
    assert_int_equal(used, 4);
    run_free(&r);
}

/* Per-packet random spraying, only here: a reordering source for the
 * receiver tests. */
static int spray_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports,
                        int n)
{
    (void)s, (void)par, (void)p, (void)ports;
    return (int)rng_below(&sw->rng, (uint64_t)n);
}
static const struct lb_ops spray_ops = {.name = "testspray", .choose = spray_choose};

static void spray_run(struct run *r, const char *reorder, uint64_t *retx, uint64_t *nacks, uint64_t *ooo)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 2\nspines = 4\nhosts_per_leaf = 8\n"
             "[transport]\nreorder = %s\ncc = none\n[traffic]\npattern = none\n",
             reorder);
    run_setup(r, ini);
    for (uint32_t i = 0; i < 8; i++) /* a permutation across the spines, with a sender-side hotspot */
        run_add_flow(r, i, 8 + (i + 3) % 8, 400000, (simtime_t)i * T_US);
    run_build(r);
    r->sc.sim.lb = &spray_ops;
    sim_run(&r->sc.sim);
    run_check_invariants(r);
    *retx = r->sc.sim.c.bytes_retx;
    *nacks = r->sc.sim.c.nacks;
    *ooo = 0;
    for (uint32_t i = 0; i < r->sc.sim.n_flows; i++)
        *ooo += r->sc.sim.flows[i].ooo;
}

/* The reorder buffer: every byte delivered once, in order, with no NACK and
 * no retransmission in lossless mode; go-back-N on the same traffic resends. */
static void test_reorder_buffer(void **state)
{
    (void)state;
    struct run r;
    uint64_t retx, nacks, ooo;
    spray_run(&r, "buffer", &retx, &nacks, &ooo);
    print_message("spray, reorder buffer: %llu out-of-order packets, %llu NACKs, %llu B resent, peak %llu B held\n",
                  (unsigned long long)ooo, (unsigned long long)nacks, (unsigned long long)retx,
                  (unsigned long long)r.sc.sim.c.reorder_peak_bytes);
    assert_true(ooo > 100);
    assert_int_equal(nacks, 0);
    assert_int_equal(retx, 0);
    assert_int_equal(r.sc.sim.c.timeouts, 0);
    assert_true(r.sc.sim.c.reorder_peak_bytes > 0);
    uint32_t max = 0;
    for (uint32_t i = 0; i < r.sc.sim.n_flows; i++)
        max = r.sc.sim.flows[i].ooo_max > max ? r.sc.sim.flows[i].ooo_max : max;
    assert_true(max >= 1);
    run_free(&r);

    spray_run(&r, "gbn", &retx, &nacks, &ooo);
    print_message("spray, go-back-N: %llu out-of-order packets, %llu NACKs, %llu B resent\n", (unsigned long long)ooo,
                  (unsigned long long)nacks, (unsigned long long)retx);
    assert_true(nacks > 10);
    assert_true(retx > 100000);
    run_free(&r);
}

/* Switch timers fire at the time set, once per entry, and moving a timer
 * later keeps one heap entry; control packets reach the edge switch they are
 * addressed to (and are consumed there). */
static int fired, ctrl_got;
static simtime_t fired_at[4];
static void tm_init(struct sim *s, struct lb_switch *sw, const void *par)
{
    (void)par;
    if (sw->node == s->edge_node[0]) {
        lb_timer_set(s, sw, 0, 10 * T_US);
        lb_timer_set(s, sw, 0, 20 * T_US); /* moved later: fires once, at 20 us */
        lb_timer_set(s, sw, 1, 5 * T_US);
    }
}
static void tm_timer(struct sim *s, struct lb_switch *sw, const void *par, int kind)
{
    (void)par;
    fired_at[fired++] = lb_now(s) * 2 + kind; /* time and kind in one value */
    if (kind == 1) { /* send a control packet to the last edge */
        struct pkt *p = lb_ctrl_packet(s, sw->node, lb_edge_node(s, s->n_edges - 1), 7, 64);
        p->lb.fb = 0xc0ffee;
        lb_ctrl_send(s, p);
    }
}
static void tm_ctrl(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p)
{
    (void)par;
    assert_int_equal(sw->node, lb_edge_node(s, s->n_edges - 1));
    assert_int_equal(p->lb.proto, 7);
    assert_int_equal(p->lb.fb, 0xc0ffee);
    ctrl_got++;
}
static int tm_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports, int n)
{
    (void)s, (void)sw, (void)par, (void)p, (void)ports, (void)n;
    return 0;
}
static const struct lb_ops timer_ops = {
    .name = "tm", .init = tm_init, .on_timer = tm_timer, .on_ctrl = tm_ctrl, .choose = tm_choose};

static void test_timers_and_ctrl(void **state)
{
    (void)state;
    struct run r;
    run_setup(&r, leafspine);
    run_add_flow(&r, 0, 15, 1000000, 0); /* keeps the run alive past 20 us */
    run_build(&r);
    struct sim *s = &r.sc.sim;
    s->lb = &timer_ops;
    for (uint32_t n = 0; n < s->n_nodes; n++)
        if (s->nodes[n].is_switch)
            timer_ops.init(s, &s->lbsw[n], NULL);
    fired = ctrl_got = 0;
    sim_run(s);
    run_check_clean(&r);
    assert_int_equal(fired, 2);
    assert_int_equal(fired_at[0], 5 * T_US * 2 + 1);
    assert_int_equal(fired_at[1], 20 * T_US * 2 + 0);
    assert_int_equal(ctrl_got, 1);
    assert_int_equal(s->c.lb_ctrl_packets, 1);
    run_free(&r);
}

/* The ACK echoes the path its data packet carried, and carries none itself. */
static uint32_t echoes, echo_bad;
static void echo_on_ack(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *ack)
{
    (void)s, (void)st, (void)par;
    uint32_t want = lb_path_word(s, 0, 1, qp->id % 4);
    echoes++;
    echo_bad += ack->lb.echo_path != want || ack->lb.path != PATH_NONE;
}

static void test_ack_echo(void **state)
{
    (void)state;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 4\n"
                  "[transport]\ncc = none\n[traffic]\npattern = none\n");
    for (uint32_t i = 0; i < 4; i++)
        run_add_flow(&r, i, 4 + i, 50000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    s->lb = &pin_ops;
    struct cc_ops cc = *s->slot[0].ops;
    cc.on_ack = echo_on_ack;
    s->slot[0].ops = &cc;
    echoes = echo_bad = 0;
    sim_run(s);
    run_check_clean(&r);
    assert_int_equal(echoes, 4 * 49); /* the last ACK of each flow completes it before the CC hears it */
    assert_int_equal(echo_bad, 0);
    run_free(&r);
}

/* The NIC's transmit hold: a scheme that holds every 10th packet of a lone
 * line-rate flow for 2 us adds exactly 100 x 2 us to the 1 MB flow's FCT
 * (87,933.44 ns alone, tests/test_sim.c), and the NIC counts the holds. */
static uint64_t hold_seq = UINT64_MAX;
static simtime_t hold_until;
static simtime_t hold_every10(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)st, (void)par;
    if (qp->snd_nxt % 10000)
        return -1;
    if (hold_seq != qp->snd_nxt) { /* asked again for the same packet: the same answer */
        hold_seq = qp->snd_nxt;
        hold_until = lb_now(s) + 2 * T_US;
    }
    return hold_until;
}

static void test_tx_hold(void **state)
{
    (void)state;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n"
                  "[transport]\ncc = none\n[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 1, 1000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    struct cc_ops cc = *s->slot[0].ops;
    cc.tx_hold = hold_every10;
    s->slot[0].ops = &cc;
    s->n_hold = 1;
    hold_seq = UINT64_MAX;
    sim_run(s);
    run_check_clean(&r);
    const struct qp *f = &s->flows[0];
    assert_int_equal(f->held, 100);
    assert_int_equal(f->held_time, 100 * 2 * T_US);
    assert_int_equal(f->finish - f->start, 87933440 + 100 * 2 * T_US);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_enumerate), cmocka_unit_test(test_source_routing),
        cmocka_unit_test(test_ecmp_in_order),   cmocka_unit_test(test_reorder_buffer),
        cmocka_unit_test(test_timers_and_ctrl), cmocka_unit_test(test_ack_echo),
        cmocka_unit_test(test_tx_hold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
