/* The switch-side load balancers (src/lb/): spray, DRILL and LetFlow against
 * what their papers promise, and every scheme against the invariants on every
 * topology kind, CC, PFC setting and receiver reordering mode.
 *  - a permutation on a non-blocking leaf-spine: ECMP's hash collisions leave
 *    receivers short, spray gives every receiver >= 90 % of line rate;
 *  - spray with a reorder buffer resends nothing, with go-back-N a lot;
 *  - DRILL's choice follows the queue lengths exactly as DRILL(d, m) says;
 *  - LetFlow: more flowlets as the timeout falls, a path switch at a flowlet
 *    boundary with probability 1 - 1/paths, one path per flow with an
 *    infinite timeout, a path per packet with timeout 0. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simrun.h"

#define FAT_TXT ROCESIM_SHARED_DIR "/ns3-reference/fat.txt"

/* 4 leaves x 4 hosts, 4 spines, 100 Gbps everywhere: non-blocking. */
#define LS44 "[topology]\ntype = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 4\n"

/* full: host h (leaf h/4, position h%4) sends to the same position one leaf
 * on, so every flow crosses the fabric and every host sends and receives.
 * Otherwise the two first hosts of each leaf send to the two last of the
 * next leaf: half the hosts send, half receive. */
static void add_permutation(struct run *r, bool full, uint64_t size)
{
    for (uint32_t h = 0; h < 16; h++)
        if (full)
            run_add_flow(r, h, (h + 4) % 16, size, 0);
        else if (h % 4 < 2)
            run_add_flow(r, h, (h + 6) % 16, size, 0);
}

static void setup_perm(struct run *r, bool full, const char *lb, const char *extra, uint64_t size)
{
    char ini[1024];
    snprintf(ini, sizeof ini, LS44 "[lb]\nscheme = %s\n%s\n[traffic]\npattern = none\n", lb, extra);
    run_setup(r, ini);
    add_permutation(r, full, size);
    run_build(r);
}

/* Each receiver's goodput over [warm, warm + span], as a share of the payload
 * line rate (100 Gbps x 1000 / 1048 B on the wire). Returns the smallest. */
static double perm_rates(struct run *r, simtime_t warm, simtime_t span, const char *name)
{
    struct sim *s = &r->sc.sim;
    uint64_t before[16];
    uint32_t n = s->n_flows;
    s->p.stop = warm;
    sim_run(s);
    for (uint32_t i = 0; i < n; i++)
        before[i] = s->flows[i].rcv_nxt;
    s->p.stop = warm + span;
    sim_run(s);
    assert_true(s->stopped); /* the flows outlast the window */
    double line = 100e9 * 1000 / 1048, min = 2;
    print_message("%-9s receiver rate / line rate:", name);
    for (uint32_t i = 0; i < n; i++) {
        double share = (double)(s->flows[i].rcv_nxt - before[i]) * 8 / ((double)span / T_SEC) / line;
        print_message(" %.2f", share);
        if (share < min)
            min = share;
    }
    print_message("  (min %.2f)\n", min);
    s->p.stop = 0;
    sim_run(s); /* finish, so the invariants can be checked */
    run_check_invariants(r);
    return min;
}

/* Line-rate senders (cc = none, PFC only): the rates are what the balancer
 * and PFC make of the fabric. Half the hosts send, so the fabric carries the
 * data at half its capacity and only the host links can limit a flow: ECMP's
 * collisions still halve some flows, spraying gives every one line rate. */
static void test_spray_permutation(void **st)
{
    (void)st;
    uint64_t size = 8000000;
    simtime_t warm = 100 * T_US, span = 400 * T_US;
    struct run r;

    setup_perm(&r, false, "ecmp", "[transport]\ncc = none\n", size);
    double ecmp = perm_rates(&r, warm, span, "ecmp");
    assert_true(ecmp < 0.6); /* two flows hashed onto one link share it */
    run_free(&r);

    setup_perm(&r, false, "spray", "[transport]\ncc = none\nreorder = buffer\n", size);
    double spray = perm_rates(&r, warm, span, "spray");
    assert_true(spray >= 0.9);
    assert_int_equal(r.sc.sim.c.bytes_retx, 0);
    run_free(&r);

    setup_perm(&r, false, "spray", "[lb.spray]\nmode = rr\n[transport]\ncc = none\nreorder = buffer\n", size);
    double rr = perm_rates(&r, warm, span, "spray rr");
    assert_true(rr >= 0.9);
    run_free(&r);

    setup_perm(&r, false, "drill", "[transport]\ncc = none\nreorder = buffer\n", size);
    double drill = perm_rates(&r, warm, span, "drill");
    assert_true(drill >= 0.9);
    run_free(&r);
}

/* Every host sends and receives: every link, the host links included, then
 * carries 100 % (data one way, ACKs sharing both ways), and a sender's NIC
 * has 1048 / (1048 + 60) of its line for data. At exactly full load the
 * sprayed spine queues random-walk and FIFO spine downlinks block one
 * receiver behind another's burst, so spraying gets less than that bound,
 * though every receiver still gets far more than ECMP's worst. */
static void test_spray_full_permutation(void **st)
{
    (void)st;
    uint64_t size = 8000000;
    simtime_t warm = 100 * T_US, span = 400 * T_US;
    struct run r;
    setup_perm(&r, true, "ecmp", "[transport]\ncc = none\n", size);
    double ecmp = perm_rates(&r, warm, span, "ecmp");
    run_free(&r);
    setup_perm(&r, true, "spray", "[transport]\ncc = none\nreorder = buffer\n", size);
    double spray = perm_rates(&r, warm, span, "spray");
    run_free(&r);
    print_message("full permutation: NIC bound %.3f, spray's worst receiver %.2f of it, ECMP's %.2f\n",
                  1048.0 / 1108, spray / (1048.0 / 1108), ecmp / (1048.0 / 1108));
    assert_true(ecmp < 0.6);
    assert_true(spray > 0.8 && spray <= 1048.0 / 1108 + 0.01);
}

/* Spraying reorders: a reorder buffer hides it (nothing resent, no NACK),
 * go-back-N turns every reordering into a NACK and a resend of the window. */
static void test_spray_reorder(void **st)
{
    (void)st;
    uint64_t size = run_sanitized() ? 300000 : 1000000;
    struct run r;
    setup_perm(&r, true, "spray", "[transport]\nreorder = buffer\n", size);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct sim *s = &r.sc.sim;
    uint64_t ooo = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        ooo += s->flows[i].ooo;
    print_message("spray, reorder = buffer: %llu out-of-order arrivals, %llu NACKs, %llu bytes resent, "
                  "reorder buffer peak %llu B\n",
                  (unsigned long long)ooo, (unsigned long long)s->c.nacks, (unsigned long long)s->c.bytes_retx,
                  (unsigned long long)s->c.reorder_peak_bytes);
    assert_true(ooo > 100); /* it did reorder */
    assert_int_equal(s->c.nacks, 0);
    assert_int_equal(s->c.bytes_retx, 0);
    assert_int_equal(s->c.timeouts, 0);
    assert_true(s->c.reorder_peak_bytes > 0);
    run_free(&r);

    setup_perm(&r, true, "spray", "[transport]\nreorder = gbn\n", size);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    s = &r.sc.sim;
    print_message("spray, reorder = gbn: %llu NACKs, %llu bytes resent (%.2f x the %llu bytes sent)\n",
                  (unsigned long long)s->c.nacks, (unsigned long long)s->c.bytes_retx,
                  (double)s->c.bytes_retx / (double)s->c.bytes_sent, (unsigned long long)s->c.bytes_sent);
    assert_true(s->c.nacks > 100);
    assert_true(s->c.bytes_retx > s->c.bytes_sent / 2);
    run_free(&r);
}

/* ---------------------------------------------------------------- DRILL */

/* A switch with 4 candidate ports, queues filled by hand, the hook called
 * directly: 2 leaves x 1 host, 4 spines; host 0's leaf toward host 1. */
struct drill_fix {
    struct run r;
    const struct lb_ops *lb;
    struct lb_switch *sw;
    const uint32_t *cand;
    int n;
    struct pkt *p;
};

static void drill_fix_setup(struct drill_fix *x, const char *par)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 2\nspines = 4\nhosts_per_leaf = 1\n"
             "[lb]\nscheme = drill\n[lb.drill]\n%s\n[traffic]\npattern = none\n",
             par);
    run_setup(&x->r, ini);
    run_build(&x->r);
    struct sim *s = &x->r.sc.sim;
    x->lb = lb_find("drill");
    assert_non_null(x->lb);
    uint32_t leaf = s->ports[s->ports[s->nodes[0].port0].peer].node;
    x->sw = &s->lbsw[leaf];
    x->cand = sim_route(s, leaf, (uint32_t)s->host_index[1], &x->n);
    assert_int_equal(x->n, 4);
    x->p = pkt_alloc(s);
    x->p->type = PKT_DATA;
    x->p->src = 0;
    x->p->dst = 1;
}

static void drill_fix_load(struct drill_fix *x, const uint64_t bytes[4])
{
    for (int i = 0; i < 4; i++) { /* what lb_port_bytes reads: the bytes of the queues marked non-empty */
        struct port *pt = &x->r.sc.sim.ports[x->cand[i]];
        pt->q[3].bytes = bytes[i];
        pt->qmask = (uint8_t)(bytes[i] ? pt->qmask | 1u << 3 : pt->qmask & ~(1u << 3));
    }
}

static int drill_fix_choose(struct drill_fix *x)
{
    struct sim *s = &x->r.sc.sim;
    int i = x->lb->choose(s, x->sw, s->lb_par, x->p, x->cand, x->n);
    assert_true(i >= 0 && i < x->n);
    return i;
}

static void drill_fix_free(struct drill_fix *x)
{
    static const uint64_t zero[4];
    drill_fix_load(x, zero);
    pkt_free(&x->r.sc.sim, x->p);
    run_free(&x->r);
}

/* DRILL(2, 0): the shorter of two distinct random ports. With four distinct
 * queue lengths the k-th shortest wins when it is drawn with a longer one:
 * (3 - k) of the 6 pairs, so 1/2, 1/3, 1/6 and never the longest. */
static void test_drill_two_choices(void **st)
{
    (void)st;
    struct drill_fix x;
    drill_fix_setup(&x, "d = 2\nm = 0\n");
    static const uint64_t load[4] = {30000, 0, 90000, 60000}; /* ranks 1, 0, 3, 2 */
    static const int rank[4] = {1, 0, 3, 2};
    drill_fix_load(&x, load);
    int trials = run_sanitized() ? 6000 : 60000, cnt[4] = {0};
    for (int t = 0; t < trials; t++)
        cnt[rank[drill_fix_choose(&x)]]++;
    print_message("DRILL(2,0), shortest..longest queue chosen: %.3f %.3f %.3f %.3f (analytic 0.500 0.333 0.167 0)\n",
                  (double)cnt[0] / trials, (double)cnt[1] / trials, (double)cnt[2] / trials, (double)cnt[3] / trials);
    assert_int_equal(cnt[3], 0);
    static const double expect[3] = {1.0 / 2, 1.0 / 3, 1.0 / 6};
    for (int k = 0; k < 3; k++)
        assert_true(cnt[k] > (expect[k] - 0.03) * trials && cnt[k] < (expect[k] + 0.03) * trials);
    drill_fix_free(&x);

    /* d = 4 samples every port: always the shortest; d = 1 ignores the load */
    drill_fix_setup(&x, "d = 4\nm = 0\n");
    drill_fix_load(&x, load);
    for (int t = 0; t < 1000; t++)
        assert_int_equal(drill_fix_choose(&x), 1);
    drill_fix_free(&x);
    drill_fix_setup(&x, "d = 1\nm = 0\n");
    drill_fix_load(&x, load);
    memset(cnt, 0, sizeof cnt);
    for (int t = 0; t < 4000; t++)
        cnt[drill_fix_choose(&x)]++;
    for (int i = 0; i < 4; i++)
        assert_true(cnt[i] > 800 && cnt[i] < 1200);
    drill_fix_free(&x);
}

/* DRILL(2, 1): the remembered port is always among the compared, so once the
 * shortest queue has been drawn it is kept for as long as it stays the
 * shortest; when it fills, the choice moves as soon as a sample beats it, and
 * a filled port is never chosen while two empty ones remain. */
static void test_drill_memory(void **st)
{
    (void)st;
    struct drill_fix x;
    drill_fix_setup(&x, "");
    uint64_t load[4] = {30000, 60000, 0, 90000};
    drill_fix_load(&x, load);
    int found = -1;
    for (int t = 0; t < 200; t++) {
        int c = drill_fix_choose(&x);
        if (found >= 0)
            assert_int_equal(c, 2); /* never leaves the shortest */
        else if (c == 2)
            found = t;
    }
    print_message("DRILL(2,1): shortest queue found after %d packets, kept for the remaining %d\n", found + 1,
                  200 - found - 1);
    assert_true(found >= 0 && found < 40); /* each packet draws it with probability 1/2 */
    /* the remembered port fills up: the next pick that samples a shorter one moves */
    load[2] = 200000;
    drill_fix_load(&x, load);
    int moved = -1;
    for (int t = 0; t < 100 && moved < 0; t++)
        if (drill_fix_choose(&x) != 2)
            moved = t;
    assert_true(moved >= 0 && moved < 40);
    /* one port holds a full queue, the others none: it is never chosen */
    static const uint64_t one_full[4] = {0, 0, 500000, 0};
    drill_fix_load(&x, one_full);
    for (int t = 0; t < 2000; t++)
        assert_int_not_equal(drill_fix_choose(&x), 2);
    drill_fix_free(&x);
}

/* In a run: the full permutation, ECMP's collisions against DRILL steering
 * around queues (a reorder buffer, so no resends blur the comparison). */
static void test_drill_run(void **st)
{
    (void)st;
    uint64_t size = run_sanitized() ? 300000 : 2000000;
    double fct[2];
    const char *lbs[2] = {"ecmp", "drill"};
    for (int k = 0; k < 2; k++) {
        struct run r;
        setup_perm(&r, true, lbs[k], "[transport]\nreorder = buffer\n", size);
        sim_run(&r.sc.sim);
        run_check_invariants(&r);
        simtime_t last = 0;
        for (uint32_t i = 0; i < r.sc.sim.n_flows; i++)
            if (r.sc.sim.flows[i].finish > last)
                last = r.sc.sim.flows[i].finish;
        fct[k] = (double)last / T_US;
        run_free(&r);
    }
    print_message("permutation of %llu B flows, last finish: ecmp %.1f us, drill %.1f us\n", (unsigned long long)size,
                  fct[0], fct[1]);
    assert_true(fct[1] < 0.75 * fct[0]);
}

/* ---------------------------------------------------------------- LetFlow */

/* WebSearch at 60 % load on the 4 x 4 leaf-spine, DCQCN: rates vary, so the
 * gaps between a flow's packets do. Sums over inter-leaf flows. */
struct lf_sums {
    uint64_t flowlets, boundaries, switches, ooo, flows;
};

static void letflow_run(struct run *r, const char *timeout, const char *extra, struct lf_sums *sum)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             LS44 "[lb]\nscheme = letflow\n[lb.letflow]\ntimeout = %s\n%s\n"
                  "[traffic]\npattern = poisson\nload = 0.6\nduration = 1ms\n",
             timeout, extra);
    run_setup(r, ini);
    run_build(r);
    sim_run(&r->sc.sim);
    run_check_invariants(r);
    const struct sim *s = &r->sc.sim;
    memset(sum, 0, sizeof *sum);
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct qp *f = &s->flows[i];
        if (lb_host_edge(s, f->src) == lb_host_edge(s, f->dst))
            continue; /* bypasses LetFlow */
        /* the path changes only where a flowlet starts (both at the first switch) */
        assert_true(f->path_switches + 1 <= f->flowlets);
        sum->flowlets += f->flowlets;
        sum->boundaries += f->flowlets - 1;
        sum->switches += f->path_switches;
        sum->ooo += f->ooo;
        sum->flows++;
    }
}

static void test_letflow_timeout(void **st)
{
    (void)st;
    static const char *const timeouts[3] = {"50us", "10us", "2us"};
    uint64_t prev = 0, bounds = 0, switches = 0;
    for (int k = 0; k < 3; k++) {
        struct run r;
        struct lf_sums sum;
        letflow_run(&r, timeouts[k], "[transport]\nreorder = buffer\n", &sum);
        print_message("letflow timeout %-4s: %llu flowlets in %llu inter-leaf flows, %llu path switches, %llu ooo\n",
                      timeouts[k], (unsigned long long)sum.flowlets, (unsigned long long)sum.flows,
                      (unsigned long long)sum.switches, (unsigned long long)sum.ooo);
        assert_true(sum.flowlets > prev);
        prev = sum.flowlets;
        bounds += sum.boundaries;
        switches += sum.switches;
        run_free(&r);
    }
    /* a new flowlet takes a uniformly random one of the 4 paths: it switches
     * with probability 3/4 */
    double ratio = (double)switches / (double)bounds;
    print_message("letflow: path switches per flowlet boundary %.3f (analytic 0.750, %llu boundaries)\n", ratio,
                  (unsigned long long)bounds);
    assert_true(bounds > 300);
    assert_true(ratio > 0.70 && ratio < 0.80);
}

static void test_letflow_infinite(void **st)
{
    (void)st;
    struct run r;
    struct lf_sums sum;
    letflow_run(&r, "1000s", "[transport]\nreorder = gbn\n", &sum);
    const struct sim *s = &r.sc.sim;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        assert_int_equal(s->flows[i].path_switches, 0);
        assert_int_equal(s->flows[i].ooo, 0);
    }
    assert_int_equal(s->c.nacks, 0);
    print_message("letflow, infinite timeout: %llu flows, %llu path switches, %llu out of order\n",
                  (unsigned long long)s->n_flows, (unsigned long long)sum.switches, (unsigned long long)sum.ooo);
    run_free(&r);
}

/* timeout 0: every packet is a flowlet of its own, so consecutive packets
 * take different paths with probability 3/4. */
static void test_letflow_zero(void **st)
{
    (void)st;
    struct run r;
    uint64_t size = 200000;
    setup_perm(&r, true, "letflow", "[lb.letflow]\ntimeout = 0\n[transport]\nreorder = buffer\n", size);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct sim *s = &r.sc.sim;
    uint64_t switches = 0, bounds = 0, ooo = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        switches += s->flows[i].path_switches;
        bounds += (size + 999) / 1000 - 1;
        ooo += s->flows[i].ooo;
    }
    double ratio = (double)switches / (double)bounds;
    print_message("letflow, timeout 0: %.3f path switches per packet (analytic 0.750), %llu out of order\n", ratio,
                  (unsigned long long)ooo);
    assert_int_equal(s->c.bytes_retx, 0);
    assert_true(ratio > 0.72 && ratio < 0.78);
    assert_true(ooo > 0);
    run_free(&r);
}

/* ---------------------------------------------------------------- invariants */

static const char *const schemes[] = {"spray", "spray rr", "drill", "letflow", "ecmp"};
#define NSCHEMES (sizeof schemes / sizeof schemes[0])

static void scheme_ini(char *buf, size_t n, const char *scheme)
{
    if (strcmp(scheme, "spray rr") == 0)
        snprintf(buf, n, "[lb]\nscheme = spray\n[lb.spray]\nmode = rr\n");
    else
        snprintf(buf, n, "[lb]\nscheme = %s\n", scheme);
}

/* One run; the invariants (all flows done, lossless never drops, bytes
 * delivered = sent, nothing left anywhere). */
static void check_run(const char *topo, const char *scheme, const char *rest, const char *traffic)
{
    char lb[128], ini[2048];
    scheme_ini(lb, sizeof lb, scheme);
    snprintf(ini, sizeof ini, "%s%s%s\n%s", topo, lb, rest, traffic);
    struct run r;
    run_setup(&r, ini);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    assert_true(r.sc.sim.n_flows > 0);
    run_free(&r);
}

static void test_invariants_matrix(void **st)
{
    (void)st;
    static const char *const topos[] = {
        LS44,
        "[topology]\ntype = fattree\nk = 4\n",
    };
    static const char *const modes[] = {
        "[switch]\npfc = on\n[transport]\nreorder = gbn\n",
        "[switch]\npfc = off\n[transport]\nreorder = gbn\n",
        "[switch]\npfc = on\n[transport]\nreorder = buffer\n",
        "[switch]\npfc = off\n[transport]\nreorder = buffer\n",
        "[switch]\npfc = off\n[transport]\nrecovery = irn\n",
    };
    const char *traffic = run_sanitized() ? "[traffic]\npattern = poisson\nload = 0.7\nduration = 50us\n"
                                      : "[traffic]\npattern = poisson\nload = 0.7\nduration = 200us\n";
    for (size_t t = 0; t < 2; t++)
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
            for (size_t k = 0; k < NSCHEMES; k++)
                check_run(topos[t], schemes[k], modes[m], traffic);
    print_message("invariants: %zu schemes x 2 topologies x %zu PFC/reordering modes\n", NSCHEMES,
                  sizeof modes / sizeof modes[0]);
}

static void test_invariants_cc(void **st)
{
    (void)st;
    static const char *const ccs[] = {"dcqcn", "hpcc", "timely", "dctcp", "swift", "qcn", "pcn", "none"};
    static const char *const reorder[] = {"gbn", "buffer"};
    const char *traffic = run_sanitized() ? "[traffic]\npattern = poisson\nload = 0.7\nduration = 30us\n"
                                      : "[traffic]\npattern = poisson\nload = 0.7\nduration = 100us\n";
    for (size_t c = 0; c < sizeof ccs / sizeof ccs[0]; c++)
        for (size_t o = 0; o < 2; o++)
            for (size_t k = 0; k < NSCHEMES; k++) {
                char rest[256];
                snprintf(rest, sizeof rest, "[transport]\ncc = %s\nreorder = %s\n", ccs[c], reorder[o]);
                check_run(LS44, schemes[k], rest, traffic);
            }
}

/* Single-path (dumbbell) and an ns-3 topology file (HPCC's 320-host fat-tree
 * with 400 Gbps fabric links). */
static void test_invariants_topologies(void **st)
{
    (void)st;
    const char *perm = run_sanitized() ? "[traffic]\npattern = permutation\nsize = 20KB\n"
                                   : "[traffic]\npattern = permutation\nsize = 100KB\n";
    for (size_t k = 0; k < NSCHEMES; k++) {
        check_run("[topology]\ntype = dumbbell\nsenders = 4\nreceivers = 4\n", schemes[k],
                  "[transport]\nreorder = gbn\n", "[traffic]\npattern = permutation\nsize = 200KB\n");
        check_run("[topology]\ntype = file\nfile = " FAT_TXT "\n", schemes[k], "[transport]\nreorder = buffer\n",
                  perm);
        check_run("[topology]\ntype = file\nfile = " FAT_TXT "\n", schemes[k],
                  "[switch]\npfc = off\n[transport]\nreorder = gbn\n", perm);
    }
}

/* scenarios/lb-NAME.ini: loads, selects NAME, and runs its first 100 us
 * (the whole 5 ms is a benchmark, not a test) without a drop. */
static void test_scenarios(void **st)
{
    (void)st;
    static const char *const names[] = {"spray", "drill", "letflow"};
    for (size_t i = 0; i < 3; i++) {
        struct run r;
        char path[512];
        snprintf(path, sizeof path, ROCESIM_SOURCE_DIR "/scenarios/lb-%s.ini", names[i]);
        run_setup_file(&r, path);
        run_build(&r);
        assert_string_equal(r.sc.sim.lb->name, names[i]);
        r.sc.sim.p.stop = 100 * T_US;
        sim_run(&r.sc.sim);
        assert_int_equal(r.sc.sim.c.packets_dropped, 0);
        run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spray_permutation),
        cmocka_unit_test(test_spray_full_permutation),
        cmocka_unit_test(test_spray_reorder),
        cmocka_unit_test(test_drill_two_choices),
        cmocka_unit_test(test_drill_memory),
        cmocka_unit_test(test_drill_run),
        cmocka_unit_test(test_letflow_timeout),
        cmocka_unit_test(test_letflow_infinite),
        cmocka_unit_test(test_letflow_zero),
        cmocka_unit_test(test_invariants_matrix),
        cmocka_unit_test(test_invariants_cc),
        cmocka_unit_test(test_invariants_topologies),
        cmocka_unit_test(test_scenarios),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
