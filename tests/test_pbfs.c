/* PB-FS (IFIP Networking'24): the switch's congestion test (Definition 1) on
 * slot histories built by hand, the sender's marking, Algorithm 1 against
 * hand-worked numbers, and a whole incast with and without PB-FS. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ccfix.h"
#include "simrun.h"
#include "cc/pbfs.h"

extern const struct cc_ops cc_pbfs;

#define G100 100000000000ULL

/* ------------------------------------------------------------ Definition 1
 * A real dumbbell (so a postcard can be routed), never run: the clock is set
 * by hand and sw_enqueue is called directly on the first switch's port toward
 * the second, with the port's queue set to what it would hold. DC_RTT = 16 us
 * and N = 8 give 1 us slots; the port runs at 100 Gbps, so T·DC_RTT = 200 000 B.
 * Flow 0 (host 0 -> host 2) is the marked flow, at 100 Gbps: T_Δ = 6 full
 * packets (1000 B payload + 36 B headers) = 497.28 ns = 0.49728 slot. */

struct swfix {
    struct run r;
    struct sim *s;
    uint32_t port;    /* s0 -> s1 */
    uint32_t to_src;  /* s0 -> host 0: where postcards for flow 0 go */
};

static void swfix_init(struct swfix *x)
{
    run_setup(&x->r, "[topology]\ntype = dumbbell\nsenders = 2\nreceivers = 1\n"
                     "[transport]\npbfs = on\n[cc.pbfs]\ndc_rtt = 16us\n[traffic]\npattern = none\n");
    run_add_flow(&x->r, 0, 2, 1000000, 0);
    run_build(&x->r);
    struct sim *s = x->s = &x->r.sc.sim;
    assert_int_equal(s->n_slot, 2);
    assert_ptr_equal(s->slot[1].ops, &cc_pbfs);
    uint32_t sw0 = s->n_hosts, sw1 = sw0 + 1;
    const struct node *n = &s->nodes[sw0];
    x->port = x->to_src = UINT32_MAX;
    for (uint32_t k = 0; k < n->nports; k++) {
        uint32_t pid = n->port0 + k, peer = s->ports[s->ports[pid].peer].node;
        if (peer == sw1)
            x->port = pid;
        if (peer == 0)
            x->to_src = pid;
    }
    assert_true(x->port != UINT32_MAX && x->to_src != UINT32_MAX);
    s->ports[x->port].rate = G100;
    s->flows[0].max_rate = G100;
}

/* A packet of `size` B reaches the port at `t`; the port then holds q_after B. */
static void arrive(struct swfix *x, simtime_t t, uint32_t size, bool marked, uint64_t q_after)
{
    struct sim *s = x->s;
    struct pkt p;
    memset(&p, 0, sizeof p);
    p.type = PKT_DATA;
    p.flow = 0;
    p.src = 0;
    p.dst = 2;
    p.size = size;
    p.prio = 3;
    p.flags = marked ? PF_MARK : 0;
    s->now = t;
    s->ports[x->port].q[3].bytes = q_after;
    cc_pbfs.sw_enqueue(s, x->port, slot_pstate(&s->slot[1], x->port), s->slot[1].par, &p, 3);
}

/* Slots 10..17 receive 10 000 B each (ten 1000 B packets, at j us + 50 ns ...
 * 500 ns), the queue held at q[j - 10] before each arrival. */
static void history(struct swfix *x, const uint64_t q[8])
{
    for (int j = 10; j < 18; j++)
        for (int i = 0; i < 10; i++)
            arrive(x, j * T_US + (i + 1) * 50 * T_NS, 1000, false, q[j - 10] + 1000);
}

/* The postcard the switch sent last (on the wire toward the sender). */
static const struct pkt *last_postcard(const struct swfix *x)
{
    const struct pkt *p = x->s->ports[x->to_src].wire.tail;
    assert_non_null(p);
    assert_int_equal(p->type, PKT_FEEDBACK);
    assert_int_equal(p->flow, 0);
    return p;
}

static void test_definition1_at_slot_start(void **state)
{
    (void)state;
    /* The marked packet arrives at t0 = 18 us, a slot start (f = 0):
     *   [t0 - 8 us, t0]: slots 10..17 + the packet itself = 81 000 B
     *   last slot [t0 - 1 us, t0]: slot 17 + the packet   = 11 000 B
     *   I_p = 81 000 + 8 · 11 000 = 169 000 B;  Q¹ = queue at 10 us.
     * Q¹ = 0:      169 000 <= 200 000           -> not congested, no postcard
     * Q¹ = 40 000: 169 000 >  200 000 - 40 000  -> congested */
    uint64_t q0[8] = {0}, q40[8] = {40000, 0, 0, 0, 0, 0, 0, 0};
    struct swfix x;
    swfix_init(&x);
    history(&x, q0);
    arrive(&x, 18 * T_US, 1000, true, 1000);
    assert_int_equal(cc_stat(x.s, &cc_pbfs, PBFS_ST_POSTCARDS), 0);
    run_free(&x.r);

    swfix_init(&x);
    history(&x, q40);
    arrive(&x, 18 * T_US, 1000, true, 1000);
    assert_int_equal(cc_stat(x.s, &cc_pbfs, PBFS_ST_POSTCARDS), 1);
    assert_int_equal(x.s->c.feedback_packets, 1);
    const struct pkt *pc = last_postcard(&x);
    assert_int_equal(pc->fb[0], x.s->n_hosts); /* the switch id: s0 */
    assert_int_equal(pc->fb[1], 169000);       /* I_p */
    assert_int_equal(pc->fb[2], 40000);        /* Q¹ */
    assert_int_equal(pc->fb[3], G100);         /* T */
    /* recentBytes over T_Δ = 6 x 1048 B at 100 Gbps = 0.50304 slot: the
     * packet + 0.50304 of slot 17 */
    assert_int_equal(pc->fb[4], 6030);         /* 1000 + 5030.4 */
    assert_int_equal(pc->fb[5], 1000);         /* recentMarkedBytes: the packet */
    /* unmarked packets never trigger, however congested */
    arrive(&x, 18 * T_US + 10 * T_NS, 1000, false, 2000);
    assert_int_equal(cc_stat(x.s, &cc_pbfs, PBFS_ST_POSTCARDS), 1);
    run_free(&x.r);
}

static void test_definition1_mid_slot(void **state)
{
    (void)state;
    /* Slot 18 gets five more 1000 B packets, then the marked one at t0 = 18.5 us
     * (f = 0.5). Sliding windows on the slot grid:
     *   [10.5, 18.5]: half of slot 10 + slots 11..17 + slot 18 (6000) = 5000 + 70 000 + 6000 = 81 000
     *   [17.5, 18.5]: half of slot 17 + slot 18 = 5000 + 6000 = 11 000
     *   I_p = 169 000; Q¹ at 10.5 us = (q(10) + q(11)) / 2.
     * q(10) = 30 000, q(11) = 40 000: Q¹ = 35 000, 169 000 > 165 000 -> postcard.
     * q(10) = 30 000, q(11) = 25 000: Q¹ = 27 500, 169 000 <= 172 500 -> none. */
    uint64_t qa[8] = {30000, 40000}, qb[8] = {30000, 25000};
    for (int k = 0; k < 2; k++) {
        struct swfix x;
        swfix_init(&x);
        history(&x, k == 0 ? qa : qb);
        for (int i = 0; i < 5; i++)
            arrive(&x, 18 * T_US + (i + 1) * 50 * T_NS, 1000, false, 1000);
        arrive(&x, 18 * T_US + 500 * T_NS, 1000, true, 1000);
        if (k == 0) {
            assert_int_equal(cc_stat(x.s, &cc_pbfs, PBFS_ST_POSTCARDS), 1);
            const struct pkt *pc = last_postcard(&x);
            assert_int_equal(pc->fb[1], 169000);
            assert_int_equal(pc->fb[2], 35000);
            /* T_Δ = 0.50304 slot > f = 0.5: all of slot 18 so far (6000)
             * and 0.00304 of slot 17 (30.4) */
            assert_int_equal(pc->fb[4], 6030);
        } else {
            assert_int_equal(cc_stat(x.s, &cc_pbfs, PBFS_ST_POSTCARDS), 0);
        }
        run_free(&x.r);
    }
}

/* Slots with no arrival: the ring rolls over them lazily. Their queue at the
 * slot start is the last queue drained at the port rate (12 500 B per 1 us at
 * 100 Gbps), never below the queue met by the next arrival. */
static void test_definition1_skipped_slots(void **state)
{
    (void)state;
    struct swfix x;
    swfix_init(&x);
    /* 10.9 us: 100 000 B queued; nothing more until the marked packet at 19 us.
     * Q¹ = queue at 11 us = 100 000 - 12 500 · 0.1 = 98 750.
     * I_p: the 1000 B at 10.9 us lie before [11, 19], so only the marked
     * packet itself: 1000 + 8 · 1000 = 9000. 9000 <= 200 000 - 98 750: calm.
     * Then a burst of 100 000 B in slot 19 and a second marked packet at
     * 19.5 us: [11.5, 19.5] holds 102 000 B, the last slot as much:
     * I_p = 102 000 · 9 = 918 000 > 200 000 - Q¹; Q¹ at 11.5 us is between
     * q(11) = 98 750 and q(12) = 86 250 -> 92 500. */
    arrive(&x, 10900 * T_NS, 1000, false, 100000);
    arrive(&x, 19 * T_US, 1000, true, 1000);
    assert_int_equal(cc_stat(x.s, &cc_pbfs, PBFS_ST_POSTCARDS), 0);
    for (int i = 0; i < 100; i++)
        arrive(&x, 19 * T_US + (i + 1) * T_NS, 1000, false, 1000);
    arrive(&x, 19500 * T_NS, 1000, true, 1000);
    assert_int_equal(cc_stat(x.s, &cc_pbfs, PBFS_ST_POSTCARDS), 1);
    const struct pkt *pc = last_postcard(&x);
    assert_int_equal(pc->fb[1], 918000);
    assert_int_equal(pc->fb[2], 92500);
    run_free(&x.r);
}

/* ------------------------------------------------------------ sender side
 * One flow of `size` bytes at line rate on ccfix's bare simulator (tests/ccfix.h),
 * PB-FS's parameters at their defaults but `key` = `val`, initialised. */

static void pbfs_fix(struct fix *f, uint64_t size, const char *key, const char *val)
{
    fix_init(f, &cc_pbfs, G100);
    if (key)
        fix_params(f, key, val);
    f->qp.size = size; /* DC_RTT = base_rtt 10 us: tau = 5 us = 62 500 B at 100 Gbps */
    fix_start(f);
}

static bool send_one(struct fix *f)
{
    struct pkt p;
    memset(&p, 0, sizeof p);
    p.type = PKT_DATA;
    p.size = 1048;
    cc_pbfs.on_send(&f->s, &f->qp, f->st, f->par, &p);
    return p.flags & PF_MARK;
}

static void ack(struct fix *f)
{
    struct pkt a;
    memset(&a, 0, sizeof a);
    a.type = PKT_ACK;
    cc_pbfs.on_ack(&f->s, &f->qp, f->st, f->par, &a);
}

/* A postcard as a switch fills it. */
static void postcard(struct fix *f, uint32_t sw, uint64_t ip, uint64_t q1, uint64_t recent, uint64_t marked)
{
    struct pkt p;
    memset(&p, 0, sizeof p);
    p.type = PKT_FEEDBACK;
    p.aux = 0x5042465350424653ULL; /* PB-FS's tag */
    p.fb[0] = sw;
    p.fb[1] = ip;
    p.fb[2] = q1;
    p.fb[3] = G100;
    p.fb[4] = recent;
    p.fb[5] = marked;
    cc_pbfs.on_feedback(&f->s, &f->qp, f->st, f->par, &p);
}

static void test_marking(void **state)
{
    (void)state;
    struct fix f;
    /* 1 MB: the 6th, 12th, 18th ... packets, until the first ACK */
    pbfs_fix(&f, 1000000, NULL, NULL);
    for (int i = 1; i <= 20; i++)
        assert_int_equal(send_one(&f), i % 6 == 0);
    assert_int_equal(cc_stat(&f.s, &cc_pbfs, PBFS_ST_FLOWS), 1);
    ack(&f);
    for (int i = 21; i <= 40; i++)
        assert_false(send_one(&f));
    assert_int_equal(cc_stat(&f.s, &cc_pbfs, PBFS_ST_FLOWS), 1);
    fix_free(&f);

    /* ... or until the first postcard (here one asking for nothing) */
    pbfs_fix(&f, 1000000, NULL, NULL);
    for (int i = 1; i <= 7; i++)
        send_one(&f);
    postcard(&f, 1, 1000, 0, 6000, 1000);
    for (int i = 8; i <= 40; i++)
        assert_false(send_one(&f));
    assert_int_equal(f.qp.rate, G100);
    fix_free(&f);

    /* tau = DC_RTT/2 = 5 us = 62 500 B at 100 Gbps: shorter flows never mark */
    pbfs_fix(&f, 62499, NULL, NULL);
    for (int i = 1; i <= 60; i++)
        assert_false(send_one(&f));
    assert_int_equal(cc_stat(&f.s, &cc_pbfs, PBFS_ST_FLOWS), 0);
    fix_free(&f);
    pbfs_fix(&f, 62500, NULL, NULL);
    for (int i = 1; i <= 5; i++)
        assert_false(send_one(&f));
    assert_true(send_one(&f));
    fix_free(&f);

    /* delta and tau as parameters */
    pbfs_fix(&f, 62500, "tau", "6us");
    for (int i = 1; i <= 60; i++)
        assert_false(send_one(&f));
    fix_free(&f);
    pbfs_fix(&f, 1000000, "delta", "4");
    for (int i = 1; i <= 12; i++)
        assert_int_equal(send_one(&f), i % 4 == 0);
    fix_free(&f);
}

static bool near(uint64_t a, uint64_t b, uint64_t tol) { return a > b ? a - b <= tol : b - a <= tol; }

/* Algorithm 1 by hand. DC_RTT = 10 us, MaxRate = 100 Gbps: the largest BDP is
 * 125 000 B, I_min = 25 000 B; every port runs at 100 Gbps (BDP 125 000 B). */
static void test_algorithm1(void **state)
{
    (void)state;
    struct fix f;
    pbfs_fix(&f, 1000000, NULL, NULL);

    /* switch 7: I_p 400 000, Q¹ 25 000, 1000 marked of 12 000 recent bytes
     *   I_PBT = 6 · 1000/12 000 · 400 000 = 200 000, I_nonPBT = 200 000
     *   I = max(125 000 - 25 000 - 200 000, 25 000) = 25 000
     *   c = 200 000 / (0.95 · 25 000) = 8.421..., rate = 100 G / c = 11.875 Gbps */
    postcard(&f, 7, 400000, 25000, 12000, 1000);
    assert_true(near(f.qp.rate, 11875000000ULL, 2));

    /* switch 9: I_p 150 000, Q¹ 0, 2000 marked of 6000 recent: 6 · 2000/6000 = 2,
     * capped at 1 (I_nonPBT >= 0): I_PBT = 150 000, I = 125 000,
     * c = 150 000 / 118 750 = 1.263 < L[7] = 8.421: switch 7 (ID) keeps the rate */
    postcard(&f, 9, 150000, 0, 6000, 2000);
    assert_true(near(f.qp.rate, 11875000000ULL, 2));

    /* switch 7 again: its latest value replaces the old one.
     *   I_p 200 000, share 1: c = 200 000 / 118 750 = 1.684 > switch 9's 1.263
     *   rate = 100 G · 118 750 / 200 000 = 59.375 Gbps */
    postcard(&f, 7, 200000, 0, 6000, 1000);
    assert_true(near(f.qp.rate, 59375000000ULL, 2));

    /* switch 9 with c <= 1 (100 000 / 118 750): no update */
    postcard(&f, 9, 100000, 0, 6000, 1000);
    assert_true(near(f.qp.rate, 59375000000ULL, 2));

    /* UpdateRate follows ID (switch 7), not the minimum over switches:
     * switch 9 at c = 1.5 (I_p 178 125) is below L[7] = 1.684: no update */
    postcard(&f, 9, 178125, 0, 6000, 1000);
    assert_true(near(f.qp.rate, 59375000000ULL, 2));
    /* ID's own c falls to 1.2 (I_p 142 500), below switch 9's 1.5: the rate
     * follows ID to 100 G / 1.2 = 83.333 Gbps (the text's minimum: 66.667) */
    postcard(&f, 7, 142500, 0, 6000, 1000);
    assert_true(near(f.qp.rate, 83333333333ULL, 2));
    /* switch 9 at c = 1.3 (I_p 154 375) > L[7] = 1.2: it becomes ID, 76.923 Gbps */
    postcard(&f, 9, 154375, 0, 6000, 1000);
    assert_true(near(f.qp.rate, 76923076923ULL, 2));
    /* and ID's own smaller c (1.2, switch 9) is followed again, switch 7's equal 1.2 aside */
    postcard(&f, 9, 142500, 0, 6000, 1000);
    assert_true(near(f.qp.rate, 83333333333ULL, 2));
    postcard(&f, 7, 150000, 0, 6000, 1000); /* c = 1.263 > L[9] = 1.2: switch 7 is ID again */
    assert_true(near(f.qp.rate, 79166666666ULL, 2));

    /* an ACK after which the CC left the rate alone keeps the PBT interval */
    ack(&f);
    postcard(&f, 9, 237500, 0, 6000, 1000); /* c = 2: 50 Gbps */
    assert_true(near(f.qp.rate, 50000000000ULL, 2));

    /* a CC's own feedback packet is not a postcard */
    struct pkt other;
    memset(&other, 0, sizeof other);
    other.type = PKT_FEEDBACK;
    other.fb[1] = 10000000;
    other.fb[3] = G100;
    other.fb[4] = other.fb[5] = 1000;
    cc_pbfs.on_feedback(&f.s, &f.qp, f.st, f.par, &other);
    assert_true(near(f.qp.rate, 50000000000ULL, 2));

    /* the CC changes the rate; the next ACK ends the PBT interval */
    f.qp.rate = 40000000000ULL;
    ack(&f);
    postcard(&f, 7, 4000000, 0, 6000, 1000);
    assert_int_equal(f.qp.rate, 40000000000ULL);
    fix_free(&f);

    /* a postcard that finds the rate changed by the CC (a timer, say) ends it too */
    pbfs_fix(&f, 1000000, NULL, NULL);
    f.qp.rate = 70000000000ULL;
    postcard(&f, 7, 400000, 25000, 12000, 1000);
    assert_int_equal(f.qp.rate, 70000000000ULL);
    postcard(&f, 7, 400000, 25000, 12000, 1000);
    assert_int_equal(f.qp.rate, 70000000000ULL);
    fix_free(&f);
}

/* ------------------------------------------ the CC adopts PB-FS's rate
 * One 50 MB flow alone on a 100 Gbps dumbbell (so the network never marks
 * or delays it). At 40 us, after the first RTT, a companion cuts its rate to
 * 10 Gbps through cc_rate_override, as PB-FS does. The cut holds exactly
 * until the CC's own next signal, and that signal's update starts from the
 * cut: DCQCN's RP timer (fast recovery: RC = (cut + RT)/2, RT the rate
 * before the cut), TIMELY's next per-RTT update (cut + its additive step),
 * HPCC's next ACK (Rc / k + rate_ai with k about 1: near the cut). Before
 * the CCs adopted the cut, TIMELY and HPCC went straight back to ~line rate. */
struct cut_res {
    simtime_t t_change; /* when the rate first moved off the cut */
    uint64_t rate;      /* to what */
};

static void run_cut(const char *cc, const char *extra, struct cut_res *res)
{
    char ini[512];
    snprintf(ini, sizeof ini, "[topology]\ntype = dumbbell\nsenders = 1\nreceivers = 1\n[transport]\ncc = %s\n"
                              "[traffic]\npattern = none\n%s", cc, extra);
    struct run r;
    run_setup(&r, ini);
    run_add_flow(&r, 0, 1, 50000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    const simtime_t t_cut = 40 * T_US, step = 20 * T_NS;
    const uint64_t cut = 10000000000ULL;
    s->p.stop = t_cut;
    sim_run(s);
    struct qp *qp = &s->flows[0];
    assert_true(qp->rate > 9 * cut); /* alone: near line rate (HPCC: its 95 % target) */
    cc_rate_override(s, qp, cut);
    assert_int_equal(qp->rate, cut);
    res->t_change = -1;
    for (simtime_t t = t_cut + step; t < t_cut + 2 * T_MS && res->t_change < 0; t += step) {
        s->p.stop = t;
        sim_run(s);
        assert_int_equal(qp->state, FLOW_ACTIVE);
        if (qp->rate != cut) {
            res->t_change = t;
            res->rate = qp->rate;
        }
    }
    assert_true(res->t_change > 0);
    assert_int_equal(s->c.ecn_marks, 0);
    print_message("%-6s cut to 10 Gbps at 40 us: held until %.2f us, then %.3f Gbps\n", cc,
                  (double)res->t_change / T_US, (double)res->rate / 1e9);
    run_free(&r);
}

static void test_cut_holds(void **state)
{
    (void)state;
    struct cut_res r;
    const uint64_t cut = 10000000000ULL, line = 100000000000ULL;
    /* DCQCN: held for one RP timer (900 us), then halfway back to RT = line rate */
    run_cut("dcqcn", "", &r);
    assert_true(r.t_change >= 940 * T_US && r.t_change < 940 * T_US + 20 * T_NS);
    assert_int_equal(r.rate, cut / 2 + line / 2);
    /* the paper profile's 55 us timer */
    run_cut("dcqcn", "[cc.dcqcn]\nprofile = paper\n", &r);
    assert_true(r.t_change >= 95 * T_US && r.t_change < 95 * T_US + 20 * T_NS);
    assert_int_equal(r.rate, cut / 2 + line / 2);
    /* TIMELY: its next update (RTT below t_low: increase) adds rate_ai (50 Mbps)
     * or, after hai_thresh increases in a row, rate_hai (100 Mbps) to the cut */
    run_cut("timely", "", &r);
    assert_true(r.t_change < 60 * T_US);
    assert_true(r.rate == cut + 50000000ULL || r.rate == cut + 100000000ULL);
    /* HPCC: the next ACK (fast react) computes from Rc = the cut: Rc / k + 50 Mbps
     * with k = U / 0.95 and U about 1 (the last RTT ran at line rate) */
    run_cut("hpcc", "", &r);
    assert_true(r.t_change < 45 * T_US);
    assert_true(r.rate > cut / 2 && r.rate < 2 * cut);
}

/* ------------------------------------------------------------ whole runs */

struct incast_res {
    uint64_t postcards, flows, pauses, peak_q;
    uint64_t hops[PBFS_HOP_BINS]; /* postcards by their switch's distance from the source */
    double fct_avg_us, fct_max_us;
};

/* §V's setting, scaled down: a 4 x 8 leaf-spine with 4 spines, 25 Gbps hosts,
 * 100 Gbps fabric, 2 us links, 8 MB buffers; 16 random senders each start
 * 1 MB to host 0 at once, over DCQCN. The peak queue is sampled every 200 ns
 * at host 0's ToR port. */
static void run_incast(const char *cc, bool pbfs, struct incast_res *res)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 8\n"
             "host_link = 25Gbps\nfabric_link = 100Gbps\nlink_delay = 2us\n"
             "[switch]\nbuffer = 8MB\n"
             "[transport]\ncc = %s\npbfs = %s\n"
             "[traffic]\npattern = incast\nfan_in = 16\nsize = 1MB\nreceiver = 0\n",
             cc, pbfs ? "on" : "off");
    struct run r;
    run_setup(&r, ini);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    assert_int_equal(s->n_flows, 16);
    assert_true(pbfs == (s->n_slot == 2));
    uint32_t tor = s->ports[s->nics[0].port].peer;
    uint64_t peak = 0;
    for (simtime_t t = 200 * T_NS;; t += 200 * T_NS) {
        s->p.stop = t;
        sim_run(s);
        uint64_t q = 0;
        for (int i = 0; i < NQ; i++)
            q += s->ports[tor].q[i].bytes;
        if (q > peak)
            peak = q;
        if (!s->stopped)
            break;
    }
    run_check_invariants(&r);
    assert_int_equal(s->c.timeouts, 0);
    memset(res, 0, sizeof *res);
    double sum = 0, mx = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        double fct = (double)(s->flows[i].finish - s->flows[i].start) / T_US;
        sum += fct;
        if (fct > mx)
            mx = fct;
    }
    res->postcards = cc_stat(s, &cc_pbfs, PBFS_ST_POSTCARDS);
    for (int i = 0; i < PBFS_HOP_BINS; i++)
        res->hops[i] = cc_stat(s, &cc_pbfs, PBFS_ST_HOPS + i);
    res->flows = cc_stat(s, &cc_pbfs, PBFS_ST_FLOWS);
    res->pauses = s->c.pfc_pause_frames;
    res->peak_q = peak;
    res->fct_avg_us = sum / s->n_flows;
    res->fct_max_us = mx;
    print_message("%-5s pbfs %-3s: postcards %llu for %llu flows (%.2f per flow), PAUSE %llu, peak queue %.0f KB, "
                  "FCT avg %.0f us max %.0f us\n",
                  cc, pbfs ? "on" : "off", (unsigned long long)res->postcards, (unsigned long long)res->flows,
                  res->flows ? (double)res->postcards / (double)res->flows : 0.0, (unsigned long long)res->pauses,
                  (double)peak / 1e3, res->fct_avg_us, res->fct_max_us);
    run_free(&r);
}

/* Every flow marks and hears from the congested switches; PB-FS takes the
 * line-rate start out of the incast: a far smaller peak queue and fewer
 * PAUSEs. Postcards: a flow stops marking at its first postcard, but the
 * marked packets already in flight still trigger one at each congested switch
 * on the path: about postcard RTT / T_Δ (~13 us / 2 us) per switch. That is
 * above the paper's "fewer than 4 per flow" (§V-B, Fig. 6a), which averages
 * over a mixed workload where most PB-FS flows meet no congestion; we assert
 * that bound: 3 switches x (max RTT / T_Δ + 1). */
static void test_incast(void **state)
{
    (void)state;
    struct incast_res off, on;
    run_incast("dcqcn", false, &off);
    run_incast("dcqcn", true, &on);
    assert_int_equal(off.postcards, 0);
    assert_int_equal(on.flows, 16);
    assert_true(on.postcards >= on.flows); /* every flow heard from its receiver's ToR at least */
    double t_delta_us = 6 * 1048 * 8 / 25e3, max_rtt_us = 16.8;
    assert_true((double)on.postcards / (double)on.flows <= 3 * (max_rtt_us / t_delta_us + 1));
    assert_true(off.pauses > 0);
    assert_true(on.pauses < off.pauses);
    assert_true(on.peak_q * 2 < off.peak_q);
    /* Fig. 6b: every postcard counted once by its switch's distance from the
     * flow's source; a leaf-spine has none beyond 3 links (source leaf 1,
     * spine 2, receiver's leaf 3), and most come from the congested port,
     * the receiver's ToR downlink: 3 links from the senders in other racks. */
    uint64_t sum = 0;
    for (int i = 0; i < PBFS_HOP_BINS; i++)
        sum += on.hops[i];
    print_message("postcards by distance from the source: 1: %llu, 2: %llu, 3: %llu\n", (unsigned long long)on.hops[0],
                  (unsigned long long)on.hops[1], (unsigned long long)on.hops[2]);
    assert_int_equal(sum, on.postcards);
    for (int i = 3; i < PBFS_HOP_BINS; i++)
        assert_int_equal(on.hops[i], 0);
    assert_true(on.hops[2] > on.hops[0] && on.hops[2] > on.hops[1]);
}

/* PB-FS is a companion: it cannot be the congestion control itself
 * (config_validate says so, with the line that set it). */
static void test_not_a_cc(void **state)
{
    (void)state;
    struct config c;
    struct err e;
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load_ini(&c, "[topology]\ntype = dumbbell\n[transport]\ncc = pbfs\n", "t.ini", &e), 0);
    assert_int_equal(config_validate(&c, &e), -1);
    assert_non_null(strstr(e.msg, "t.ini:4: transport.cc: 'pbfs' runs beside a congestion control"));
    config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_definition1_at_slot_start),
        cmocka_unit_test(test_definition1_mid_slot),
        cmocka_unit_test(test_definition1_skipped_slots),
        cmocka_unit_test(test_marking),
        cmocka_unit_test(test_algorithm1),
        cmocka_unit_test(test_cut_holds),
        cmocka_unit_test(test_incast),
        cmocka_unit_test(test_not_a_cc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
