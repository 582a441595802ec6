/* Traffic patterns and how scenarios combine them: incast (once and
 * repeated at a load), permutation, bursts, Poisson's intra-rack share,
 * [traffic.NAME] generators, [flow.NAME] flows, and their input errors. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenario/load.h"
#include "scenario/scenario.h"
#include "scenario/workload.h"

#define WORKLOADS ROCESIM_SHARED_DIR "/workloads"

/* ----------------------------------------------------------------- helpers */

struct run {
    struct config cfg;
    struct scenario sc;
};

/* Loads and validates `ini` (then --set `set` if given), builds the flows. */
static void load(struct run *r, const char *ini, const char *set)
{
    struct err e;
    memset(r, 0, sizeof *r);
    assert_int_equal(config_init(&r->cfg), 0);
    if (config_load_ini(&r->cfg, ini, "t.ini", &e) < 0 || (set && config_apply_set(&r->cfg, set, &e) < 0) ||
        config_validate(&r->cfg, &e) < 0)
        fail_msg("%s", e.msg);
    if (scenario_load(&r->sc, &r->cfg, &e) < 0)
        fail_msg("%s", e.msg);
}

static void unload(struct run *r)
{
    scenario_free(&r->sc);
    config_load_free(&r->cfg);
    config_free(&r->cfg);
}

/* Validation must fail with a message starting `prefix` and containing `sub`. */
static void load_err(const char *ini, const char *set, const char *prefix, const char *sub)
{
    struct config c;
    struct err e = {{0}};
    assert_int_equal(config_init(&c), 0);
    int rc = config_load_ini(&c, ini, "t.ini", &e);
    if (rc == 0 && set)
        rc = config_apply_set(&c, set, &e);
    if (rc == 0)
        rc = config_validate(&c, &e);
    if (rc == 0)
        fail_msg("accepted:\n%s", ini);
    if (strncmp(e.msg, prefix, strlen(prefix)) != 0 || (sub && !strstr(e.msg, sub)))
        fail_msg("message '%s'\n  wanted prefix '%s' and '%s'", e.msg, prefix, sub ? sub : "");
    config_load_free(&c);
    config_free(&c);
}

/* A generated topology from [topology] text. */
static void make_topo(struct topo *t, const char *ini)
{
    struct config c;
    struct err e;
    assert_int_equal(config_init(&c), 0);
    if (config_load_ini(&c, ini, "topo.ini", &e) < 0 || topo_generate(t, &c.topology, &e) < 0)
        fail_msg("%s", e.msg);
    config_load_free(&c);
    config_free(&c);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static bool same_flow(const struct flow_spec *x, const struct flow_spec *y)
{
    return x->src == y->src && x->dst == y->dst && x->size == y->size && x->start == y->start && x->pg == y->pg &&
           x->dport == y->dport;
}

/* ------------------------------------------------------------- host lists */

static void test_host_list(void **st)
{
    (void)st;
    uint32_t *v;
    size_t n;
    const char *why;
    assert_int_equal(host_list_parse("2-15", &v, &n, &why), 0);
    assert_int_equal(n, 14);
    assert_int_equal(v[0], 2);
    assert_int_equal(v[13], 15);
    free(v);
    assert_int_equal(host_list_parse(" 4 , 2,3 ,10 - 12 ", &v, &n, &why), 0);
    uint32_t want[] = {4, 2, 3, 10, 11, 12};
    assert_int_equal(n, 6);
    assert_memory_equal(v, want, sizeof want);
    free(v);
    assert_int_equal(host_list_parse("  ", &v, &n, &why), 0);
    assert_int_equal(n, 0);
    assert_null(v);
    assert_int_equal(host_list_parse("7", &v, &n, &why), 0);
    assert_int_equal(n, 1);
    free(v);
    static const char *const bad[][2] = {
        {"2-", "expected a host id after '-'"}, {"2,,3", "expected a host id at ',3'"},
        {"a-b", "expected a host id at 'a-b'"}, {"5-3", "range 5-3 goes backwards"},
        {"2,3,2", "host 2 is listed twice"},     {"1-4,3", "host 3 is listed twice"},
        {"2 3", "unexpected '3'"},               {"2;3", "unexpected ';3'"},
        {"2,", "nothing after the last ','"},   {"-3", "expected a host id at '-3'"},
        {"99999999999", "too large"},           {"0-4294967294", "more than"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why = NULL;
        if (host_list_parse(bad[i][0], &v, &n, &why) != -1 || !why || !strstr(why, bad[i][1]))
            fail_msg("'%s': got '%s', want '%s'", bad[i][0], why ? why : "(accepted)", bad[i][1]);
        assert_null(v);
    }
}

/* ----------------------------------------------------------------- incast */

static void check_incast(const struct flow_list *l, size_t from, size_t to, uint32_t fan_in, const struct topo *t,
                         uint64_t size)
{
    assert_int_equal(to - from, fan_in);
    uint32_t rcv = l->v[from].dst, *snd = malloc(fan_in * sizeof *snd);
    for (size_t i = from; i < to; i++) {
        assert_int_equal(l->v[i].dst, rcv);
        assert_int_equal(l->v[i].start, l->v[from].start);
        assert_int_equal(l->v[i].size, size);
        assert_true(t->host_index[l->v[i].src] >= 0);
        assert_int_not_equal(l->v[i].src, rcv);
        snd[i - from] = l->v[i].src;
    }
    for (uint32_t i = 1; i < fan_in; i++) /* listed by ascending sender, so distinct = strictly ascending */
        assert_true(snd[i] > snd[i - 1]);
    assert_true(t->host_index[rcv] >= 0);
    free(snd);
}

static void test_incast_once(void **st)
{
    (void)st;
    struct topo t;
    make_topo(&t, "[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 8\n");
    uint32_t rcv_seen[16] = {0};
    for (uint64_t seed = 0; seed < 200; seed++) {
        for (uint32_t fan_in = 1; fan_in <= 15; fan_in += 7) {
            struct flow_list l = {0};
            struct rng r;
            struct err e;
            rng_seed(&r, seed, 1);
            struct incast_opts o = {.fan_in = fan_in, .size = 500000, .receiver = -1, .start = 3 * T_MS, .pg = 3};
            if (traffic_incast(&l, &t, &o, &r, &e))
                fail_msg("%s", e.msg);
            check_incast(&l, 0, l.n, fan_in, &t, 500000);
            assert_int_equal(l.v[0].start, 3 * T_MS);
            assert_int_equal(l.v[0].pg, 3);
            assert_int_equal(l.v[0].dport, 100);
            rcv_seen[l.v[0].dst]++;
            flow_list_free(&l);
        }
    }
    for (int h = 0; h < 16; h++) /* random receivers reach every host */
        assert_true(rcv_seen[h] > 0);
    /* A fixed receiver; the errors. */
    struct flow_list l = {0};
    struct rng r;
    struct err e;
    rng_seed(&r, 1, 1);
    struct incast_opts o = {.fan_in = 15, .size = 1000, .receiver = 9, .start = 0};
    assert_int_equal(traffic_incast(&l, &t, &o, &r, &e), 0);
    check_incast(&l, 0, l.n, 15, &t, 1000);
    assert_int_equal(l.v[0].dst, 9);
    o.fan_in = 16;
    assert_int_equal(traffic_incast(&l, &t, &o, &r, &e), -1);
    assert_string_equal(e.msg, "traffic.fan_in: 16 senders and a receiver need 17 hosts, the topology has 16");
    assert_int_equal(l.n, 15); /* untouched */
    o.fan_in = 4;
    o.receiver = 16; /* a switch */
    assert_int_equal(traffic_incast(&l, &t, &o, &r, &e), -1);
    assert_string_equal(e.msg, "traffic.receiver: node 16 is not a host");
    flow_list_free(&l);
    topo_free(&t);
}

/* HPCC's recipe, 60 x 500 KB incasts at 2 % of the total host capacity, on
 * 128 hosts at 100 Gbps: bytes offered over long windows within 2 % of it. */
static void test_incast_repeat_load(void **st)
{
    (void)st;
    struct topo t;
    make_topo(&t, "[topology]\nleaves = 8\nspines = 8\nhosts_per_leaf = 16\n");
    double cap = traffic_host_capacity(&t);
    assert_true(cap == 128 * 100e9);
    const int runs = 20;
    const simtime_t start = 1 * T_MS + 123, dur = 2 * T_SEC;
    double bytes = 0, events = 0, worst = 0;
    for (int s = 0; s < runs; s++) {
        struct flow_list l = {0};
        struct rng r;
        struct err e;
        rng_seed(&r, 100 + (uint64_t)s, 5);
        struct incast_opts o = {.fan_in = 60, .size = 500000, .receiver = -1, .start = start, .duration = dur,
                                .load = 0.02, .pg = 3};
        if (traffic_incast(&l, &t, &o, &r, &e))
            fail_msg("%s", e.msg);
        assert_int_equal(l.n % 60, 0);
        double b = 0;
        for (size_t i = 0; i < l.n; i += 60) {
            check_incast(&l, i, i + 60, 60, &t, 500000);
            assert_true(l.v[i].start >= start && l.v[i].start < start + dur);
            assert_int_equal(l.v[i].start % T_NS, 0);
            if (i)
                assert_true(l.v[i].start >= l.v[i - 1].start);
        }
        for (size_t i = 0; i < l.n; i++)
            b += (double)l.v[i].size;
        double dev = fabs(b / (cap / 8 * 2.0) / 0.02 - 1);
        worst = dev > worst ? dev : worst;
        bytes += b;
        events += (double)l.n / 60;
        flow_list_free(&l);
    }
    double share = bytes / (cap / 8 * 2.0 * runs);
    print_message("incast 60 x 500KB at 2%% of 128 x 100G, %d x 2 s: %.0f incasts, offered %.4f%% of capacity "
                  "(%+.2f%% of the 2%% asked; single 2 s windows: worst %.2f%%)\n",
                  runs, events, 100 * share, 100 * (share / 0.02 - 1), 100 * worst);
    assert_true(fabs(share / 0.02 - 1) < 0.02);
    topo_free(&t);
}

/* ----------------------------------------------------------- permutation */

static void test_permutation(void **st)
{
    (void)st;
    struct topo t;
    make_topo(&t, "[topology]\ntype = fattree\nk = 4\n");
    assert_int_equal(t.n_hosts, 16);
    int fixed_src_dst[16][16] = {{0}};
    for (uint64_t seed = 0; seed < 300; seed++) {
        struct flow_list l = {0};
        struct rng r;
        struct err e;
        rng_seed(&r, seed, 9);
        assert_int_equal(traffic_permutation(&l, &t, 1000000, 5 * T_US, 2, &r, &e), 0);
        assert_int_equal(l.n, 16);
        int sent[16] = {0}, got[16] = {0};
        for (size_t i = 0; i < l.n; i++) {
            const struct flow_spec *f = &l.v[i];
            assert_int_equal(f->src, t.hosts[i]); /* by source host */
            assert_int_not_equal(f->src, f->dst);
            assert_int_equal(f->size, 1000000);
            assert_int_equal(f->start, 5 * T_US);
            assert_int_equal(f->pg, 2);
            sent[t.host_index[f->src]]++;
            got[t.host_index[f->dst]]++;
            fixed_src_dst[t.host_index[f->src]][t.host_index[f->dst]]++;
        }
        for (int h = 0; h < 16; h++) {
            assert_int_equal(sent[h], 1);
            assert_int_equal(got[h], 1);
        }
        flow_list_free(&l);
    }
    int pairs = 0; /* over 300 seeds, most of the 240 ordered pairs occur */
    for (int a = 0; a < 16; a++)
        for (int b = 0; b < 16; b++)
            pairs += fixed_src_dst[a][b] > 0;
    assert_true(pairs > 200);
    topo_free(&t);
    /* Two hosts: the swap. One host: an error. */
    make_topo(&t, "[topology]\ntype = dumbbell\nsenders = 1\nreceivers = 1\n");
    struct flow_list l = {0};
    struct rng r;
    struct err e;
    rng_seed(&r, 3, 3);
    assert_int_equal(traffic_permutation(&l, &t, 10, 0, 3, &r, &e), 0);
    assert_int_equal(l.n, 2);
    assert_true(l.v[0].src == 0 && l.v[0].dst == 1 && l.v[1].src == 1 && l.v[1].dst == 0);
    flow_list_free(&l);
    topo_free(&t);
}

/* ----------------------------------------------------------------- bursts */

static void test_burst(void **st)
{
    (void)st;
    struct run r;
    /* PCN-like: senders 4..17 on the dumbbell's second switch, 16 x 64 KB to
     * host 3, at 1 ms, again every 100 us while before 1 ms + 450 us. */
    load(&r, "[topology]\ntype = dumbbell\nsenders = 2\nreceivers = 16\n"
             "[traffic]\npattern = burst\nsenders = 4-9, 10,11-17\nreceiver = 3\ncount = 16\nsize = 64KB\n"
             "start = 1ms\ninterval = 100us\nduration = 450us\n", NULL);
    const struct flow_list *l = &r.sc.flows;
    assert_int_equal(l->n, 5 * 14 * 16);
    for (size_t i = 0; i < l->n; i++) {
        const struct flow_spec *f = &l->v[i];
        size_t burst = i / (14 * 16), k = i % (14 * 16);
        assert_int_equal(f->start, 1 * T_MS + (simtime_t)burst * 100 * T_US);
        assert_int_equal(f->src, 4 + k / 16); /* sender by sender, in the listed order */
        assert_int_equal(f->dst, 3);
        assert_int_equal(f->size, 64000);
        assert_int_equal(f->pg, 3);
    }
    unload(&r);

    /* Once (interval 0), random senders (fan_in) and a random receiver, never among them. */
    for (int seed = 1; seed <= 50; seed++) {
        char set[64];
        snprintf(set, sizeof set, "run.seed=%d", seed);
        load(&r, "[topology]\nleaves = 2\nspines = 1\nhosts_per_leaf = 6\n"
                 "[traffic]\npattern = burst\nfan_in = 5\ncount = 2\nsize = 1KB\nstart = 7us\nduration = 1s\n", set);
        l = &r.sc.flows;
        assert_int_equal(l->n, 10);
        uint32_t snd[5];
        for (size_t i = 0; i < 10; i++) {
            assert_int_equal(l->v[i].start, 7 * T_US);
            assert_int_equal(l->v[i].dst, l->v[0].dst);
            assert_int_not_equal(l->v[i].src, l->v[0].dst);
            assert_true(l->v[i].src < 12 && l->v[i].dst < 12);
            if (i % 2)
                assert_int_equal(l->v[i].src, l->v[i - 1].src);
            else
                snd[i / 2] = l->v[i].src;
        }
        qsort(snd, 5, sizeof *snd, cmp_u32);
        for (int i = 1; i < 5; i++)
            assert_true(snd[i] > snd[i - 1]);
        unload(&r);
    }
    /* Listed senders, random receiver: one of the others. */
    load(&r, "[topology]\nleaves = 1\nspines = 1\nhosts_per_leaf = 4\n[traffic]\npattern = burst\nsenders = 0,2,3\n", NULL);
    assert_int_equal(r.sc.flows.n, 3);
    assert_int_equal(r.sc.flows.v[0].dst, 1);
    unload(&r);
}

/* -------------------------------------------------- Poisson, intra-rack */

static void intra_share(const char *ini, double want_share, double want_load)
{
    struct run r;
    load(&r, ini, NULL);
    const struct flow_list *l = &r.sc.flows;
    uint32_t *rack = malloc(r.sc.topo.n_hosts * sizeof *rack);
    traffic_racks(&r.sc.topo, rack);
    double in = 0, bytes = 0, bytes_in = 0;
    for (size_t i = 0; i < l->n; i++) {
        const struct flow_spec *f = &l->v[i];
        assert_int_not_equal(f->src, f->dst);
        bool same = rack[r.sc.topo.host_index[f->src]] == rack[r.sc.topo.host_index[f->dst]];
        in += same;
        bytes += (double)f->size;
        bytes_in += same ? (double)f->size : 0;
    }
    double share = in / (double)l->n, offered = bytes * 8 / (traffic_host_capacity(&r.sc.topo) * 0.1);
    print_message("intra_rack %.2f: %zu flows, %.4f of them (%.4f of bytes) in the sender's rack; offered load %.4f "
                  "(%+.2f%%)\n",
                  want_share, l->n, share, bytes_in / bytes, offered, 100 * (offered / want_load - 1));
    if (want_share == 0 || want_share == 1)
        assert_true(share == want_share);
    else
        assert_true(fabs(share / want_share - 1) < 0.02);
    assert_true(fabs(offered / want_load - 1) < 0.02);
    free(rack);
    unload(&r);
}

static void test_poisson_intra_rack(void **st)
{
    (void)st;
    /* 4 racks of 8; light-tailed sizes so 100 ms give ~100k flows. */
    char ini[1024], cdf[256];
    snprintf(cdf, sizeof cdf, "%s/pattern_light.cdf", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    FILE *f = fopen(cdf, "w");
    assert_non_null(f);
    fputs("100000 0\n200000 0.5\n300000 1\n", f);
    fclose(f);
    static const double shares[] = {0.25, 0, 1, 0.6};
    for (size_t i = 0; i < sizeof shares / sizeof *shares; i++) {
        snprintf(ini, sizeof ini,
                 "[topology]\nleaves = 4\nspines = 2\nhosts_per_leaf = 8\n"
                 "[traffic]\ncdf = %s\nload = 0.5\nduration = 100ms\nintra_rack = %g\n",
                 cdf, shares[i]);
        intra_share(ini, shares[i], 0.5);
    }
    /* Default: uniform over the other hosts, the same flows as before intra_rack existed. */
    snprintf(ini, sizeof ini, "[topology]\nleaves = 4\nspines = 2\nhosts_per_leaf = 8\n"
                              "[traffic]\ncdf = %s\nload = 0.5\nduration = 10ms\n", cdf);
    struct run r;
    load(&r, ini, NULL);
    struct flow_list l = {0};
    struct cdf c;
    struct rng rg;
    struct err e;
    assert_int_equal(cdf_load(&c, cdf, NULL, &e), 0);
    rng_seed(&rg, 1, 1);
    assert_int_equal(traffic_poisson(&l, &r.sc.topo, &c, 0, 0.5, 0, 10 * T_MS, 3, &rg, &e), 0);
    assert_int_equal(l.n, r.sc.flows.n);
    for (size_t i = 0; i < l.n; i++)
        assert_true(same_flow(&l.v[i], &r.sc.flows.v[i]));
    cdf_free(&c);
    flow_list_free(&l);
    unload(&r);
    remove(cdf);
    /* A one-rack fabric: everything is intra-rack whatever the share. */
    load(&r, "[topology]\nleaves = 1\nspines = 1\nhosts_per_leaf = 4\n[traffic]\nintra_rack = 0\nduration = 1ms\n", NULL);
    assert_true(r.sc.flows.n > 0);
    unload(&r);
}

/* ---------------------------------------------- sections and named flows */

static const char topo16[] = "[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 8\n";

static void test_named_flows(void **st)
{
    (void)st;
    char ini[1024];
    snprintf(ini, sizeof ini,
             "%s[transport]\npg = 4\n[traffic]\npattern = none\n"
             "[flow.victim]\nsrc = 0\ndst = 9\nsize = 20MB\nstart = 1ms\n"
             "[flow.culprit-2]\nsrc = 3\ndst = 12\nsize = 123456B\nstart = 500us\npg = 6\n"
             "[flow.zero]\nsrc = 15\ndst = 1\nsize = 1B\n",
             topo16);
    struct run r;
    load(&r, ini, NULL);
    const struct flow_list *l = &r.sc.flows;
    assert_int_equal(l->n, 3);
    /* sorted by start: zero (0), culprit-2 (500 us), victim (1 ms) */
    struct flow_spec want[3] = {
        {.src = 15, .dst = 1, .size = 1, .start = 0, .pg = 4, .dport = 100},
        {.src = 3, .dst = 12, .size = 123456, .start = 500 * T_US, .pg = 6, .dport = 100},
        {.src = 0, .dst = 9, .size = 20000000, .start = 1 * T_MS, .pg = 4, .dport = 100},
    };
    static const char *const names[3] = {"zero", "culprit-2", "victim"};
    for (int i = 0; i < 3; i++) {
        assert_true(same_flow(&l->v[i], &want[i]));
        assert_string_equal(flow_list_name(l, (size_t)i), names[i]);
    }
    assert_null(flow_list_name(l, 3));
    /* ... and they become the simulator's flows 0..2 */
    struct err e;
    if (scenario_build(&r.sc, &e) < 0)
        fail_msg("%s", e.msg);
    assert_int_equal(r.sc.sim.n_flows, 3);
    assert_int_equal(r.sc.sim.flows[2].src, 0);
    assert_int_equal(r.sc.sim.flows[2].size, 20000000);
    unload(&r);

    /* --set adds or changes a named flow. */
    load(&r, ini, "flow.victim.dst=10");
    assert_int_equal(r.sc.flows.v[2].dst, 10);
    unload(&r);
}

static void test_named_flow_incomplete(void **st)
{
    (void)st;
    load_err("[traffic]\npattern = none\n", "flow.late.src=5", "--set flow.late.src=5: ", "flow.late.dst is missing");
}

/* A mixed scenario is the union of its sections' flows, sorted stably by
 * start; adding a section (anywhere) leaves the others' flows unchanged. */
static void test_mixed_sections(void **st)
{
    (void)st;
    char a[2048], b[2048], p[1024], i1[1024];
    const char *bg = "[traffic]\nload = 0.3\nduration = 5ms\n";
    const char *inc = "[traffic.hpcc]\npattern = incast\nfan_in = 6\nsize = 500KB\nrepeat = poisson\nload = 0.05\n"
                      "duration = 5ms\npg = 5\n";
    const char *flow = "[flow.f0]\nsrc = 1\ndst = 2\nsize = 1MB\nstart = 1ms\n";
    const char *extra = "[traffic.perm]\npattern = permutation\nsize = 100KB\nstart = 1ms\npg = 6\n";
    snprintf(a, sizeof a, "%s%s%s%s", topo16, bg, inc, flow);
    snprintf(b, sizeof b, "%s%s%s%s%s", topo16, extra, bg, inc, flow); /* the new section first */
    snprintf(p, sizeof p, "%s%s", topo16, bg);
    snprintf(i1, sizeof i1, "%s[traffic]\npattern = none\n%s", topo16, inc);
    struct run ra, rb, rp, ri;
    load(&ra, a, NULL);
    load(&rb, b, NULL);
    load(&rp, p, NULL);
    load(&ri, i1, NULL);
    /* union: the sources' lists concatenated in section order, then sorted stably */
    struct flow_list u = {0};
    for (size_t i = 0; i < rp.sc.flows.n; i++)
        assert_int_equal(flow_list_push(&u, &rp.sc.flows.v[i]), 0);
    for (size_t i = 0; i < ri.sc.flows.n; i++)
        assert_int_equal(flow_list_push(&u, &ri.sc.flows.v[i]), 0);
    struct flow_spec f0 = {.src = 1, .dst = 2, .size = 1000000, .start = T_MS, .pg = 3, .dport = 100};
    assert_int_equal(flow_list_push_named(&u, &f0, "f0"), 0);
    flow_list_sort(&u);
    assert_true(rp.sc.flows.n > 50 && ri.sc.flows.n > 5 * 6);
    assert_int_equal(ra.sc.flows.n, u.n);
    size_t named = 0;
    for (size_t i = 0; i < u.n; i++) {
        assert_true(same_flow(&ra.sc.flows.v[i], &u.v[i]));
        if (i)
            assert_true(ra.sc.flows.v[i].start >= ra.sc.flows.v[i - 1].start);
        const char *n = flow_list_name(&ra.sc.flows, i);
        if (n) {
            named++;
            assert_string_equal(n, "f0");
            assert_true(same_flow(&ra.sc.flows.v[i], &f0));
            assert_string_equal(flow_list_name(&u, i), "f0");
        }
    }
    assert_int_equal(named, 1);
    /* b = a plus 16 permutation flows (pg 6), the rest identical and in the same order */
    assert_int_equal(rb.sc.flows.n, ra.sc.flows.n + 16);
    size_t j = 0;
    for (size_t i = 0; i < rb.sc.flows.n; i++) {
        if (rb.sc.flows.v[i].pg == 6) {
            assert_int_equal(rb.sc.flows.v[i].start, T_MS);
            continue;
        }
        assert_true(same_flow(&rb.sc.flows.v[i], &ra.sc.flows.v[j]));
        j++;
    }
    assert_int_equal(j, ra.sc.flows.n);
    /* Ties at 1 ms: [traffic] flows, then [traffic.NAME]s in file order, then [flow.NAME]s. */
    int last = 0;
    for (size_t i = 0; i < rb.sc.flows.n; i++) {
        const struct flow_spec *f = &rb.sc.flows.v[i];
        if (f->start != T_MS)
            continue;
        int rank = flow_list_name(&rb.sc.flows, i) ? 3 : f->pg == 6 ? 1 : f->pg == 5 ? 2 : 0;
        assert_true(rank >= last);
        last = rank;
    }
    assert_int_equal(last, 3);
    assert_int_equal(workload_stream("traffic"), 1);
    assert_true(workload_stream("traffic.hpcc") != workload_stream("traffic.perm"));
    flow_list_free(&u);
    unload(&ra);
    unload(&rb);
    unload(&rp);
    unload(&ri);
}

/* A small mixed scenario runs to the end: every flow done, no drop. */
static void test_mixed_runs(void **st)
{
    (void)st;
    struct run r;
    load(&r, "[topology]\ntype = dumbbell\nsenders = 2\nreceivers = 6\nhost_link = 40Gbps\nfabric_link = 40Gbps\n"
             "link_delay = 5us\n[switch]\nbuffer = 4MB\n"
             "[traffic]\npattern = burst\nsenders = 4-7\nreceiver = 3\ncount = 4\nsize = 64KB\nstart = 100us\n"
             "[traffic.perm]\npattern = permutation\nsize = 20KB\n"
             "[flow.F0]\nsrc = 0\ndst = 2\nsize = 2MB\n[flow.F1]\nsrc = 1\ndst = 3\nsize = 2MB\n", NULL);
    struct err e;
    if (scenario_build(&r.sc, &e) < 0)
        fail_msg("%s", e.msg);
    sim_start(&r.sc.sim);
    sim_run(&r.sc.sim);
    const struct sim *s = &r.sc.sim;
    assert_int_equal(s->n_flows, 16 + 8 + 2);
    assert_int_equal(s->c.flows_completed, s->n_flows);
    assert_int_equal(s->c.packets_dropped, 0);
    assert_int_equal(s->c.bytes_delivered, s->c.bytes_sent);
    unload(&r);
}

/* ------------------------------------------------------------------ errors */

/* --------------------------------------------------------------- load_of */

/* traffic.load_of = core: the core capacity by hand for each generator, then
 * `load` of it offered: the same flows as load x core / host of each host
 * link, and over a long window the bytes the core's share asks for. */
static void test_load_of_core(void **st)
{
    (void)st;
    struct topo t;
    /* leaf-spine 4 x 2 at 100G, 16 hosts a leaf: 8 uplinks = 800G under 6400G of hosts (8:1) */
    make_topo(&t, "[topology]\nleaves = 4\nspines = 2\nhosts_per_leaf = 16\n");
    assert_true(traffic_core_capacity(&t) == 8 * 100e9);
    topo_free(&t);
    /* PB-FS's clos: 5 pods x 4 edges x 4 aggs x 16 hosts at 25G, 16 cores at 100G: 1:1 at both tiers */
    make_topo(&t, "[topology]\ntype = clos\npods = 5\nedges_per_pod = 4\naggs_per_pod = 4\nhosts_per_edge = 16\n"
                  "cores = 16\nhost_link = 25Gbps\nfabric_link = 100Gbps\n");
    assert_true(traffic_core_capacity(&t) == 80 * 100e9 && traffic_host_capacity(&t) == 320 * 25e9);
    topo_free(&t);
    /* half the cores: agg-core (5 x 4 x 2 x 100G = 4000G) is the smaller tier */
    make_topo(&t, "[topology]\ntype = clos\npods = 5\nedges_per_pod = 4\naggs_per_pod = 4\nhosts_per_edge = 16\n"
                  "cores = 8\nhost_link = 25Gbps\nfabric_link = 100Gbps\n");
    assert_true(traffic_core_capacity(&t) == 40 * 100e9);
    topo_free(&t);
    make_topo(&t, "[topology]\ntype = fattree\nk = 4\n");
    assert_true(traffic_core_capacity(&t) == traffic_host_capacity(&t));
    topo_free(&t);
    make_topo(&t, "[topology]\ntype = dumbbell\nfabric_link = 40Gbps\n"); /* one switch layer: the link between */
    assert_true(traffic_core_capacity(&t) == 40e9);
    topo_free(&t);

    /* 0.5 of the 8:1 leaf-spine's core is 0.0625 of each host link: the same flows */
    const char *ls = "[topology]\nleaves = 4\nspines = 2\nhosts_per_leaf = 16\n[traffic]\ncdf = web_search\n"
                     "duration = 200ms\n";
    struct run a, b;
    char ini[512];
    snprintf(ini, sizeof ini, "%s%s", ls, "load = 0.5\nload_of = core\n");
    load(&a, ini, NULL);
    snprintf(ini, sizeof ini, "%s%s", ls, "load = 0.0625\n");
    load(&b, ini, NULL);
    assert_true(a.sc.flows.n > 300 && a.sc.flows.n == b.sc.flows.n);
    for (size_t i = 0; i < a.sc.flows.n; i++)
        assert_true(same_flow(&a.sc.flows.v[i], &b.sc.flows.v[i]));
    unload(&b);
    /* the bytes offered: 0.5 x 800 Gbps over 200 ms = 10 GB, within the sampling noise of ~6000 web-search flows */
    double bytes = 0;
    for (size_t i = 0; i < a.sc.flows.n; i++)
        bytes += (double)a.sc.flows.v[i].size;
    print_message("load_of = core, 0.5 of 800G for 200 ms: %zu flows, %.3f GB (asked 10 GB)\n", a.sc.flows.n, bytes / 1e9);
    assert_true(fabs(bytes / 1e10 - 1) < 0.1);
    unload(&a);
    /* 1:1: core is host */
    snprintf(ini, sizeof ini, "[topology]\ntype = fattree\nk = 4\n[traffic]\nload = 0.3\nload_of = core\n");
    load(&a, ini, NULL);
    load(&b, "[topology]\ntype = fattree\nk = 4\n[traffic]\nload = 0.3\n", NULL);
    assert_true(a.sc.flows.n == b.sc.flows.n);
    for (size_t i = 0; i < a.sc.flows.n; i++)
        assert_true(same_flow(&a.sc.flows.v[i], &b.sc.flows.v[i]));
    unload(&a);
    unload(&b);
    /* a repeated incast's load too: 0.02 of the core is 0.0025 of the hosts' total */
    load(&a, "[topology]\nleaves = 4\nspines = 2\nhosts_per_leaf = 16\n[traffic]\npattern = incast\nrepeat = poisson\n"
             "load = 0.02\nload_of = core\nduration = 20ms\n", NULL);
    load(&b, "[topology]\nleaves = 4\nspines = 2\nhosts_per_leaf = 16\n[traffic]\npattern = incast\nrepeat = poisson\n"
             "load = 0.0025\nduration = 20ms\n", NULL);
    assert_true(a.sc.flows.n > 0 && a.sc.flows.n == b.sc.flows.n);
    for (size_t i = 0; i < a.sc.flows.n; i++)
        assert_true(same_flow(&a.sc.flows.v[i], &b.sc.flows.v[i]));
    unload(&a);
    unload(&b);
    /* more than the host links carry */
    load_err("[topology]\ntype = dumbbell\nsenders = 1\nreceivers = 1\nhost_link = 10Gbps\nfabric_link = 100Gbps\n"
             "[traffic]\nload = 0.5\nload_of = core\n", NULL, "t.ini:9: ",
             "traffic.load_of = core: load 0.5 of the core (100 Gbps) is 2.5 of the host links (20 Gbps)");
}

static void test_errors(void **st)
{
    (void)st;
    /* [flow.NAME]: unknown hosts, at the key's line */
    load_err("[run]\nseed = 2\n[flow.x]\nsrc = 0\ndst = 999\nsize = 1MB\n", NULL, "t.ini:5: ",
             "flow.x.dst: node 999 does not exist (the topology has nodes 0..143)");
    load_err("[flow.x]\nsrc = 130\ndst = 1\nsize = 1MB\n", NULL, "t.ini:2: ", "flow.x.src: node 130 is a switch, not a host");
    load_err("[flow.x]\nsrc = 1\ndst = 1\nsize = 1MB\n", NULL, "t.ini:3: ", "flow.x.dst: a flow from host 1 to itself");
    load_err("[run]\nseed = 2\n\n[flow.x]\nsrc = 1\n", NULL, "t.ini:4: ", "flow.x.dst is missing");
    load_err("[flow.x]\nsrc = 1\ndst = 2\n", NULL, "t.ini:1: ", "flow.x.size is missing or 0");
    load_err("[flow.x]\n", NULL, "t.ini:1: ", "flow.x.src is missing");
    load_err("[flow.x]\nsrc = 1\ndst = 2\nsize = 1MB\n", "flow.x.dst=200", "--set flow.x.dst=200: ",
             "flow.x.dst: node 200 does not exist");
    load_err("[flow.x]\nsrc = 1\ndst = 2\nsize = 1MB\nport = 3\n", NULL, "t.ini:5: ", "unknown key 'port' in [flow.x]");
    load_err("[flow.x]\nsrc = -2\n", NULL, "t.ini:2: ", "flow.x.src: bad integer '-2'");
    /* section names */
    load_err("[run]\n[flow.a.b]\nsrc = 1\n", NULL, "t.ini:2: ", "bad section name [flow.a.b]");
    load_err("[traffic.]\n", NULL, "t.ini:1: ", "bad section name [traffic.]");
    load_err("[traffic.0123456789012345678901234567890123]\n", NULL, "t.ini:1: ", "1 to 31 letters");
    load_err("", "traffic.x y.load=0.1", "--set traffic.x y.load=0.1: ", "bad section name");
    load_err("", "flows.x.src=1", "--set flows.x.src=1: ", "unknown section [flows.x]");
    /* fan-in against the number of hosts */
    load_err("[topology]\nleaves = 1\nspines = 1\nhosts_per_leaf = 8\n[traffic]\npattern = incast\nfan_in = 8\n", NULL,
             "t.ini:7: ", "traffic.fan_in: 8 senders and a receiver need 9 hosts, the topology has 8");
    load_err("[topology]\nleaves = 1\nspines = 1\nhosts_per_leaf = 8\n[traffic.in]\npattern = incast\n", NULL,
             "t.ini:6: ", "traffic.in.fan_in: 16 senders and a receiver need 17 hosts, the topology has 8");
    load_err("[topology]\nleaves = 1\nspines = 1\nhosts_per_leaf = 8\n[traffic]\npattern = burst\nfan_in = 9\n", NULL,
             "t.ini:7: ", "traffic.fan_in: 9 random senders and a receiver need 10 hosts");
    load_err("[traffic]\npattern = incast\nreceiver = 128\n", NULL, "t.ini:3: ",
             "traffic.receiver: node 128 is a switch, not a host");
    load_err("[traffic]\npattern = incast\nrepeat = poisson\nduration = 0\n", NULL, "t.ini:4: ",
             "traffic.duration must be > 0 for repeat=poisson");
    /* sender lists */
    load_err("[traffic]\npattern = burst\nsenders = 2-\nreceiver = 0\n", NULL, "t.ini:3: ",
             "traffic.senders: bad host list '2-': expected a host id after '-'");
    load_err("[traffic.b]\npattern = burst\nsenders = 2,,3\n", NULL, "t.ini:3: ",
             "traffic.b.senders: bad host list '2,,3'");
    load_err("[traffic]\npattern = burst\nsenders = 5-3\n", NULL, "t.ini:3: ", "goes backwards");
    load_err("[traffic]\npattern = burst\nsenders = 1,2,1\n", NULL, "t.ini:3: ", "host 1 is listed twice");
    load_err("[traffic]\npattern = burst\nsenders = 1-3,500\n", NULL, "t.ini:3: ", "traffic.senders: node 500 does not exist");
    load_err("[traffic]\npattern = burst\nsenders = 1-3\nreceiver = 2\n", NULL, "t.ini:4: ",
             "traffic.receiver: host 2 is also one of the senders");
    load_err("[topology]\nleaves = 1\nspines = 1\nhosts_per_leaf = 3\n[traffic]\npattern = burst\nsenders = 0-2\n", NULL,
             "t.ini:7: ", "no host is left to receive");
    /* other keys */
    load_err("[traffic]\nintra_rack = -0.5\n", NULL, "t.ini:2: ", "traffic.intra_rack: -0.5: use -1");
    load_err("[traffic]\nintra_rack = 1.5\n", NULL, "t.ini:2: ", "value out of range");
    load_err("[traffic]\npattern = incast\nrepeat = sometimes\n", NULL, "t.ini:3: ", "expected one of off|poisson");
    load_err("[traffic.bg]\nduration = 0\n", NULL, "t.ini:2: ", "traffic.bg.duration must be > 0 for pattern=poisson");
    load_err("[traffic.f]\npattern = file\n", NULL, "t.ini:2: ", "traffic.f.pattern=file needs traffic.f.file");
    load_err("[traffic]\npattern = permutation\n[topology]\ntype = dumbbell\nsenders = 1\nreceivers = 0\n", NULL,
             "t.ini:6: ", "bad integer");
    load_err("[topology]\nleaves = 1\nspines = 1\nhosts_per_leaf = 1\n[traffic]\npattern = permutation\n", NULL,
             "t.ini:6: ", "traffic.pattern=permutation needs at least 2 hosts, the topology has 1");
    load_err("[traffic]\npg = 8\n", NULL, "t.ini:2: ", "value out of range");
    load_err("[traffic]\nfan_in = 0\n", NULL, "t.ini:2: ", "value out of range");
}

/* Mutated scenarios with every new section and key: loading and validating
 * never crash, and every error names the file (FILE:LINE or FILE:). */
static void test_fuzz_sections(void **st)
{
    (void)st;
    static const char seed[] = "[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n"
                               "[traffic]\npattern = burst\nsenders = 1-3, 5\nreceiver = 0\ncount = 2\ninterval = 1us\n"
                               "[traffic.in]\npattern = incast\nfan_in = 3\nrepeat = poisson\nload = 0.01\n"
                               "[traffic.bg]\nintra_rack = 0.25\nduration = 1ms\n"
                               "[flow.a]\nsrc = 1\ndst = 6\nsize = 1MB\nstart = 1us\npg = 2\n"
                               "[flow.b-2]\nsrc = 7\ndst = 0\nsize = 10B\n";
    char buf[2048];
    uint64_t state = 77;
    size_t len = 0;
    int n = fuzz_iterations(4000), ok = 0;
    for (int i = 0; i < n; i++) {
        if (i % 8 == 0) {
            len = strlen(seed);
            memcpy(buf, seed, len);
        }
        len = fuzz_mutate(buf, len, sizeof buf - 1, &state);
        buf[len] = 0;
        struct config c;
        struct err e = {{0}};
        assert_int_equal(config_init(&c), 0);
        int rc = config_load_ini(&c, buf, "fz.ini", &e);
        if (rc == 0)
            rc = config_validate(&c, &e);
        if (rc < 0 && strncmp(e.msg, "fz.ini:", 7) != 0)
            fail_msg("bad message '%s' for:\n%s", e.msg, buf);
        ok += rc == 0;
        config_load_free(&c);
        config_free(&c);
    }
    print_message("valid %d of %d\n", ok, n);
    assert_true(ok > n / 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_list),
        cmocka_unit_test(test_incast_once),
        cmocka_unit_test(test_incast_repeat_load),
        cmocka_unit_test(test_permutation),
        cmocka_unit_test(test_burst),
        cmocka_unit_test(test_poisson_intra_rack),
        cmocka_unit_test(test_named_flows),
        cmocka_unit_test(test_named_flow_incomplete),
        cmocka_unit_test(test_mixed_sections),
        cmocka_unit_test(test_mixed_runs),
        cmocka_unit_test(test_load_of_core),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_fuzz_sections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
