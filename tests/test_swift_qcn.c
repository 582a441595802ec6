/* Swift and QCN.
 *
 * The laws against hand-computed trajectories: Swift's additive increase
 * below the target, multiplicative decrease above it (clamped by max_mdf, at
 * most once per RTT), the target's scaling by hops and by the window, pacing
 * below one packet; QCN's congestion point (Fb from constructed queue
 * samples, its 6-bit quantisation, the sampling interval) and reaction point
 * (the decrease, fast recovery, active and hyper-active increase, the stale
 * target guard, release at line rate).
 *
 * Then whole runs: two long flows through one 100 Gbps bottleneck (dumbbell,
 * 2 senders -> 1 receiver) share it fairly with every invariant kept; Swift
 * holds the bottleneck queue at its target delay; QCN cuts an 8:1 incast's
 * rates and so keeps PFC from pausing, where transport.cc = none pauses. */
#include "testutil.h"
#include "ccfix.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net/net.h"
#include "simrun.h"

extern const struct cc_ops cc_swift, cc_qcn;

#define G100 100000000000ULL
#define G40 40000000000ULL

/* ------------------------------------------------------------------ fixture
 * A flow from host 0 at line rate 100 Gbps, base RTT 10 us, 3 links, last
 * packet 1044 B on the wire (1000 B payload + Swift's 44 B of headers). The
 * bare sim provides the clock and the one NIC cc_change_rate wakes. */

static void fix_init_sq(struct fix *f, const struct cc_ops *cc, uint64_t rate)
{
    fix_init(f, cc, rate);
    f->qp.hops = 3;
    f->qp.last_pkt_size = 1044;
}

static bool near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* ------------------------------------------------------------------ Swift */

struct swift_view { /* src/cc/swift.c's state, read back */
    double cwnd;
    uint64_t last_una;
    simtime_t rtt, t_last_decrease;
};

static double cwnd_of(const struct fix *f) { return ((const struct swift_view *)f->st)->cwnd; }

/* An ACK that acknowledges up to `una` and echoes a send time `delay` ago. */
static void swift_ack(struct fix *f, uint64_t una, simtime_t delay)
{
    struct pkt a;
    memset(&a, 0, sizeof a);
    a.type = PKT_ACK;
    a.seq = una;
    a.ts = f->s.now - delay;
    if (una > f->qp.snd_una)
        f->qp.snd_una = una;
    if (f->qp.snd_nxt < f->qp.snd_una)
        f->qp.snd_nxt = f->qp.snd_una;
    f->cc->on_ack(&f->s, &f->qp, f->st, f->par, &a);
}

static void swift_fix(struct fix *f, const char *init_cwnd, const char *fs_range)
{
    fix_init_sq(f, &cc_swift, G100);
    fix_params(f, "init_cwnd", init_cwnd);
    if (fs_range)
        fix_params(f, "fs_range", fs_range);
    fix_start(f);
}

/* The initial window is one BDP: 100 Gbps x 10 us = 125 000 B = 125 packets. */
static void test_swift_init(void **state)
{
    (void)state;
    struct fix f;
    fix_init_sq(&f, &cc_swift, G100);
    fix_start(&f);
    assert_true(near(cwnd_of(&f), 125, 1e-9));
    assert_int_equal(f.qp.win, 125000);
    assert_int_equal(f.qp.rate, G100);
    assert_int_equal(cc_swift.int_bytes, 8);
    fix_free(&f);
}

/* Below the target (no flow scaling: fs_range 0; 3 hops: 25 + 3 x 1 = 28 us)
 * every ACK adds ai x num_acked / cwnd:
 *   cwnd 10, 1 packet acked:   10 + 1/10         = 10.1            win 10 100
 *   2 packets acked:           10.1 + 2/10.1     = 10.29801980...  win 10 298
 * and ten single-packet ACKs (about a window) add 1/c each: 0.93 packet, so
 * about ai per RTT. */
static void test_swift_ai_below_target(void **state)
{
    (void)state;
    struct fix f;
    swift_fix(&f, "10", "0");
    swift_ack(&f, 1000, 20 * T_US);
    assert_true(near(cwnd_of(&f), 10.1, 1e-12));
    assert_int_equal(f.qp.win, 10100);
    swift_ack(&f, 3000, 20 * T_US);
    assert_true(near(cwnd_of(&f), 10.1 + 2 / 10.1, 1e-12));
    assert_int_equal(f.qp.win, 10298);
    assert_int_equal(f.qp.rate, G100);
    double w0 = cwnd_of(&f), c = w0;
    uint64_t una = 3000;
    for (int i = 0; i < 10; i++) { /* about one window of single-packet ACKs */
        una += 1000;
        f.s.now += T_US;
        swift_ack(&f, una, 27999 * T_NS); /* 1 ns under the target */
        c += 1 / c;
    }
    print_message("swift AI: 10 -> 10.1 -> %.6f, ten ACKs later %.6f\n", w0, cwnd_of(&f));
    assert_true(near(cwnd_of(&f), c, 1e-9));
    assert_true(cwnd_of(&f) - w0 > 0.9 && cwnd_of(&f) - w0 < 1); /* ~ai per window */
    fix_free(&f);
}

/* Above the target (28 us) the window is cut once per RTT:
 *   cwnd 100, delay 56 us:  x max(1 - 0.8 x 28/56, 0.5) = x 0.6   -> 60
 *   1 us later, delay 280:  no cut (1 us since the last one < rtt = 56 us)
 *   an ACK under the target (20 us) still adds: 60 + 1/60; rtt is now 20 us
 *   20 us after the cut, delay 280: 1 - 0.8 x 252/280 = 0.28, clamped to
 *                           1 - max_mdf = 0.5                     -> x 0.5
 *   a NACK 100 us later (< rtt = 280 us): nothing; 280 us later: x (1 - max_mdf) */
static void test_swift_md_above_target(void **state)
{
    (void)state;
    struct fix f;
    swift_fix(&f, "100", "0");
    swift_ack(&f, 1000, 56 * T_US);
    assert_true(near(cwnd_of(&f), 60, 1e-9));
    assert_int_equal(f.qp.win, 60000);
    simtime_t t_cut = f.s.now;
    f.s.now += T_US;
    swift_ack(&f, 2000, 280 * T_US);
    assert_true(near(cwnd_of(&f), 60, 1e-9));
    swift_ack(&f, 3000, 20 * T_US);
    double c = 60 + 1.0 / 60;
    assert_true(near(cwnd_of(&f), c, 1e-12));
    /* the rtt estimate is now 20 us: 20 us after the cut, 280 us of delay cuts, clamped */
    f.s.now = t_cut + 20 * T_US;
    swift_ack(&f, 4000, 280 * T_US);
    c *= 0.5;
    assert_true(near(cwnd_of(&f), c, 1e-9));
    /* a NACK within the rtt (280 us) does nothing, after it halves */
    struct pkt n;
    memset(&n, 0, sizeof n);
    n.type = PKT_NACK;
    n.seq = 4000;
    f.s.now += 100 * T_US;
    cc_swift.on_ack(&f.s, &f.qp, f.st, f.par, &n);
    assert_true(near(cwnd_of(&f), c, 1e-9));
    f.s.now += 180 * T_US;
    cc_swift.on_ack(&f.s, &f.qp, f.st, f.par, &n);
    assert_true(near(cwnd_of(&f), c * 0.5, 1e-9));
    print_message("swift MD: 100 -> 60 -> (+1/60) -> %.6f (clamped x0.5) -> NACK %.6f\n", c, cwnd_of(&f));
    fix_free(&f);
}

/* The target grows by per_hop_scaling per link: with 3 links it is 28 us, with
 * 8 links 33 us. A 30 us delay cuts the first (x (1 - 0.8 x 2/30)) and grows
 * the second (+1/50). A delay of exactly the target takes the decrease branch
 * with factor 1 (no change, and no "last decrease" either: the next larger
 * delay still cuts at once); 1 ps under it increases. */
static void test_swift_target_hops(void **state)
{
    (void)state;
    struct fix a, b;
    swift_fix(&a, "50", "0");
    swift_ack(&a, 1000, 30 * T_US);
    assert_true(near(cwnd_of(&a), 50 * (1 - 0.8 * 2 / 30.0), 1e-9));
    fix_free(&a);

    fix_init_sq(&b, &cc_swift, G100);
    b.qp.hops = 8;
    fix_params(&b, "init_cwnd", "50");
    fix_params(&b, "fs_range", "0");
    fix_start(&b);
    swift_ack(&b, 1000, 30 * T_US);
    assert_true(near(cwnd_of(&b), 50 + 1 / 50.0, 1e-12));
    double c = cwnd_of(&b);
    swift_ack(&b, 1000, 33 * T_US); /* == target: factor 1 */
    assert_true(near(cwnd_of(&b), c, 1e-12));
    swift_ack(&b, 2000, 33 * T_US - 1); /* 1 ps under: +1/c */
    assert_true(near(cwnd_of(&b), c + 1 / c, 1e-12));
    c = cwnd_of(&b);
    swift_ack(&b, 2000, 66 * T_US); /* still allowed to cut: 1 - 0.8 x 33/66 = 0.6 */
    assert_true(near(cwnd_of(&b), 0.6 * c, 1e-9));
    fix_free(&b);

    /* per_hop_scaling 2 us: 3 links -> 31 us; 30 us now increases */
    fix_init_sq(&a, &cc_swift, G100);
    fix_params(&a, "init_cwnd", "50");
    fix_params(&a, "fs_range", "0");
    fix_params(&a, "per_hop_scaling", "2us");
    fix_start(&a);
    swift_ack(&a, 1000, 30 * T_US);
    assert_true(near(cwnd_of(&a), 50.02, 1e-12));
    fix_free(&a);
}

/* Flow scaling with the defaults (fs_range 125 us over windows 400 B .. 400 KB):
 *   cwnd 1 (1000 B): fs = 125 x (1/sqrt(1000) - 1/sqrt(400000))
 *                              / (1/sqrt(400) - 1/sqrt(400000))
 *                       = 125 x 0.0300416 / 0.0484189 = 77.557 us
 *                    target = 28 + 77.557 = 105.557 us
 *   cwnd 400 (400 KB): fs = 0, target 28 us
 *   cwnd 0.2 (200 B < 400 B): fs = fs_range, target 153 us */
static void test_swift_flow_scaling(void **state)
{
    (void)state;
    struct fix f;
    swift_fix(&f, "1", NULL);
    swift_ack(&f, 1000, 105500 * T_NS); /* < 105.557: AI, cwnd >= 1: +1/1 */
    assert_true(near(cwnd_of(&f), 2, 1e-12));
    fix_free(&f);
    swift_fix(&f, "1", NULL);
    swift_ack(&f, 1000, 105600 * T_NS); /* > 105.557: cut */
    assert_true(near(cwnd_of(&f), 1 - 0.8 * (105.6 - 105.5568) / 105.6, 1e-4));
    assert_true(cwnd_of(&f) < 1);
    fix_free(&f);

    swift_fix(&f, "400", NULL);
    swift_ack(&f, 1000, 29 * T_US); /* fs 0: 29 > 28 cuts */
    assert_true(near(cwnd_of(&f), 400 * (1 - 0.8 / 29), 1e-9));
    fix_free(&f);

    swift_fix(&f, "0.2", NULL);
    swift_ack(&f, 1000, 152 * T_US); /* < 153: AI below one packet: + ai x 1 */
    assert_true(near(cwnd_of(&f), 1.2, 1e-12));
    fix_free(&f);
    swift_fix(&f, "0.2", NULL);
    swift_ack(&f, 1000, 154 * T_US);
    assert_true(near(cwnd_of(&f), 0.2 * (1 - 0.8 / 154), 1e-12));
    fix_free(&f);
}

/* Below one packet the window is one packet and the flow is paced at
 * cwnd x pkt / rtt:  cwnd 1, delay 280 us: x 0.5 -> 0.5, win 1000 B,
 *   rate = 0.5 x 1044 x 8 bit / 280 us = 14 914 285 bps;
 * an ACK under the target: cwnd < 1 adds ai x 1 -> 1.5, line rate again.
 * Cuts stop at min_cwnd (0.001). */
static void test_swift_pacing(void **state)
{
    (void)state;
    struct fix f;
    swift_fix(&f, "1", "0");
    f.qp.next_avail = f.s.now + 83 * T_NS;
    swift_ack(&f, 1000, 280 * T_US);
    assert_true(near(cwnd_of(&f), 0.5, 1e-12));
    assert_int_equal(f.qp.win, 1000);
    assert_true(near((double)f.qp.rate, 14914285.7, 1.0));
    /* applied as cc_change_rate: the next send moves by the serialisation difference */
    assert_int_equal(f.qp.next_avail, f.s.now + 83 * T_NS + tx_time(1044, f.qp.rate) - tx_time(1044, G100));
    print_message("swift pacing: cwnd 0.5, rtt 280 us -> %.3f Mbps (one 1044 B packet per 560 us)\n", f.qp.rate / 1e6);
    f.s.now += T_US;
    swift_ack(&f, 2000, 20 * T_US);
    assert_true(near(cwnd_of(&f), 1.5, 1e-12));
    assert_int_equal(f.qp.win, 1500);
    assert_int_equal(f.qp.rate, G100);
    for (int i = 0; i < 20; i++) {
        f.s.now += 10 * T_MS;
        swift_ack(&f, 2000, 5 * T_MS);
    }
    assert_true(near(cwnd_of(&f), 0.001, 1e-15));
    assert_true(f.qp.rate >= 1 && f.qp.rate < 2000000);
    fix_free(&f);
}

/* ------------------------------------------------------------------ QCN RP */

struct qcn_view { /* src/cc/qcn.c's reaction point, read back */
    uint64_t target;
    int64_t bytes_left;
    uint32_t byte_stage, time_stage;
    bool limited;
};

static const struct qcn_view *rp(const struct fix *f) { return f->st; }

static void qcn_fb(struct fix *f, uint64_t qfb)
{
    struct pkt m;
    memset(&m, 0, sizeof m);
    m.type = PKT_FEEDBACK;
    m.flags = PF_CC1;
    m.aux = qfb;
    cc_qcn.on_feedback(&f->s, &f->qp, f->st, f->par, &m);
}

/* The flow transmits `bytes` in 1000-byte packets. */
static void qcn_send(struct fix *f, uint64_t bytes)
{
    struct pkt d;
    memset(&d, 0, sizeof d);
    d.type = PKT_DATA;
    d.size = 1000;
    for (uint64_t b = 0; b < bytes; b += 1000)
        cc_qcn.on_send(&f->s, &f->qp, f->st, f->par, &d);
}

static void qcn_tick(struct fix *f)
{
    assert_true(f->qp.timer_at[0] > f->s.now);
    f->s.now = f->qp.timer_at[0];
    f->qp.timer_at[0] = -1;
    cc_qcn.on_timer(&f->s, &f->qp, f->st, f->par, 0);
}

/* From 40 Gbps (defaults: Gd 1/128, F 5, byte counter 150 KB, timer 1.5 ms,
 * R_AI 50 Mbps, R_HAI 500 Mbps), CR/TR in bps:
 *   Fb 32:            TR = 40e9, CR = 40e9 x (1 - 32/128)          = 30e9
 *   byte cycles 1-4:  fast recovery CR = ceil((CR + TR)/2):
 *                     35e9, 37.5e9, 38.75e9, 39.375e9
 *   byte cycle 5:     active increase TR 40.05e9, CR 39 712 500 000; cycles now 75 KB
 *   byte cycle 6:     TR 40.10e9, CR 39 906 250 000
 *   timer cycles 1-4 (1.5 ms each): active: TR +50 Mbps each,
 *                     CR 40 028 125 000, 40 114 062 500, 40 182 031 250, 40 241 015 625
 *   timer cycle 5:    both stages >= 5: hyper-active, i = min(6,5)-5+1 = 1:
 *                     TR 40.8e9, CR 40 520 507 813; timer now 0.75 ms
 *   byte cycle 7:     i = 1: TR 41.3e9, CR 40 910 253 907
 *   timer cycle 6:    i = min(7,6)-4 = 2: TR 42.3e9, CR 41 605 126 954
 *   Fb 63 x 4:        TR = CR once (then kept: no increase in between),
 *                     CR x 65/128 each: 21 127 603 531, 10 728 861 168,
 *                     5 448 249 811, 2 766 689 357
 *   byte cycle 1:     TR 41 605 126 954 > 10 x CR: TR / 8 = 5 200 640 869,
 *                     CR = 3 983 665 113 */
static void test_qcn_rp_trajectory(void **state)
{
    (void)state;
    struct fix f;
    fix_init_sq(&f, &cc_qcn, G40);
    fix_start(&f);
    qcn_send(&f, 1000000); /* no limiter yet: nothing counted */
    assert_int_equal(f.qp.rate, G40);
    assert_false(rp(&f)->limited);

    qcn_fb(&f, 32);
    assert_int_equal(f.qp.rate, 30000000000ULL);
    assert_int_equal(rp(&f)->target, G40);
    assert_int_equal(f.qp.timer_at[0], f.s.now + 1500 * T_US);
    static const uint64_t fr[] = {35000000000ULL, 37500000000ULL, 38750000000ULL, 39375000000ULL};
    for (int i = 0; i < 4; i++) {
        qcn_send(&f, 149000);
        assert_int_equal(f.qp.rate, i ? fr[i - 1] : 30000000000ULL); /* not before 150 KB */
        qcn_send(&f, 1000);
        assert_int_equal(f.qp.rate, fr[i]);
        assert_int_equal(rp(&f)->target, G40);
    }
    qcn_send(&f, 150000);
    assert_int_equal(rp(&f)->target, 40050000000ULL);
    assert_int_equal(f.qp.rate, 39712500000ULL);
    qcn_send(&f, 74000);
    assert_int_equal(f.qp.rate, 39712500000ULL);
    qcn_send(&f, 1000); /* 75 KB cycles after fast recovery */
    assert_int_equal(rp(&f)->target, 40100000000ULL);
    assert_int_equal(f.qp.rate, 39906250000ULL);

    static const uint64_t ai[] = {40028125000ULL, 40114062500ULL, 40182031250ULL, 40241015625ULL};
    for (int i = 0; i < 4; i++) {
        qcn_tick(&f);
        assert_int_equal(f.qp.rate, ai[i]);
        assert_int_equal(f.qp.timer_at[0], f.s.now + 1500 * T_US);
    }
    qcn_tick(&f);
    assert_int_equal(rp(&f)->target, 40800000000ULL);
    assert_int_equal(f.qp.rate, 40520507813ULL);
    assert_int_equal(f.qp.timer_at[0], f.s.now + 750 * T_US);
    qcn_send(&f, 75000);
    assert_int_equal(rp(&f)->target, 41300000000ULL);
    assert_int_equal(f.qp.rate, 40910253907ULL);
    qcn_tick(&f);
    assert_int_equal(rp(&f)->target, 42300000000ULL);
    assert_int_equal(f.qp.rate, 41605126954ULL);

    static const uint64_t cut[] = {21127603531ULL, 10728861168ULL, 5448249811ULL, 2766689357ULL};
    for (int i = 0; i < 4; i++) {
        qcn_fb(&f, 63);
        assert_int_equal(f.qp.rate, cut[i]);
        assert_int_equal(rp(&f)->target, 41605126954ULL);
    }
    qcn_send(&f, 150000);
    assert_int_equal(rp(&f)->target, 5200640869ULL);
    assert_int_equal(f.qp.rate, 3983665113ULL);
    print_message("qcn RP: 40 -> 30 -> FR 39.375 -> AI 39.906 -> timer AI 40.241 -> HAI 41.605 -> 4 x Fb 63 %.3f -> "
                  "TR/8 %.3f Gbps\n", cut[3] / 1e9, f.qp.rate / 1e9);

    /* clamp_target_rate: every message sets TR = CR */
    struct fix g;
    fix_init_sq(&g, &cc_qcn, G40);
    fix_params(&g, "clamp_target_rate", "on");
    fix_start(&g);
    qcn_fb(&g, 32);
    qcn_fb(&g, 32);
    assert_int_equal(rp(&g)->target, 30000000000ULL);
    assert_int_equal(g.qp.rate, 22500000000ULL);
    /* floor at min_rate; a message without PF_CC1 (a PB-FS postcard) is ignored */
    for (int i = 0; i < 20; i++)
        qcn_fb(&g, 63);
    assert_int_equal(g.qp.rate, 100000000);
    struct pkt m;
    memset(&m, 0, sizeof m);
    m.type = PKT_FEEDBACK;
    m.aux = 63;
    cc_qcn.on_feedback(&g.s, &g.qp, g.st, g.par, &m);
    assert_int_equal(rp(&g)->target, 100000000);
    fix_free(&g);
    fix_free(&f);
}

/* Near line rate the limiter reaches 100 Gbps exactly and is released: the
 * timer is stopped and the byte counter no longer counts. Fb 8: x 0.9375. */
static void test_qcn_rp_release(void **state)
{
    (void)state;
    struct fix f;
    fix_init_sq(&f, &cc_qcn, G100);
    fix_start(&f);
    qcn_fb(&f, 8);
    assert_int_equal(f.qp.rate, 93750000000ULL);
    qcn_send(&f, 150000);
    assert_int_equal(f.qp.rate, 96875000000ULL);
    int cycles = 1;
    while (rp(&f)->limited && cycles < 100) {
        qcn_send(&f, 150000);
        cycles++;
    }
    print_message("qcn RP: released at line rate after %d byte cycles\n", cycles);
    assert_false(rp(&f)->limited);
    assert_int_equal(f.qp.rate, G100);
    assert_int_equal(f.qp.timer_at[0], -1);
    int64_t left = rp(&f)->bytes_left;
    qcn_send(&f, 1000000);
    assert_int_equal(rp(&f)->bytes_left, left);
    fix_free(&f);
}

/* ------------------------------------------------------------------ whole runs */

/* sw0's port toward host h. */
static uint32_t port_to_host(const struct sim *s, uint32_t h)
{
    const struct node *n = &s->nodes[s->n_hosts];
    for (uint32_t k = 0; k < n->nports; k++)
        if (s->ports[s->ports[n->port0 + k].peer].node == h)
            return n->port0 + k;
    fail_msg("no port to host %u", h);
    return 0;
}

/* ------------------------------------------------------------------ QCN CP */

/* Feedback messages waiting at or leaving port `pid`, in order. */
static int feedback_at(const struct sim *s, uint32_t pid, uint64_t *aux, int max)
{
    int n = 0;
    const struct port *pt = &s->ports[pid];
    for (const struct pkt *x = pt->wire.head; x && n < max; x = x->next)
        if (x->type == PKT_FEEDBACK)
            aux[n++] = x->aux;
    for (const struct pkt *x = pt->q[0].head; x && n < max; x = x->next)
        if (x->type == PKT_FEEDBACK)
            aux[n++] = x->aux;
    return n;
}

/* One 1000-byte data packet of flow 0 joins queue 3 of port bp, which then
 * holds `qbytes` (set by hand for the sample, then restored). */
static void cp_arrival(struct sim *s, uint32_t bp, uint64_t qbytes)
{
    struct pkt d;
    memset(&d, 0, sizeof d);
    d.type = PKT_DATA;
    d.flow = 0;
    d.src = 0;
    d.dst = 2;
    d.size = 1000;
    uint64_t keep = s->ports[bp].q[3].bytes;
    s->ports[bp].q[3].bytes = qbytes;
    cc_qcn.sw_enqueue(s, bp, sim_cc_pstate(s, bp), s->slot[0].par, &d, 3);
    s->ports[bp].q[3].bytes = keep;
}

static void cp_setup(struct run *r, const char *sample_bytes)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = dumbbell\nsenders = 2\nreceivers = 1\n"
             "[transport]\ncc = qcn\n[cc.qcn]\nq_eq = 20000B\nsample_bytes = %s\nsample_jitter = 0\n"
             "[traffic]\npattern = none\n",
             sample_bytes);
    run_setup(r, ini);
    run_add_flow(r, 0, 2, 100000, 0);
    run_build(r);
}

/* The CP's sampling jitter comes from run.seed: the same seed gives the same
 * run, another seed other sample points and so other finish times (the flows
 * are added by hand and ECN is off, so nothing else draws from the seed). */
static simtime_t jitter_run(int seed, uint64_t *msgs)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[run]\nseed = %d\n[topology]\ntype = dumbbell\nsenders = 2\nreceivers = 1\n[switch]\necn = off\n"
             "[transport]\ncc = qcn\n[cc.qcn]\nq_eq = 20000B\nsample_bytes = 20000B\n[traffic]\npattern = none\n",
             seed);
    struct run r;
    run_setup(&r, ini);
    run_add_flow(&r, 0, 2, 2000000, 0);
    run_add_flow(&r, 1, 2, 2000000, 0);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    simtime_t t = r.sc.sim.flows[0].finish * 3 + r.sc.sim.flows[1].finish;
    *msgs = r.sc.sim.c.feedback_packets;
    run_free(&r);
    return t;
}

static void test_qcn_jitter_seed(void **state)
{
    (void)state;
    uint64_t m1, m1b, m2;
    simtime_t a = jitter_run(1, &m1), b = jitter_run(1, &m1b), c = jitter_run(2, &m2);
    assert_true(m1 > 10); /* the CP sampled and sent feedback */
    assert_int_equal(a, b);
    assert_int_equal(m1, m1b);
    assert_true(a != c || m1 != m2);
}

/* q_eq 20 000 B, w 2, so Fb_max = 5 x 20 000 = 100 000 B; one sample per packet:
 *   Q 30 000 (Q_old 0):      Fb = -(10 000 + 2 x 30 000)   = -70 000  -> 44.1 -> 44
 *   Q 25 000:                Fb = -(5 000 - 2 x 5 000)     =  +5 000  -> none
 *   Q 60 000:                Fb = -(40 000 + 2 x 35 000)   = -110 000 -> 63 (capped)
 *   Q 10 000:                Fb = -(-10 000 - 2 x 50 000)  > 0        -> none
 *   Q 21 000:                Fb = -(1 000 + 2 x 11 000)    = -23 000  -> 14.49 -> 14
 *   Q 20 010:                Fb = -(10 - 2 x 990)          =  +1 970  -> none
 *   Q 20 015:                Fb = -(15 + 2 x 5)            = -25      -> 0.016 -> 0: none
 * Each message goes to flow 0's sender (host 0) on queue 0, 64 B, flag PF_CC1. */
static void test_qcn_cp_feedback(void **state)
{
    (void)state;
    struct run r;
    cp_setup(&r, "1000B");
    struct sim *s = &r.sc.sim;
    uint32_t bp = run_dumbbell_bottleneck(s), back = port_to_host(s, 0);
    static const uint64_t Q[] = {30000, 25000, 60000, 10000, 21000, 20010, 20015};
    for (size_t i = 0; i < sizeof Q / sizeof Q[0]; i++)
        cp_arrival(s, bp, Q[i]);
    uint64_t aux[16];
    int n = feedback_at(s, back, aux, 16);
    assert_int_equal(n, 3);
    assert_int_equal(aux[0], 44);
    assert_int_equal(aux[1], 63);
    assert_int_equal(aux[2], 14);
    assert_int_equal(s->c.feedback_packets, 3);
    const struct pkt *m = s->ports[back].wire.head;
    assert_int_equal(m->type, PKT_FEEDBACK);
    assert_int_equal(m->flags, PF_CC1);
    assert_int_equal(m->size, 64);
    assert_int_equal(m->dst, 0);
    assert_int_equal(m->flow, 0);
    /* not sampled: queue 0, and packets that are not data */
    struct pkt a;
    memset(&a, 0, sizeof a);
    a.type = PKT_ACK;
    a.size = 1000;
    s->ports[bp].q[3].bytes = 90000;
    cc_qcn.sw_enqueue(s, bp, sim_cc_pstate(s, bp), s->slot[0].par, &a, 3);
    a.type = PKT_DATA;
    cc_qcn.sw_enqueue(s, bp, sim_cc_pstate(s, bp), s->slot[0].par, &a, 0);
    s->ports[bp].q[3].bytes = 0;
    assert_int_equal(feedback_at(s, back, aux, 16), 3);
    /* the messages reach the flow and cut it: 44, 63, 14 of 128 each */
    sim_run(s);
    run_check_clean(&r);
    run_free(&r);
}

/* The sample interval shrinks with the last quantised Fb: sample_bytes /
 * (1 + floor(qFb / 8)). With 8 000 B and 1000-byte packets, queue 30 000 B:
 *   packet 8:  first sample, qFb 44 -> next after 8000/6 = 1333 B: packet 10
 *   packet 10: Q unchanged: Fb = -10 000 -> qFb 6 -> next after 8000 B: packet 18 */
static void test_qcn_cp_sampling(void **state)
{
    (void)state;
    struct run r;
    cp_setup(&r, "8000B");
    struct sim *s = &r.sc.sim;
    uint32_t bp = run_dumbbell_bottleneck(s), back = port_to_host(s, 0);
    uint64_t aux[16];
    int sent_after[19];
    for (int k = 1; k <= 18; k++) {
        cp_arrival(s, bp, 30000);
        sent_after[k] = feedback_at(s, back, aux, 16);
    }
    assert_int_equal(sent_after[7], 0);
    assert_int_equal(sent_after[8], 1);
    assert_int_equal(sent_after[9], 1);
    assert_int_equal(sent_after[10], 2);
    assert_int_equal(sent_after[17], 2);
    assert_int_equal(sent_after[18], 3);
    assert_int_equal(aux[0], 44);
    assert_int_equal(aux[1], 6);
    assert_int_equal(aux[2], 6);
    sim_run(s);
    run_check_clean(&r);
    run_free(&r);
}

/* ------------------------------------------------------------------ two flows */

/* Flow 0 starts at 0, flow 1 at `start2`; from `warm` on, goodputs over `span`
 * and the bottleneck queue every 5 us; then both finish. */
/* The two-flow run: measure, print, finish every flow cleanly, no PAUSE; for
 * Swift also the windows it ended the span with. */
static void run_pair(const char *name, simtime_t start2, simtime_t warm, simtime_t span, uint64_t size,
                     struct pair_result *res, double cwnd[2], double *base_rtt_us, uint32_t *hops)
{
    struct run r;
    run_pair_start(&r, name, NULL, start2, size);
    run_pair_measure(&r, warm, span, res);
    struct sim *s = &r.sc.sim;
    if (strcmp(name, "swift") == 0)
        for (int i = 0; i < 2; i++)
            cwnd[i] = ((const struct swift_view *)sim_cc_state(s, (uint32_t)i))->cwnd;
    *base_rtt_us = (double)s->flows[0].base_rtt / T_US;
    *hops = s->flows[0].hops;
    print_message("%-5s goodput %.2f / %.2f Gbps (Jain %.4f), bottleneck util %.3f, queue mean %.1f KB max %.1f KB, "
                  "pauses %llu, feedback %llu\n",
                  name, res->gput[0], res->gput[1], run_pair_jain(res), res->util, res->mean_q_kb, res->max_q_kb,
                  (unsigned long long)s->c.pfc_pause_frames, (unsigned long long)s->c.feedback_packets);
    s->p.stop = 0;
    sim_run(s);
    run_check_clean(&r);
    assert_int_equal(s->c.pfc_pause_frames, 0);
    run_free(&r);
}

#define JOIN (1 * T_MS)

/* Swift with its defaults. The second flow joins at 1 ms with a BDP window
 * while the first holds ~270 KB of queue; both cut, and flow scaling (each
 * window ~180 KB < 400 KB) gives the smaller window the higher target, so the
 * split closes within a few ms. We measure 10..15 ms: the split stays within
 * 2 % of even (the windows agree to a packet; what is left is the window's
 * rounding to whole bytes and the switch's round robin), and we allow 5 %.
 *
 * The queue: the bottleneck holds what the target allows beyond the base RTT,
 *   Q = (target - base_rtt) x 100 Gbps,  target = 25 + 3 x 1 us + fs(W),
 * with fs at the measured windows (~2 us): about 300 KB, and it stays there
 * (max within a few packets of the mean). We check the mean against this
 * figure within 5 % and the maximum within 10 KB of it. */
static void test_swift_pair(void **st)
{
    (void)st;
    struct pair_result res;
    double base_us;
    uint32_t hops;
    double cwnd[2];
    run_pair("swift", JOIN, 10 * T_MS, 5 * T_MS, 200000000, &res, cwnd, &base_us, &hops);
    run_pair_assert_fair(&res, 0.05);
    assert_true(res.util > 0.99);
    /* the target at the measured windows, by the paper's formula */
    double w = (cwnd[0] + cwnd[1]) / 2 * 1000;
    double fs = 125 * (1 / sqrt(w) - 1 / sqrt(400000.0)) / (1 / sqrt(400.0) - 1 / sqrt(400000.0));
    double target = 25 + hops * 1.0 + (fs > 0 ? fs : 0);
    double q_kb = (target - base_us) * 100e3 / 8 / 1e3;
    print_message("swift target %.2f us (fs %.2f us at %.0f B windows), base RTT %.2f us: "
                  "expected queue %.1f KB, measured mean %.1f KB max %.1f KB\n",
                  target, fs, w, base_us, q_kb, res.mean_q_kb, res.max_q_kb);
    assert_int_equal(hops, 3);
    assert_true(fabs(res.mean_q_kb - q_kb) / q_kb < 0.05);
    assert_true(res.max_q_kb < q_kb + 10);
}

/* QCN with its defaults (q_eq 26 KB). The second flow joins at 1 ms at line
 * rate; the congestion point's messages go to the sources in proportion to
 * their share of the sampled bytes, so the faster flow is cut more often and
 * the split drifts toward even, slowly: a message restarts the cut flow's
 * recovery, so a flow cut deep at the join can stay behind for tens of ms.
 * Measured over 10..25 ms for seeds 1..80 (2026-11-26): the split is within
 * 5 % of even for only 24-28 of 80 seeds, under either same-time event order
 * (eventq.h), Jain's index averages 0.983-0.986 and is below 0.9 for one seed
 * in 80 (seed 7 under handle order: 16 / 57 Gbps, the first flow cut to
 * 11 Gbps at the join); the mean split is 49.1 % / 50.9 %. So one run asserts
 * Jain >= 0.9. The queue stays near the set point: mean within [0.5, 2] x
 * q_eq, and the link stays busy. */
static void test_qcn_pair(void **st)
{
    (void)st;
    struct pair_result res;
    double base_us;
    uint32_t hops;
    double cwnd[2];
    run_pair("qcn", JOIN, 10 * T_MS, 15 * T_MS, 200000000, &res, cwnd, &base_us, &hops);
    assert_true(run_pair_jain(&res) >= 0.9);
    assert_true(res.util > 0.99);
    assert_true(res.mean_q_kb > 13 && res.mean_q_kb < 52);
}

/* ------------------------------------------------------------------ incast */

struct incast {
    uint64_t pauses, feedback;
    double max_q_kb, mean_q_kb, rate_sum_g, finish_us;
    uint64_t cut_flows;
};

/* 8 senders -> 1 receiver through the dumbbell, 8 MB each, all at t = 0;
 * the bottleneck queue sampled every 5 us; the sum of the flows' pacing
 * rates at 200 us. */
static void run_incast(const char *cc, struct incast *in)
{
    enum { N = 8 };
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = dumbbell\nsenders = %d\nreceivers = 1\n"
             "[transport]\ncc = %s\n[traffic]\npattern = none\n",
             N, cc);
    struct run r;
    run_setup(&r, ini);
    for (uint32_t i = 0; i < N; i++)
        run_add_flow(&r, i, N, 8000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t bp = run_dumbbell_bottleneck(s);
    memset(in, 0, sizeof *in);
    double qsum = 0;
    int n = 0;
    for (simtime_t t = 5 * T_US;; t += 5 * T_US) {
        s->p.stop = t;
        sim_run(s);
        if (!s->stopped)
            break;
        double q = (double)s->ports[bp].q[3].bytes / 1e3;
        if (q > in->max_q_kb)
            in->max_q_kb = q;
        qsum += q;
        n++;
        if (t == 200 * T_US)
            for (uint32_t i = 0; i < N; i++) {
                in->rate_sum_g += (double)s->flows[i].rate / 1e9;
                in->cut_flows += s->flows[i].rate < s->flows[i].max_rate;
            }
    }
    run_check_clean(&r);
    in->mean_q_kb = qsum / n;
    in->pauses = s->c.pfc_pause_frames;
    in->feedback = s->c.feedback_packets;
    for (uint32_t i = 0; i < N; i++)
        if ((double)s->flows[i].finish / T_US > in->finish_us)
            in->finish_us = (double)s->flows[i].finish / T_US;
    double ideal_us = N * 8e6 * (s->p.mtu + s->data_hdr) / s->p.mtu * 8 / 100e9 * 1e6;
    print_message("incast 8:1 %-5s PFC pauses %4llu, bottleneck queue max %8.1f KB mean %7.1f KB, feedback %3llu, "
                  "rate sum at 200 us %6.1f Gbps (%llu flows cut), last finish %.0f us (all bytes at line rate: %.0f)\n",
                  cc, (unsigned long long)in->pauses, in->max_q_kb, in->mean_q_kb, (unsigned long long)in->feedback,
                  in->rate_sum_g, (unsigned long long)in->cut_flows, in->finish_us, ideal_us);
    run_free(&r);
}

/* With no congestion control the 8:1 incast fills the bottleneck queue until
 * PFC pauses the senders, for the whole transfer. QCN's congestion point sees
 * the queue rise fast (large Q_delta) and cuts every source within the first
 * microseconds: at 200 us every flow is rate-limited and their sum is below
 * the link's 100 Gbps, the queue peaks far below PFC's threshold and no PAUSE
 * is sent. The price is QCN's slow recovery at these rates (byte-counter
 * cycles of 150 KB, increase steps of 50 Mbps): the incast finishes later
 * than with PFC alone. Swift, for comparison, holds its (flow-scaled) target
 * queue and never pauses either. */
static void test_qcn_incast(void **st)
{
    (void)st;
    struct incast none, qcn, swift;
    run_incast("none", &none);
    run_incast("qcn", &qcn);
    run_incast("swift", &swift);
    assert_true(none.pauses > 100);
    assert_true(none.max_q_kb > 5000);
    assert_int_equal(qcn.pauses, 0);
    assert_true(qcn.feedback > 0);
    assert_int_equal(qcn.cut_flows, 8);
    assert_true(qcn.rate_sum_g < 100);
    assert_true(qcn.max_q_kb < none.max_q_kb / 10);
    assert_true(qcn.mean_q_kb < none.mean_q_kb / 50);
    assert_int_equal(swift.pauses, 0);
    assert_true(swift.max_q_kb < 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swift_init),
        cmocka_unit_test(test_swift_ai_below_target),
        cmocka_unit_test(test_swift_md_above_target),
        cmocka_unit_test(test_swift_target_hops),
        cmocka_unit_test(test_swift_flow_scaling),
        cmocka_unit_test(test_swift_pacing),
        cmocka_unit_test(test_qcn_rp_trajectory),
        cmocka_unit_test(test_qcn_rp_release),
        cmocka_unit_test(test_qcn_cp_feedback), cmocka_unit_test(test_qcn_jitter_seed),
        cmocka_unit_test(test_qcn_cp_sampling),
        cmocka_unit_test(test_swift_pair),
        cmocka_unit_test(test_qcn_pair),
        cmocka_unit_test(test_qcn_incast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
