/* Flow-file start times as ns-3 HPCC reads them (flowfile_ns3_start, used by
 * workload.c under run.ns3_timing). third.cc reads the seconds as a double
 * and schedules at Seconds(d): floor(d * 2^64) in 64.64 fixed point, times
 * 10^9, integer part. Most starts land 1 ns early. The expected values are
 * the start_ns column ns-3 wrote to fct.txt for these flow-file lines
 * (docs/validation.md, Round 4b; tests/ns3-ties/fct-ns3.txt). */
#include "testutil.h"
#include <string.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ns3_values),
        cmocka_unit_test(test_ns3_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
