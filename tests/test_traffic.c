/* Flow-size CDFs, Poisson generation and ns-3 flow files. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "topo/topo.h"
#include "traffic/traffic.h"

#define WORKLOADS ROCESIM_SHARED_DIR "/workloads"
#define REF_FLOWS ROCESIM_SHARED_DIR "/ns3-reference/flow.txt"

/* A hand-built topology: hosts 0..nh-1, then switches; every host has one
 * link of `rate` to the first switch. */
struct fake_topo {
    struct topo t;
    struct topo_node nodes[512];
    struct topo_link links[512];
    uint32_t hosts[512];
    int32_t host_index[512];
};

static struct fake_topo *fake_topo(uint32_t nh, uint32_t nsw, uint64_t rate)
{
    struct fake_topo *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_true(nh + nsw <= 512);
    f->t.n_nodes = nh + nsw;
    f->t.nodes = f->nodes;
    f->t.links = f->links;
    f->t.hosts = f->hosts;
    f->t.host_index = f->host_index;
    f->t.n_hosts = nh;
    for (uint32_t i = 0; i < nh + nsw; i++) {
        f->nodes[i].is_switch = i >= nh;
        f->nodes[i].layer = i >= nh ? LAYER_EDGE : LAYER_HOST;
        f->host_index[i] = i < nh ? (int32_t)i : -1;
        if (i < nh)
            f->hosts[i] = i;
    }
    for (uint32_t i = 0; nsw && i < nh; i++)
        f->links[f->t.n_links++] = (struct topo_link){.a = i, .b = nh, .rate = rate, .delay = T_US};
    return f;
}

static void expect_msg(const struct err *e, const char *want)
{
    if (strcmp(e->msg, want) != 0)
        fail_msg("got  '%s'\nwant '%s'", e->msg, want);
}

static void expect_prefix(const struct err *e, const char *want)
{
    if (strncmp(e->msg, want, strlen(want)) != 0)
        fail_msg("got  '%s'\nwant '%s...'", e->msg, want);
}

static void assert_close(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("%.10g is not within %g relative of %.10g", got, rel, want);
}

/* ---- CDFs ---- */

static void test_cdf_web_search_means(void **state)
{
    (void)state;
    struct cdf a, b;
    struct err e = {0};
    assert_int_equal(cdf_load(&a, "web_search", WORKLOADS, &e), 0);
    assert_string_equal(a.name, "web_search");
    assert_close(a.mean_linear, 1711250.0, 1e-6);
    assert_close(a.mean_step, 2434900.0, 1e-6);
    assert_true(cdf_mean(&a, 0) == a.mean_linear && cdf_mean(&a, 1) == a.mean_step);
    /* The ns-3 percent file holds the same points: identical CDF and means. */
    assert_int_equal(cdf_load(&b, WORKLOADS "/ns3-format/WebSearch_distribution.txt", NULL, &e), 0);
    assert_string_equal(b.name, "WebSearch_distribution");
    assert_int_equal(a.n, b.n);
    for (int i = 0; i < a.n; i++) {
        assert_true(a.x[i] == b.x[i]);
        assert_true(a.p[i] == b.p[i]);
    }
    assert_true(a.mean_linear == b.mean_linear);
    assert_true(a.mean_step == b.mean_step);
    cdf_free(&a);
    cdf_free(&b);
}

/* Every shipped .cdf against the two means in its header (printed to 0.1). */
static void test_cdf_header_means(void **state)
{
    (void)state;
    static const char *const names[] = {"ali_storage", "cache_follower", "data_mining", "data_mining_opera",
                                        "fb_hadoop", "fb_hadoop_conweave", "google_rpc_conweave", "solar",
                                        "web_search", "web_server", "pcn_w1", "pcn_w2"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[512], *text;
        struct err e = {0};
        struct cdf c;
        snprintf(path, sizeof path, "%s/%s.cdf", WORKLOADS, names[i]);
        assert_int_equal(read_text_file(path, &text, &e), 0);
        const char *h = strstr(text, "linear_interp="), *s = strstr(text, "step/discrete=");
        assert_non_null(h);
        assert_non_null(s);
        double lin = strtod(h + 14, NULL), step = strtod(s + 14, NULL);
        if (cdf_parse(&c, text, path, &e))
            fail_msg("%s", e.msg);
        if (fabs(c.mean_linear - lin) > 0.051 || fabs(c.mean_step - step) > 0.051)
            fail_msg("%s: means %.2f %.2f, header %.1f %.1f", names[i], c.mean_linear, c.mean_step, lin, step);
        assert_true(c.p[0] == 0 && c.p[c.n - 1] == 1);
        cdf_free(&c);
        free(text);
    }
    /* fb_hadoop in both formats: identical means. */
    struct cdf a, b;
    struct err e = {0};
    assert_int_equal(cdf_load(&a, "fb_hadoop", WORKLOADS, &e), 0);
    assert_int_equal(cdf_load(&b, WORKLOADS "/ns3-format/FbHdp_distribution.txt", WORKLOADS, &e), 0);
    assert_close(a.mean_linear, 120420.8, 1e-6);
    assert_close(a.mean_step, 183897.0, 1e-6);
    assert_true(a.mean_linear == b.mean_linear && a.mean_step == b.mean_step);
    cdf_free(&a);
    cdf_free(&b);
}

/* Sample means match each convention's mean. web_search's size has a
 * coefficient of variation of ~2.3, so 200k samples leave a 0.5% standard
 * error, too close to 1%; 2M samples leave 0.16%. The empirical CDF must also
 * match at every point. */
static void test_cdf_sampling_convention(void **state)
{
    (void)state;
    struct cdf c;
    struct err e = {0};
    assert_int_equal(cdf_load(&c, "web_search", WORKLOADS, &e), 0);
    for (int mode = 0; mode < 2; mode++) {
        struct rng r;
        rng_seed(&r, 42, (uint64_t)mode);
        const int n = 2000000;
        double sum = 0;
        int below[64] = {0}; /* samples <= x_i */
        for (int k = 0; k < n; k++) {
            uint64_t s = cdf_sample(&c, &r, mode);
            assert_true(s >= 1 && s <= 30000000);
            if (mode == 1) {
                int hit = 0;
                for (int i = 1; i < c.n; i++)
                    hit |= (double)s == c.x[i];
                assert_true(hit); /* step: only the CDF's points */
            }
            sum += (double)s;
            for (int i = 0; i < c.n; i++)
                below[i] += (double)s <= c.x[i];
        }
        double mean = sum / n;
        print_message("web_search %s: sample mean %.0f vs %.0f (%+.3f%%)\n", mode ? "step" : "linear", mean,
                      cdf_mean(&c, mode), 100 * (mean / cdf_mean(&c, mode) - 1));
        assert_close(mean, cdf_mean(&c, mode), 0.01);
        for (int i = 1; i < c.n; i++)
            if (fabs((double)below[i] / n - c.p[i]) > 0.003)
                fail_msg("%s: P(size <= %g) = %g, CDF says %g", mode ? "step" : "linear", c.x[i],
                         (double)below[i] / n, c.p[i]);
    }
    cdf_free(&c);
}

/* Equal sizes are atoms, equal probabilities are gaps, and a first point
 * above 0 is an atom at its size (Homa's discrete CDFs). */
static void test_cdf_atoms_and_gaps(void **state)
{
    (void)state;
    struct cdf c;
    struct err e = {0};
    /* 25% exactly 200; nothing in (300, 400); 25% uniform on (400, 500). */
    assert_int_equal(cdf_parse(&c, "100 0\n200 0.5\n200 0.75\n300 0.75\n400 0.75\n500 1\n", "t.cdf", &e), 0);
    assert_close(c.mean_linear, 150 * 0.5 + 200 * 0.25 + 450 * 0.25, 1e-12);
    assert_close(c.mean_step, 200 * 0.75 + 500 * 0.25, 1e-12);
    struct rng r;
    rng_seed(&r, 1, 0);
    int at200 = 0, gap = 0, n = 200000;
    for (int k = 0; k < n; k++) {
        uint64_t s = cdf_sample(&c, &r, 0);
        at200 += s == 200;
        gap += s > 300 && s < 400;
        uint64_t t = cdf_sample(&c, &r, 1);
        assert_true(t == 200 || t == 500);
    }
    assert_int_equal(gap, 0);
    assert_true(fabs((double)at200 / n - 0.25) < 0.01);
    cdf_free(&c);

    assert_int_equal(cdf_parse(&c, "# discrete\n50 0.2\n100 1\n", "t.cdf", &e), 0);
    assert_int_equal(c.n, 3);
    assert_true(c.x[0] == 50 && c.p[0] == 0 && c.x[1] == 50 && c.p[1] == 0.2);
    assert_close(c.mean_linear, 50 * 0.2 + 75 * 0.8, 1e-12);
    assert_close(c.mean_step, 50 * 0.2 + 100 * 0.8, 1e-12);
    int min = 1000;
    for (int k = 0; k < 10000; k++) {
        int s = (int)cdf_sample(&c, &r, 0);
        min = s < min ? s : min;
    }
    assert_int_equal(min, 50);
    cdf_free(&c);

    /* Sizes 0..1 sample to at least 1 byte; a fixed size works. */
    assert_int_equal(cdf_parse(&c, "0 0\n0.5 1\n", "t.cdf", &e), 0);
    for (int k = 0; k < 1000; k++)
        assert_int_equal(cdf_sample(&c, &r, k & 1), 1);
    cdf_free(&c);
    assert_int_equal(cdf_parse(&c, "1000 0\r\n1000 100\r\n", "t.cdf", &e), 0);
    for (int k = 0; k < 1000; k++)
        assert_int_equal(cdf_sample(&c, &r, k & 1), 1000);
    cdf_free(&c);
}

static void test_cdf_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"", "t.cdf:1: a CDF needs at least 2 points, found 0"},
        {"# only\n\n10 1\n", "t.cdf:3: a CDF needs at least 2 points, found 1"},
        {"0 0\n10 abc\n", "t.cdf:2: probability 'abc' is not a number"},
        {"0 0\n1O 0.5\n", "t.cdf:2: size '1O' is not a number"},
        {"0 0\nnan 1\n", "t.cdf:2: size 'nan' is not a number"},
        {"0 0\n0x10 1\n", "t.cdf:2: size '0x10' is not a number"},
        {"0 0\n-5 0.5\n10 1\n", "t.cdf:2: size -5 is negative"},
        {"0 0\n2e15 1\n", "t.cdf:2: size 2e+15 is over 1 PB"},
        {"0 0\n10 -0.5\n", "t.cdf:2: probability -0.5 is negative"},
        {"0 0\n10 0.6\n20 0.5\n30 1\n", "t.cdf:3: probability 0.5 is below the previous point's 0.6 (a CDF never decreases)"},
        {"0 0\n10 0.5\n5 1\n", "t.cdf:3: size 5 is below the previous point's 10 (sizes must not decrease)"},
        {"0 0\n10 0.5\n\n20 0.9\n# end\n", "t.cdf:4: CDF must end at 1 (or 100 in ns-3 percent format), not 0.9"},
        {"0 0\n10 50\n20 99.9\n", "t.cdf:3: CDF must end at 1 (or 100 in ns-3 percent format), not 99.9"},
        {"0 0\n10 1.5\n", "t.cdf:2: CDF must end at 1 (or 100 in ns-3 percent format), not 1.5"},
        {"0 0 0\n10 1\n", "t.cdf:1: extra field '0' after 'size probability'"},
        {"0 0\n10\n", "t.cdf:2: expected 'size probability', found only '10'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cdf c;
        struct err e = {0};
        assert_int_equal(cdf_parse(&c, cases[i].text, "t.cdf", &e), -1);
        expect_msg(&e, cases[i].msg);
        assert_null(c.x);
    }
    /* Accepted: comments after values, CRLF, percent format, 100 +- 1e-9. */
    struct cdf c;
    struct err e = {0};
    assert_int_equal(cdf_parse(&c, "0 0 # start\r\n10\t50\n20 100.0000000001\n", "t.cdf", &e), 0);
    assert_true(c.p[1] == 0.5 && c.p[2] == 1);
    cdf_free(&c);
}

static void test_cdf_load(void **state)
{
    (void)state;
    struct cdf c;
    struct err e = {0};
    assert_int_equal(cdf_load(&c, "no_such_thing", WORKLOADS, &e), -1);
    expect_prefix(&e, "traffic.cdf: no workload named 'no_such_thing' (known: ali_storage, cache_follower, "
                      "data_mining, data_mining_opera, fb_hadoop,");
    assert_non_null(strstr(e.msg, ", web_search, web_server)"));
    assert_int_equal(cdf_load(&c, "/nonexistent/x.cdf", WORKLOADS, &e), -1);
    expect_msg(&e, "/nonexistent/x.cdf: cannot open: No such file or directory");
    assert_int_equal(cdf_load(&c, "x.cdf", WORKLOADS, &e), -1);
    expect_msg(&e, "x.cdf: cannot open: No such file or directory");

    /* A folder of our own: listing sorted, only .cdf files, parse errors name the file. */
    char dir[] = "/tmp/rocesim_cdfXXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *files[] = {"zeta.cdf", "alpha.cdf", "notes.txt", "bad.cdf"};
    const char *body[] = {"0 0\n1 1\n", "0 0\n1 1\n", "x\n", "0 0\n5 0.5\n"};
    char path[256];
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(body[i], f);
        fclose(f);
    }
    assert_int_equal(cdf_load(&c, "foo", dir, &e), -1);
    expect_msg(&e, "traffic.cdf: no workload named 'foo' (known: alpha, bad, zeta)");
    assert_int_equal(cdf_load(&c, "bad", dir, &e), -1);
    char want[512];
    snprintf(want, sizeof want, "%s/bad.cdf:2: CDF must end at 1 (or 100 in ns-3 percent format), not 0.5", dir);
    expect_msg(&e, want);
    assert_int_equal(cdf_load(&c, "zeta", dir, &e), 0);
    assert_string_equal(c.name, "zeta");
    cdf_free(&c);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void test_read_text_file(void **state)
{
    (void)state;
    char path[] = "/tmp/rocesim_txtXXXXXX", *buf;
    struct err e = {0};
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "ab\0c", 4), 4);
    close(fd);
    assert_int_equal(read_text_file(path, &buf, &e), -1);
    assert_null(buf);
    char want[256];
    snprintf(want, sizeof want, "%s: binary data (a NUL byte), not a text file", path);
    expect_msg(&e, want);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 100000; i++)
        fputs("0123456789", f);
    fclose(f);
    assert_int_equal(read_text_file(path, &buf, &e), 0);
    assert_int_equal(strlen(buf), 1000000);
    free(buf);
    unlink(path);
    assert_int_equal(read_text_file(path, &buf, &e), -1);
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
    expect_msg(&e, want);
    assert_int_equal(read_text_file("/tmp", &buf, &e), -1);
    expect_msg(&e, "/tmp: cannot read: Is a directory");
}

/* ---- Poisson ---- */

/* Checks order, endpoints and time rounding; returns total bytes. */
static double check_flows(const struct flow_list *l, size_t from, const struct topo *t, simtime_t start,
                          simtime_t end, uint16_t pg)
{
    double bytes = 0;
    for (size_t i = from; i < l->n; i++) {
        const struct flow_spec *f = &l->v[i];
        assert_true(f->src < t->n_nodes && t->host_index[f->src] >= 0);
        assert_true(f->dst < t->n_nodes && t->host_index[f->dst] >= 0);
        assert_true(f->src != f->dst);
        assert_true(f->start >= start && f->start < end);
        assert_int_equal(f->start % T_NS, 0);
        assert_true(f->size >= 1);
        assert_int_equal(f->pg, pg);
        assert_int_equal(f->dport, 100);
        if (i > from) {
            const struct flow_spec *p = f - 1;
            assert_true(p->start < f->start || (p->start == f->start && p->src <= f->src));
        }
        bytes += (double)f->size;
    }
    return bytes;
}

/* Offered bytes per host-second against load * rate, over `seeds` runs of
 * 50 ms each (one 50 ms run of web_search has ~2900 flows and a 5% standard
 * error on its byte total; the sum over 200 runs 0.35%). */
static void load_accuracy(const char *label, const struct cdf *c, int mode, int seeds)
{
    const uint32_t nh = 16;
    const uint64_t rate = 100000000000ULL;
    const double load = 0.5;
    const simtime_t start = 2 * T_SEC + 123, dur = 50 * T_MS;
    struct fake_topo *ft = fake_topo(nh, 1, rate);
    double bytes = 0, flows = 0, worst = 0;
    for (int s = 0; s < seeds; s++) {
        struct flow_list l = {0};
        struct rng r;
        struct err e = {0};
        rng_seed(&r, 1000 + (uint64_t)s, 7);
        if (traffic_poisson(&l, &ft->t, c, mode, load, start, dur, 3, &r, &e))
            fail_msg("%s", e.msg);
        double b = check_flows(&l, 0, &ft->t, start, start + dur, 3);
        double dev = fabs(b / (nh * 0.05) / (load * rate / 8) - 1);
        worst = dev > worst ? dev : worst;
        bytes += b;
        flows += (double)l.n;
        flow_list_free(&l);
    }
    double secs = 0.05 * seeds, want = load * (double)rate / 8;
    double got = bytes / (nh * secs), want_flows = nh * secs * want / cdf_mean(c, mode);
    print_message("%-22s %-6s %3d x 50 ms: %9.0f flows (%+.2f%% vs expected), bytes/host-s %+.3f%% of load*rate "
                  "(single runs: worst %.2f%%)\n",
                  label, mode ? "step" : "linear", seeds, flows, 100 * (flows / want_flows - 1),
                  100 * (got / want - 1), 100 * worst);
    assert_close(got, want, 0.02);
    assert_close(flows, want_flows, 0.01);
    free(ft);
}

static void test_poisson_load(void **state)
{
    (void)state;
    struct cdf ws, light;
    struct err e = {0};
    assert_int_equal(cdf_load(&ws, "web_search", WORKLOADS, &e), 0);
    /* Light-tailed: 100..300 KB, linear mean 200 KB, step mean 250 KB. */
    assert_int_equal(cdf_parse(&light, "100000 0\n200000 0.5\n300000 1\n", "light.cdf", &e), 0);
    for (int mode = 0; mode < 2; mode++) {
        load_accuracy("web_search", &ws, mode, 200);
        load_accuracy("light (100-300 KB)", &light, mode, 8);
    }
    cdf_free(&ws);
    cdf_free(&light);
}

static int same_flows(const struct flow_list *a, const struct flow_list *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct flow_spec *x = &a->v[i], *y = &b->v[i];
        if (x->src != y->src || x->dst != y->dst || x->size != y->size || x->start != y->start ||
            x->pg != y->pg || x->dport != y->dport)
            return 0;
    }
    return 1;
}

static void test_poisson_determinism(void **state)
{
    (void)state;
    struct fake_topo *ft = fake_topo(8, 2, 25000000000ULL);
    struct cdf c;
    struct err e = {0};
    assert_int_equal(cdf_load(&c, "fb_hadoop", WORKLOADS, &e), 0);
    struct flow_list l[3] = {{0}};
    for (int i = 0; i < 3; i++) {
        struct rng r;
        rng_seed(&r, i == 2 ? 2 : 1, 0);
        assert_int_equal(traffic_poisson(&l[i], &ft->t, &c, 0, 0.3, 0, 5 * T_MS, 1, &r, &e), 0);
        check_flows(&l[i], 0, &ft->t, 0, 5 * T_MS, 1);
        assert_true(l[i].n > 200);
    }
    assert_true(same_flows(&l[0], &l[1]));
    assert_false(same_flows(&l[0], &l[2]));
    /* Appends after what is there, keeping it. */
    struct rng r;
    rng_seed(&r, 1, 0);
    size_t n0 = l[2].n;
    struct flow_spec first = l[2].v[0];
    assert_int_equal(traffic_poisson(&l[2], &ft->t, &c, 0, 0.3, 0, 5 * T_MS, 1, &r, &e), 0);
    assert_int_equal(l[2].n, n0 + l[0].n);
    assert_true(l[2].v[0].start == first.start && l[2].v[n0].start == l[0].v[0].start);

    /* Destinations uniform among the other hosts. */
    int cnt[8][8] = {{0}};
    for (size_t i = 0; i < l[0].n; i++)
        cnt[l[0].v[i].src][l[0].v[i].dst]++;
    for (int s = 0; s < 8; s++)
        assert_int_equal(cnt[s][s], 0);
    for (int i = 0; i < 3; i++)
        flow_list_free(&l[i]);

    /* Zero duration or a start past nothing: no flows, no error. */
    struct flow_list z = {0};
    assert_int_equal(traffic_poisson(&z, &ft->t, &c, 1, 1.0, 5 * T_SEC, 0, 0, &r, &e), 0);
    assert_int_equal(z.n, 0);
    flow_list_free(&z);
    cdf_free(&c);
    free(ft);
}

static void test_poisson_errors(void **state)
{
    (void)state;
    struct cdf c;
    struct err e = {0};
    struct rng r;
    rng_seed(&r, 1, 0);
    struct flow_list l = {0};
    assert_int_equal(cdf_parse(&c, "1000 0\n2000 1\n", "c.cdf", &e), 0);
    struct fake_topo *ft = fake_topo(4, 1, 100000000000ULL);
    assert_int_equal(traffic_poisson(&l, &ft->t, &c, 0, 0, 0, T_MS, 3, &r, &e), -1);
    expect_msg(&e, "traffic.load: 0 is not in (0, 1]");
    assert_int_equal(traffic_poisson(&l, &ft->t, &c, 0, 1.01, 0, T_MS, 3, &r, &e), -1);
    assert_int_equal(traffic_poisson(&l, &ft->t, &c, 0, NAN, 0, T_MS, 3, &r, &e), -1);
    assert_int_equal(traffic_poisson(&l, &ft->t, &c, 2, 0.5, 0, T_MS, 3, &r, &e), -1);
    assert_int_equal(traffic_poisson(&l, &ft->t, &c, 0, 0.5, -1, T_MS, 3, &r, &e), -1);
    assert_int_equal(traffic_poisson(&l, &ft->t, &c, 0, 0.5, 0, 1000 * T_SEC, 3, &r, &e), -1);
    expect_prefix(&e, "traffic: this load and duration would make about");
    ft->t.n_links = 3;
    assert_int_equal(traffic_poisson(&l, &ft->t, &c, 0, 0.5, 0, T_MS, 3, &r, &e), -1);
    expect_msg(&e, "traffic: host 3 has no link (or a 0 bps one)");
    free(ft);
    ft = fake_topo(1, 1, 100000000000ULL);
    assert_int_equal(traffic_poisson(&l, &ft->t, &c, 0, 0.5, 0, T_MS, 3, &r, &e), -1);
    expect_msg(&e, "traffic: Poisson traffic needs at least 2 hosts, the topology has 1");
    free(ft);
    cdf_free(&c);
    assert_int_equal(cdf_parse(&c, "0 0\n0 1\n", "zero.cdf", &e), 0);
    ft = fake_topo(2, 1, 100000000000ULL);
    assert_int_equal(traffic_poisson(&l, &ft->t, &c, 0, 0.5, 0, T_MS, 3, &r, &e), -1);
    expect_msg(&e, "traffic.cdf: 'zero' has a mean flow size of 0 bytes; Poisson traffic needs a positive mean");
    assert_int_equal(l.n, 0);
    free(ft);
    cdf_free(&c);
}

/* ---- flow files ---- */

static void test_flowfile_reference(void **state)
{
    (void)state;
    /* topology.txt: 66 nodes, node 65 the switch. */
    struct fake_topo *ft = fake_topo(65, 1, 100000000000ULL);
    struct flow_list l = {0};
    struct err e = {0};
    /* The file announces 2 flows; ns-3 reads those and ignores the rest (warned). */
    assert_int_equal(flowfile_read(&l, REF_FLOWS, &ft->t, &e), 0);
    assert_int_equal(l.n, 2);
    assert_true(l.v[0].src == 2 && l.v[0].dst == 1 && l.v[0].pg == 3 && l.v[0].dport == 100);
    assert_true(l.v[0].size == 200000000 && l.v[0].start == 2 * T_SEC);
    assert_true(l.v[1].src == 3 && l.v[1].dst == 1);
    flow_list_free(&l);
    free(ft);

    /* All 256 records it lists, against hosts 0..257 (+ a switch 258). */
    char *text;
    assert_int_equal(read_text_file(REF_FLOWS, &text, &e), 0);
    char *body = strchr(text, '\n') + 1, *stop = strstr(body, "\n\n");
    assert_non_null(stop);
    stop[1] = '\0';
    size_t len = strlen(body) + 8;
    char *all = malloc(len);
    snprintf(all, len, "256\n%s", body);
    ft = fake_topo(258, 1, 100000000000ULL);
    assert_int_equal(flowfile_parse(&l, all, "flow256.txt", &ft->t, &e), 0);
    assert_int_equal(l.n, 256);
    for (size_t i = 0; i < l.n; i++) {
        assert_int_equal(l.v[i].src, i + 2);
        assert_int_equal(l.v[i].dst, 1);
        assert_int_equal(l.v[i].start, 2 * T_SEC);
    }
    assert_int_equal(l.v[2].size, 150000000);
    assert_int_equal(l.v[255].size, 10000000);
    /* Against the 66-node topology the 65th record names a node that is the switch. */
    free(ft);
    ft = fake_topo(65, 1, 100000000000ULL);
    struct flow_list m = {0};
    assert_int_equal(flowfile_parse(&m, all, "flow256.txt", &ft->t, &e), -1);
    expect_msg(&e, "flow256.txt:65: flow from node 65, which is a switch");
    assert_int_equal(m.n, 0);
    flow_list_free(&m); /* a failed parse may leave capacity behind */
    flow_list_free(&l);
    free(all);
    free(text);
    free(ft);
}

static void test_flowfile_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"", "f.txt:1: empty flow file (expected the flow count)"},
        {"\n\n", "f.txt:2: empty flow file (expected the flow count)"},
        {"x\n", "f.txt:1: flow count 'x' is not a non-negative integer"},
        {"-3\n", "f.txt:1: flow count '-3' is negative"},
        {"99999999999999999999999\n", "f.txt:1: flow count '99999999999999999999999' is too large"},
        {"1 0 1 3 100 1000 2\n", "f.txt:1: extra field '0' after the flow count (one flow per line)"},
        {"3\n0 1 3 100 1000 0\n\n1 0 3 100 1000 0\n", "f.txt:4: expected 3 flows, found 2"},
        {"264\n0 1 3 100 1000 0\n", "f.txt:2: expected 264 flows, found 1"},
        {"1\n0 65 3 100 1000 0\n", "f.txt:2: flow to node 65, which is a switch"},
        {"1\n65 0 3 100 1000 0\n", "f.txt:2: flow from node 65, which is a switch"},
        {"1\n999 0 3 100 1000 0\n", "f.txt:2: node 999 does not exist (the topology has 66 nodes)"},
        {"1\n0 99999999999999999999999 3 100 1000 0\n", "f.txt:2: node 99999999999999999999999 does not exist"},
        {"2\n0 1 3 100 1000 0\n3 3 3 100 1000 0\n", "f.txt:3: flow from host 3 to itself"},
        {"\n1\n\n0 1 3 100 0 1\n", "f.txt:4: flow size is 0 bytes"},
        {"1\n0 1 3 100 2000000000000000 1\n", "f.txt:2: flow size 2000000000000000 is over 1 PB"},
        {"1\n-1 1 3 100 10 1\n", "f.txt:2: src '-1' is negative"},
        {"1\n0 1 3 100 abc 1\n", "f.txt:2: size 'abc' is not a non-negative integer"},
        {"1\n0 1 3 100 1.5 1\n", "f.txt:2: size '1.5' is not a non-negative integer"},
        {"1\n0 1 3 1e2 10 1\n", "f.txt:2: dport '1e2' is not a non-negative integer"},
        {"1\n0 1 8 100 10 1\n", "f.txt:2: priority group 8 is out of range 0..7"},
        {"1\n0 1 3 65536 10 1\n", "f.txt:2: dport 65536 is out of range 0..65535"},
        {"1\n0 1 3 100 10 -1\n", "f.txt:2: start time '-1' is negative"},
        {"1\n0 1 3 100 10 nan\n", "f.txt:2: start time 'nan' is not a number of seconds"},
        {"1\n0 1 3 100 10 inf\n", "f.txt:2: start time 'inf' is not a number of seconds"},
        {"1\n0 1 3 100 10 1.5s\n", "f.txt:2: start time '1.5s' is not a number of seconds"},
        {"1\n0 1 3 100 10 1e\n", "f.txt:2: start time '1e' is not a number of seconds"},
        {"1\n0 1 3 100 10 .\n", "f.txt:2: start time '.' is not a number of seconds"},
        {"1\n0 1 3 100 10 9223372.036854775808\n", "f.txt:2: start time '9223372.036854775808' is too large"},
        {"1\n0 1 3 100 10 1e300\n", "f.txt:2: start time '1e300' is too large"},
        {"1\n0 1 3 100 10\n", "f.txt:2: expected 6 fields 'src dst pg dport size start_s', found 5"},
        {"1\n0 1 3 100\n10 2\n", "f.txt:2: expected 6 fields 'src dst pg dport size start_s', found 4"},
        {"1\n0 1 3 100 10 2 - 7\n", "f.txt:2: extra field '7' after 'src dst pg dport size start_s [deps]' (one flow per line)"},
        /* the dependency column */
        {"1\n0 1 3 100 10 2 7\n", "f.txt:2: waits for flow 7, which does not exist (the file has flows 0..0)"},
        {"2\n0 1 3 100 10 2 -\n1 2 3 100 10 2 1\n", "f.txt:3: flow 1 waits for itself"},
        {"2\n0 1 3 100 10 2 0\n1 2 3 100 10 2 -\n", "f.txt:2: flow 0 waits for itself"},
        {"3\n0 1 3 100 10 0 2\n1 2 3 100 10 0 0\n2 3 3 100 10 0 1\n", "f.txt:2: flow 0 is on a cycle of dependencies"},
        {"4\n0 1 3 100 10 0 -\n1 2 3 100 10 0 0,3\n2 3 3 100 10 0 1\n3 4 3 100 10 0 2\n",
         "f.txt:5: flow 3 is on a cycle of dependencies"},
        {"2\n0 1 3 100 10 0 -\n1 2 3 100 10 0 0,0\n", "f.txt:3: waits for flow 0 twice"},
        {"2\n0 1 3 100 10 0 -\n1 2 3 100 10 0 0,\n", "f.txt:3: dependency list '0,' ends with a comma"},
        {"2\n0 1 3 100 10 0 -\n1 2 3 100 10 0 x\n", "f.txt:3: dependency 'x' is not a flow id (use ID[s|r|q|b],...[+DELAY_S] or -)"},
        {"2\n0 1 3 100 10 0 -\n1 2 3 100 10 0 0+-1\n", "f.txt:3: dependency delay '-1' is negative"},
        {"2\n0 1 3 100 10 0 -\n1 2 3 100 10 0 +0.1\n", "f.txt:3: dependency field '+0.1' names no flow (use - for none)"},
        {"2\n0 1 3 100 10 0 -\n1 2 3 100 10 0 -1\n", "f.txt:3: dependency '-1' is not a flow id (use ID[s|r|q|b],...[+DELAY_S] or -)"},
        /* q: the next message on the same queue pair: same hosts, one predecessor, one successor */
        {"2\n0 1 3 100 10 0 -\n0 2 3 100 10 0 0q\n", "f.txt:3: flow 1 continues the queue pair of a flow between other hosts"},
        {"3\n0 1 3 100 10 0 -\n0 1 3 100 10 0 -\n0 1 3 100 10 0 0q,1q\n", "f.txt:4: flow 2 continues two queue pairs"},
        {"3\n0 1 3 100 10 0 -\n0 1 3 100 10 0 0q\n0 1 3 100 10 0 0q\n",
         "f.txt:4: flow 2 continues a queue pair another flow already continues"},
    };
    struct fake_topo *ft = fake_topo(65, 1, 100000000000ULL);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct flow_list l = {0};
        struct flow_spec keep = {.src = 7, .dst = 8, .size = 9};
        assert_int_equal(flow_list_push(&l, &keep), 0);
        struct err e = {0};
        assert_int_equal(flowfile_parse(&l, cases[i].text, "f.txt", &ft->t, &e), -1);
        expect_msg(&e, cases[i].msg);
        assert_int_equal(l.n, 1); /* what was there stays, nothing half-read is left */
        flow_list_free(&l);
    }
    free(ft);
}

static void test_flowfile_start_exact(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        simtime_t ps;
    } cases[] = {
        {"2", 2 * T_SEC},
        {"2.000000123", 2000000123000LL},
        {"2.000000000001", 2000000000001LL},
        {"0.0000000000015", 2}, /* 1.5 ps: half up */
        {"0.0000000000014999", 1},
        {"0.5", 500 * T_MS},
        {".25", 250 * T_MS},
        {"3.", 3 * T_SEC},
        {"+1", T_SEC},
        {"0", 0},
        {"0.000", 0},
        {"000010.000000001", 10 * T_SEC + T_NS},
        {"1e-3", T_MS},
        {"1.5E+2", 150 * T_SEC},
        {"123456789e-9", 123456789 * T_NS},
        {"1e-100000", 0},
        {"9223372.036854775807", INT64_MAX},
        {"9000000.123456789", 9000000 * T_SEC + 123456789 * T_NS},
    };
    struct fake_topo *ft = fake_topo(4, 1, 100000000000ULL);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[128];
        snprintf(text, sizeof text, "1\n0 1 3 100 10 %s\n", cases[i].s);
        struct flow_list l = {0};
        struct err e = {0};
        if (flowfile_parse(&l, text, "s.txt", &ft->t, &e))
            fail_msg("%s: %s", cases[i].s, e.msg);
        if (l.v[0].start != cases[i].ps)
            fail_msg("'%s' -> %lld ps, want %lld", cases[i].s, (long long)l.v[0].start, (long long)cases[i].ps);
        flow_list_free(&l);
    }
    free(ft);
}

static char *write_to_string(const struct flow_list *l)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    flowfile_write(f, l);
    fclose(f);
    return buf;
}

static void test_flowfile_roundtrip(void **state)
{
    (void)state;
    struct fake_topo *ft = fake_topo(16, 1, 100000000000ULL);
    struct cdf c;
    struct err e = {0};
    struct rng r;
    rng_seed(&r, 9, 0);
    assert_int_equal(cdf_load(&c, "web_search", WORKLOADS, &e), 0);
    struct flow_list l = {0}, m = {0};
    assert_int_equal(traffic_poisson(&l, &ft->t, &c, 0, 0.7, 2 * T_SEC, 5 * T_MS, 3, &r, &e), 0);
    /* Starts that %.9f of a double would garble, and one below a ns. */
    struct flow_spec extra[] = {
        {.src = 1, .dst = 2, .size = 1, .start = 9000000 * T_SEC + 999999999 * T_NS, .pg = 7, .dport = 65535},
        {.src = 15, .dst = 0, .size = 999999999999, .start = 1234 * T_SEC + 1, .pg = 0, .dport = 0},
        {.src = 3, .dst = 4, .size = 5, .start = 0, .pg = 1, .dport = 4791},
    };
    for (int i = 0; i < 3; i++)
        assert_int_equal(flow_list_push(&l, &extra[i]), 0);
    char *a = write_to_string(&l);
    assert_non_null(strstr(a, "\n1 2 7 65535 1 9000000.999999999\n"));
    assert_non_null(strstr(a, "\n15 0 0 0 999999999999 1234.000000000001\n"));
    assert_non_null(strstr(a, "\n3 4 1 4791 5 0.000000000\n"));
    assert_int_equal(flowfile_parse(&m, a, "rt.txt", &ft->t, &e), 0);
    assert_true(same_flows(&l, &m));
    char *b = write_to_string(&m);
    assert_string_equal(a, b);
    free(a);
    free(b);
    flow_list_free(&l);
    flow_list_free(&m);
    cdf_free(&c);
    free(ft);
}

static void test_flow_list_sort(void **state)
{
    (void)state;
    struct flow_list l = {0};
    struct rng r;
    rng_seed(&r, 5, 0);
    const size_t n = 300000;
    for (size_t i = 0; i < n; i++) {
        struct flow_spec f = {.size = i, .start = (simtime_t)rng_below(&r, 1000) * T_US};
        assert_int_equal(flow_list_push(&l, &f), 0);
    }
    flow_list_sort(&l);
    assert_int_equal(l.n, n);
    uint8_t *seen = calloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        assert_false(seen[l.v[i].size]);
        seen[l.v[i].size] = 1;
        if (i)
            assert_true(l.v[i - 1].start < l.v[i].start ||
                        (l.v[i - 1].start == l.v[i].start && l.v[i - 1].size < l.v[i].size)); /* stable */
    }
    free(seen);
    flow_list_sort(&l); /* sorted input: untouched */
    for (size_t i = 1; i < n; i++)
        assert_true(l.v[i - 1].start <= l.v[i].start);
    flow_list_free(&l);
    /* Odd sizes and trivial lists. */
    for (size_t sz = 0; sz < 40; sz++) {
        for (size_t i = 0; i < sz; i++) {
            struct flow_spec f = {.size = i, .start = (simtime_t)((sz - i) % 3)};
            assert_int_equal(flow_list_push(&l, &f), 0);
        }
        flow_list_sort(&l);
        for (size_t i = 1; i < l.n; i++)
            assert_true(l.v[i - 1].start < l.v[i].start ||
                        (l.v[i - 1].start == l.v[i].start && l.v[i - 1].size < l.v[i].size));
        flow_list_free(&l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cdf_web_search_means),
        cmocka_unit_test(test_cdf_header_means),
        cmocka_unit_test(test_cdf_sampling_convention),
        cmocka_unit_test(test_cdf_atoms_and_gaps),
        cmocka_unit_test(test_cdf_errors),
        cmocka_unit_test(test_cdf_load),
        cmocka_unit_test(test_read_text_file),
        cmocka_unit_test(test_poisson_load),
        cmocka_unit_test(test_poisson_determinism),
        cmocka_unit_test(test_poisson_errors),
        cmocka_unit_test(test_flowfile_reference),
        cmocka_unit_test(test_flowfile_errors),
        cmocka_unit_test(test_flowfile_start_exact),
        cmocka_unit_test(test_flowfile_roundtrip),
        cmocka_unit_test(test_flow_list_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
