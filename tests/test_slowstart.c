/* Slow start (transport.slowstart, src/cc/slowstart.c), the rate
 * initialisation PB-FS's Fig. 7 compares against: a lone flow starting at
 * line/2^K and doubling per base RTT loses exactly (K - 1 + 2^-K) base RTTs
 * against fast start (the bytes it did not send while below line rate), and
 * the first congestion signal ends slow start at the rate that met it. */
#include "simrun.h"
#include "testutil.h"
#include <stdio.h>
#include <string.h>
#include "net/net.h"

#define LINE 100000000000ULL

static simtime_t lone_fct(bool ss, simtime_t *base_rtt, uint64_t *held)
{
    struct run r;
    char ini[512];
    /* 10 us links: a base RTT holds several packets even at line/64 */
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\nlink_delay = 10us\n"
             "[traffic]\npattern = none\n[transport]\ncc = none\n%s",
             ss ? "slowstart = on\n[cc.slowstart]\nstart_rate = 1.5625Gbps\n" : "");
    run_setup(&r, ini);
    run_add_flow(&r, 0, 1, 4000000, 0);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_clean(&r);
    const struct qp *f = &r.sc.sim.flows[0];
    simtime_t fct = f->finish - f->start;
    *base_rtt = f->base_rtt;
    *held = f->held;
    run_free(&r);
    return fct;
}

static void test_lone_flow_loss_is_analytic(void **state)
{
    (void)state;
    simtime_t b, b2;
    uint64_t held, held2;
    simtime_t fast = lone_fct(false, &b, &held);
    simtime_t slow = lone_fct(true, &b2, &held2);
    assert_int_equal(b, b2);
    assert_int_equal(held, 0);
    assert_true(held2 > 0);
    /* K = 6 doublings from line/64: 6 - 1 + 1/64 base RTTs later. Each
     * doubling may find one packet paced at the old rate: at most 2 packet
     * times at the start rate in all. */
    double expect = (6 - 1 + 1.0 / 64) * (double)b;
    double slack = 2.0 * (double)tx_time(1048, LINE / 64);
    double got = (double)(slow - fast);
    print_message("base RTT %.3f us, slow start costs %.3f us, analytic %.3f us (+- %.3f)\n", b / 1e6, got / 1e6,
                  expect / 1e6, slack / 1e6);
    assert_true(got > expect - slack && got < expect + slack);
}

/* The hooks, clock set by hand: the cap doubles per base RTT, a packet waits
 * for its serialisation time at the cap, and an ECN echo ends slow start at
 * the cap (the CC's line rate is brought down to it). */
static void test_signal_ends_slow_start(void **state)
{
    (void)state;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n"
                  "[transport]\ncc = none\nslowstart = on\n[cc.slowstart]\nstart_rate = 1Gbps\n[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 1, 10000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    struct qp *q = &s->flows[0];
    const struct cc_slot *c = &s->slot[1];
    assert_string_equal(c->ops->name, "slowstart");
    void *st = slot_state(c, 0);
    q->rate = q->max_rate = LINE; /* as the flow's start sets them */
    q->base_rtt = 10000000;      /* 10 us */
    c->ops->init(s, q, st, c->par);
    assert_int_equal(q->rate, LINE);
    assert_true(c->ops->tx_hold(s, q, st, c->par) <= s->now); /* the first packet goes at once */
    struct pkt p;
    memset(&p, 0, sizeof p);
    p.size = 1048;
    c->ops->on_send(s, q, st, c->par, &p);
    assert_int_equal(c->ops->tx_hold(s, q, st, c->par), s->now + tx_time(1048, 1000000000ULL));
    s->now += 2 * q->base_rtt; /* two doublings: 4 Gbps */
    c->ops->on_send(s, q, st, c->par, &p);
    assert_int_equal(c->ops->tx_hold(s, q, st, c->par), s->now + tx_time(1048, 4000000000ULL));
    struct pkt ack;
    memset(&ack, 0, sizeof ack);
    ack.type = PKT_ACK;
    c->ops->on_ack(s, q, st, c->par, &ack); /* unmarked: nothing changes */
    assert_int_equal(q->rate, LINE);
    ack.flags = PF_ECN_ECHO;
    c->ops->on_ack(s, q, st, c->par, &ack);
    assert_int_equal(q->rate, 4000000000ULL);
    assert_true(c->ops->tx_hold(s, q, st, c->par) <= s->now); /* the CC alone paces from here */
    s->now += 10 * q->base_rtt;
    assert_int_equal(q->rate, 4000000000ULL);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lone_flow_loss_is_analytic),
        cmocka_unit_test(test_signal_ends_slow_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
