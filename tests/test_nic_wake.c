/* When an idle NIC wakes up for a paced QP (transport.nic_wake, src/net/nic.c).
 *
 * exact: at the earliest time any QP may send. ns3: as ns-3 HPCC's
 * QbbNetDevice (qbb-net-device.cc, DequeueAndTransmit and UpdateNextAvail):
 * after a dequeue that finds nothing it schedules its one wake-up only if
 * none is pending, at the earliest m_nextAvail of every QP with data left,
 * and not at all if that time has passed; a rate change only moves a pending
 * wake-up earlier. A window-bound QP whose time has passed therefore keeps a
 * paced QP beside it waiting for the next ACK. In HPCC's 60 x 500 KB incast
 * runs (docs/validation.md, Round 4) this is what made long flows sharing a
 * sender with a throttled incast QP finish ~4 % later in ns-3.
 *
 * Setup: host 0 sends A (0 -> 1, stop-and-wait: a window of one packet) and
 * B (0 -> 2, no window, paced at 10 Gbps by the test's CC) through one
 * switch. Under exact, B keeps its pace whatever A does; under ns3, B sends
 * one packet per A ACK while A lives, then its pace again. simai (SimAI's
 * ns-3-alibabacloud) also counts QPs with no data left: test_paced_qp_beside_sent_qp. */
#include "testutil.h"
#include <stdio.h>
#include "ccfix.h"
#include "simrun.h"

#define G10 10000000000ULL
#define G100 100000000000ULL

/* Flow 1 (B): no window, 10 Gbps; flow 0 (A) keeps the scenario's window. */
static void pace_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)s, (void)st, (void)par;
    if (qp->id == 1) {
        qp->win = 0;
        qp->rate = G10;
    }
}

static const struct param pace_params[] = {PARAM_END};
static const struct cc_ops cc_pace = {.name = "test-pace", .help = "", .params = pace_params, .init = pace_init};

struct seen {
    uint64_t b_sent; /* B's bytes sent when A finished */
    simtime_t a_done;
};

static void on_done(void *ctx, const struct sim *s, const struct qp *f)
{
    struct seen *w = ctx;
    if (f->id == 0) {
        w->b_sent = s->flows[1].snd_nxt;
        w->a_done = s->now;
    }
}

/* Host 0 sends A (to host 1, a_bytes) and B (to host 2, b_bytes) through one
 * switch, under nic_wake = wake and the [transport] lines `extra`; the CC
 * slot runs cc. */
static void setup_pair(struct run *r, const char *wake, const char *extra, uint64_t a_bytes, uint64_t b_bytes,
                       const struct cc_ops *cc)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 3\n"
             "[transport]\ncc = none\n%snic_wake = %s\n[traffic]\npattern = none\n",
             extra, wake);
    run_setup(r, ini);
    run_add_flow(r, 0, 1, a_bytes, 0);
    run_add_flow(r, 0, 2, b_bytes, 0);
    run_build(r);
    r->sc.sim.slot[0].ops = cc;
}

static void run_pair(const char *wake, struct seen *w, struct qp *a, struct qp *b)
{
    struct run r;
    setup_pair(&r, wake, "window = 1000B\n", 100000, 2000000, &cc_pace); /* A: 100 packets; B outlasts A in both modes */
    *w = (struct seen){0};
    r.sc.sim.hooks.ctx = w;
    r.sc.sim.hooks.flow_done = on_done;
    sim_run(&r.sc.sim);
    run_check_invariants(&r); /* B finishes: the last ACK of A still tries to send */
    *a = r.sc.sim.flows[0];
    *b = r.sc.sim.flows[1];
    run_free(&r);
}

static void test_paced_qp_beside_window_bound_qp(void **st)
{
    (void)st;
    struct seen we, wn;
    struct qp ae, be, an, bn;
    run_pair("exact", &we, &ae, &be);
    run_pair("ns3", &wn, &an, &bn);
    simtime_t pace = tx_time(1048, G10);  /* 838.4 ns per 1048 B data packet */
    simtime_t line = tx_time(1048, G100); /* A's packet, which B may wait behind */
    print_message("exact: A done %.1f us, B sent %llu packets by then, B gaps %.1f-%.1f ns\n", we.a_done / 1e6,
                  (unsigned long long)we.b_sent / 1000, be.gap_min / 1e3, be.gap_max / 1e3);
    print_message("ns3:   A done %.1f us, B sent %llu packets by then, B gaps %.1f-%.1f ns\n", wn.a_done / 1e6,
                  (unsigned long long)wn.b_sent / 1000, bn.gap_min / 1e3, bn.gap_max / 1e3);
    /* A is stop-and-wait in both (at most one B packet ahead of each of its packets) */
    assert_true(ae.finish - an.finish < 100 * line && an.finish - ae.finish < 100 * line);
    /* exact: B never waits beyond its pace, except behind one A packet */
    assert_true(be.gap_min >= pace && be.gap_max <= pace + line);
    uint64_t pkts = we.b_sent / 1000, lo = (uint64_t)(we.a_done / (pace + line)), hi = (uint64_t)(we.a_done / pace) + 1;
    assert_true(pkts >= lo && pkts <= hi);
    /* ns3: about one B packet per A ACK (A has 100 packets; 104 measured),
     * a fifth of exact's: B's gaps while A lives are A's round trip, several
     * times its pace ... */
    assert_in_range(wn.b_sent / 1000, 100, 110);
    assert_true(bn.gap_max > 4 * pace);
    /* ... and once A is done it is paced again: its smallest gap is the pace */
    assert_int_equal(bn.gap_min, pace);
    assert_true(bn.finish > be.finish);
}

/* A rate change under ns3 moves a pending wake-up earlier, never creates one
 * (ns-3's UpdateNextAvail); under exact it wakes the NIC at the new time. */
static void test_rate_change_wake(void **st)
{
    (void)st;
    for (int ns3 = 0; ns3 <= 1; ns3++) {
        struct fix f;
        fix_init(&f, &cc_pace, G10);
        f.s.p.nic_wake_ns3 = ns3;
        f.qp.last_pkt_size = 1048;
        f.qp.next_avail = f.s.now + tx_time(1048, G10);
        /* faster: next_avail moves 838.4 - 104.8 ns earlier */
        cc_change_rate(&f.s, &f.qp, 8 * G10);
        simtime_t t = f.s.now + tx_time(1048, 8 * G10);
        assert_int_equal(f.qp.next_avail, t);
        assert_int_equal(f.s.nics[0].wake_at, ns3 ? T_NEVER : t);
        /* with a wake-up pending later, both modes move it to the new time */
        f.s.nics[0].wake_at = f.s.now + 10 * T_US;
        cc_change_rate(&f.s, &f.qp, 8 * G10 + 1);
        assert_int_equal(f.s.nics[0].wake_at, f.qp.next_avail);
        fix_free(&f);
    }
}

/* simai: as SimAI's ns-3-alibabacloud, whose DequeueAndTransmit counts every
 * QP still on the NIC, also one that has sent all its data and waits for the
 * ACKs. Host 0 sends A (0 -> 1, 10 packets, no window: all sent within a
 * microsecond) and B (0 -> 2, paced at 10 Gbps). Once A's last packet is out,
 * its m_nextAvail is past: under ns3 B keeps its pace, under simai B's next
 * packet waits for A's first ACK, a round trip after A started. */
static void pace_both_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)s, (void)st, (void)par;
    qp->win = 0;
    if (qp->id == 1)
        qp->rate = G10;
}

static const struct cc_ops cc_pace_both = {.name = "test-pace-both", .help = "", .params = pace_params, .init = pace_both_init};

static struct qp run_sent(const char *wake, struct qp *a)
{
    struct run r;
    setup_pair(&r, wake, "", 10000, 200000, &cc_pace_both); /* A: 10 packets */
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    *a = r.sc.sim.flows[0];
    struct qp b = r.sc.sim.flows[1];
    run_free(&r);
    return b;
}

static void test_paced_qp_beside_sent_qp(void **st)
{
    (void)st;
    struct qp an, as;
    struct qp bn = run_sent("ns3", &an), bs = run_sent("simai", &as);
    simtime_t pace = tx_time(1048, G10), line = tx_time(1048, G100);
    print_message("ns3:   A done %.3f us, B gaps %.1f-%.1f ns\n", an.finish / 1e6, bn.gap_min / 1e3, bn.gap_max / 1e3);
    print_message("simai: A done %.3f us, B gaps %.1f-%.1f ns\n", as.finish / 1e6, bs.gap_min / 1e3, bs.gap_max / 1e3);
    assert_int_equal(an.finish, as.finish); /* A itself is not held */
    /* ns3: B never waits beyond its pace, except behind one A packet */
    assert_true(bn.gap_min >= pace && bn.gap_max <= pace + line);
    /* simai: one gap of B lasts until A's first ACK: more than twice its pace, less than A's life */
    assert_true(bs.gap_max > 2 * pace && bs.gap_max < as.finish);
    assert_int_equal(bs.gap_min, pace);
    assert_true(bs.finish > bn.finish);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paced_qp_beside_window_bound_qp),
        cmocka_unit_test(test_rate_change_wake),
        cmocka_unit_test(test_paced_qp_beside_sent_qp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
