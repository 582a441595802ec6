/* Go-back-N's retransmission timeout (src/net/transport.c).
 *
 * 1. A lossy stop-and-wait flow: with one packet in flight and an RTO far above
 *    the RTT, every timeout is caused by exactly one lost packet (the data or
 *    its ACK), so the flow must finish with timeouts == its lost packets and
 *    exactly one packet resent per timeout. Before the receiver answered
 *    duplicates this livelocked: once an ACK was lost the receiver was ahead of
 *    the sender, the timeout resent a packet it already had, the receiver said
 *    nothing, and the next timeout did the same, for ever (pbfs-fig7's three
 *    unfinished flows, there with pacing at DCTCP's floor instead of a window).
 * 2. An RTO far below the round trip a full queue causes (lossless incast):
 *    the timeouts are spurious and each resends what the flow has in flight.
 *    Doubling the RTO per timeout until data sent only once is ACKed (RFC 6298
 *    5.5, Karn) halves them; a fixed RTO keeps firing while the queue lasts. */
#include "testutil.h"
#include <stdio.h>
#include "simrun.h"

static void test_lost_ack_does_not_livelock(void **st)
{
    (void)st;
    for (int seed = 1; seed <= 3; seed++) {
        struct run r;
        char ini[640];
        /* 5 % loss per link crossing: a round trip (2 links out, 2 back) loses
         * ~19 %; run.stop ends the run that would otherwise never stop */
        snprintf(ini, sizeof ini,
                 "[run]\nseed = %d\nstop = 50ms\n"
                 "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\nloss = 0.05\n"
                 "[switch]\npfc = off\n[transport]\ncc = none\nwindow = 1000B\nrto = 100us\n[traffic]\npattern = none\n",
                 seed);
        run_setup(&r, ini);
        run_add_flow(&r, 0, 1, 300000, 0);
        run_build(&r);
        sim_run(&r.sc.sim);
        const struct sim *s = &r.sc.sim;
        const struct qp *f = &s->flows[0];
        print_message("seed %d: %s, %u packets lost, %u timeouts, %llu B resent, FCT %.1f us\n", seed,
                      f->state == FLOW_DONE ? "done" : "NOT DONE", f->lost, f->timeouts,
                      (unsigned long long)s->c.bytes_retx, f->state == FLOW_DONE ? (f->finish - f->start) / 1e6 : -1.0);
        assert_int_equal(f->state, FLOW_DONE);
        assert_true(f->lost > 0);
        assert_int_equal(s->c.nacks, 0); /* one packet in flight: never a gap */
        assert_int_equal(f->timeouts, f->lost);
        assert_int_equal(s->c.bytes_retx, 1000ULL * f->timeouts);
        run_check_invariants(&r);
        run_free(&r);
    }
}

/* 8 -> 1 incast of 1 MB flows, lossless, DCQCN: the receiver's port queues
 * up to ~8 x 1 MB, hundreds of us at 100 Gbps, against a 10 us RTO. */
static void incast(struct run *r, int backoff)
{
    char ini[640];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 9\n"
             "[transport]\nrto = 10us\nrto_backoff = %d\n[traffic]\npattern = none\n",
             backoff);
    run_setup(r, ini);
    for (uint32_t h = 1; h <= 8; h++)
        run_add_flow(r, h, 0, 1000000, 0);
    run_build(r);
    sim_run(&r->sc.sim);
    run_check_invariants(r);
}

static void test_backoff_bounds_spurious_timeouts(void **st)
{
    (void)st;
    struct run fixed, back;
    incast(&fixed, 0);
    incast(&back, 6);
    const struct sim_counters *a = &fixed.sc.sim.c, *b = &back.sc.sim.c;
    print_message("fixed 10 us RTO: %llu timeouts, %llu B resent, %.1f us; with backoff: %llu timeouts, %llu B resent, %.1f us\n",
                  (unsigned long long)a->timeouts, (unsigned long long)a->bytes_retx, fixed.sc.sim.now / 1e6,
                  (unsigned long long)b->timeouts, (unsigned long long)b->bytes_retx, back.sc.sim.now / 1e6);
    assert_int_equal(a->packets_dropped + b->packets_dropped, 0);
    assert_true(a->timeouts > 0); /* the RTO is below the queueing delay: spurious timeouts */
    assert_true(b->timeouts > 0);
    /* Both runs lose nothing, so every timeout is spurious and resends what
     * was already on its way. Backoff lets the queue drain between them (the
     * RTO goes back to 10 us at the first ACK of data sent once, so they do
     * not vanish: the RTO is not estimated from RTT samples). Measured: 197
     * timeouts and 2.45 MB resent with the fixed RTO, 108 and 1.11 MB with
     * backoff; with rto_backoff = 0 both runs are the same run. */
    assert_true(b->timeouts < a->timeouts);
    assert_true(b->bytes_retx * 2 < a->bytes_retx);
    run_free(&fixed);
    run_free(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lost_ack_does_not_livelock),
        cmocka_unit_test(test_backoff_bounds_spurious_timeouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
