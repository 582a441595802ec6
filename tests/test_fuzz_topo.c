/* Mutation fuzzing of the ns-3 topology parser and of routing on whatever it
 * accepts: never crash, every error names "fname:", every accepted topology
 * routes consistently. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenario/config.h"
#include "topo/topo.h"

#ifndef ROCESIM_SHARED_DIR
#error "ROCESIM_SHARED_DIR must name the shared data folder"
#endif
#define FAT_TXT ROCESIM_SHARED_DIR "/ns3-reference/fat.txt"
#define CAP 16384

static const char small_seed[] =
    "8 3 7\n"
    "0 6 7\n"
    "1 0 100Gbps 1000ns 0\n"
    "2 0 25Gbps 0.001ms 0.000000\n"
    "0 6 400Gbps 1us 0\n"
    "0 7 400Gbps 1us 0.01\n"
    "3 6 100Gbps 1us 0\n"
    "4 7 100Gbps 1us 0\n"
    "5 7 100Gbps 1us 0.5\n";

/* fat.txt's first 60 lines (hosts 0..57 under ToRs 320..323) plus those
 * ToRs' links to aggs 340..343, renumbered into a self-consistent file:
 * ToRs become 58..61, aggs 62..65. */
static size_t fat_seed(char *out, size_t cap)
{
    FILE *f = fopen(FAT_TXT, "r");
    assert_non_null(f);
    char line[256];
    int ln = 0;
    size_t n = (size_t)snprintf(out, cap, "66 8 74\n58 59 60 61 62 63 64 65\n");
    unsigned links = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned a, b;
        char rest[128];
        if (++ln < 3 || sscanf(line, "%u %u %127[^\n]", &a, &b, rest) != 3)
            continue;
        bool host_link = ln <= 60, tor_agg = a >= 320 && a <= 323 && b >= 340 && b <= 343;
        if (!host_link && !tor_agg)
            continue;
        a = a >= 340 ? a - 340 + 62 : a >= 320 ? a - 320 + 58 : a;
        b = b >= 340 ? b - 340 + 62 : b >= 320 ? b - 320 + 58 : b;
        n += (size_t)snprintf(out + n, cap - n, "%u %u %s\n", a, b, rest);
        links++;
        assert_true(n < cap);
    }
    fclose(f);
    assert_int_equal(links, 74);
    return n;
}

/* What every accepted topology must satisfy. */
static void check_accepted(const struct topo *t)
{
    struct routes r;
    struct err e;
    if (routes_build(&r, t, &e) != 0)
        fail_msg("routes_build failed on an accepted topology: %s", e.msg);
    uint32_t prev = 0;
    for (uint32_t i = 0; i < t->n_hosts; i++) {
        uint32_t h = t->hosts[i];
        assert_true(i == 0 || h > prev);
        prev = h;
        assert_int_equal(t->host_index[h], (int32_t)i);
        assert_int_equal(t->adj_off[h + 1] - t->adj_off[h], 1); /* one NIC */
    }
    for (uint32_t s = 0; s < t->n_hosts; s++)
        for (uint32_t d = 0; d < t->n_hosts; d++) {
            uint32_t hs = t->hosts[s], hd = t->hosts[d];
            int n, m;
            const uint32_t *nx = routes_next(&r, hs, d, &n);
            routes_next(&r, hd, s, &m);
            struct path_info p;
            int rc = routes_path(&r, t, hs, hd, 1000, &p);
            if (s == d) {
                assert_int_equal(n, 0);
                assert_int_equal(rc, -1);
                continue;
            }
            assert_int_equal(n > 0, m > 0); /* reachability is symmetric */
            assert_true(n <= 1);            /* a host has one link */
            assert_int_equal(rc, n > 0 ? 0 : -1);
            if (n) {
                assert_non_null(topo_link_between(t, hs, nx[0]));
                assert_true(p.hops >= 1);
                assert_true(p.bw > 0);
            }
        }
    /* every next hop is a neighbour, in ascending order */
    for (uint32_t x = 0; x < t->n_nodes; x++)
        for (uint32_t d = 0; d < t->n_hosts; d++) {
            int n;
            const uint32_t *nx = routes_next(&r, x, d, &n);
            for (int i = 0; i < n; i++) {
                assert_non_null(topo_link_between(t, x, nx[i]));
                assert_true(i == 0 || nx[i] > nx[i - 1]);
            }
        }
    routes_free(&r);
}

static void fuzz_from(const char *seed, size_t seed_len, uint64_t st, int iters)
{
    static char buf[CAP + 1];
    struct topo t;
    struct err e;
    assert_int_equal(topo_parse_ns3(&t, seed, "fz.txt", &e), 0); /* the seed itself is valid */
    check_accepted(&t);
    topo_free(&t);
    int ok = 0;
    for (int it = 0; it < iters; it++) {
        memcpy(buf, seed, seed_len);
        size_t len = seed_len;
        int rounds = 1 + it % 3;
        for (int k = 0; k < rounds; k++)
            len = fuzz_mutate(buf, len, CAP, &st);
        buf[len] = 0;
        memset(&e, 0, sizeof e);
        if (topo_parse_ns3(&t, buf, "fz.txt", &e) == 0) {
            ok++;
            check_accepted(&t);
            topo_free(&t);
        } else {
            if (strncmp(e.msg, "fz.txt:", 7) != 0)
                fail_msg("error without the file name: \"%s\" for input:\n%s", e.msg, buf);
            long line = strtol(e.msg + 7, NULL, 10), lines = 1;
            for (const char *q = buf; *q; q++)
                lines += *q == '\n';
            if (line < 1 || line > lines)
                fail_msg("line %ld outside 1..%ld: %s", line, lines, e.msg);
            assert_null(t.nodes);
        }
    }
    print_message("%d of %d mutants accepted\n", ok, iters);
}

static void test_fuzz_small(void **state)
{
    (void)state;
    fuzz_from(small_seed, strlen(small_seed), 0x1234, fuzz_iterations(20000));
}

static void test_fuzz_fat(void **state)
{
    (void)state;
    static char seed[CAP + 1];
    size_t n = fat_seed(seed, sizeof seed);
    fuzz_from(seed, n, 0xfa7, fuzz_iterations(20000));
}

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Random valid files (random ids for switches, random fabric, one link per
 * host, odd whitespace): routing must match an independent reference,
 * Floyd-Warshall with only switches as intermediate nodes. */
static void test_random_graphs(void **state)
{
    (void)state;
    enum { MAXN = 24, INF = 1 << 20 };
    static char text[CAP];
    uint64_t st = 7;
    for (int it = 0; it < fuzz_iterations(1500); it++) {
        uint32_t n = 2 + (uint32_t)(rnd(&st) % (MAXN - 1)), ns = 1 + (uint32_t)(rnd(&st) % (n - 1));
        bool sw[MAXN] = {0}, adj[MAXN][MAXN] = {{0}};
        uint32_t sids[MAXN], la[MAXN * MAXN], lb[MAXN * MAXN], nl = 0;
        for (uint32_t i = 0; i < ns;) { /* random distinct switch ids */
            uint32_t id = (uint32_t)(rnd(&st) % n);
            if (!sw[id])
                sw[id] = true, sids[i++] = id;
        }
        for (uint32_t i = 0; i < n; i++) /* each host on a random switch */
            if (!sw[i]) {
                uint32_t s = sids[rnd(&st) % ns];
                adj[i][s] = adj[s][i] = true;
                la[nl] = i, lb[nl++] = s;
            }
        uint32_t extra = (uint32_t)(rnd(&st) % (2 * ns + 1));
        for (uint32_t k = 0; k < extra; k++) {
            uint32_t a = sids[rnd(&st) % ns], b = sids[rnd(&st) % ns];
            if (a != b && !adj[a][b]) {
                adj[a][b] = adj[b][a] = true;
                la[nl] = a, lb[nl++] = b;
            }
        }
        for (uint32_t i = nl; i > 1; i--) { /* shuffle link order */
            uint32_t j = (uint32_t)(rnd(&st) % i), ta = la[i - 1], tb = lb[i - 1];
            la[i - 1] = la[j], lb[i - 1] = lb[j], la[j] = ta, lb[j] = tb;
        }
        static const char *const sep[] = {" ", "\t", "\n", "  \r\n", "\n\n"};
        size_t len = (size_t)snprintf(text, CAP, "%u %u %u\n", n, ns, nl);
        for (uint32_t i = 0; i < ns; i++)
            len += (size_t)snprintf(text + len, CAP - len, "%u%s", sids[i], sep[rnd(&st) % 5]);
        for (uint32_t i = 0; i < nl; i++)
            len += (size_t)snprintf(text + len, CAP - len, "\n%u%s%u 100Gbps%s1us 0", la[i], sep[rnd(&st) % 2], lb[i],
                                    sep[rnd(&st) % 5]);
        assert_true(len < CAP);
        struct topo t;
        struct routes r;
        struct err e;
        if (topo_parse_ns3(&t, text, "rg.txt", &e))
            fail_msg("%s\n%s", e.msg, text);
        assert_int_equal(routes_build(&r, &t, &e), 0);
        static int d[MAXN][MAXN];
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                d[i][j] = i == j ? 0 : adj[i][j] ? 1 : INF;
        for (uint32_t k = 0; k < n; k++)
            if (sw[k])
                for (uint32_t i = 0; i < n; i++)
                    for (uint32_t j = 0; j < n; j++)
                        if (d[i][k] + d[k][j] < d[i][j])
                            d[i][j] = d[i][k] + d[k][j];
        for (uint32_t hi = 0; hi < t.n_hosts; hi++) {
            uint32_t h = t.hosts[hi];
            for (uint32_t x = 0; x < n; x++) {
                uint32_t want[MAXN], nw = 0;
                if (x != h && d[x][h] < INF)
                    for (uint32_t y = 0; y < n; y++)
                        if (adj[x][y] && d[y][h] == d[x][h] - 1 && (sw[y] || y == h))
                            want[nw++] = y;
                int c;
                const uint32_t *nx = routes_next(&r, x, hi, &c);
                assert_int_equal(c, nw);
                for (uint32_t i = 0; i < nw; i++)
                    assert_int_equal(nx[i], want[i]);
            }
        }
        check_accepted(&t);
        routes_free(&r);
        topo_free(&t);
    }
}

/* Generators on small random (often nonsense) sizes: an error or a sane topo. */
static void test_fuzz_generate(void **state)
{
    (void)state;
    uint64_t st = 99;
    char junk[8] = {0};
    for (int it = 0; it < fuzz_iterations(2000); it++) {
        struct cfg_topology c;
        memset(&c, 0, sizeof c);
        fuzz_mutate(junk, 8, 8, &st);
        c.type = (unsigned char)junk[0] % 4 == 3 ? 7 : (unsigned char)junk[0] % 3;
        c.leaves = junk[1] % 7, c.spines = junk[2] % 7, c.hosts_per_leaf = junk[3] % 7;
        c.k = junk[4] % 9, c.senders = junk[5] % 7, c.receivers = junk[6] % 7;
        c.host_link = (unsigned char)junk[7] % 5 ? 100000000000ULL : 0;
        c.fabric_link = 400000000000ULL;
        c.link_delay = T_US;
        struct topo t;
        struct err e;
        memset(&e, 0, sizeof e);
        if (topo_generate(&t, &c, &e) == 0) {
            check_accepted(&t);
            topo_free(&t);
        } else {
            assert_true(strncmp(e.msg, "topology.", 9) == 0);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fuzz_small),
        cmocka_unit_test(test_fuzz_fat),
        cmocka_unit_test(test_fuzz_generate),
        cmocka_unit_test(test_random_graphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
