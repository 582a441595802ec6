/* traffic.incast_ratio (receiver-driven Poisson incasts, PCN sec. 7.4) and
 * the PCN workloads W1/W2 against the paper's description of them. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/rng.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

#define WORKLOADS ROCESIM_SHARED_DIR "/workloads"

/* Hosts 0..nh-1 on one switch (node nh), host i's link at rate[i % 2]. */
struct star {
    struct topo t;
    struct topo_node nodes[130];
    struct topo_link links[129];
    uint32_t hosts[129];
    int32_t host_index[130];
};

static struct star *star(uint32_t nh, uint64_t rate_even, uint64_t rate_odd)
{
    struct star *s = calloc(1, sizeof *s);
    assert_non_null(s);
    assert_true(nh < 130);
    s->t.n_nodes = nh + 1;
    s->t.nodes = s->nodes;
    s->t.links = s->links;
    s->t.hosts = s->hosts;
    s->t.host_index = s->host_index;
    s->t.n_hosts = nh;
    for (uint32_t i = 0; i <= nh; i++) {
        s->nodes[i].is_switch = i == nh;
        s->nodes[i].layer = i == nh ? LAYER_EDGE : LAYER_HOST;
        s->host_index[i] = i < nh ? (int32_t)i : -1;
        if (i < nh)
            s->hosts[i] = i;
    }
    for (uint32_t i = 0; i < nh; i++)
        s->links[s->t.n_links++] =
            (struct topo_link){.a = i, .b = nh, .rate = i % 2 ? rate_odd : rate_even, .delay = T_US};
    return s;
}

static void test_parse(void **state)
{
    (void)state;
    uint32_t lo, hi;
    const char *why;
    assert_int_equal(traffic_incast_ratio_parse("1-15", &lo, &hi, &why), 0);
    assert_true(lo == 1 && hi == 15);
    assert_int_equal(traffic_incast_ratio_parse(" 8 ", &lo, &hi, &why), 0);
    assert_true(lo == 8 && hi == 8);
    assert_int_equal(traffic_incast_ratio_parse("2 - 4", &lo, &hi, &why), 0);
    assert_true(lo == 2 && hi == 4);
    static const char *const bad[] = {"", "0", "0-3", "5-2", "-3", "1-", "1-x", "3x", "1-2-3", "1,2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (traffic_incast_ratio_parse(bad[i], &lo, &hi, &why) == 0)
            fail_msg("'%s' was accepted", bad[i]);
}

/* Every arrival: k in [lo, hi] distinct senders, never the receiver, all at
 * one time, listed by ascending sender; every k drawn; the bytes offered to
 * each receiver are `load` of its own link (two link rates here). */
static void test_incast_arrivals(void **state)
{
    (void)state;
    struct star *s = star(64, 10000000000ull, 25000000000ull);
    struct cdf c;
    struct err e = {0};
    assert_int_equal(cdf_parse(&c, "100000 0\n200000 0.5\n300000 1\n", "light.cdf", &e), 0);
    struct flow_list l = {0};
    struct rng r;
    rng_seed(&r, 7, 1);
    const double load = 0.6;
    const simtime_t dur = 200 * T_MS;
    assert_int_equal(traffic_poisson_incast(&l, &s->t, &c, 0, load, 1, 15, 0, dur, 3, &r, &e), 0);
    double bytes_to[64] = {0};
    int seen_k[16] = {0};
    size_t arrivals = 0;
    for (size_t i = 0; i < l.n;) {
        size_t j = i;
        while (j < l.n && l.v[j].start == l.v[i].start && l.v[j].dst == l.v[i].dst)
            j++;
        size_t k = j - i;
        assert_true(k >= 1 && k <= 15);
        seen_k[k]++;
        arrivals++;
        for (size_t a = i; a < j; a++) {
            assert_true(l.v[a].src != l.v[a].dst);
            assert_true(l.v[a].src < 64 && l.v[a].pg == 3 && l.v[a].dport == 100);
            if (a > i)
                assert_true(l.v[a - 1].src < l.v[a].src); /* distinct, ascending */
            bytes_to[l.v[a].dst] += (double)l.v[a].size;
        }
        if (i > 0)
            assert_true(l.v[i - 1].start <= l.v[i].start);
        i = j;
    }
    for (int k = 1; k <= 15; k++)
        assert_true(seen_k[k] > 0);
    /* mean senders per arrival (1+15)/2 = 8 */
    double mean_k = (double)l.n / (double)arrivals;
    if (fabs(mean_k - 8) > 0.3)
        fail_msg("mean senders per arrival %.3f, want 8", mean_k);
    /* offered load at each receiver class: 10 G and 25 G links */
    double sum[2] = {0};
    for (int h = 0; h < 64; h++)
        sum[h % 2] += bytes_to[h];
    for (int cls = 0; cls < 2; cls++) {
        double rate = cls ? 25e9 : 10e9, got = sum[cls] * 8 / (32 * rate * ((double)dur / T_SEC));
        if (fabs(got - load) > 0.03)
            fail_msg("receivers at %.0f Gbps: offered load %.4f, want %.2f", rate / 1e9, got, load);
    }
    flow_list_free(&l);

    /* Same seed, same flows; a fixed ratio k = 3 gives exactly 3 per arrival. */
    struct flow_list a = {0}, b = {0};
    rng_seed(&r, 9, 1);
    assert_int_equal(traffic_poisson_incast(&a, &s->t, &c, 1, 0.3, 3, 3, 5 * T_US, 2 * T_MS, 0, &r, &e), 0);
    rng_seed(&r, 9, 1);
    assert_int_equal(traffic_poisson_incast(&b, &s->t, &c, 1, 0.3, 3, 3, 5 * T_US, 2 * T_MS, 0, &r, &e), 0);
    assert_true(a.n == b.n && a.n > 0 && a.n % 3 == 0);
    assert_memory_equal(a.v, b.v, a.n * sizeof *a.v);
    for (size_t i = 0; i < a.n; i += 3)
        assert_true(a.v[i].start >= 5 * T_US && a.v[i].start < 5 * T_US + 2 * T_MS &&
                    a.v[i + 2].start == a.v[i].start && a.v[i + 2].dst == a.v[i].dst);
    flow_list_free(&a);
    flow_list_free(&b);

    /* 64 hosts: at most 63 senders */
    assert_int_equal(traffic_poisson_incast(&a, &s->t, &c, 0, 0.5, 1, 64, 0, T_MS, 0, &r, &e), -1);
    if (strcmp(e.msg, "traffic.incast_ratio: 64 senders and a receiver need 65 hosts, the topology has 64") != 0)
        fail_msg("%s", e.msg);
    assert_int_equal(a.n, 0);
    cdf_free(&c);
    free(s);
}

/* Share of flows and of bytes per PCN size class (S < 10 KB, M < 100 KB,
 * L < 1 MB, XL: the class bounds are ours, Table 1 is not in our text). */
static void classes(const char *name, double cnt[4], double byt[4])
{
    struct cdf c;
    struct err e = {0};
    if (cdf_load(&c, name, WORKLOADS, &e))
        fail_msg("%s", e.msg);
    struct rng r;
    rng_seed(&r, 1, 1);
    double tb = 0;
    const int n = 400000;
    memset(cnt, 0, 4 * sizeof *cnt);
    memset(byt, 0, 4 * sizeof *byt);
    for (int i = 0; i < n; i++) {
        double x = (double)cdf_sample(&c, &r, 0);
        int k = x < 1e4 ? 0 : x < 1e5 ? 1 : x < 1e6 ? 2 : 3;
        cnt[k] += 1.0 / n;
        byt[k] += x;
        tb += x;
    }
    for (int k = 0; k < 4; k++)
        byt[k] /= tb;
    cdf_free(&c);
}

static int largest(const double v[4])
{
    int m = 0;
    for (int k = 1; k < 4; k++)
        m = v[k] > v[m] ? k : m;
    return m;
}

/* Sec. 7.4: "W1 contains the most S size flows in number and the most L size
 * flows in bytes"; "W2 is significantly heavy-tailed, where the S size flows
 * occupy almost 80% of the number and less than 1% of the bytes, while the XL
 * size flows only take less than 10% of the number but occupy almost all bytes". */
static void test_pcn_workloads(void **state)
{
    (void)state;
    double cnt[4], byt[4];
    classes("pcn_w1", cnt, byt);
    assert_int_equal(largest(cnt), 0);
    assert_int_equal(largest(byt), 2);
    classes("pcn_w2", cnt, byt);
    if (!(cnt[0] > 0.75 && cnt[0] <= 0.81 && byt[0] < 0.01 && cnt[3] < 0.10 && byt[3] > 0.95))
        fail_msg("W2: S %.3f of flows, %.4f of bytes; XL %.3f of flows, %.4f of bytes", cnt[0], byt[0], cnt[3], byt[3]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_incast_arrivals),
        cmocka_unit_test(test_pcn_workloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
