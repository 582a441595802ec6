/* `rocesim report`: statistics of a hand-built fct.csv against values worked
 * out by hand, ns-3 fct_analysis.py's equal-count buckets, and FILE:LINE
 * errors for malformed inputs. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats/report.h"

#define DATA ROCESIM_SOURCE_DIR "/tests/data/report"

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-9 * (fabs(want) + 1))
        fail_msg("got %.12g, want %.12g", got, want);
}

/* ok/fct.csv, finished flows (size: fct us, slowdown):
 *   (0,100KB]    1000: 10 2   50000: 20 4   100000: 30 0.5   5000: 70 7   200: 90 1.5
 *   (100KB,1MB]  100001: 40 3   1000000: 50 5
 *   (1MB,inf)    1000001: 60 6   3000000: 80 8,  and flow 6 (2000000) unfinished
 * Nearest rank: p = the ceil(n*p/100)-th smallest. */
static void test_fixed_buckets(void **st)
{
    (void)st;
    struct report_run r;
    struct report_summary s;
    struct err e;
    if (report_load(&r, DATA "/ok", &e) < 0)
        fail_msg("%s", e.msg);
    report_compute(&r, &s);
    assert_int_equal(s.flows, 10);
    assert_int_equal(s.finished, 9);
    assert_int_equal(s.unfinished, 1);
    near(s.afct_us, 50); /* (10+20+...+90)/9 */

    /* all: fct 10..90 us */
    assert_int_equal(s.fct[0].n, 9);
    assert_int_equal(s.fct[0].unfinished, 1);
    near(s.fct[0].avg, 50);
    near(s.fct[0].p50, 50); /* rank ceil(4.5) = 5 */
    near(s.fct[0].p95, 90); /* rank ceil(8.55) = 9 */
    near(s.fct[0].p99, 90);
    near(s.fct[0].p999, 90);
    /* all: slowdowns 0.5 1.5 2 3 4 5 6 7 8 */
    near(s.sd[0].avg, 37.0 / 9);
    near(s.sd[0].p50, 4);
    near(s.sd[0].p95, 8);

    /* (0,100KB]: fct 10 20 30 70 90, slowdowns 0.5 1.5 2 4 7 (100000 B is in: the bound is inclusive) */
    assert_int_equal(s.fct[1].n, 5);
    assert_int_equal(s.fct[1].unfinished, 0);
    near(s.fct[1].avg, 44);
    near(s.fct[1].p50, 30); /* rank ceil(2.5) = 3 */
    near(s.fct[1].p95, 90); /* rank ceil(4.75) = 5 */
    near(s.sd[1].avg, 3);
    near(s.sd[1].p50, 2);
    near(s.sd[1].p99, 7);

    /* (100KB,1MB]: 100001 and 1000000 B */
    assert_int_equal(s.fct[2].n, 2);
    near(s.fct[2].avg, 45);
    near(s.fct[2].p50, 40); /* rank ceil(1.0) = 1 */
    near(s.fct[2].p95, 50); /* rank ceil(1.9) = 2 */
    near(s.sd[2].avg, 4);

    /* (1MB,inf): two finished, one unfinished, counted, never dropped */
    assert_int_equal(s.fct[3].n, 2);
    assert_int_equal(s.fct[3].unfinished, 1);
    near(s.fct[3].avg, 70);
    near(s.fct[3].p50, 60);
    near(s.fct[3].p999, 80);
    near(s.sd[3].p99, 8);

    /* summary.json and pfc_ports.csv */
    assert_true(r.has_layers);
    assert_int_equal(r.pause_sent[1], 7);
    assert_int_equal(r.pause_sent[2], 2);
    assert_int_equal(r.pause_sent[3], 1);
    assert_int_equal(r.pause_sent[0], 0);
    assert_true(r.has_ports);
    assert_int_equal(r.n_ports, 6);
    assert_int_equal(r.ports[2].node, 2);
    assert_int_equal(r.ports[2].layer, 1);
    near(r.ports[2].paused_us, 40);
    report_free(&r);
}

/* fct_analysis.py: finished flows sorted by size, bucket i (step 5) is
 * [i*n/100, (i+5)*n/100) in integer arithmetic; slowdown < 1 counts as 1;
 * percentile p is sorted[int(len*p)]. With 9 flows, buckets 2, 4, 6, 8, 11,
 * 13, 15, 17, 19 hold one flow each, the others none. */
static void test_equal_buckets_hand(void **st)
{
    (void)st;
    struct report_run r;
    struct report_summary s;
    struct err e;
    if (report_load(&r, DATA "/ok", &e) < 0)
        fail_msg("%s", e.msg);
    report_compute(&r, &s);
    static const int one[] = {2, 4, 6, 8, 11, 13, 15, 17, 19};
    static const uint64_t size[] = {200, 1000, 5000, 50000, 100000, 100001, 1000000, 1000001, 3000000};
    static const double sd[] = {1.5, 2, 7, 4, 1 /* 0.5 clamped */, 3, 5, 6, 8};
    for (int k = 0, j = 0; k < REPORT_EQUAL; k++) {
        if (j < 9 && one[j] == k) {
            assert_int_equal(s.esd[k].n, 1);
            assert_int_equal(s.esd[k].max_size, size[j]);
            near(s.esd[k].p50, sd[j]);
            near(s.esd[k].p99, sd[j]);
            j++;
        } else {
            assert_int_equal(s.esd[k].n, 0);
            assert_true(isnan(s.esd[k].p50));
        }
    }
    near(s.efct[11].avg, 30); /* the 100000 B flow's FCT is not clamped */
    report_free(&r);
}

/* 200 flows, size i+1 and slowdown i+1: bucket k = flows 10k..10k+9, so
 * slowdowns 10k+1..10k+10; ns-3's p50 is sorted[int(10*0.5)] = sorted[5] =
 * 10k+6 where nearest rank would give 10k+5. */
static void test_equal_buckets_ns3_percentile(void **st)
{
    (void)st;
    struct report_run r;
    memset(&r, 0, sizeof r);
    r.n_flows = 200;
    r.flows = calloc(r.n_flows, sizeof *r.flows);
    assert_non_null(r.flows);
    for (uint32_t i = 0; i < 200; i++) {
        /* stored in reverse size order: the report sorts */
        struct report_flow *f = &r.flows[199 - i];
        f->id = 199 - i;
        f->size = i + 1;
        f->done = true;
        f->slowdown = i + 1;
        f->fct_ns = 1000.0 * (i + 1);
    }
    struct report_summary s;
    report_compute(&r, &s);
    for (int k = 0; k < REPORT_EQUAL; k++) {
        assert_int_equal(s.esd[k].n, 10);
        assert_int_equal(s.esd[k].max_size, 10 * k + 10);
        near(s.esd[k].avg, 10 * k + 5.5);
        near(s.esd[k].p50, 10 * k + 6);
        near(s.esd[k].p95, 10 * k + 10); /* sorted[int(9.5)] */
        near(s.efct[k].p50, 10 * k + 6);  /* us */
    }
    /* the fixed buckets use nearest rank */
    near(s.sd[0].p50, 100);
    near(s.sd[0].p95, 190);
    near(s.sd[0].p99, 198);
    near(s.sd[0].p999, 200);
    report_free(&r);
}

/* The 9-column fct.csv of earlier runs still reads; no summary, no ports. */
static void test_old_format(void **st)
{
    (void)st;
    struct report_run r;
    struct report_summary s;
    struct err e;
    if (report_load(&r, DATA "/old_format", &e) < 0)
        fail_msg("%s", e.msg);
    report_compute(&r, &s);
    assert_int_equal(s.flows, 2);
    assert_int_equal(s.unfinished, 1);
    assert_false(r.has_layers);
    assert_false(r.has_ports);
    report_free(&r);
}

static void expect_error(const char *dir, const char *prefix, const char *sub)
{
    struct report_run r;
    struct err e = {{0}};
    assert_int_equal(report_load(&r, dir, &e), -1);
    if (strncmp(e.msg, prefix, strlen(prefix)) != 0 || !strstr(e.msg, sub))
        fail_msg("message '%s': want prefix '%s' and '%s'", e.msg, prefix, sub);
    report_free(&r);
}

static void test_errors(void **st)
{
    (void)st;
    expect_error(DATA "/bad_fields", DATA "/bad_fields/fct.csv:3: ", "9 fields, the header has 11");
    expect_error(DATA "/bad_number", DATA "/bad_number/fct.csv:4: ", "size_bytes: '12x' is not a whole number");
    expect_error(DATA "/bad_empty", DATA "/bad_empty/fct.csv:2: ", "must be all empty");
    expect_error(DATA "/bad_ports", DATA "/bad_ports/pfc_ports.csv:3: ", "layer: 'spine'");
    expect_error(DATA "/bad_summary", DATA "/bad_summary/summary.json:3: ", "agg: expected a whole number");
    expect_error(DATA "/no_such_run", DATA "/no_such_run/fct.csv: cannot open", "No such file");

    /* the whole report fails the same way */
    const char *dirs[] = {DATA "/ok", DATA "/bad_number"};
    struct err e;
    FILE *devnull = fopen("/dev/null", "w");
    assert_non_null(devnull);
    assert_int_equal(report_print(devnull, dirs, 2, &e), -1);
    assert_non_null(strstr(e.msg, "bad_number/fct.csv:4: "));
    fclose(devnull);
}

/* Several runs print side by side: one column per run. */
static void test_print_side_by_side(void **st)
{
    (void)st;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    const char *dirs[] = {DATA "/ok", DATA "/old_format"};
    struct err e;
    if (report_print(f, dirs, 2, &e) < 0)
        fail_msg("%s", e.msg);
    fclose(f);
    assert_non_null(strstr(buf, "run 1"));
    assert_non_null(strstr(buf, "run 2"));
    /* AFCT: 50 us in run 1, 10 us in run 2 */
    assert_non_null(strstr(buf, "AFCT (us)              50.000       10.000"));
    /* the unfinished flows are listed by id */
    assert_non_null(strstr(buf, "unfinished flows of run 1 (1), by id"));
    assert_non_null(strstr(buf, "unfinished flows of run 2 (1), by id"));
    /* top paused port of run 1: node 2 port 0, 40 us */
    assert_non_null(strstr(buf, " 1. 2:0 edge 1 40.000us"));
    free(buf);
}

/* ns-3 fct.txt files (tests/data/report/ns3_*_fct.txt): flow i = 1..30 has
 * i KB, standalone FCT 10 us and slowdown 1 + i/10 (flow 1: 0.9, counted as
 * 1), lines in reverse size order; b doubles the slowdowns of sizes 1-3 KB and
 * takes 10 % off those of 28-30 KB. Deciles hold 3 flows: p50 = sorted[1],
 * p95 = p99 = sorted[2]. */
static void test_ns3_fct(void **st)
{
    (void)st;
    struct report_run r;
    struct report_decile d[REPORT_DECILES];
    struct err e;
    if (report_load(&r, DATA "/ns3_a_fct.txt", &e) < 0)
        fail_msg("%s", e.msg);
    assert_int_equal(r.n_flows, 30);
    assert_false(r.has_layers);
    assert_int_equal(r.flows[0].size, 30000); /* completion order kept */
    near(r.flows[0].fct_ns, 40000);
    near(r.flows[0].slowdown, 4.0);
    near(r.flows[29].slowdown, 0.9);
    report_deciles(&r, d);
    assert_int_equal(d[0].n, 3);
    assert_int_equal(d[0].min_size, 1000);
    assert_int_equal(d[0].max_size, 3000);
    near(d[0].p50, 1.2);
    near(d[0].p95, 1.3);
    near(d[0].p99, 1.3);
    near(d[1].p50, 1.5);
    assert_int_equal(d[9].min_size, 28000);
    near(d[9].p50, 3.9);
    near(d[9].p99, 4.0);
    report_free(&r);

    /* side by side with b: the largest difference is bucket 0's +100 % */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    const char *runs[] = {DATA "/ns3_a_fct.txt", DATA "/ns3_b_fct.txt"};
    if (report_print(f, runs, 2, &e) < 0)
        fail_msg("%s", e.msg);
    fclose(f);
    assert_non_null(strstr(buf, "  0-10%    1000-3000             p50       1.200      2.400   +100.0%"));
    assert_non_null(strstr(buf, "  90-100%  28000-30000           p50       3.900      3.510    -10.0%"));
    assert_non_null(strstr(buf, "largest difference: +100.0 % (p50 of bucket 0-10%)"));
    free(buf);
    /* one run alone has nothing to compare */
    f = open_memstream(&buf, &len);
    if (report_print(f, runs, 1, &e) < 0)
        fail_msg("%s", e.msg);
    fclose(f);
    assert_null(strstr(buf, "size decile"));
    free(buf);

    expect_error(DATA "/bad_ns3_fct.txt", DATA "/bad_ns3_fct.txt:1: ", "fct_ns: 'zz' is not a whole number");
    expect_error(DATA "/ok/summary.json", DATA "/ok/summary.json:1: ", "expected 8");
}

/* --seeds: groups of runs of the same flows. Side 1 = {a, b}, side 2 = {b, b}
 * (test_ns3_fct's files): bucket 0 has p50 1.2 / 2.4 and p95 = p99 1.3 / 2.6 in
 * a / b, so side 1's means are 1.8 and 1.95 and side 2's are b's (+33.3 %);
 * bucket 9: p50 3.9 / 3.51, p99 4.0 / 3.6, means 3.705 and 3.8 against b's
 * (-5.3 %); buckets 1-8 are the same in a and b (0 %). */
static void test_seeds(void **st)
{
    (void)st;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    const char *s1[] = {DATA "/ns3_a_fct.txt", DATA "/ns3_b_fct.txt"};
    const char *s2[] = {DATA "/ns3_b_fct.txt", DATA "/ns3_b_fct.txt"};
    struct report_seed_sum sum;
    struct err e;
    if (report_print_seeds(f, s1, 2, s2, 2, &sum, &e) < 0)
        fail_msg("%s", e.msg);
    fclose(f);
    assert_int_equal(sum.cells, 30);
    assert_int_equal(sum.within5, 24);  /* buckets 1-8 */
    assert_int_equal(sum.within10, 27); /* and bucket 9's -5.3 % */
    assert_int_equal(sum.in_range, 30); /* side 2 (b alone) is an end of side 1's range */
    /* side 2 has no spread: t is not defined when side 1 has none either */
    assert_non_null(strstr(buf, "  0-10%    1000-3000             p50  1.800 [1.200, 2.400]         2.400 [2.400, 2.400]"
                                "           +33.3% yes/no    +1.00\n"));
    assert_non_null(strstr(buf, "  10-20%   4000-6000             p50  1.500 [1.500, 1.500]         1.500 [1.500, 1.500]"
                                "            +0.0% yes/yes       -\n"));
    assert_non_null(strstr(buf, "p99  3.800 [3.600, 4.000]         3.600 [3.600, 3.600]            -5.3% yes/no    -1.00\n"));
    assert_non_null(strstr(buf, "means within 5 %: 24 of 30 cells, within 10 %: 27; a mean within the other side's range: 30"));
    free(buf);

    /* runs of other flows cannot be averaged with these */
    const char *other[] = {DATA "/ok"};
    f = fopen("/dev/null", "w");
    assert_non_null(f);
    assert_int_equal(report_print_seeds(f, s1, 2, other, 1, NULL, &e), -1);
    assert_non_null(strstr(e.msg, DATA "/ok: its size deciles differ from " DATA "/ns3_a_fct.txt's (bucket 0-10%)"));
    /* and a bad file is FILE:LINE */
    const char *bad[] = {DATA "/bad_ns3_fct.txt"};
    assert_int_equal(report_print_seeds(f, s1, 2, bad, 1, NULL, &e), -1);
    assert_non_null(strstr(e.msg, DATA "/bad_ns3_fct.txt:1: "));
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_buckets),
        cmocka_unit_test(test_equal_buckets_hand),
        cmocka_unit_test(test_equal_buckets_ns3_percentile),
        cmocka_unit_test(test_old_format),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_print_side_by_side),
        cmocka_unit_test(test_ns3_fct),
        cmocka_unit_test(test_seeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
