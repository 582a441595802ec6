/* HF²T (APNet'24) and the sender gap measurement it rests on: a lone
 * line-rate flow's gaps all equal one packet's serialisation; HF²T's hooks,
 * driven with a hand-built gap sequence, hold exactly the gaps §4.2-4.3 say
 * (T = the learned percentile, α by Eq. 1) until the flowlet timeout; and in
 * a whole run beside LetFlow it raises the share of gaps >= 2 RTT and the
 * flowlets the switches see, never dropping in lossless mode. */
#include "simrun.h"
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net/net.h"

static void test_lone_flow_gaps(void **state)
{
    (void)state;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n"
                  "[transport]\ncc = none\n[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 1, 1000000, 0);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_clean(&r);
    const struct qp *f = &r.sc.sim.flows[0];
    assert_int_equal(f->gaps, 999);
    assert_int_equal(f->gap_min, tx_time(1048, 100000000000ULL)); /* 83.84 ns: back to back at line rate */
    assert_int_equal(f->gap_max, f->gap_min);
    assert_int_equal(f->gaps_rtt[0], 0);
    run_free(&r);
}

/* The companion's hooks on a built scenario, with the clock set by hand. */
struct drive {
    struct run r;
    struct sim *s;
    struct qp *qp;
    const struct cc_slot *c;
};

static void drive_setup(struct drive *d, bool dynamic)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 1\n"
             "[transport]\ncc = none\nhf2t = on\n[lb]\nscheme = letflow\n[lb.letflow]\ntimeout = 100us\n"
             "[cc.hf2t]\ntrain = 1000\ndynamic = %s\n[traffic]\npattern = none\n",
             dynamic ? "on" : "off");
    run_setup(&d->r, ini);
    run_add_flow(&d->r, 0, 1, 100000000, 0);
    run_build(&d->r);
    d->s = &d->r.sc.sim;
    d->qp = &d->s->flows[0];
    d->c = &d->s->slot[1];
    assert_string_equal(d->c->ops->name, "hf2t");
    d->c->ops->init(d->s, d->qp, slot_state(d->c, 0), d->c->par);
}

/* One packet after `gap`: the time HF²T holds it until, or -1; the packet
 * then leaves at that time (or now). */
static simtime_t step(struct drive *d, simtime_t gap)
{
    struct sim *s = d->s;
    void *st = slot_state(d->c, 0);
    s->now += gap;
    d->qp->snd_nxt += 1000;
    simtime_t until = d->c->ops->tx_hold(s, d->qp, st, d->c->par);
    assert_int_equal(d->c->ops->tx_hold(s, d->qp, st, d->c->par), until); /* asked again: same answer */
    bool held = until > s->now;
    if (held)
        s->now = until;
    struct pkt p;
    memset(&p, 0, sizeof p);
    d->c->ops->on_send(s, d->qp, st, d->c->par, &p);
    return held ? until : -1;
}

static void test_hold_rule(void **state)
{
    (void)state;
    struct drive d;
    /* No dynamic T (alpha 1). Train on 1200 gaps of 1 us: T = their p99, to
     * the histogram's bucket (983,040 ps). Then below T nothing; in
     * [T, timeout) held until the previous packet + the 100 us timeout; at or
     * beyond the timeout nothing. */
    drive_setup(&d, false);
    step(&d, 0);
    for (int i = 0; i < 1200; i++)
        step(&d, T_US);
    assert_int_equal(step(&d, 900 * T_NS), -1);
    assert_int_equal(step(&d, 970 * T_NS), -1);
    simtime_t prev = d.s->now;
    assert_int_equal(step(&d, 50 * T_US), prev + 100 * T_US);
    prev = d.s->now;
    assert_int_equal(step(&d, 2 * T_US), prev + 100 * T_US);
    assert_int_equal(step(&d, 150 * T_US), -1);
    run_free(&d.r);

    /* Dynamic T, alpha by Eq. 1 (min_thr 20, max_thr 80), x counting from 1
     * at the packet that ends a stretched gap. */
    drive_setup(&d, true);
    step(&d, 0);
    for (int i = 0; i < 1200; i++)
        step(&d, T_US);
    prev = d.s->now;
    assert_int_equal(step(&d, 50 * T_US), prev + 100 * T_US); /* >= 20 T: stretched whatever x; now x = 1 */
    assert_int_equal(step(&d, 10 * T_US), -1);                /* x = 1: alpha 20, 10 us < 19.7 us */
    for (int i = 0; i < 7; i++)
        assert_int_equal(step(&d, 500 * T_NS), -1);           /* x = 2..8 */
    assert_int_equal(step(&d, 1500 * T_NS), -1);              /* x = 9: alpha 2.22, < 2.18 us */
    prev = d.s->now;
    assert_int_equal(step(&d, 2500 * T_NS), prev + 100 * T_US); /* x = 10: alpha 2, >= 1.97 us */
    for (int i = 0; i < 100; i++)
        assert_int_equal(step(&d, 500 * T_NS), -1);           /* x = 1..100; at 100 alpha 0.8: 0.79 us */
    prev = d.s->now;
    assert_int_equal(step(&d, 800 * T_NS), prev + 100 * T_US); /* x = 101: alpha 0.79, >= 0.78 us */
    run_free(&d.r);
}

/* A fabric run: LetFlow alone, then with HF²T. HF²T must hold some packets,
 * raise the share of sender gaps >= 2 RTT and the flowlets seen at the first
 * switch, and keep the lossless invariants. */
static void fabric(struct run *r, bool hf2t, uint64_t *flowlets, double *share2, uint64_t *held)
{
    char ini[640];
    bool asan = getenv("ROCESIM_SANITIZED") != NULL;
    snprintf(ini, sizeof ini,
             "[topology]\ntype = fattree\nk = 4\n[transport]\ncc = dcqcn\nhf2t = %s\n"
             "[lb]\nscheme = letflow\n[cc.hf2t]\ntrain = 2000\n"
             "[traffic]\npattern = poisson\ncdf = web_search\nload = 0.7\nduration = %s\n",
             hf2t ? "on" : "off", asan ? "1ms" : "3ms");
    run_setup(r, ini);
    run_build(r);
    sim_run(&r->sc.sim);
    run_check_invariants(r);
    const struct sim *s = &r->sc.sim;
    uint64_t gaps = 0, g2 = 0;
    *flowlets = *held = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        gaps += s->flows[i].gaps;
        g2 += s->flows[i].gaps_rtt[1];
        *flowlets += s->flows[i].flowlets;
        *held += s->flows[i].held;
    }
    *share2 = (double)g2 / (double)gaps;
}

static void test_fabric(void **state)
{
    (void)state;
    struct run a, b;
    uint64_t fa, fb, ha, hb;
    double sa, sb;
    fabric(&a, false, &fa, &sa, &ha);
    fabric(&b, true, &fb, &sb, &hb);
    print_message("LetFlow: %llu flowlets, gaps >= 2 RTT %.4f %%; + HF2T: %llu flowlets, %.4f %%, %llu packets held\n",
                  (unsigned long long)fa, 100 * sa, (unsigned long long)fb, 100 * sb, (unsigned long long)hb);
    assert_int_equal(ha, 0);
    assert_true(hb > 0);
    assert_true(sb > sa);
    assert_true(fb > fa);
    run_free(&a);
    run_free(&b);
}

/* scenarios/hf2t.ini (the paper's §5 setup): LetFlow with HF2T at the
 * senders; its first 2 ms (past the pre-training) hold packets, without a drop. */
static void test_scenario(void **state)
{
    (void)state;
    struct run r;
    run_setup_file(&r, ROCESIM_SOURCE_DIR "/scenarios/hf2t.ini");
    run_build(&r);
    const struct sim *s = &r.sc.sim;
    assert_string_equal(s->lb->name, "letflow");
    assert_int_equal(s->n_slot, 2); /* the CC and HF2T */
    assert_string_equal(s->slot[1].ops->name, "hf2t");
    r.sc.sim.p.stop = 2 * T_MS; /* past each host's pre-training (10,000 gaps) */
    sim_run(&r.sc.sim);
    uint64_t held = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        held += s->flows[i].held;
    assert_true(held > 0);
    assert_int_equal(s->c.packets_dropped, 0);
    run_free(&r);
}

/* HF2T stretches gaps to a flowlet balancer's timeout: without one the
 * configuration is refused at the line that switched it on. */
static void test_needs_flowlet_lb(void **state)
{
    (void)state;
    struct config c;
    struct err e;
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load_ini(&c, "[transport]\nhf2t = on\n[lb]\nscheme = spray\n", "h.ini", &e), 0);
    assert_int_equal(config_validate(&c, &e), -1);
    assert_non_null(strstr(e.msg, "h.ini:2: transport.hf2t: hf2t works with the flowlet timeout"));
    config_free(&c);
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load_ini(&c, "[transport]\nhf2t = on\n[lb]\nscheme = letflow\n", "h.ini", &e), 0);
    assert_int_equal(config_validate(&c, &e), 0);
    config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lone_flow_gaps),
        cmocka_unit_test(test_hold_rule),
        cmocka_unit_test(test_fabric),
        cmocka_unit_test(test_scenario),
        cmocka_unit_test(test_needs_flowlet_lb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
