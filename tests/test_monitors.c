/* Monitors against the run's own totals: integrated utilisation = bytes each
 * port sent, integrated flow rate = flow size, queue samples within the
 * buffer and zero at the end, paused.csv zero without PFC; paused paths
 * counted by hand; ns-3's QLEN_MON format; monitors change no result. */
#define _GNU_SOURCE
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scenario/load.h"
#include "scenario/scenario.h"
#include "stats/monitor.h"
#include "simrun.h"
#include "stats/output.h"

/* A scenario run (tests/simrun.h) plus its output folder and monitors. */
struct mrun {
    struct run base;
    struct output o;
    char dir[64];
};

static void setup(struct mrun *r, const char *ini)
{
    run_setup(&r->base, ini);
    memset(&r->o, 0, sizeof r->o);
    strcpy(r->dir, "/tmp/rocesim_mon.XXXXXX");
    assert_non_null(mkdtemp(r->dir));
}

static void add_flow(struct mrun *r, uint32_t src, uint32_t dst, uint64_t size, simtime_t start)
{
    run_add_flow(&r->base, src, dst, size, start);
}

/* Build, open the outputs (with the monitors), run, write the results. */
static void run_all(struct mrun *r)
{
    struct err e;
    if (scenario_build(&r->base.sc, &e) < 0 || output_open(&r->o, &r->base.sc, &(struct output_opts){.out_dir = r->dir, .quiet = true}, &e) < 0)
        fail_msg("%s", e.msg);
    sim_start(&r->base.sc.sim);
    sim_run(&r->base.sc.sim);
    if (output_finish(&r->o, &e) < 0)
        fail_msg("%s", e.msg);
}

static void rm_dir(const char *dir)
{
    static const char *const names[] = {"fct.csv", "pfc.csv", "summary.json", "pfc_ports.csv", "queue.csv",
                                        "util.csv", "flow_rate.csv", "paused.csv", "imbalance.csv", "qlen.txt", "fct.txt", "pfc.txt"};
    char p[256];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

static void teardown_run(struct mrun *r)
{
    output_close(&r->o);
    run_free(&r->base);
    rm_dir(r->dir);
}

static FILE *open_out(const struct mrun *r, const char *name, const char *header)
{
    char p[256], line[256];
    snprintf(p, sizeof p, "%s/%s", r->dir, name);
    FILE *f = fopen(p, "r");
    if (!f)
        fail_msg("%s: missing", p);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, header);
    return f;
}

/* Seven hosts of one leaf and one of the other send to host 0 at once: PFC
 * fires, queues build, and the fabric links carry the cross-leaf flow. */
static const char incast_ini[] =
    "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n"
    "[switch]\nbuffer = 1MB\n[transport]\ncc = none\n[traffic]\npattern = none\n"
    "[output]\nqueue_ports = all\nqueue_interval = 1us\nutil_ports = all\nutil_interval = 7us\n"
    "flows = 0-4\nflow_interval = 3us\npaused_interval = 2us\n";

static void add_incast(struct mrun *r)
{
    for (uint32_t h = 1; h < 8; h++)
        add_flow(r, h, 0, 300000, 0);
    add_flow(r, 5, 6, 200000, 20 * T_US);
}

static void test_util_integrates_to_bytes_sent(void **st)
{
    (void)st;
    struct mrun r;
    setup(&r, incast_ini);
    add_incast(&r);
    run_all(&r);
    const struct sim *s = &r.base.sc.sim;
    assert_int_equal(s->c.flows_completed, s->n_flows);
    assert_true(s->c.pfc_pause_frames > 0);
    double *sent = calloc(s->n_ports, sizeof *sent);
    long long *prev = calloc(s->n_ports, sizeof *prev);
    int *rows = calloc(s->n_ports, sizeof *rows);
    FILE *f = open_out(&r, "util.csv", "time_ns,node,port,utilisation,peer\n");
    long long t;
    unsigned node, port, peer;
    double u;
    const long long iv = 7000;
    while (fscanf(f, "%lld,%u,%u,%lf,%u\n", &t, &node, &port, &u, &peer) == 5) {
        assert_true(node < s->n_nodes && port < s->nodes[node].nports);
        uint32_t pid = s->nodes[node].port0 + port;
        assert_int_equal(peer, s->ports[s->ports[pid].peer].node); /* the far end of the link */
        assert_true(peer != node);
        long long dt = rows[pid]++ ? t - prev[pid] : iv; /* the first row covers one interval */
        assert_true(dt > 0 && dt <= iv);
        double row = u * (double)s->ports[pid].rate * (double)dt * 1e-9 / 8;
        /* bytes count when a transmission starts: at most one packet beyond line rate */
        assert_true(u >= 0 && row <= (double)s->ports[pid].rate * (double)dt * 1e-9 / 8 + 1100);
        sent[pid] += row;
        prev[pid] = t;
    }
    assert_true(feof(f));
    fclose(f);
    for (uint32_t pid = 0; pid < s->n_ports; pid++) {
        double one_interval = (double)s->ports[pid].rate * (double)iv * 1e-9 / 8;
        double diff = fabs(sent[pid] - (double)s->ports[pid].tx_bytes);
        if (diff > one_interval || diff > 64) /* the brief allows an interval's worth; we are far closer */
            fail_msg("port %u: util integrates to %.1f B, sent %llu B", pid, sent[pid],
                     (unsigned long long)s->ports[pid].tx_bytes);
        assert_true(rows[pid] > 0);
    }
    /* the last row of every port is at the end of the run */
    for (uint32_t pid = 0; pid < s->n_ports; pid++)
        assert_int_equal(prev[pid], s->now / T_NS);
    free(sent);
    free(prev);
    free(rows);
    teardown_run(&r);
}

static void test_queue_within_buffer_and_empty_at_end(void **st)
{
    (void)st;
    struct mrun r;
    setup(&r, incast_ini);
    add_incast(&r);
    run_all(&r);
    const struct sim *s = &r.base.sc.sim;
    FILE *f = open_out(&r, "queue.csv", "time_ns,node,port,bytes,peer\n");
    long long t, last_t = -1, *last = calloc(s->n_ports, sizeof *last);
    unsigned node, port, peer;
    unsigned long long b, maxb = 0, rows = 0;
    while (fscanf(f, "%lld,%u,%u,%llu,%u\n", &t, &node, &port, &b, &peer) == 5) {
        assert_true(node < s->n_nodes && port < s->nodes[node].nports);
        assert_int_equal(peer, s->ports[s->ports[s->nodes[node].port0 + port].peer].node);
        assert_true(t >= last_t);
        last_t = t;
        if (s->nodes[node].is_switch)
            assert_true(b <= s->nodes[node].buffer);
        if (b > maxb)
            maxb = b;
        last[s->nodes[node].port0 + port] = (long long)b;
        rows++;
    }
    assert_true(feof(f));
    fclose(f);
    assert_int_equal(last_t, s->now / T_NS);
    assert_true(maxb > 100000); /* the incast did queue */
    for (uint32_t pid = 0; pid < s->n_ports; pid++)
        assert_int_equal(last[pid], 0);
    /* one row per port per microsecond from 0 to the end, plus the closing one */
    assert_int_equal(rows, (unsigned long long)s->n_ports * (unsigned long long)(s->now / T_US + 2));
    free(last);
    teardown_run(&r);
}

/* One long flow across a two-spine leaf-spine: ECMP puts it on one uplink,
 * so every full window has bytes on one uplink and none on the other, and the
 * imbalance (max - min) / mean is exactly 2 at both leaves (the far leaf's
 * uplinks carry the ACKs, which also keep one path). "uplinks" selects those
 * four ports. */
static void test_imbalance(void **st)
{
    (void)st;
    struct mrun r;
    setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n"
              "[transport]\ncc = none\n[traffic]\npattern = none\n"
              "[output]\nimbalance_interval = 10us\nutil_ports = uplinks\nutil_interval = 10us\n");
    add_flow(&r, 0, 2, 2000000, 0);
    run_all(&r);
    FILE *f = open_out(&r, "imbalance.csv", "time_ns,node,imbalance\n");
    long long t;
    unsigned node;
    double x;
    int n = 0;
    while (fscanf(f, "%lld,%u,%lf\n", &t, &node, &x) == 3) {
        assert_true(node == 4 || node == 5); /* the leaves */
        assert_true(fabs(x - 2.0) < 1e-9);
        n++;
    }
    fclose(f);
    assert_true(n >= 2 * 15); /* 160 us of transfer in 10 us windows, at both leaves */
    f = open_out(&r, "util.csv", "time_ns,node,port,utilisation,peer\n");
    unsigned port, peer;
    int rows = 0;
    while (fscanf(f, "%lld,%u,%u,%lf,%u\n", &t, &node, &port, &x, &peer) == 5) {
        assert_true((node == 4 || node == 5) && port >= 2); /* ports 0-1 face the hosts */
        assert_true(r.base.sc.sim.nodes[peer].is_switch && peer != 4 && peer != 5); /* uplinks lead to spines */
        rows++;
    }
    fclose(f);
    assert_true(rows > 0);
    teardown_run(&r);
}

static void test_flow_rate_integrates_to_size(void **st)
{
    (void)st;
    struct mrun r;
    setup(&r, incast_ini);
    add_incast(&r);
    run_all(&r);
    const struct sim *s = &r.base.sc.sim;
    FILE *f = open_out(&r, "flow_rate.csv", "time_ns,flow_id,gbps,rate_gbps\n");
    double bytes[5] = {0};
    long long prev[5], t;
    int seen[5] = {0};
    unsigned id;
    double g, rate;
    while (fscanf(f, "%lld,%u,%lf,%lf\n", &t, &id, &g, &rate) == 4) {
        assert_true(id < 5);
        assert_true(rate >= 0 && rate <= 100.0); /* the sender's pacing rate, at most line rate */
        long long dt = seen[id]++ ? t - prev[id] : 3000;
        double row = g * (double)dt / 8; /* Gbit/s x ns = bits */
        assert_true(g >= 0 && row <= 100.0 * (double)dt / 8 + 1100);
        bytes[id] += row;
        prev[id] = t;
    }
    fclose(f);
    for (int i = 0; i < 5; i++) {
        assert_true(seen[i] > 0);
        if (fabs(bytes[i] - (double)s->flows[i].size) > 16)
            fail_msg("flow %d: rate integrates to %.1f B, size %llu", i, bytes[i],
                     (unsigned long long)s->flows[i].size);
    }
    teardown_run(&r);
}

static void test_paused_csv(void **st)
{
    (void)st;
    /* PFC fires in the incast: some samples show paused ports */
    struct mrun r;
    setup(&r, incast_ini);
    add_incast(&r);
    run_all(&r);
    FILE *f = open_out(&r, "paused.csv", "time_ns,paused_ports,paused_paths\n");
    long long t;
    unsigned ports, max_ports = 0;
    unsigned long long paths;
    while (fscanf(f, "%lld,%u,%llu\n", &t, &ports, &paths) == 3) {
        if (ports > max_ports)
            max_ports = ports;
        assert_true(paths <= 2 * 1 * 2); /* 2 leaves x 1 other leaf x 2 spines */
    }
    fclose(f);
    assert_true(max_ports > 0);
    /* flows of the paused NICs are marked in fct.csv */
    bool any = false;
    for (uint32_t i = 0; i < r.base.sc.sim.n_flows; i++)
        any |= r.base.sc.sim.flows[i].ever_paused;
    assert_true(any);
    teardown_run(&r);

    /* a lone flow: PFC never fires, every sample is zero */
    setup(&r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n"
              "[traffic]\npattern = none\n[output]\npaused_interval = 1us\n");
    add_flow(&r, 0, 3, 1000000, 0);
    run_all(&r);
    assert_int_equal(r.base.sc.sim.c.pfc_pause_frames, 0);
    f = open_out(&r, "paused.csv", "time_ns,paused_ports,paused_paths\n");
    unsigned n = 0;
    while (fscanf(f, "%lld,%u,%llu\n", &t, &ports, &paths) == 3) {
        assert_int_equal(ports, 0);
        assert_int_equal(paths, 0);
        n++;
    }
    fclose(f);
    assert_true(n > 80); /* ~86 us of samples */
    assert_false(r.base.sc.sim.flows[0].ever_paused);
    teardown_run(&r);
}

/* 3 leaves x 2 spines: 3 x 2 ordered leaf pairs x 2 spines = 12 paths.
 * Pausing spine->leaf ports and leaf uplinks by hand, the counts follow. */
static void test_paused_paths_by_hand(void **st)
{
    (void)st;
    struct mrun r;
    setup(&r, "[topology]\ntype = leafspine\nleaves = 3\nspines = 2\nhosts_per_leaf = 1\n"
              "[traffic]\npattern = none\n[output]\npaused_interval = 1us\n");
    add_flow(&r, 0, 1, 1000, 0); /* so the monitor has a start time */
    struct err e;
    if (scenario_build(&r.base.sc, &e) < 0)
        fail_msg("%s", e.msg);
    struct sim *s = &r.base.sc.sim;
    /* hosts 0..2, leaves 3..5, spines 6..7 */
    for (uint32_t n = 3; n <= 5; n++)
        assert_int_equal(s->nodes[n].layer, 1);
    assert_int_equal(s->nodes[6].layer, 2);
    struct monitors *m;
    simtime_t first;
    if (monitors_open(&m, &r.base.sc, r.dir, NULL, &first, &e) < 0)
        fail_msg("%s", e.msg);
    assert_non_null(m);
    assert_int_equal(first, 0);
    /* Step by step (paths a-spine-b): 6->4 pauses 3-6-4, 5-6-4 (2); 3->6 adds
     * 3-6-5 (3); 7->4 adds 3-7-4, 5-7-4 (5); 5->7 adds 5-7-3 (6); 4->6 adds
     * 4-6-3, 4-6-5 (8). The loop recounts each step over all 12 paths. */
    static const uint32_t leaves[] = {3, 4, 5}, spines[] = {6, 7};
    bool paused[8][8] = {{false}};
    const uint32_t plan[][2] = {{6, 4}, {3, 6}, {7, 4}, {5, 7}, {4, 6}};
    const unsigned long long want_by_hand[] = {2, 3, 5, 6, 8};
    for (size_t i = 0; i < sizeof plan / sizeof plan[0]; i++) {
        s->ports[run_port_to(s, plan[i][0], plan[i][1])].paused_mask |= 1u << 3;
        paused[plan[i][0]][plan[i][1]] = true;
        unsigned long long want = 0;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                for (int sp = 0; sp < 2 && a != b; sp++)
                    want += paused[leaves[a]][spines[sp]] || paused[spines[sp]][leaves[b]];
        assert_int_equal(want, want_by_hand[i]);
        s->now = (simtime_t)i * T_US;
        monitors_sample(m, s);
    }
    /* a paused host-facing port is a paused port but no fabric path */
    s->ports[run_port_to(s, 3, 0)].paused_mask |= 1u << 3;
    s->now = 5 * T_US;
    monitors_sample(m, s);
    for (uint32_t p = 0; p < s->n_ports; p++)
        s->ports[p].paused_mask = 0;
    if (monitors_finish(m, s, &e) < 0)
        fail_msg("%s", e.msg);
    monitors_free(m);
    FILE *f = open_out(&r, "paused.csv", "time_ns,paused_ports,paused_paths\n");
    long long t;
    unsigned ports;
    unsigned long long paths;
    const unsigned want_ports[] = {1, 2, 3, 4, 5, 6, 0};
    const unsigned long long want_paths[] = {2, 3, 5, 6, 8, 8, 0};
    for (int i = 0; i < 7; i++) {
        assert_int_equal(fscanf(f, "%lld,%u,%llu\n", &t, &ports, &paths), 3);
        assert_int_equal(ports, want_ports[i]);
        assert_int_equal(paths, want_paths[i]);
    }
    fclose(f);
    teardown_run(&r);
}

/* Monitors observe only: with all of them on, every flow finishes at the
 * same instant, the run ends at the same time, and nothing else changes. */
static void test_monitors_change_nothing(void **st)
{
    (void)st;
    struct mrun a, b;
    setup(&a, incast_ini);
    add_incast(&a);
    run_all(&a);
    setup(&b, "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n"
              "[switch]\nbuffer = 1MB\n[transport]\ncc = none\n[traffic]\npattern = none\n");
    add_incast(&b);
    run_all(&b);
    assert_null(b.o.mon);
    assert_non_null(a.o.mon);
    const struct sim *x = &a.base.sc.sim, *y = &b.base.sc.sim;
    assert_int_equal(x->now, y->now);
    assert_int_equal(x->n_flows, y->n_flows);
    for (uint32_t i = 0; i < x->n_flows; i++) {
        assert_int_equal(x->flows[i].finish, y->flows[i].finish);
        assert_int_equal(x->flows[i].ever_paused, y->flows[i].ever_paused);
        assert_int_equal(x->flows[i].ooo, y->flows[i].ooo);
    }
    assert_int_equal(x->c.packet_hops, y->c.packet_hops);
    assert_int_equal(x->c.pfc_pause_frames, y->c.pfc_pause_frames);
    assert_int_equal(x->c.ecn_marks, y->c.ecn_marks);
    assert_true(x->c.events > y->c.events); /* the monitor's own events */
    /* by the sender's layer: switches only */
    assert_int_equal(y->c.pfc_pause_by_layer[0], 0);
    assert_int_equal(y->c.pfc_pause_by_layer[1] + y->c.pfc_pause_by_layer[2] + y->c.pfc_pause_by_layer[3],
                     y->c.pfc_pause_frames);
    assert_true(y->c.pfc_pause_by_layer[1] > 0);
    teardown_run(&a);
    teardown_run(&b);
}

/* run.stop: the monitors end with the run, at the stop time. */
static void test_stop(void **st)
{
    (void)st;
    struct mrun r;
    setup(&r, "[run]\nstop = 10us\n[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n"
              "[traffic]\npattern = none\n[output]\nqueue_ports = layer:edge\nqueue_interval = 3us\n");
    add_flow(&r, 0, 1, 10000000, 0);
    run_all(&r);
    assert_true(r.base.sc.sim.stopped);
    FILE *f = open_out(&r, "queue.csv", "time_ns,node,port,bytes,peer\n");
    long long t, last = -1;
    unsigned node, port, peer;
    unsigned long long b;
    int n = 0;
    while (fscanf(f, "%lld,%u,%u,%llu,%u\n", &t, &node, &port, &b, &peer) == 5) {
        assert_int_equal(node, 2); /* the leaf */
        last = t;
        n++;
    }
    fclose(f);
    assert_int_equal(last, 10000);
    assert_int_equal(n, 3 * 5); /* 0, 3, 6, 9 us and the stop time, 3 ports each */
    teardown_run(&r);
}

/* ns-3's QLEN_MON_FILE: histograms per switch port, "time: T" then
 * "node port count_0KB count_1KB ..." whenever T is a multiple of 100 ms. */
static void test_ns3_qlen_format(void **st)
{
    (void)st;
    struct mrun r;
    setup(&r, "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n[traffic]\npattern = none\n");
    add_flow(&r, 0, 1, 1000000, 0);
    r.base.cfg.ns3.active = true;
    strcpy(r.base.cfg.ns3.qlen_mon_file, "mix/qlen.txt"); /* with an output folder: its base name there */
    r.base.cfg.ns3.qlen_mon_start = 0;
    r.base.cfg.ns3.qlen_mon_end = 1 * T_US;
    run_all(&r);
    char p[256], buf[512];
    snprintf(p, sizeof p, "%s/qlen.txt", r.dir);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    /* hosts 0, 1; leaf 2 (ports: host 0, host 1, spine), spine 3; one sample at t=0, all empty */
    assert_string_equal(buf, "time: 0\n2 1 1\n2 2 1\n2 3 1\n3 1 1\n");
    teardown_run(&r);
}

/* Bad lists name the key; the CLI puts the file:line in front. */
static void test_bad_lists(void **st)
{
    (void)st;
    static const struct {
        const char *key, *val, *msg;
    } bad[] = {
        {"queue_ports", "99:0", "output.queue_ports: '99:0': node 99 does not exist"},
        {"queue_ports", "2:7", "output.queue_ports: '2:7': node 2 has 3 ports"},
        {"queue_ports", "sw0:0", "output.queue_ports: 'sw0:0': node 0 is a host"},
        {"util_ports", "layer:core", "output.util_ports: 'layer:core': the topology has no node in that layer"},
        {"util_ports", "leaf3", "output.util_ports: 'leaf3': expected NODE:PORT"},
        {"flows", "0,5", "output.flows: '5': flow 5 does not exist"},
        {"flows", "x", "output.flows: 'x': expected a flow id"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct mrun r;
        char ini[512];
        snprintf(ini, sizeof ini,
                 "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n[traffic]\npattern = none\n"
                 "[output]\n%s = %s\n",
                 bad[i].key, bad[i].val);
        setup(&r, ini);
        add_flow(&r, 0, 1, 1000, 0);
        struct err e;
        if (scenario_build(&r.base.sc, &e) < 0)
            fail_msg("%s", e.msg);
        assert_int_equal(output_open(&r.o, &r.base.sc, &(struct output_opts){.out_dir = r.dir, .quiet = true}, &e), -1);
        if (strncmp(e.msg, bad[i].msg, strlen(bad[i].msg)) != 0)
            fail_msg("got '%s', want '%s...'", e.msg, bad[i].msg);
        teardown_run(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_util_integrates_to_bytes_sent),
        cmocka_unit_test(test_queue_within_buffer_and_empty_at_end),
        cmocka_unit_test(test_flow_rate_integrates_to_size),
        cmocka_unit_test(test_paused_csv),
        cmocka_unit_test(test_paused_paths_by_hand),
        cmocka_unit_test(test_monitors_change_nothing),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_ns3_qlen_format),
        cmocka_unit_test(test_bad_lists),
        cmocka_unit_test(test_imbalance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
