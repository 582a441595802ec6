/* Injected faults: random per-link loss (topology.loss, the ns-3 file's
 * error-rate column, ERROR_RATE_PER_LINK). Every corrupted packet counts as
 * a drop and against its flow; go-back-N and IRN still deliver every byte
 * exactly once; the number lost matches the loss rate; the resent volume
 * fits the recovery scheme. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "simrun.h"

/* 16 flows of 1 MB across a 2 x 16 leaf-spine (every flow crosses a spine:
 * four links), everything on it losing `loss` of its packets. */
static void lossy_run(struct run *r, const char *recovery, bool pfc, double loss)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 16\nloss = %g\n"
             "[switch]\npfc = %s\n[transport]\nrecovery = %s\n[traffic]\npattern = none\n",
             loss, pfc ? "on" : "off", recovery);
    run_setup(r, ini);
    for (uint32_t h = 0; h < 16; h++)
        run_add_flow(r, h, 16 + (h + 3) % 16, 1000000, (simtime_t)h * T_US);
    run_build(r);
    sim_run(&r->sc.sim);
    run_check_invariants(r); /* every flow done, every byte delivered once, nothing left */
}

/* Packets crossing links: every hop but PFC frames may be lost. */
static double eligible_hops(const struct sim *s) { return (double)(s->c.packet_hops - s->c.pfc_pause_frames - s->c.pfc_resume_frames); }

static void check_loss_books(const struct run *r, double loss)
{
    const struct sim *s = &r->sc.sim;
    uint64_t lost = 0, to = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        lost += s->flows[i].lost;
        to += s->flows[i].timeouts;
    }
    assert_int_equal(lost, s->c.packets_dropped); /* every drop is charged to a flow */
    assert_int_equal(to, s->c.timeouts);
    if (s->p.pfc)
        assert_int_equal(s->c.packets_dropped, s->c.packets_corrupted);
    /* Binomial: corrupted within 5 sigma of loss x (hops that could be lost) */
    double n = eligible_hops(s), mean = loss * n, sd = sqrt(n * loss * (1 - loss));
    print_message("  %llu corrupted of %.0f hops (expected %.1f +- %.1f)\n", (unsigned long long)s->c.packets_corrupted, n,
                  mean, sd);
    assert_true(fabs((double)s->c.packets_corrupted - mean) <= 5 * sd + 1);
}

static void report(const char *name, const struct sim *s)
{
    print_message("%s: %llu corrupted, %llu dropped, %llu B resent, %llu timeouts, %llu NACKs, last done %.1f us\n", name,
                  (unsigned long long)s->c.packets_corrupted, (unsigned long long)s->c.packets_dropped,
                  (unsigned long long)s->c.bytes_retx, (unsigned long long)s->c.timeouts,
                  (unsigned long long)s->c.nacks, (double)s->now / T_US);
}

/* Lossless (PFC on) go-back-N: the MMU drops nothing, only the links do, and
 * each loss costs about a window: go-back-N resends from the hole. */
static void test_gbn_lossless_with_link_loss(void **st)
{
    (void)st;
    struct run r;
    lossy_run(&r, "gbn", true, 1e-3);
    const struct sim *s = &r.sc.sim;
    report("gbn+pfc loss 1e-3", s);
    assert_true(s->c.packets_corrupted > 20);
    assert_int_equal(s->c.drops_lossless, 0);
    check_loss_books(&r, 1e-3);
    assert_true(s->c.bytes_retx >= 1000 * s->c.packets_corrupted / 4); /* lost ACKs need no resend */
    run_free(&r);
}

/* IRN, lossy: selective repeat resends about one packet per lost data packet. */
static void test_irn_with_link_loss(void **st)
{
    (void)st;
    struct run irn, gbn;
    lossy_run(&irn, "irn", false, 1e-3);
    lossy_run(&gbn, "gbn", false, 1e-3);
    const struct sim *a = &irn.sc.sim, *b = &gbn.sc.sim;
    report("irn loss 1e-3", a);
    report("gbn loss 1e-3", b);
    check_loss_books(&irn, 1e-3);
    check_loss_books(&gbn, 1e-3);
    assert_true(a->c.packets_corrupted > 20);
    assert_true(a->c.bytes_retx <= 1000 * 3 * a->c.packets_dropped);
    assert_true(b->c.bytes_retx > 2 * a->c.bytes_retx); /* go-back-N resends whole windows */
    run_free(&irn);
    run_free(&gbn);
}

/* No loss configured: no random draw, no change (the golden outputs pin the
 * results); the same seed gives the same losses, another seed others. */
static void test_loss_deterministic(void **st)
{
    (void)st;
    struct run a, b;
    lossy_run(&a, "irn", false, 1e-3);
    lossy_run(&b, "irn", false, 1e-3);
    assert_int_equal(a.sc.sim.c.packets_corrupted, b.sc.sim.c.packets_corrupted);
    assert_int_equal(a.sc.sim.now, b.sc.sim.now);
    for (uint32_t i = 0; i < a.sc.sim.n_flows; i++)
        assert_int_equal(a.sc.sim.flows[i].lost, b.sc.sim.flows[i].lost);
    run_free(&a);
    run_free(&b);
    lossy_run(&a, "gbn", true, 0);
    assert_null(a.sc.sim.loss_rng);
    assert_int_equal(a.sc.sim.c.packets_corrupted, 0);
    run_check_clean(&a);
    run_free(&a);
}

/* The ns-3 topology file's fifth column is a per-link error rate: only the
 * links that have one lose packets. */
static void test_file_error_rate_per_link(void **st)
{
    (void)st;
    const char *path = "faults_topo.txt";
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    /* hosts 0-3 on switch 4; only host 0's link is lossy */
    fprintf(f, "5 1 4\n4\n0 4 100Gbps 1us 0.002\n1 4 100Gbps 1us 0\n2 4 100Gbps 1us 0\n3 4 100Gbps 1us 0\n");
    fclose(f);
    char ini[256];
    snprintf(ini, sizeof ini, "[topology]\ntype = file\nfile = %s\n[traffic]\npattern = none\n", path);
    struct run r;
    run_setup(&r, ini);
    run_add_flow(&r, 0, 1, 2000000, 0); /* crosses the lossy link */
    run_add_flow(&r, 2, 3, 2000000, 0); /* does not */
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct sim *s = &r.sc.sim;
    report("file error rate", s);
    assert_true(s->flows[0].lost > 0);
    assert_int_equal(s->flows[1].lost, 0);
    assert_int_equal(s->c.packets_corrupted, s->flows[0].lost);
    run_free(&r);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gbn_lossless_with_link_loss),
        cmocka_unit_test(test_irn_with_link_loss),
        cmocka_unit_test(test_loss_deterministic),
        cmocka_unit_test(test_file_error_rate_per_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
