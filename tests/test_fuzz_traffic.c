/* Mutation fuzzing of the CDF and flow-file parsers: no crash, errors name
 * the file and a line, and whatever is accepted is a valid CDF / flow list. */
#include "testutil.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topo/topo.h"
#include "traffic/traffic.h"

#define CAP 8192

static void check_error(const struct err *e, const char *fname)
{
    size_t n = strlen(fname);
    if (strncmp(e->msg, fname, n) != 0 || e->msg[n] != ':' || !isdigit((unsigned char)e->msg[n + 1]))
        fail_msg("error without '%s:LINE:': '%s'", fname, e->msg);
}

static char *load(const char *path)
{
    char *text;
    struct err e;
    if (read_text_file(path, &text, &e))
        fail_msg("%s", e.msg);
    return text;
}

static void test_fuzz_cdf(void **state)
{
    (void)state;
    char *seeds[6] = {
        load(ROCESIM_SHARED_DIR "/workloads/web_search.cdf"),
        load(ROCESIM_SHARED_DIR "/workloads/ns3-format/WebSearch_distribution.txt"),
        load(ROCESIM_SHARED_DIR "/workloads/solar.cdf"),
        load(ROCESIM_SHARED_DIR "/workloads/web_server.cdf"),
        strdup("100 0\n200 0.5\n200 0.75\n300 0.75\n400 1\n"),
        strdup("0 0\n1.5e3 50\n2e3 100\n"),
    };
    char *buf = malloc(CAP + 1);
    uint64_t st = 12345;
    int n = fuzz_iterations(20000), ok = 0;
    struct rng r;
    rng_seed(&r, 3, 0);
    for (int it = 0; it < n; it++) {
        const char *seed = seeds[it % 6];
        size_t len = strlen(seed);
        if (len > CAP)
            len = CAP;
        memcpy(buf, seed, len);
        for (int k = 0, rounds = 1 + it % 3; k < rounds; k++)
            len = fuzz_mutate(buf, len, CAP, &st);
        buf[len] = '\0';
        struct cdf c;
        struct err e = {{0}};
        if (cdf_parse(&c, buf, "fuzz.cdf", &e)) {
            check_error(&e, "fuzz.cdf");
            assert_null(c.x);
            continue;
        }
        ok++;
        assert_true(c.n >= 2);
        assert_true(c.p[0] == 0 && c.p[c.n - 1] == 1);
        for (int i = 0; i < c.n; i++) {
            assert_true(c.x[i] >= 0 && isfinite(c.x[i]));
            assert_true(c.p[i] >= 0 && c.p[i] <= 1);
            if (i)
                assert_true(c.x[i] >= c.x[i - 1] && c.p[i] >= c.p[i - 1]);
        }
        assert_true(isfinite(c.mean_linear) && c.mean_linear >= 0);
        assert_true(isfinite(c.mean_step) && c.mean_step >= 0);
        assert_true(c.mean_linear <= c.mean_step * (1 + 1e-12) + 1e-9);
        double hi = c.x[c.n - 1] < 1 ? 1 : c.x[c.n - 1];
        for (int k = 0; k < 8; k++) {
            uint64_t s = cdf_sample(&c, &r, k & 1);
            assert_true(s >= 1 && (double)s <= hi && (double)s >= floor(c.x[0]));
        }
        cdf_free(&c);
    }
    print_message("cdf: %d of %d mutants accepted\n", ok, n);
    for (int i = 0; i < 6; i++)
        free(seeds[i]);
    free(buf);
}

static void test_fuzz_flowfile(void **state)
{
    (void)state;
    /* 8 hosts (0..7) and switches 8, 9. */
    struct topo_node nodes[10] = {{0}};
    uint32_t hosts[8];
    int32_t host_index[10];
    for (int i = 0; i < 10; i++) {
        nodes[i].is_switch = i >= 8;
        host_index[i] = i < 8 ? i : -1;
        if (i < 8)
            hosts[i] = (uint32_t)i;
    }
    struct topo t = {.n_nodes = 10, .nodes = nodes, .n_hosts = 8, .hosts = hosts, .host_index = host_index};
    static const char *const seeds[] = {
        "5\n0 1 3 100 1000 2.000000001\n2 3 0 100 50000 2\n4 5 7 4791 1 0.5\n6 0 3 100 123456789 3.25\n1 7 1 1 99 0\n",
        "2 \r\n\n7 6 3 100 200000000 1e-3\n\n3 4 3 100 5000000 9223372.036854775807\n",
    };
    char buf[CAP + 1];
    uint64_t st = 777;
    int n = fuzz_iterations(20000), ok = 0;
    for (int it = 0; it < n; it++) {
        const char *seed = seeds[it % 2];
        size_t len = strlen(seed);
        memcpy(buf, seed, len);
        for (int k = 0, rounds = 1 + it % 3; k < rounds; k++)
            len = fuzz_mutate(buf, len, CAP, &st);
        buf[len] = '\0';
        const struct topo *tp = it % 5 == 4 ? NULL : &t; /* no topology: only the syntax is checked */
        struct flow_list l = {0};
        struct err e = {{0}};
        if (flowfile_parse(&l, buf, "fuzz.txt", tp, &e)) {
            check_error(&e, "fuzz.txt");
            assert_int_equal(l.n, 0);
            flow_list_free(&l);
            continue;
        }
        ok++;
        for (size_t i = 0; i < l.n; i++) {
            const struct flow_spec *f = &l.v[i];
            if (tp)
                assert_true(f->src < 8 && f->dst < 8); /* hosts */
            assert_true(f->src != f->dst && f->size >= 1 && f->pg <= 7 && f->start >= 0);
        }
        /* Whatever was accepted writes and reads back the same. */
        char *out = NULL;
        size_t olen = 0;
        FILE *fp = open_memstream(&out, &olen);
        flowfile_write(fp, &l);
        fclose(fp);
        struct flow_list m = {0};
        if (flowfile_parse(&m, out, "rt.txt", tp, &e))
            fail_msg("round trip: %s\n%s", e.msg, out);
        assert_int_equal(m.n, l.n);
        for (size_t i = 0; i < l.n; i++)
            assert_true(m.v[i].src == l.v[i].src && m.v[i].dst == l.v[i].dst && m.v[i].size == l.v[i].size &&
                        m.v[i].start == l.v[i].start && m.v[i].pg == l.v[i].pg && m.v[i].dport == l.v[i].dport);
        free(out);
        flow_list_free(&m);
        flow_list_free(&l);
    }
    print_message("flow file: %d of %d mutants accepted\n", ok, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fuzz_cdf),
        cmocka_unit_test(test_fuzz_flowfile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
