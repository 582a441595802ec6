/* HPCC, TIMELY and DCTCP in the whole simulator: two long flows through one
 * 100 Gbps bottleneck (a dumbbell, 2 senders -> 1 receiver) converge to a fair
 * share; every flow completes; lossless, so nothing is dropped; every byte
 * sent is delivered once. HPCC keeps the bottleneck queue near empty while
 * DCQCN, on the same links, holds a standing queue. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simrun.h"

/* The two-flow run: measure, print, then finish every flow cleanly. */
static void run_pair(const char *name, const char *extra, simtime_t start2, simtime_t warm, simtime_t span,
                     uint64_t size, struct pair_result *res)
{
    struct run r;
    run_pair_start(&r, name, extra, start2, size);
    run_pair_measure(&r, warm, span, res);
    const struct sim *s = &r.sc.sim;
    print_message("%-6s goodput %.2f / %.2f Gbps (Jain %.4f), bottleneck util %.3f, queue mean %.1f KB max %.1f KB, "
                  "marks %llu, pauses %llu\n",
                  name, res->gput[0], res->gput[1], run_pair_jain(res), res->util, res->mean_q_kb, res->max_q_kb,
                  (unsigned long long)s->c.ecn_marks, (unsigned long long)s->c.pfc_pause_frames);
    r.sc.sim.p.stop = 0;
    sim_run(&r.sc.sim);
    run_check_clean(&r);
    run_free(&r);
}

/* In every scenario the second flow joins 1 ms after the first, which by then
 * has the whole link: the incumbent has to make room, not just keep a
 * symmetric start symmetric. */
#define JOIN (1 * T_MS)

/* HPCC with its shipped settings (window = BDP scaled by the rate, eta 0.95,
 * W_AI 50 Mbps, mi_thresh 0): the link runs at about eta and the bottleneck
 * queue stays near empty. Fairness comes only from the additive term: at
 * equilibrium R_i (1 - 1/k_i) = W_AI with k_i = U_i / eta, so the share is
 * very sensitive to small per-flow differences in the sampled U (each flow
 * reads the hop counters at its own packets' times): 1e-4 in U moves a flow
 * by several Gbps. The split we see settles within 4 % of even (Jain 0.999)
 * and stays there; we allow 8 %. */
static void test_hpcc_pair(void **st)
{
    (void)st;
    struct pair_result hp, dq;
    run_pair("hpcc", "window = bdp\nvar_win = on", JOIN, 5 * T_MS, 5 * T_MS, 100000000, &hp);
    assert_true(hp.util > 0.93 && hp.util < 0.97);
    run_pair_assert_fair(&hp, 0.08);
    assert_true(hp.max_q_kb < 100);
    /* DCQCN (shipped settings) on the same dumbbell keeps a standing queue
     * between RED's kmin and kmax */
    run_pair("dcqcn", "", JOIN, 10 * T_MS, 5 * T_MS, 150000000, &dq);
    assert_true(dq.util > 0.97);
    assert_true(dq.mean_q_kb > 20 * hp.mean_q_kb + 10);
    assert_true(dq.max_q_kb > 200);
}

/* TIMELY (ns-3 defaults, no window): AIMD on the RTT gradient. TIMELY has no
 * unique fair fixed point (Zhu et al., CoNEXT'16), and its rate swings by
 * beta-scaled cuts once per window, so we measure over 10 ms and allow 10 %. */
static void test_timely_pair(void **st)
{
    (void)st;
    struct pair_result res;
    run_pair("timely", "", JOIN, 10 * T_MS, 10 * T_MS, 150000000, &res);
    run_pair_assert_fair(&res, 0.10);
    assert_true(res.util > 0.90);
}

/* DCTCP with the paper's marking, a step at K (kmin = kmax, pmax = 1, as
 * ns-3's run.py sets it for DCTCP); K = 100 KB at 100 Gbps, well above the
 * paper's K > C·RTT/7 (about 15 KB here). Rate-based DCTCP swings a few
 * Gbps around the share within each millisecond; over 10 ms each flow is
 * within 10 %. */
static void test_dctcp_pair(void **st)
{
    (void)st;
    struct pair_result res;
    run_pair("dctcp", "[switch]\nkmin = 100KB\nkmax = 100KB\npmax = 1", JOIN, 10 * T_MS, 10 * T_MS, 150000000, &res);
    run_pair_assert_fair(&res, 0.10);
    assert_true(res.util > 0.90);
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hpcc_pair),
        cmocka_unit_test(test_timely_pair),
        cmocka_unit_test(test_dctcp_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
