/* Whole-simulator scenarios with answers known in advance: a lone flow's FCT,
 * an incast's finishing time, DCQCN's fair share, and the invariants every
 * run must keep (lossless never drops, bytes delivered = bytes sent, nothing
 * left in any queue). */
#include "testutil.h"
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "simrun.h"

static const char one_switch[] =
    "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n"
    "[traffic]\npattern = none\n";

/* A lone 1 MB flow through one switch, 100 Gbps, 1 us links. FCT (until the
 * last ACK is back, as ns-3 measures it) = every wire byte serialised once at
 * the sender + one packet's store-and-forward at the switch + two
 * propagation delays each way + the last ACK's two serialisations. */
static void test_lone_flow_fct(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, one_switch);
    run_add_flow(&r, 0, 1, 1000000, 0);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct qp *f = &r.sc.sim.flows[0];
    /* data packets are 1000 + 48 B on the wire, ACKs 60 B (ns-3 HPCC's sizes) */
    simtime_t wire = 1000 * tx_time(1048, 100000000000ULL);
    simtime_t expect = wire + tx_time(1048, 100000000000ULL) + 4 * T_US + 2 * tx_time(60, 100000000000ULL);
    simtime_t fct = f->finish - f->start;
    assert_int_equal(fct, expect); /* exact: 87933.44 ns */
    print_message("lone flow: FCT %.2f ns (analytic %.2f ns)\n", (double)fct / T_NS, (double)expect / T_NS);
    /* no congestion, so no marks and no pauses */
    assert_int_equal(r.sc.sim.c.ecn_marks, 0);
    assert_int_equal(r.sc.sim.c.pfc_pause_frames, 0);
    /* ns-3's standalone FCT: base RTT (2 x 2 us + 2 x 80 ns) + 1e6 B + 48 B per packet */
    assert_int_equal(f->ideal_fct, 4160 * T_NS + tx_time(1000000 + 48 * 1000, 100000000000ULL));
    run_free(&r);
}

/* The same flow with run.ns3_timing = on: serialisation truncated to whole
 * ns as ns-3 does (1048 B: 83 ns, 60 B: 4 ns), which reproduces the ns-3
 * HPCC simulator's own figure for it, 87091 ns, to the nanosecond. */
static void test_lone_flow_ns3_timing(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[run]\nns3_timing = on\n[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n"
                  "[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 1, 1000000, 0);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct qp *f = &r.sc.sim.flows[0];
    print_message("lone flow, ns3_timing: FCT %.2f ns (ns-3: 87091 ns)\n", (double)(f->finish - f->start) / T_NS);
    assert_int_equal(f->finish - f->start, 87091 * T_NS);
    run_free(&r);
}

/* The same flow given as ns-3 HPCC inputs (config.txt, topology and flow
 * files, as docs/validation.md ran them): ns-3's 87091 ns with no --set,
 * because an ns-3 config turns run.ns3_timing on by default; with
 * --set run.ns3_timing=off, the exact 87933.44 ns again. */
static simtime_t ns3_lone_flow(const char *set)
{
    char dir[] = "/tmp/rocesim-ns3-XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    static const char *const files[][2] = {
        {"topology.txt", "3 1 2\n2\n2 0 100Gbps 0.001ms 0\n2 1 100Gbps 0.001ms 0\n"},
        {"flow.txt", "1\n0 1 3 100 1000000 2.0\n"},
        {"config.txt", "CC_MODE 1\nPACKET_PAYLOAD_SIZE 1000\nBUFFER_SIZE 32\nL2_ACK_INTERVAL 1\n"
                       "KMAX_MAP 1 100000000000 1600\nKMIN_MAP 1 100000000000 400\nPMAX_MAP 1 100000000000 0.2\n"},
    };
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(files[i][1], f);
        if (i == 2)
            fprintf(f, "TOPOLOGY_FILE %s/topology.txt\nFLOW_FILE %s/flow.txt\n", dir, dir);
        fclose(f);
    }
    struct run r;
    struct err e;
    memset(&r, 0, sizeof r);
    assert_int_equal(config_init(&r.cfg), 0);
    if (config_load_file(&r.cfg, path, &e) < 0 || (set && config_apply_set(&r.cfg, set, &e) < 0) ||
        config_validate(&r.cfg, &e) < 0 || scenario_load(&r.sc, &r.cfg, &e) < 0)
        fail_msg("%s", e.msg);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    assert_int_equal(r.sc.sim.n_flows, 1);
    simtime_t fct = r.sc.sim.flows[0].finish - r.sc.sim.flows[0].start;
    assert_int_equal(r.sc.sim.flows[0].start, 2 * T_SEC);
    run_free(&r);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        remove(path);
    }
    rmdir(dir);
    return fct;
}

static void test_lone_flow_ns3_config(void **st)
{
    (void)st;
    simtime_t fct = ns3_lone_flow(NULL);
    print_message("lone flow from an ns-3 config: FCT %.2f ns (ns-3: 87091 ns)\n", (double)fct / T_NS);
    assert_int_equal(fct, 87091 * T_NS);
    fct = ns3_lone_flow("run.ns3_timing=off");
    assert_int_equal(fct, 8793344 * T_NS / 100);
}

/* transport.ack_high_prio: hosts 1 and 2 send 2 MB each to host 0 at line
 * rate (no CC), so the switch port toward host 0 holds a growing queue; at
 * 50 us host 0 sends 10 KB to host 1, whose ACKs must cross that port. With
 * `on` they pass the queue (strict priority 0); with `nic`, ns-3's behaviour
 * for ACK_HIGH_PRIO 1, they wait behind the queued data, ~50 us of it. */
static simtime_t ack_prio_small_fct(const char *mode)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 3\n"
             "[transport]\ncc = none\nack_high_prio = %s\n[traffic]\npattern = none\n", mode);
    struct run r;
    run_setup(&r, ini);
    run_add_flow(&r, 1, 0, 2000000, 0);
    run_add_flow(&r, 2, 0, 2000000, 0);
    run_add_flow(&r, 0, 1, 10000, 50 * T_US);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    assert_int_equal(r.sc.sim.c.pfc_pause_frames, 0);
    const struct qp *f = &r.sc.sim.flows[2];
    assert_int_equal(f->size, 10000);
    simtime_t fct = f->finish - f->start;
    run_free(&r);
    return fct;
}

static void test_ack_high_prio_switch(void **st)
{
    (void)st;
    simtime_t on = ack_prio_small_fct("on"), nic = ack_prio_small_fct("nic"), off = ack_prio_small_fct("off");
    print_message("10 KB flow, ACKs against a 50 us queue: FCT %.2f us (on), %.2f us (nic), %.2f us (off)\n",
                  (double)on / T_US, (double)nic / T_US, (double)off / T_US);
    /* alone it takes 2 x 2 us of propagation + 10 packets: about 5 us */
    assert_true(on < 6 * T_US);
    /* the queue toward host 0 has grown for 50 us at 100 Gbps excess: its last ACK waits about that long */
    assert_true(nic > 40 * T_US && nic < 70 * T_US);
    /* no PAUSE anywhere, so the NIC's ACK class does not matter: nic and off are the same run */
    assert_int_equal(nic, off);
}

/* 64 -> 1 incast of 1 MB flows into a small buffer, no CC: PFC must hold
 * everything (no drop), and the receiver link stays busy, so the last flow
 * ends when all wire bytes have crossed it. */
static void test_incast_lossless(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 65\n"
              "[switch]\nbuffer = 4MB\n[transport]\ncc = none\n[traffic]\npattern = none\n");
    for (uint32_t h = 1; h <= 64; h++)
        run_add_flow(&r, h, 0, 1000000, 0);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct sim *s = &r.sc.sim;
    assert_int_equal(s->c.packets_dropped, 0);
    assert_true(s->c.pfc_pause_frames > 0);
    simtime_t last = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        if (s->flows[i].finish > last)
            last = s->flows[i].finish;
    double expect = 64.0 * 1048000 * 8 / 100e9 * 1e12; /* 5.36576 ms */
    print_message("incast: last flow done at %.6f ms (wire bytes / 100G = %.6f ms), %llu pauses, %llu drops\n",
                  (double)last / T_MS, expect / T_MS, (unsigned long long)s->c.pfc_pause_frames,
                  (unsigned long long)s->c.packets_dropped);
    assert_true(fabs((double)last - expect) / expect < 0.02);
    /* ns-3 HPCC: 5.316 ms for the same incast */
    assert_true(fabs((double)last / T_MS - 5.316) / 5.316 < 0.02);
    run_free(&r);
}

/* The incast with run.ns3_timing = on and ns-3's 4 MiB buffer: the last flow
 * ends when it does in the ns-3 HPCC simulator, 5316091 ns (docs/validation.md). */
static void test_incast_ns3_timing(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[run]\nns3_timing = on\n[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 65\n"
                  "[switch]\nbuffer = 4MiB\n[transport]\ncc = none\n[traffic]\npattern = none\n");
    for (uint32_t h = 1; h <= 64; h++)
        run_add_flow(&r, h, 0, 1000000, 0);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    simtime_t last = 0;
    for (uint32_t i = 0; i < r.sc.sim.n_flows; i++)
        if (r.sc.sim.flows[i].finish > last)
            last = r.sc.sim.flows[i].finish;
    print_message("incast, ns3_timing: last flow done at %lld ns (ns-3: 5316091 ns), %llu pauses\n",
                  (long long)(last / T_NS), (unsigned long long)r.sc.sim.c.pfc_pause_frames);
    assert_int_equal(last, 5316091 * T_NS);
    run_free(&r);
}

/* Same incast with PFC off: drops happen, go-back-N (NACK + timeout)
 * recovers, and still every byte arrives exactly once in order. */
static void test_incast_lossy_recovers(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 17\n"
              "[switch]\nbuffer = 1MB\npfc = off\n[transport]\ncc = none\n[traffic]\npattern = none\n");
    for (uint32_t h = 1; h <= 16; h++)
        run_add_flow(&r, h, 0, 500000, 0);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    assert_true(r.sc.sim.c.packets_dropped > 0);
    assert_int_equal(r.sc.sim.c.pfc_pause_frames, 0);
    assert_true(r.sc.sim.c.bytes_retx > 0);
    run_free(&r);
}

/* Two long DCQCN flows through one 100 Gbps bottleneck: after convergence
 * each gets within 10 % of half the bottleneck's goodput. */
static void test_dcqcn_fair_share(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = dumbbell\nsenders = 2\nreceivers = 1\n[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 2, 400000000, 0);
    run_add_flow(&r, 1, 2, 400000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    s->p.stop = 10 * T_MS;
    sim_run(s);
    uint64_t a0 = s->flows[0].rcv_nxt, b0 = s->flows[1].rcv_nxt;
    s->p.stop = 20 * T_MS;
    sim_run(s);
    double ga = (double)(s->flows[0].rcv_nxt - a0) * 8 / 10e-3;
    double gb = (double)(s->flows[1].rcv_nxt - b0) * 8 / 10e-3;
    double fair = 100e9 * 1000.0 / 1048.0 / 2;
    print_message("goodput %.2f / %.2f Gbps, fair %.2f, marks %llu, pauses %llu\n", ga / 1e9, gb / 1e9, fair / 1e9,
                  (unsigned long long)s->c.ecn_marks, (unsigned long long)s->c.pfc_pause_frames);
    assert_true(s->c.ecn_marks > 0);
    assert_true(fabs(ga - fair) / fair < 0.10);
    assert_true(fabs(gb - fair) / fair < 0.10);
    /* finish them, and the invariants hold */
    s->p.stop = 0;
    sim_run(s);
    run_check_invariants(&r);
    run_free(&r);
}

/* Poisson WebSearch traffic on a small leaf-spine: every flow completes,
 * nothing dropped, and the same seed reproduces every finish time. */
static void run_poisson(uint64_t seed, simtime_t *finish, uint32_t *n)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[run]\nseed = %llu\n[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n"
             "[switch]\nbuffer = 2MB\n[traffic]\nload = 0.6\nduration = 2ms\n",
             (unsigned long long)seed);
    struct run r;
    run_setup(&r, ini);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    *n = r.sc.sim.n_flows;
    assert_true(*n <= 4096);
    for (uint32_t i = 0; i < *n; i++)
        finish[i] = r.sc.sim.flows[i].finish;
    run_free(&r);
}

static void test_poisson_deterministic(void **st)
{
    (void)st;
    static simtime_t a[4096], b[4096], c[4096];
    uint32_t na, nb, nc;
    run_poisson(5, a, &na);
    run_poisson(5, b, &nb);
    run_poisson(6, c, &nc);
    assert_true(na > 20);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na * sizeof a[0]);
    assert_true(na != nc || memcmp(a, c, na * sizeof a[0]) != 0);
}

/* ever_paused for packets that waited in a paused switch queue: the
 * simulator counts them in O(1) at RESUME and marks each as it leaves (and,
 * when the run stops, those still queued). The reference here is the direct
 * definition: at every RESUME of a switch queue, walk the packets it holds
 * (the hook runs before any of them can leave). Every flow the walk finds
 * must say ever_paused, also when the run stops at the very instant of a
 * RESUME, with most of those packets still queued. */
#define WALK_STOPS 64
struct walk_ref {
    bool *held;
    uint32_t resumes_with_packets, nt;
    simtime_t t[WALK_STOPS]; /* first distinct times of such RESUMEs */
};

static void walk_on_pfc(void *ctx, const struct sim *s, uint32_t pid, int q, bool pause)
{
    struct walk_ref *w = ctx;
    if (pause || !s->nodes[s->ports[pid].node].is_switch || !s->ports[pid].q[q].head)
        return;
    w->resumes_with_packets++;
    if (w->nt < WALK_STOPS && (!w->nt || w->t[w->nt - 1] != s->now))
        w->t[w->nt++] = s->now;
    for (const struct pkt *x = s->ports[pid].q[q].head; x; x = x->next)
        if (x->flow != UINT32_MAX)
            w->held[x->flow] = true;
}

static void walk_run(struct run *r, struct walk_ref *w, const simtime_t *stops, uint32_t nstops)
{
    /* k=4 fat-tree, 2 MB permutation at line rate into 1 MB switch buffers:
     * ECMP collisions pause the fabric */
    run_setup(r, "[run]\nseed = 3\n[topology]\ntype = fattree\nk = 4\n[switch]\nbuffer = 1MB\necn = off\n"
                 "[transport]\ncc = none\n[traffic]\npattern = permutation\nsize = 2MB\n");
    run_build(r);
    struct sim *s = &r->sc.sim;
    memset(w, 0, sizeof *w);
    w->held = calloc(s->n_flows, sizeof(bool));
    s->hooks.ctx = w;
    s->hooks.pfc = walk_on_pfc;
    for (uint32_t k = 0; k < nstops; k++) {
        s->p.stop = stops[k];
        sim_run(s);
        assert_true(s->stopped);
        for (uint32_t i = 0; i < s->n_flows; i++)
            if (w->held[i])
                assert_true(s->flows[i].ever_paused);
    }
    s->p.stop = 0;
    sim_run(s);
    run_check_invariants(r);
    for (uint32_t i = 0; i < s->n_flows; i++)
        if (w->held[i])
            assert_true(s->flows[i].ever_paused);
}

static void test_ever_paused_queue_walk(void **st)
{
    (void)st;
    struct run r;
    struct walk_ref w, w2;
    walk_run(&r, &w, NULL, 0); /* straight through: where the RESUMEs are */
    uint32_t n_held = 0;
    for (uint32_t i = 0; i < r.sc.sim.n_flows; i++)
        n_held += w.held[i];
    print_message("ever_paused: %u RESUMEs of non-empty switch queues, %u of %u flows held, %llu PAUSE\n",
                  w.resumes_with_packets, n_held, r.sc.sim.n_flows, (unsigned long long)r.sc.sim.c.pfc_pause_frames);
    assert_true(w.nt > 1 && n_held > 0);
    free(w.held);
    run_free(&r);
    walk_run(&r, &w2, w.t, w.nt); /* again, stopping at each of the first RESUMEs */
    free(w2.held);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lone_flow_fct),
        cmocka_unit_test(test_lone_flow_ns3_timing),
        cmocka_unit_test(test_lone_flow_ns3_config),
        cmocka_unit_test(test_ack_high_prio_switch),
        cmocka_unit_test(test_incast_lossless),
        cmocka_unit_test(test_incast_ns3_timing),
        cmocka_unit_test(test_incast_lossy_recovers),
        cmocka_unit_test(test_dcqcn_fair_share),
        cmocka_unit_test(test_poisson_deterministic),
        cmocka_unit_test(test_ever_paused_queue_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
