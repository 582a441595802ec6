/* Rate laws of HPCC, TIMELY and DCTCP against hand-computed trajectories.
 * The schemes are driven directly through their cc_ops with a fake flow and
 * crafted ACKs; a bare struct sim only provides the clock (and the one NIC
 * that cc_change_rate wakes). */
#include "testutil.h"
#include "ccfix.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "net/net.h"

extern const struct cc_ops cc_hpcc, cc_timely, cc_dctcp;

#define G100 100000000000ULL
#define G50 50000000000ULL

/* A flow from host 0 at 100 Gbps, base RTT 10 us, window 125 KB (its BDP). */
static void fix_init_cc(struct fix *f, const struct cc_ops *cc, uint64_t start_rate)
{
    fix_init(f, cc, start_rate);
    f->qp.win = 125000;
}

/* An ACK for `seq` (the sender has sent up to snd_nxt), optionally marked. */
static void ack(struct fix *f, uint64_t seq, uint64_t snd_nxt, const struct pkt *tmpl)
{
    struct pkt a;
    memset(&a, 0, sizeof a);
    if (tmpl)
        a = *tmpl;
    a.type = PKT_ACK;
    a.seq = seq;
    if (seq > f->qp.snd_una)
        f->qp.snd_una = seq;
    f->qp.snd_nxt = snd_nxt;
    f->cc->on_ack(&f->s, &f->qp, f->st, f->par, &a);
}

/* ------------------------------------------------------------------ HPCC */

/* One INT record per hop; each call advances the hop clocks by `tau` and the
 * transmitted bytes by `bytes` (multiples of ns-3's 128-byte unit). */
struct int_feed {
    struct pkt p;
};

static void int_step(struct int_feed *in, int hop, simtime_t tau, uint64_t bytes, uint32_t qlen)
{
    struct int_hop *h = &in->p.hop[hop];
    if (in->p.nhop <= hop)
        in->p.nhop = (uint8_t)(hop + 1);
    h->ts += tau;
    h->tx_bytes += bytes;
    h->qlen = qlen;
    h->rate = G100;
}

static bool near(uint64_t a, uint64_t b, uint64_t tol) { return a > b ? a - b <= tol : b - a <= tol; }

/* The ns-3 update by hand. One hop at 100 Gbps, records 1.024 us apart,
 * 12 800 B sent in between (exactly 100 Gbps) and 100 KB queued both times:
 *   u = 100e9/100e9 + 100000 · 100e9 / 100e9 / 125000 = 1 + 0.8 = 1.8
 *   U = (1 · (10 - 1.024) + 1.8 · 1.024) / 10 = 1.08192     (U starts at 1)
 *   k = U / 0.95 = 1.1388631578947...
 *   R = trunc(100e9 / k) + 50e6 = 87 806 861 875 + 50 000 000 = 87 856 861 875 bps */
static void test_hpcc_full_update(void **state)
{
    (void)state;
    struct fix f;
    fix_init_cc(&f, &cc_hpcc, G100);
    fix_start(&f);
    struct int_feed in = {0};
    in.p.hop[0].ts = 50 * T_US;
    in.p.hop[0].tx_bytes = 1280000;
    int_step(&in, 0, 0, 0, 100000);
    /* first ACK: records only */
    ack(&f, 1000, 10000, &in.p);
    assert_int_equal(f.qp.rate, G100);
    /* second ACK, past snd_nxt of the first: the full update */
    int_step(&in, 0, 1024 * T_NS, 12800, 100000);
    f.qp.last_pkt_size = 1078;
    simtime_t na = f.qp.next_avail;
    ack(&f, 11000, 20000, &in.p);
    uint64_t r1 = f.qp.rate;
    print_message("hpcc full update: %llu bps\n", (unsigned long long)r1);
    assert_true(near(r1, 87856861875ULL, 2));
    /* applied as ns-3's ChangeRate: the next send moves by the difference in
     * the last packet's serialisation time */
    assert_int_equal(f.qp.next_avail, na + tx_time(1078, r1) - tx_time(1078, G100));
    fix_free(&f);
}

/* ACKs below the sequence of the last full update only fast-react: they pace
 * at Rc / k + ai from the committed Rc, but never commit it. The U estimate
 * keeps moving on every ACK.
 *   after the full update above: Rc = R1 = 87 856 861 875, U1 = 1.08192
 *   fast ACK 1: U2 = (U1 · 8.976 + 1.8 · 1.024) / 10 = 1.155451392
 *               R = trunc(R1 / (U2 / 0.95)) + 50e6 = 72 284 989 164
 *   fast ACK 2: U3 = (U2 · 8.976 + 1.8432) / 10, R = trunc(R1 / (U3/0.95)) + 50e6
 *               (from R1 again, not from the paced rate)
 *   full ACK:   U4 likewise, R = trunc(R1 / (U4/0.95)) + 50e6, now committed. */
static void test_hpcc_fast_react(void **state)
{
    (void)state;
    struct fix f;
    fix_init_cc(&f, &cc_hpcc, G100);
    fix_start(&f);
    struct int_feed in = {0};
    int_step(&in, 0, 50 * T_US, 1280000, 100000);
    ack(&f, 1000, 10000, &in.p);
    int_step(&in, 0, 1024 * T_NS, 12800, 100000);
    ack(&f, 11000, 20000, &in.p); /* full: last update seq = 20000 */
    uint64_t r1 = f.qp.rate;
    double u = 1.08192;

    int_step(&in, 0, 1024 * T_NS, 12800, 100000);
    ack(&f, 12000, 21000, &in.p); /* 12000 <= 20000: fast react */
    u = (u * 8.976 + 1.8 * 1.024) / 10;
    assert_true(near(f.qp.rate, 72284989164ULL, 2));
    assert_true(near(f.qp.rate, (uint64_t)((double)r1 / (u / 0.95)) + 50000000, 2));

    int_step(&in, 0, 1024 * T_NS, 12800, 100000);
    ack(&f, 13000, 22000, &in.p); /* fast again: from R1, not from the rate just paced */
    u = (u * 8.976 + 1.8 * 1.024) / 10;
    uint64_t expect = (uint64_t)((double)r1 / (u / 0.95)) + 50000000;
    assert_true(near(f.qp.rate, expect, 2));

    int_step(&in, 0, 1024 * T_NS, 12800, 100000);
    ack(&f, 21000, 30000, &in.p); /* 21000 > 20000: full, commits */
    u = (u * 8.976 + 1.8 * 1.024) / 10;
    uint64_t r2 = (uint64_t)((double)r1 / (u / 0.95)) + 50000000;
    assert_true(near(f.qp.rate, r2, 2));

    int_step(&in, 0, 1024 * T_NS, 12800, 100000);
    ack(&f, 22000, 31000, &in.p); /* fast: now from R2 */
    u = (u * 8.976 + 1.8 * 1.024) / 10;
    assert_true(near(f.qp.rate, (uint64_t)((double)r2 / (u / 0.95)) + 50000000, 2));
    print_message("hpcc rates: R1 %.3f  R2 %.3f  fast from R2 %.3f Gbps\n", r1 / 1e9, r2 / 1e9, f.qp.rate / 1e9);

    /* with fast_react off the same in-between ACK changes nothing */
    struct fix g;
    fix_init_cc(&g, &cc_hpcc, G100);
    fix_params(&g, "fast_react", "off");
    fix_start(&g);
    struct int_feed in2 = {0};
    int_step(&in2, 0, 50 * T_US, 1280000, 100000);
    ack(&g, 1000, 10000, &in2.p);
    int_step(&in2, 0, 1024 * T_NS, 12800, 100000);
    ack(&g, 11000, 20000, &in2.p);
    uint64_t before = g.qp.rate;
    int_step(&in2, 0, 1024 * T_NS, 12800, 100000);
    ack(&g, 12000, 21000, &in2.p);
    assert_int_equal(g.qp.rate, before);
    fix_free(&g);
    fix_free(&f);
}

/* Below the target: with mi_thresh = 5 (ns-3's attribute default) HPCC adds
 * rate_ai per full update for five updates, then takes one multiplicative
 * step Rc / k + ai. Hop at 50 Gbps, no queue: u = 0.5,
 *   U1 = (1 · 8.976 + 0.5 · 1.024) / 10 = 0.9488, k = 0.99873... < 1
 *   R: 50.00 -> 50.05 -> 50.10 -> 50.15 -> 50.20 -> 50.25 Gbps (stages 1..5)
 *   6th: stage 5 >= 5: R = trunc(50.25e9 / k6) + 50e6, stage 0. */
static void test_hpcc_additive_increase(void **state)
{
    (void)state;
    struct fix f;
    fix_init_cc(&f, &cc_hpcc, G50);
    fix_params(&f, "mi_thresh", "5");
    fix_start(&f);
    struct int_feed in = {0};
    int_step(&in, 0, 50 * T_US, 1280000, 0);
    ack(&f, 1000, 10000, &in.p);
    double u = 1;
    uint64_t seq = 10000;
    for (int i = 1; i <= 5; i++) {
        int_step(&in, 0, 1024 * T_NS, 6400, 0);
        ack(&f, seq + 1000, seq + 10000, &in.p);
        seq += 10000;
        u = (u * 8.976 + 0.5 * 1.024) / 10;
        assert_true(u / 0.95 < 1);
        assert_int_equal(f.qp.rate, G50 + (uint64_t)i * 50000000);
    }
    assert_true(fabs(0.9488 - (1 * 8.976 + 0.5 * 1.024) / 10) < 1e-12);
    int_step(&in, 0, 1024 * T_NS, 6400, 0);
    ack(&f, seq + 1000, seq + 10000, &in.p);
    u = (u * 8.976 + 0.5 * 1.024) / 10;
    uint64_t expect = (uint64_t)(50250000000.0 / (u / 0.95)) + 50000000;
    print_message("hpcc AI x5 then MI: %.4f Gbps (U %.4f)\n", f.qp.rate / 1e9, u);
    assert_true(near(f.qp.rate, expect, 2));
    assert_true(f.qp.rate > 50300000000ULL); /* the multiplicative step beats one more AI */
    fix_free(&f);

    /* HPCC's shipped config (mi_thresh 0) multiplies right away: Rc / k + ai */
    fix_init_cc(&f, &cc_hpcc, G50);
    fix_start(&f);
    struct int_feed in2 = {0};
    int_step(&in2, 0, 50 * T_US, 1280000, 0);
    ack(&f, 1000, 10000, &in2.p);
    int_step(&in2, 0, 1024 * T_NS, 6400, 0);
    ack(&f, 11000, 20000, &in2.p);
    assert_true(near(f.qp.rate, (uint64_t)(50e9 / (0.9488 / 0.95)) + 50000000, 2));
    fix_free(&f);
}

/* Per-hop rates (multi_rate on): a congested hop and an idle one; the flow
 * takes the smaller hop rate, here the congested hop's 87.857 Gbps as in the
 * single-rate case (the idle hop asks for more than line rate, so 100). */
static void test_hpcc_multi_rate(void **state)
{
    (void)state;
    struct fix f;
    fix_init_cc(&f, &cc_hpcc, G100);
    fix_params(&f, "multi_rate", "on");
    fix_start(&f);
    struct int_feed in = {0};
    int_step(&in, 0, 50 * T_US, 1280000, 100000);
    int_step(&in, 1, 50 * T_US, 640000, 0);
    ack(&f, 1000, 10000, &in.p);
    int_step(&in, 0, 1024 * T_NS, 12800, 100000);
    int_step(&in, 1, 1024 * T_NS, 6400, 0);
    ack(&f, 11000, 20000, &in.p);
    assert_true(near(f.qp.rate, 87856861875ULL, 2));
    fix_free(&f);
}

/* ------------------------------------------------------------------ TIMELY */

static void timely_ack(struct fix *f, uint64_t seq, uint64_t snd_nxt, simtime_t rtt)
{
    struct pkt a;
    memset(&a, 0, sizeof a);
    a.ts = f->s.now - rtt;
    ack(f, seq, snd_nxt, &a);
    f->s.now += T_US;
}

/* Starting at 50 Gbps, one update per window of data:
 *  rtt 30 us   first window: records the RTT only                  50.000
 *  rtt 40 us   < t_low: +50 Mbps                                    50.050
 *              d = 0.875 · 10 us = 8.75 us
 *  rtt 600 us  > t_high: x (1 - 0.8 (1 - 500/600)) = x 0.866...     43.376 666 666
 *              d = 0.125 · 8.75 + 0.875 · 560 = 491.09375 us
 *  rtt 400 us  d = 0.125 · 491.09375 - 0.875 · 200 = -113.61328125 us
 *              gradient < 0: +50 Mbps                               43.426 666 666
 *  rtt 420 us  d = 0.125 · -113.61328125 + 0.875 · 20 = 3.29833984375 us
 *              g = d / 20 us = 0.1649169921875
 *              x (1 - 0.8 g) = x 0.86806640625                      37.697 230 ... */
static void test_timely_trajectory(void **state)
{
    (void)state;
    struct fix f;
    fix_init_cc(&f, &cc_timely, G50);
    fix_start(&f);
    timely_ack(&f, 1000, 10000, 30 * T_US);
    assert_int_equal(f.qp.rate, G50);
    timely_ack(&f, 11000, 20000, 40 * T_US);
    assert_int_equal(f.qp.rate, 50050000000ULL);
    /* an ACK inside the window changes nothing */
    timely_ack(&f, 15000, 21000, 900 * T_US);
    assert_int_equal(f.qp.rate, 50050000000ULL);
    timely_ack(&f, 21000, 30000, 600 * T_US);
    assert_true(near(f.qp.rate, 43376666666ULL, 1));
    uint64_t r = f.qp.rate;
    timely_ack(&f, 31000, 40000, 400 * T_US);
    assert_int_equal(f.qp.rate, r + 50000000);
    r = f.qp.rate;
    timely_ack(&f, 41000, 50000, 420 * T_US);
    uint64_t expect = (uint64_t)((double)r * 0.86806640625);
    print_message("timely: 50.05 -> %.6f -> %.6f -> %.6f Gbps\n", 43376666666 / 1e9, r / 1e9, f.qp.rate / 1e9);
    assert_true(near(f.qp.rate, expect, 1));
    fix_free(&f);
}

/* Increases in a row: +rate_ai for the first five, then +rate_hai; a
 * decrease resets the count; min_rate floors a deep cut. */
static void test_timely_hai_and_floor(void **state)
{
    (void)state;
    struct fix f;
    fix_init_cc(&f, &cc_timely, G50);
    fix_start(&f);
    uint64_t seq = 0;
    timely_ack(&f, seq + 1000, seq + 10000, 30 * T_US);
    seq += 10000;
    uint64_t r = G50;
    for (int i = 0; i < 7; i++) {
        timely_ack(&f, seq + 1000, seq + 10000, 30 * T_US);
        seq += 10000;
        r += i < 5 ? 50000000 : 100000000;
        assert_int_equal(f.qp.rate, r);
    }
    /* 100 ms RTT: x (1 - 0.8 (1 - 0.005)) = x 0.204 */
    timely_ack(&f, seq + 1000, seq + 10000, 100 * T_MS);
    seq += 10000;
    r = (uint64_t)((double)r * (1 - 0.8 * (1 - 500e-6 / 100e-3)));
    assert_true(near(f.qp.rate, r, 1));
    timely_ack(&f, seq + 1000, seq + 10000, 30 * T_US);
    seq += 10000;
    assert_int_equal(f.qp.rate, r + 50000000); /* stage reset: AI again */
    for (int i = 0; i < 8; i++) { /* flat RTTs: the smoothed difference decays by 1/8 each */
        timely_ack(&f, seq + 1000, seq + 10000, 30 * T_US);
        seq += 10000;
    }
    /* then +469 us in one window: gradient ~ 0.875 * 469 / 20 = 20.5, so
     * 1 - 0.8 g < 0 is clipped to 0 and the rate lands on min_rate */
    timely_ack(&f, seq + 1000, seq + 10000, 499 * T_US);
    assert_int_equal(f.qp.rate, 100000000);
    /* and the increase never passes line rate */
    fix_free(&f);
    fix_init_cc(&f, &cc_timely, G100);
    fix_start(&f);
    timely_ack(&f, 1000, 10000, 30 * T_US);
    timely_ack(&f, 11000, 20000, 30 * T_US);
    assert_int_equal(f.qp.rate, G100);
    fix_free(&f);
}

/* ------------------------------------------------------------------ DCTCP */

static void dctcp_ack(struct fix *f, uint64_t seq, uint64_t snd_nxt, bool marked)
{
    struct pkt a;
    memset(&a, 0, sizeof a);
    a.flags = marked ? PF_CNP : 0;
    ack(f, seq, snd_nxt, &a);
}

/* MTU 1000, start at 50 Gbps, alpha 1, g = 1/16:
 *  ACK 1000 (snd_nxt 10000): first window: mark at 10000, batch 10/1000+1 = 11,
 *                            +1 Gbps                                   51.0
 *  ACKs 2000..10000 with 3 of 9 marked, snd_nxt 20000: the first mark cuts
 *      x (1 - 1/2) (alpha still 1), enters CWR until 20000            25.5
 *  ACK 11000 (unmarked): window done: F = 3/11, alpha = 15/16 + F/16 = 0.954545...;
 *      batch = (20000 - 11000)/1000 + 1 = 10; still CWR: no increase   25.5
 *  ACK 21000 (unmarked): leaves CWR; window: F = 0, alpha = 0.894886...;
 *      +1 Gbps                                                         26.5
 *  ACK 22000 marked: cut x (1 - alpha/2) = x 0.552556...               14.642 ... */
static void test_dctcp_alpha_and_cut(void **state)
{
    (void)state;
    struct fix f;
    fix_init_cc(&f, &cc_dctcp, G50);
    fix_start(&f);
    assert_null(cc_dctcp.on_cnp);
    dctcp_ack(&f, 1000, 10000, false);
    assert_int_equal(f.qp.rate, 51000000000ULL);
    for (uint64_t s = 2000; s <= 10000; s += 1000)
        dctcp_ack(&f, s, 20000, s == 3000 || s == 6000 || s == 9000);
    assert_int_equal(f.qp.rate, 25500000000ULL);
    dctcp_ack(&f, 11000, 20000, false);
    assert_int_equal(f.qp.rate, 25500000000ULL);
    double alpha = 15.0 / 16 + (3.0 / 11) / 16;
    dctcp_ack(&f, 21000, 30000, false);
    alpha = 15.0 / 16 * alpha;
    assert_int_equal(f.qp.rate, 26500000000ULL);
    dctcp_ack(&f, 22000, 31000, true);
    uint64_t expect = (uint64_t)(26.5e9 * (1 - alpha / 2));
    print_message("dctcp: alpha %.6f, 26.5 -> %.6f Gbps\n", alpha, f.qp.rate / 1e9);
    assert_true(fabs(alpha - 0.8948863636) < 1e-9);
    assert_true(near(f.qp.rate, expect, 1));
    /* in CWR until 31000 is acknowledged: further marks do not cut */
    dctcp_ack(&f, 23000, 31000, true);
    assert_true(near(f.qp.rate, expect, 1));
    fix_free(&f);
}

/* The rate never drops below min_rate and never rises above line rate. */
static void test_dctcp_bounds(void **state)
{
    (void)state;
    struct fix f;
    fix_init_cc(&f, &cc_dctcp, 150000000);
    fix_start(&f);
    dctcp_ack(&f, 1000, 2000, true); /* alpha 1: halves 150 -> 75 Mbps, floored at 100 */
    assert_int_equal(f.qp.rate, 100000000);
    fix_free(&f);
    fix_init_cc(&f, &cc_dctcp, G100);
    fix_start(&f);
    dctcp_ack(&f, 1000, 10000, false);
    assert_int_equal(f.qp.rate, G100);
    fix_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hpcc_full_update),
        cmocka_unit_test(test_hpcc_fast_react),
        cmocka_unit_test(test_hpcc_additive_increase),
        cmocka_unit_test(test_hpcc_multi_rate),
        cmocka_unit_test(test_timely_trajectory),
        cmocka_unit_test(test_timely_hai_and_floor),
        cmocka_unit_test(test_dctcp_alpha_and_cut),
        cmocka_unit_test(test_dctcp_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
