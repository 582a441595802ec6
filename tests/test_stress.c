/* The stress matrix: the lossless guarantee, proved on every change. Each
 * case runs a hard workload to completion and checks run_check_invariants
 * (every flow done, bytes delivered = bytes sent, no packet left anywhere,
 * MMU books at zero, PFC settled: PAUSEs = RESUMEs, nothing paused) and, in
 * lossless mode, zero drops, no timeout and nothing resent. IRN cases run
 * lossy: drops allowed, every byte still delivered once. A table of figures
 * goes to the test log. Under the sanitizer build (ROCESIM_SANITIZED=1) the
 * largest cases shrink (fewer senders or smaller flows), same shapes. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "simrun.h"

struct row {
    char name[40];
    uint32_t hosts, flows;
    double mb, end_us, wall_s;
    unsigned long long drops, pauses, timeouts, retx_kb, peak_pkts;
    double max_slow;
};
static struct row rows[64];
/* Packet-level balancers reorder: go-back-N then resends (and may time out)
 * with no drop. Those cases check every invariant but "nothing resent". */
static bool reorder_ok;
static int n_rows;

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs r (set up and flows added) to the end, checks the invariants for its
 * mode, and records a row. */
static void finish(struct run *r, const char *name, double t0)
{
    run_build(r);
    struct sim *s = &r->sc.sim;
    sim_run(s);
    if (s->p.pfc && !reorder_ok)
        run_check_clean(r); /* zero drops, no timeout, nothing resent */
    else
        run_check_invariants(r); /* lossy: every byte delivered, every flow done */
    struct row *w = &rows[n_rows < 64 ? n_rows++ : 63];
    snprintf(w->name, sizeof w->name, "%s", name);
    w->hosts = s->n_hosts;
    w->flows = s->n_flows;
    uint64_t bytes = 0;
    simtime_t end = 0;
    double slow = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct qp *f = &s->flows[i];
        bytes += f->size;
        if (f->finish > end)
            end = f->finish;
        if (f->ideal_fct > 0 && (double)(f->finish - f->start) / (double)f->ideal_fct > slow)
            slow = (double)(f->finish - f->start) / (double)f->ideal_fct;
    }
    w->mb = (double)bytes / 1e6;
    w->end_us = (double)end / T_US;
    w->drops = s->c.packets_dropped;
    w->pauses = s->c.pfc_pause_frames;
    w->timeouts = s->c.timeouts;
    w->retx_kb = s->c.bytes_retx / 1000;
    w->peak_pkts = s->pool.peak;
    w->max_slow = slow;
    w->wall_s = wall() - t0;
    run_free(r);
}

/* One case from INI text (flows from its generators) plus optional flows. */
static void run_case(const char *name, const char *ini, void (*add)(struct run *))
{
    double t0 = wall();
    struct run r;
    run_setup(&r, ini);
    if (add)
        add(&r);
    finish(&r, name, t0);
}

/* ---------------------------------------------------------------- incasts */

/* fat-tree k = 16: 1024 hosts, 320 switches, 100 Gbps, 1 us. */
/* fat-tree k = 16: 1024 hosts, 320 switches, 100 Gbps, 1 us; 12 MB buffers
 * (a Tomahawk-class switch), so both incasts overflow into PFC (lossless)
 * or drops (IRN). */
#define FATTREE16 "[topology]\ntype = fattree\nk = 16\n[switch]\nbuffer = 12MB\n"

static void incast_case(const char *name, unsigned fan_in, const char *extra)
{
    char ini[1024];
    unsigned fi = fan_in;
    const char *size = "64KB";
    if (run_sanitized() && fan_in > 256) {
        fi = 512; /* same fabric, half the senders */
        size = "32KB";
    }
    snprintf(ini, sizeof ini,
             FATTREE16 "%s\n[traffic]\npattern = incast\nfan_in = %u\nsize = %s\nreceiver = 0\n", extra ? extra : "", fi,
             size);
    char label[40];
    snprintf(label, sizeof label, "%s %u->1 %s", name, fi, size);
    run_case(label, ini, NULL);
}

static void test_incast_256(void **st)
{
    (void)st;
    incast_case("incast", 256, NULL);
}

static void test_incast_1000(void **st)
{
    (void)st;
    incast_case("incast", 1000, NULL);
}

static void test_irn_incast_256(void **st)
{
    (void)st;
    incast_case("irn lossy", 256, "[switch]\npfc = off\n[transport]\nrecovery = irn\n");
}

static void test_irn_incast_1000(void **st)
{
    (void)st;
    incast_case("irn lossy", 1000, "[switch]\npfc = off\n[transport]\nrecovery = irn\n");
}

/* ---------------------------------------------------------------- all-to-all */

/* Every host sends 64 KB to every other host; each host starts its flows one
 * after another at 95 % of its link rate, so every sender offers 0.95 load
 * and every receiver gets the same (a rotation: round k goes to h + k). */
static void add_all_to_all(struct run *r)
{
    const struct topo *t = &r->sc.topo;
    uint32_t n = t->n_hosts;
    uint64_t size = 64000;
    simtime_t gap = (simtime_t)((double)size * 8 / (0.95 * 100e9) * T_SEC);
    for (uint32_t k = 1; k < n; k++)
        for (uint32_t i = 0; i < n; i++)
            run_add_flow(r, t->hosts[i], t->hosts[(i + k) % n], size, (simtime_t)(k - 1) * gap);
}

static void test_all_to_all(void **st)
{
    (void)st;
    run_case("all-to-all 32 hosts 0.95",
             "[topology]\ntype = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 8\nfabric_link = 200Gbps\n"
             "[switch]\nbuffer = 2MB\n[traffic]\npattern = none\n",
             add_all_to_all);
}

/* ---------------------------------------------------------------- Poisson */

/* Under the sanitizers the heavy tail is cut at 2 MB (data_mining's largest
 * flows alone would take most of the budget); arrivals stay the same. */
static void cap_sizes(struct run *r)
{
    for (size_t i = 0; i < r->sc.flows.n; i++)
        if (r->sc.flows.v[i].size > 2000000)
            r->sc.flows.v[i].size = 2000000;
}

static void poisson_case(const char *name, const char *cdf, const char *san_duration)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 8\nfabric_link = 200Gbps\n"
             "[switch]\nbuffer = 2MB\n[traffic]\npattern = poisson\ncdf = %s\nload = 0.95\nduration = %s\n",
             cdf, run_sanitized() ? san_duration : "2ms");
    run_case(name, ini, run_sanitized() ? cap_sizes : NULL);
}

static void test_poisson_websearch(void **st)
{
    (void)st;
    poisson_case("poisson web_search 0.95", "web_search", "500us");
}

static void test_poisson_datamining(void **st)
{
    (void)st;
    poisson_case("poisson data_mining 0.95", "data_mining", "500us");
}

/* ---------------------------------------------------------------- knobs
 * The same hard mix for each: an incast of 64 KB flows into host 0 from
 * every other host of the first leaves, and a permutation of 256 KB flows
 * among all hosts, at the same instant. The buffer is small enough for the
 * incast to fill it: PFC must hold it, with a PAUSE tree back to the senders. */

#define MIX_TOPO "leaves = 5\nspines = 4\nhosts_per_leaf = 16\n" /* 80 hosts */

static void mix_case_on(const char *name, const char *topo, unsigned fan_in, const char *buffer, const char *knobs)
{
    char ini[2048];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\n%s\n[switch]\nbuffer = %s\n%s\n"
             "[traffic]\npattern = incast\nfan_in = %u\nsize = 64KB\nreceiver = 0\n"
             "[traffic.perm]\npattern = permutation\nsize = 256KB\n",
             topo, buffer, knobs, fan_in);
    run_case(name, ini, NULL);
}

static void mix_case(const char *name, const char *knobs) { mix_case_on(name, MIX_TOPO, 64, "2MB", knobs); }

/* The auto headroom (3 x rate x delay per port, plus the reserves) must fit
 * the buffer, so tiny buffers come with small switches: 256 KB on 6-port
 * switches, 1 MB on 20-port ones. */
static void test_tiny_buffers(void **st)
{
    (void)st;
    mix_case_on("buffer 256KB (6-port sw)", "leaves = 2\nspines = 2\nhosts_per_leaf = 4\n", 7, "256KB", "");
    mix_case_on("buffer 1MB (20-port sw)", "leaves = 4\nspines = 4\nhosts_per_leaf = 16\n", 63, "1MB", "");
}

static void test_mtu(void **st)
{
    (void)st;
    mix_case("mtu 256", "[transport]\nmtu = 256\n");
    mix_case("mtu 4096", "[transport]\nmtu = 4096\n");
}

/* 50 us links need 1.9 MB of headroom per 100 Gbps port: a 40 MB buffer (37.5 MB of it headroom). */
static void test_link_delays(void **st)
{
    (void)st;
    char topo[256];
    snprintf(topo, sizeof topo, "%slink_delay = 10ns\n", MIX_TOPO);
    mix_case_on("links 10ns", topo, 64, "2MB", "");
    snprintf(topo, sizeof topo, "%slink_delay = 50us\n", MIX_TOPO);
    mix_case_on("links 50us (40MB buf)", topo, 64, "40MB", "");
}

static void test_pbfs(void **st)
{
    (void)st;
    mix_case("pbfs on (dcqcn)", "[transport]\npbfs = on\n");
    mix_case("pbfs on (hpcc)", "[transport]\ncc = hpcc\npbfs = on\n");
}

/* Every congestion control and every load balancer in the registries, so a
 * new scheme is covered the day it is added. PB-FS runs beside a CC (above). */
static void test_every_cc(void **st)
{
    (void)st;
    for (int i = 0; cc_registry[i]; i++) {
        if (cc_registry[i]->companion) /* PB-FS, HF2T: beside a CC, not one */
            continue;
        char knobs[128], name[40];
        snprintf(knobs, sizeof knobs, "[transport]\ncc = %s\n", cc_registry[i]->name);
        snprintf(name, sizeof name, "cc %s", cc_registry[i]->name);
        mix_case(name, knobs);
    }
}

static void test_every_lb(void **st)
{
    (void)st;
    for (int i = 0; lb_registry[i]; i++) {
        char knobs[128], name[40];
        snprintf(knobs, sizeof knobs, "[lb]\nscheme = %s\n", lb_registry[i]->name);
        snprintf(name, sizeof name, "lb %s", lb_registry[i]->name);
        reorder_ok = strcmp(lb_registry[i]->name, "ecmp") != 0;
        mix_case(name, knobs);
        reorder_ok = false;
    }
}

/* ---------------------------------------------------------------- mixed rates
 * Two leaves, two spines, 400 Gbps fabric; leaf A has 8 hosts at 25 Gbps and
 * 8 at 100 Gbps, leaf B 4 at 400 Gbps and 8 at 25 Gbps. The fast hosts incast
 * into a 25 Gbps host, and everyone sends to a neighbour. */
static const char mixed_topo[] = "stress_mixed_rates.txt";

static void write_mixed_topo(void)
{
    FILE *f = fopen(mixed_topo, "w");
    assert_non_null(f);
    /* hosts 0-27, leaves 28 (A) and 29 (B), spines 30 and 31 */
    fprintf(f, "32 4 32\n28 29 30 31\n");
    for (int h = 0; h < 28; h++) {
        const char *rate = h < 8 ? "25Gbps" : h < 16 ? "100Gbps" : h < 20 ? "400Gbps" : "25Gbps";
        fprintf(f, "%d %d %s 1us 0\n", h, h < 16 ? 28 : 29, rate);
    }
    fprintf(f, "28 30 400Gbps 1us 0\n28 31 400Gbps 1us 0\n29 30 400Gbps 1us 0\n29 31 400Gbps 1us 0\n");
    fclose(f);
}

static void add_mixed(struct run *r)
{
    for (uint32_t h = 8; h < 20; h++) /* 100 and 400 Gbps senders into a 25 Gbps host */
        run_add_flow(r, h, 0, 256000, 0);
    for (uint32_t h = 0; h < 28; h++)
        run_add_flow(r, h, (h + 5) % 28, 128000, 0);
}

static void test_mixed_rates(void **st)
{
    (void)st;
    write_mixed_topo();
    char ini[512];
    snprintf(ini, sizeof ini, "[topology]\ntype = file\nfile = %s\n[switch]\nbuffer = 2MB\n[traffic]\npattern = none\n", mixed_topo);
    run_case("mixed 25/100/400G", ini, add_mixed);
    remove(mixed_topo);
}

/* ---------------------------------------------------------------- table */

static int print_table(void **st)
{
    (void)st;
    printf("\nstress matrix%s\n", run_sanitized() ? " (sanitizer sizes)" : "");
    printf("%-26s %5s %6s %8s %10s %6s %7s %5s %8s %8s %8s %6s\n", "case", "hosts", "flows", "MB", "end_us", "drops",
           "PAUSE", "RTOs", "retx_KB", "peak_pk", "max_sld", "wall_s");
    for (int i = 0; i < n_rows; i++) {
        const struct row *w = &rows[i];
        printf("%-26s %5u %6u %8.1f %10.1f %6llu %7llu %5llu %8llu %8llu %8.1f %6.2f\n", w->name, w->hosts, w->flows,
               w->mb, w->end_us, w->drops, w->pauses, w->timeouts, w->retx_kb, w->peak_pkts, w->max_slow, w->wall_s);
    }
    fflush(stdout);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incast_256),     cmocka_unit_test(test_incast_1000),
        cmocka_unit_test(test_all_to_all),     cmocka_unit_test(test_poisson_websearch),
        cmocka_unit_test(test_poisson_datamining), cmocka_unit_test(test_tiny_buffers),
        cmocka_unit_test(test_mtu),            cmocka_unit_test(test_link_delays),
        cmocka_unit_test(test_mixed_rates),    cmocka_unit_test(test_every_cc),
        cmocka_unit_test(test_every_lb),       cmocka_unit_test(test_pbfs),
        cmocka_unit_test(test_irn_incast_256), cmocka_unit_test(test_irn_incast_1000),
    };
    return cmocka_run_group_tests(tests, NULL, print_table);
}
