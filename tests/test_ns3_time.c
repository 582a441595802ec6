/* Times as ns-3 HPCC computes them, for run.ns3_timing (core/ns3time.h):
 * Seconds(double) is floor(d * 2^64) in 64.64 fixed point, times 10^9,
 * integer part, so a whole number of ns usually loses 1 ns.
 * - flow-file starts (flowfile_ns3_start, workload.c): the expected values
 *   are the start_ns column ns-3 wrote to fct.txt for these flow-file lines
 *   (docs/validation.md, Round 4b; tests/ns3-ties/fct-ns3.txt);
 * - serialisation and pacing gaps (ns3_tx_time, net_impl.h): the values are
 *   read from ns-3 packet traces (Round 4b: a 200 B last packet's ACK). */
#include "testutil.h"
#include <string.h>
#include "core/eventq.h"
#include "core/ns3time.h"
#include "traffic/traffic.h"

/* One flow line through the ordinary parser, then ns-3's conversion. */
static simtime_t ns3_start_of(const char *secs)
{
    char text[128];
    snprintf(text, sizeof text, "1\n0 1 3 100 1000 %s\n", secs);
    struct flow_list l = {0};
    struct err e = {0};
    assert_int_equal(flowfile_parse(&l, text, "t.txt", NULL, &e), 0);
    assert_int_equal(l.n, 1);
    simtime_t t = flowfile_ns3_start(l.v[0].start);
    flow_list_free(&l);
    return t;
}

static void test_ns3_values(void **state)
{
    (void)state;
    /* ns-3's fct.txt: written time -> its start */
    assert_int_equal(ns3_start_of("0.000000385"), 384 * T_NS);
    assert_int_equal(ns3_start_of("0.000001328"), 1327 * T_NS);
    assert_int_equal(ns3_start_of("0.000004288"), 4287 * T_NS);
    assert_int_equal(ns3_start_of("0.000010416"), 10415 * T_NS);
    assert_int_equal(ns3_start_of("0.000011589"), 11589 * T_NS); /* the double rounds up enough: exact */
    assert_int_equal(ns3_start_of("0.000425266"), 425265 * T_NS); /* 37->77, DCTCP 50 % */
    /* from the rule: 10 us is 9 999 ns; 2^-9 s and whole seconds are exact in 64.64 */
    assert_int_equal(ns3_start_of("0.00001"), 9999 * T_NS);
    assert_int_equal(ns3_start_of("1e-5"), 9999 * T_NS);
    assert_int_equal(ns3_start_of("0.001953125"), 1953125 * T_NS);
    assert_int_equal(ns3_start_of("2"), 2 * T_SEC);
    assert_int_equal(ns3_start_of("0"), 0);
}

/* Whole ns out, never later than the written time, never more than 1 ns
 * earlier, and in the same order (a file's flows keep their order). */
static void test_ns3_bounds(void **state)
{
    (void)state;
    simtime_t prev = 0;
    for (simtime_t t = 1; t < 4 * T_SEC; t = t * 3 + 7 * T_NS + 1) {
        simtime_t n = flowfile_ns3_start(t);
        assert_true(n % T_NS == 0);
        assert_true(n <= t && n >= t - t % T_NS - T_NS);
        assert_true(n >= prev);
        prev = n;
    }
    for (simtime_t t = 1000 * T_NS; t < 1100 * T_NS; t += T_NS) { /* whole-ns starts: 1 ns early or exact */
        simtime_t n = flowfile_ns3_start(t);
        assert_true(n == t || n == t - T_NS);
    }
}

/* ns3_seconds below 1 s takes a 64-bit path: the same value as the 128-bit
 * one it stands for, on either side of 2^63 (0.5 s) and near 1 s. */
static simtime_t seconds_128(double d)
{
    unsigned __int128 v = (unsigned __int128)(d * 0x1p64);
    return (simtime_t)(uint64_t)((v * 1000000000u) >> 64) * T_NS;
}

static void test_ns3_seconds_paths(void **state)
{
    (void)state;
    for (double d = 1e-12; d < 1; d = d * 1.37 + 1e-13)
        assert_int_equal(ns3_seconds(d), seconds_128(d));
    static const double edge[] = { 0x1p-1, 0x1.0000000000001p-1, 0x1.fffffffffffffp-2, 0x1.fffffffffffffp-1, 1e-9, 8e-9, 1e-5 };
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        assert_int_equal(ns3_seconds(edge[i]), seconds_128(edge[i]));
    for (uint32_t b = 1; b < 70000; b += 37)
        for (uint64_t bps = 1000000000ULL; bps <= 800000000000ULL; bps = bps * 5 / 2 + 7)
            assert_int_equal(ns3_tx_time(b, bps), seconds_128((double)b * 8 / (double)bps));
    assert_int_equal(ns3_seconds(1.0), T_SEC);
}

static void test_ns3_tx_time(void **state)
{
    (void)state;
    const uint64_t G100 = 100000000000ULL, G400 = 400000000000ULL;
    /* ns-3 traces: 1048 B data 83 ns, 60 B ACK 4 ns, a 200 B last packet
     * 15 ns (16 exactly) at 100 Gbps; 168->128's 925 B last packet 73 ns */
    assert_int_equal(ns3_tx_time(1048, G100), 83 * T_NS);
    assert_int_equal(ns3_tx_time(60, G100), 4 * T_NS);
    assert_int_equal(ns3_tx_time(200, G100), 15 * T_NS);
    assert_int_equal(ns3_tx_time(925, G100), 73 * T_NS);
    /* the rule: 1000 B at 400 Gbps is 20 ns exactly, 19 in ns-3; 1 KB at 1 Gbps 8 us -> 7 999 ns */
    assert_int_equal(ns3_tx_time(1000, G400), 19 * T_NS);
    assert_int_equal(ns3_tx_time(1000, 1000000000ULL), 7999 * T_NS);
    /* never more than 1 ns below the exact time, never above it */
    for (uint64_t b = 1; b < 9000; b += 7) {
        simtime_t exact = tx_time(b, G100), n = ns3_tx_time(b, G100);
        assert_true(n % T_NS == 0 && n <= exact && n >= exact - exact % T_NS - T_NS);
    }
}

/* Two places the test keeps, found by renumbering through the callback. */
struct two_places {
    struct eventq *q;
    simtime_t t[2];
    uint32_t ord[2];
};

static void visit_two(void *ctx)
{
    struct two_places *p = ctx;
    for (int i = 0; i < 2; i++)
        evq_place_visit(p->q, p->t[i], &p->ord[i]);
}

/* evq_place_ahead: a place at the current time is ahead only if it follows
 * the event being run (port.c: a transmission ending now holds the port
 * until its TX_DONE's place has passed, as ns-3's TransmitComplete does). */
static void test_place_ahead(void **state)
{
    (void)state;
    struct eventq q;
    struct event ev;
    evq_init(&q);
    struct two_places p = { &q, { 200, 200 }, { EV_PLACE_NONE, EV_PLACE_NONE } };
    enum { EARLY, LATE };
    evq_set_places(&q, visit_two, &p);
    evq_push(&q, 100, 1, 1);
    evq_place_take(&q, &p.ord[EARLY], 200); /* taken before the event at 200 was pushed */
    evq_push(&q, 200, 1, 2);
    evq_place_take(&q, &p.ord[LATE], 200);  /* after it */
    assert_true(evq_pop(&q, &ev) && ev.time == 100);
    assert_true(evq_place_ahead(&q, 200, p.ord[EARLY]) && evq_place_ahead(&q, 200, p.ord[LATE]));
    assert_true(evq_pop(&q, &ev) && ev.time == 200 && ev_id(&ev) == 2);
    assert_false(evq_place_ahead(&q, 200, p.ord[EARLY])); /* its place came before event 2 */
    assert_true(evq_place_ahead(&q, 200, p.ord[LATE]));
    /* renumbering (every ~1 M pushes) keeps the answer, and drops the place behind */
    for (uint32_t i = 0; i < (1u << EV_SEQ_BITS) + 10; i++)
        evq_push(&q, 300 + i, 1, 3);
    assert_true(p.ord[EARLY] == EV_PLACE_NONE);
    assert_true(evq_place_ahead(&q, 200, p.ord[LATE]));
    evq_push_place(&q, 200, &p.ord[LATE], 1, 4); /* runs next: after event 2, before 300 */
    assert_true(evq_pop(&q, &ev) && ev.time == 200 && ev_id(&ev) == 4);
    evq_free(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ns3_values),
        cmocka_unit_test(test_ns3_bounds),
        cmocka_unit_test(test_ns3_tx_time),
        cmocka_unit_test(test_ns3_seconds_paths),
        cmocka_unit_test(test_place_ahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
