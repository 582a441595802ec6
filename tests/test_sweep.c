/* [sweep] values, points, folder names and resolved scenarios (scenario/sweepspec.h). */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scenario/load.h"
#include "scenario/sweepspec.h"

static void expect_values(const char *spec, int n, const char *const *want)
{
    char **v;
    const char *why = NULL;
    int got = sweep_values(spec, &v, &why);
    assert_int_equal(got, n);
    for (int i = 0; i < n; i++)
        assert_string_equal(v[i], want[i]);
    sweep_values_free(v, got);
}

static void test_values(void **state)
{
    (void)state;
    /* decimal steps accumulate rounding error; the printed values must not show it */
    expect_values("0.3:0.8:0.1", 6, (const char *const[]){"0.3", "0.4", "0.5", "0.6", "0.7", "0.8"});
    expect_values("0.3:0.75:0.1", 5, (const char *const[]){"0.3", "0.4", "0.5", "0.6", "0.7"});
    expect_values("1..3", 3, (const char *const[]){"1", "2", "3"});
    expect_values(" dcqcn , hpcc,timely ", 3, (const char *const[]){"dcqcn", "hpcc", "timely"});
    expect_values("25Gbps", 1, (const char *const[]){"25Gbps"});
    expect_values("5..5", 1, (const char *const[]){"5"});
    static const char *const bad[] = {"", "3..1", "1..x", "0.8:0.3:0.1", "0.1:0.2:0", "a:b:c", "a,,b", "a, a", "0..100000"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char **v;
        const char *why = NULL;
        assert_int_equal(sweep_values(bad[i], &v, &why), -1);
        assert_non_null(why);
    }
}

static void test_points_and_names(void **state)
{
    (void)state;
    char path[] = "/tmp/rocesim_sweep_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("[traffic]\nload = 0.3\n[sweep]\ntransport.cc = dcqcn, hpcc\ntraffic.load = 0.3:0.5:0.1\n"
          "cc.dcqcn.rate_ai = 5Mbps, 10Mbps\ncc.hpcc.rate_ai = 5Mbps, 10Mbps  ; same last part\n", f);
    fclose(f);
    struct sweep_spec s;
    struct err e;
    assert_int_equal(sweep_spec_load(&s, path, &e), 0);
    assert_int_equal(s.nk, 4);
    assert_int_equal(s.npoints, 2 * 3 * 2 * 2);
    assert_int_equal(s.k[1].line, 5);
    int ch[SWEEP_MAX_KEYS];
    sweep_point(&s, 0, ch);
    assert_int_equal(ch[0] + ch[1] + ch[2] + ch[3], 0);
    sweep_point(&s, s.npoints - 1, ch); /* the last point takes every key's last value */
    assert_int_equal(ch[0], 1);
    assert_int_equal(ch[1], 2);
    assert_int_equal(ch[3], 1);
    sweep_point(&s, 1, ch); /* the last key varies fastest */
    assert_int_equal(ch[3], 1);
    assert_int_equal(ch[2], 0);
    char name[256];
    sweep_point_name(&s, ch, name, sizeof name);
    assert_string_equal(name, "cc=dcqcn_load=0.3_cc.dcqcn.rate_ai=5Mbps_cc.hpcc.rate_ai=10Mbps");
    /* every point has its own folder */
    char seen[24][256];
    for (size_t i = 0; i < s.npoints; i++) {
        sweep_point(&s, i, ch);
        sweep_point_name(&s, ch, seen[i], sizeof seen[i]);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(seen[i], seen[j]);
    }
    sweep_spec_free(&s);
    unlink(path);
}

static void test_resolve(void **state)
{
    (void)state;
    const char *text = "[run]\nseed = 1\n[traffic]\nload = 0.3 ; base\nduration = 1ms\n[sweep]\ntraffic.load = 0.3, 0.5\n"
                       "run.seed = 1..2\n[switch]\npfc = on\n";
    const char *keys[] = {"traffic.load", "run.seed", "transport.cc", "switch.buffer", "cc.hpcc.u_target"};
    const char *vals[] = {"0.5", "2", "hpcc", "4MB", "0.9"};
    char *r = sweep_resolve(text, keys, vals, 5);
    assert_non_null(strstr(r, "\nload = 0.5"));
    assert_null(strstr(r, "load = 0.3 ; base"));
    assert_non_null(strstr(r, "\nseed = 2"));
    assert_non_null(strstr(r, "; [sweep]\n; traffic.load = 0.3, 0.5\n; run.seed = 1..2\n"));
    assert_non_null(strstr(r, "[switch]\npfc = on\nbuffer = 4MB"));
    assert_non_null(strstr(r, "[transport]\ncc = hpcc"));
    assert_non_null(strstr(r, "[cc.hpcc]\nu_target = 0.9"));
    /* and the result is a valid scenario with exactly those values */
    struct config c;
    struct err e;
    assert_int_equal(config_init(&c), 0);
    if (config_load_ini(&c, r, "resolved.ini", &e) < 0)
        fail_msg("%s\n%s", e.msg, r);
    assert_int_equal(c.run.seed, 2);
    assert_string_equal(c.transport.cc, "hpcc");
    assert_int_equal(c.sw.buffer, 4000000);
    config_load_free(&c);
    config_free(&c);
    free(r);
}

static void test_loader_checks_sweep(void **state)
{
    (void)state;
    struct config c;
    struct err e;
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load_ini(&c, "[sweep]\ntransport.cc = dcqcn, hpcc\n", "ok.ini", &e), 0);
    assert_string_equal(c.transport.cc, "dcqcn"); /* run keeps the base value */
    config_load_free(&c);
    config_free(&c);
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load_ini(&c, "[run]\nseed = 1\n[sweep]\nswitch.kmin = 1KB, 12parsecs\n", "bad.ini", &e), -1);
    assert_non_null(strstr(e.msg, "bad.ini:4: switch.kmin: bad size '12parsecs'"));
    config_load_free(&c);
    config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_points_and_names),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_loader_checks_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
