/* IRN (recovery = irn, PFC off): drops happen, the receiver keeps what
 * arrives out of order, the sender resends only the holes, and every byte
 * still arrives exactly once. Go-back-N on the same incast resends far more. */
#include "testutil.h"
#include <stdio.h>
#include "simrun.h"

/* 16 -> 1 incast of 500 KB flows into a 1 MB lossy buffer, no CC. */
static void incast(struct run *r, const char *recovery)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 17\n"
             "[switch]\nbuffer = 1MB\npfc = off\n[transport]\ncc = none\nrecovery = %s\n[traffic]\npattern = none\n",
             recovery);
    run_setup(r, ini);
    for (uint32_t h = 1; h <= 16; h++)
        run_add_flow(r, h, 0, 500000, 0);
    run_build(r);
    sim_run(&r->sc.sim);
    run_check_invariants(r);
}

static void test_irn_recovers_selectively(void **st)
{
    (void)st;
    struct run irn, gbn;
    incast(&irn, "irn");
    incast(&gbn, "gbn");
    const struct sim_counters *a = &irn.sc.sim.c, *b = &gbn.sc.sim.c;
    print_message("irn: %llu drops, %llu B resent, %llu timeouts, %llu NACKs; gbn: %llu drops, %llu B resent, %llu timeouts\n",
                  (unsigned long long)a->packets_dropped, (unsigned long long)a->bytes_retx,
                  (unsigned long long)a->timeouts, (unsigned long long)a->nacks,
                  (unsigned long long)b->packets_dropped, (unsigned long long)b->bytes_retx,
                  (unsigned long long)b->timeouts);
    assert_true(a->packets_dropped > 0);
    assert_true(a->nacks > 0);
    /* Selective repeat, bounded from the mechanism (every flow is 500 full
     * 1000 B packets, so resends are counted in whole packets):
     * - below: every byte arrives, so each dropped copy of a packet is
     *   followed by one more copy; resent packets >= drops (the ACK path,
     *   host 0 -> senders, is uncongested, so every drop is a data packet).
     * - above: a NACK marks as lost only unSACKed packets below the highest
     *   SACKed one, and on one FIFO path those were dropped; retx_next never
     *   goes back within a recovery, so each hole is resent once per loss.
     *   Only a timeout (irn_recover from snd_una up to snd_nxt) can resend a
     *   copy still in flight, at most the in-flight cap win/mtu per timeout.
     * So drops <= resent <= drops + sum over flows of timeouts * win/mtu;
     * the measured run sits at the lower bound (508 drops, 508 resent). */
    const uint64_t mtu = irn.sc.sim.p.mtu;
    uint64_t late_cap = 0;
    for (uint32_t i = 0; i < irn.sc.sim.n_flows; i++) {
        const struct qp *f = &irn.sc.sim.flows[i];
        late_cap += (uint64_t)f->timeouts * ((f->win + mtu - 1) / mtu);
    }
    print_message("irn: resent %llu packets, bounds [%llu, %llu]\n", (unsigned long long)(a->bytes_retx / mtu),
                  (unsigned long long)a->packets_dropped, (unsigned long long)(a->packets_dropped + late_cap));
    assert_int_equal(a->bytes_retx % mtu, 0);
    assert_true(a->bytes_retx >= mtu * a->packets_dropped);
    assert_true(a->bytes_retx <= mtu * (a->packets_dropped + late_cap));
    /* go-back-N resends whole windows */
    assert_true(b->bytes_retx > 2 * a->bytes_retx);
    /* the in-flight cap is one BDP, so the OOO window fits the ring */
    for (uint32_t i = 0; i < irn.sc.sim.n_flows; i++) {
        assert_true(irn.sc.sim.flows[i].win > 0);
        assert_null(irn.sc.sim.flows[i].irn_rx); /* freed at completion */
    }
    run_free(&irn);
    run_free(&gbn);
}

/* A lone flow loses nothing: IRN must then behave exactly like go-back-N. */
static void test_irn_lossless_path_is_plain(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n"
                  "[switch]\npfc = off\n[transport]\nrecovery = irn\n[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 1, 1000000, 0);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct qp *f = &r.sc.sim.flows[0];
    assert_int_equal(r.sc.sim.c.bytes_retx, 0);
    assert_int_equal(r.sc.sim.c.timeouts, 0);
    assert_int_equal(f->finish - f->start, 1000 * tx_time(1048, 100000000000ULL) + tx_time(1048, 100000000000ULL) +
                                               4 * T_US + 2 * tx_time(60, 100000000000ULL));
    run_free(&r);
}

/* Tail loss, where no later packet can trigger a NACK: only the timeout
 * recovers it, and with few packets in flight IRN uses RTO_low. */
static void test_irn_tail_loss_uses_rto_low(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 9\n"
                  "[switch]\nbuffer = 400KB\npfc = off\n[transport]\ncc = none\nrecovery = irn\n"
                  "rto_low = 50us\nrto_high = 2ms\n[traffic]\npattern = none\n");
    for (uint32_t h = 1; h <= 8; h++)
        run_add_flow(&r, h, 0, 30000, 0);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct sim *s = &r.sc.sim;
    print_message("tail: %llu drops, %llu timeouts, last done at %.1f us\n", (unsigned long long)s->c.packets_dropped,
                  (unsigned long long)s->c.timeouts, (double)s->now / T_US);
    assert_true(s->c.packets_dropped > 0);
    assert_true(s->c.timeouts > 0);
    assert_true(s->now < 2 * T_MS); /* recovered by RTO_low, long before RTO_high */
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_irn_recovers_selectively),
        cmocka_unit_test(test_irn_lossless_path_is_plain),
        cmocka_unit_test(test_irn_tail_loss_uses_rto_low),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
