/* Partitioned runs (docs/parallel.md, "What each part of rocesim needs"):
 * the schemes the audit found sharing state across partitions say so in
 * serial_only, the run's first such reason is found from a configuration and
 * from a built simulation alike (the CC, then companions, then the data and
 * control balancers), and lb_paths_build enumerates the same path sets the
 * lazy lookups do. */
#include "simrun.h"
#include "testutil.h"
#include <string.h>
#include "net/cc.h"
#include "net/lb.h"
#include "net/net.h"
#include "scenario/config.h"

/* One scheme's verdict: serial_only set exactly when its name is listed,
 * and then one line of text. */
static void check_verdict(const char *kind, const char *name, const char *serial_only, const char *const *serial)
{
    bool want = false;
    for (int j = 0; serial[j]; j++)
        want |= strcmp(serial[j], name) == 0;
    if (want != (serial_only != NULL))
        fail_msg("%s %s: serial_only is %s", kind, name, serial_only ? serial_only : "NULL");
    if (serial_only)
        assert_true(serial_only[0] && !strchr(serial_only, '\n'));
}

/* The audit's verdicts: exactly these schemes must run serially. A scheme
 * added with a reason, or a reason dropped, fails here until docs/parallel.md's
 * table and this list agree. */
static void test_verdicts(void **state)
{
    (void)state;
    static const char *const cc_serial[] = {NULL}, *const lb_serial[] = {NULL};
    for (int i = 0; cc_registry[i]; i++)
        check_verdict("cc", cc_registry[i]->name, cc_registry[i]->serial_only, cc_serial);
    for (int i = 0; lb_registry[i]; i++)
        check_verdict("lb", lb_registry[i]->name, lb_registry[i]->serial_only, lb_serial);
}

/* The reason of `ini`'s run, from its configuration and from the built
 * simulation, which must agree; NULL if none. */
static const char *reason_of(const char *ini)
{
    struct run r;
    run_setup(&r, ini);
    run_build(&r);
    const char *a = config_serial_only_reason(&r.cfg), *b = sim_serial_only_reason(&r.sc.sim);
    assert_ptr_equal(a, b);
    run_free(&r);
    return a;
}

#define TOPO "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n[traffic]\npattern = none\n"

static void test_reasons(void **state)
{
    (void)state;
    assert_null(reason_of(TOPO "[transport]\ncc = dcqcn\n"));
    assert_null(reason_of(TOPO "[transport]\ncc = hpcc\npbfs = on\n[lb]\nscheme = conweave\n"));
    assert_null(reason_of(TOPO "[transport]\ncc = pcn\n")); /* the NP's end is the receiver's own (issue 39) */
    /* FLB's congestion points keep their own flow tables (issue 39) */
    assert_null(reason_of(TOPO "[transport]\ncc = dcqcn\n[lb]\nscheme = flb\n"));
    assert_null(reason_of(TOPO "[transport]\ncc = flbrc\n[lb]\nscheme = flb\n"));
    assert_null(reason_of(TOPO "[transport]\ncc = pcn\n[lb]\nscheme = flb\n"));
}

/* Built up front, the path sets are those the lazy lookups enumerate. */
static void test_paths_build(void **state)
{
    (void)state;
    static const char *ft = "[topology]\ntype = fattree\nk = 4\n[traffic]\npattern = none\n";
    struct run lazy, built;
    run_setup(&lazy, ft);
    run_build(&lazy);
    run_setup(&built, ft);
    run_build(&built);
    struct sim *a = &lazy.sc.sim, *b = &built.sc.sim;
    lb_paths_build(b);
    uint32_t total = 0;
    for (uint32_t se = 0; se < a->n_edges; se++)
        for (uint32_t de = 0; de < a->n_edges; de++) {
            uint32_t n = lb_path_count(a, se, de);
            assert_int_equal(lb_path_count(b, se, de), n);
            total += n;
            for (uint32_t i = 0; i <= n; i++) /* i = n: PATH_NONE from both */
                assert_int_equal(lb_path_word(b, se, de, i), lb_path_word(a, se, de, i));
        }
    assert_int_equal(total, 8 + 8 * (1 * 2 + 6 * 4)); /* itself; its pod's other edge by 2 aggs, 6 others by 4 */
    run_free(&lazy);
    run_free(&built);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_reasons),
        cmocka_unit_test(test_paths_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
