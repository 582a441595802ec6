/* fct.csv's `victim`: PFC's head-of-line blocking victims, as Proteus's
 * Fig. 12a and FLB count them — flows held in a paused switch queue that are
 * not themselves the congestion's flows (those join a congestion port: an
 * unpaused egress queue, holding no packet that waited through a PAUSE, at
 * least the PFC threshold long). A hand-built case where the answer is known:
 * a dumbbell A -> B, two senders incast into R1 (the congestion: B's port to
 * R1), one sender to R2 behind them on A's port to B. */
#include "testutil.h"
#include "simrun.h"

static void test_victim_dumbbell(void **st)
{
    (void)st;
    struct run r;
    /* hosts 0, 1, 2 on A; 3 (R1) and 4 (R2) on B. A's port to B is 400 Gbps,
     * so the three 100 Gbps senders never queue there of their own accord;
     * B's port to R1 takes 200 Gbps of incast at 100 Gbps and fills, B's
     * ingress from A passes the static PFC threshold and pauses A's port to
     * B, which holds R2's flow's packets too. */
    run_setup(&r, "[topology]\ntype = dumbbell\nsenders = 3\nreceivers = 2\nhost_link = 100Gbps\n"
                  "fabric_link = 400Gbps\n[switch]\nbuffer = 4MB\npfc_threshold = 200KB\necn = off\n"
                  "[transport]\ncc = none\n[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 3, 2000000, 0);      /* culprit */
    run_add_flow(&r, 1, 3, 2000000, 0);      /* culprit */
    run_add_flow(&r, 2, 4, 2000000, 1000000); /* victim: to the idle R2, from 1 us */
    run_build(&r);
    struct sim *s = &r.sc.sim;
    sim_run(s);
    run_check_invariants(&r);
    assert_true(s->c.pfc_pause_frames > 0);
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct qp *f = &s->flows[i];
        print_message("flow %u %u->%u: ever_paused %d sw_paused %d culprit %d\n", i, f->src, f->dst, f->ever_paused,
                      f->sw_paused, f->culprit);
        /* every flow waited in A's paused port to B: ever_paused cannot tell them apart */
        assert_true(f->ever_paused && f->sw_paused);
        if (f->dst == 3)
            assert_true(f->culprit); /* the incast's flows joined B's full port to R1 */
        else
            assert_false(f->culprit); /* R2's port never held more than a packet or two */
    }
    run_free(&r);
}

/* Without PFC nothing is held, so nothing is a victim (and no flow is marked
 * a culprit: the congestion port is a PFC notion). */
static void test_victim_lossy(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = dumbbell\nsenders = 3\nreceivers = 2\nhost_link = 100Gbps\n"
                  "fabric_link = 400Gbps\n[switch]\nbuffer = 4MB\npfc = off\necn = off\n"
                  "[transport]\ncc = none\n[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 3, 200000, 0);
    run_add_flow(&r, 1, 3, 200000, 0);
    run_add_flow(&r, 2, 4, 200000, 1000000);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    sim_run(s);
    for (uint32_t i = 0; i < s->n_flows; i++)
        assert_false(s->flows[i].sw_paused || s->flows[i].culprit);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_victim_dumbbell),
        cmocka_unit_test(test_victim_lossy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
