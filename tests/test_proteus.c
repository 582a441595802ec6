/* Proteus (src/lb/proteus.c): Table II's classes and Algorithm 1's SelectPath
 * order with three alternatives in the header, order kept when Algorithm 1
 * moves flows, Algorithm 2 as the paper states it (wait while the tolerable
 * delay exceeds the predicted queueing delay, else reroute and kick the port
 * out) on hand-set delays, a kicked-out port reported to the source edge and
 * released when its pause ends, the rent-or-buy reading (alg2 = wait: reroute
 * at the instant the tolerable delay is spent, none when the pause is
 * shorter), and the run invariants (lossless: no drop) under every CC with a
 * small incast. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "simrun.h"
#include "lb/proteus.h"
#include "net/cc.h"

/* net/port.c: start a port whose pause the test lifted by hand */
void port_kick(struct sim *s, uint32_t pid);

/* Leaf-spine, 2 leaves, `spines` spines, one host per leaf: hosts 0, 1; leaves 2, 3. */
static void two_leaves(struct run *r, int spines, const char *more)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 2\nspines = %d\nhosts_per_leaf = 1\n"
             "[transport]\ncc = none\n[lb]\nscheme = proteus\n%s[traffic]\npattern = none\n", spines, more);
    run_setup(r, ini);
}

/* The first hop (uplink of leaf 2) of path i toward leaf 3. */
static uint32_t uplink(struct sim *s, uint32_t i)
{
    uint32_t se = (uint32_t)s->lbsw[2].edge, de = (uint32_t)s->lbsw[3].edge, port;
    assert_int_equal(lb_path_ports(s, se, de, lb_path_word(s, se, de, i), &port, 1), 1);
    return port;
}

/* The port of leaf 2 toward host 0. */
static uint32_t host_port(const struct sim *s)
{
    for (uint32_t k = 0; k < s->nodes[2].nports; k++)
        if (s->ports[s->nodes[2].port0 + k].to_host)
            return s->nodes[2].port0 + k;
    fail_msg("no host port");
    return 0;
}

/* A first data packet of flow `flow` (0 -> 1) entering leaf 2: the path and
 * header Algorithm 1 gives it. */
static struct pkt probe(struct sim *s, uint32_t flow)
{
    struct pkt p;
    memset(&p, 0, sizeof p);
    p.type = PKT_DATA;
    p.flow = flow;
    p.src = 0;
    p.dst = 1;
    p.prio = 3;
    p.lb.path = PATH_NONE;
    s->lb->on_arrival(s, &s->lbsw[2], s->lb_par, &p, host_port(s));
    return p;
}

static uint32_t td_ns(const struct pkt *p)
{
    uint32_t v;
    memcpy(&v, &p->lb.b[4], 4);
    return v;
}

/* Table II with 4 paths, then SelectPath's order over three sets of path
 * states; each new flow's packet carries the path and the 3 next ones. */
static void test_table_ii_and_select(void **st)
{
    (void)st;
    struct run r;
    two_leaves(&r, 4, "");
    for (int i = 0; i < 3; i++)
        run_add_flow(&r, 0, 1, 1000, T_MS); /* flow ids 0..2 exist; they start later */
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t de = (uint32_t)s->lbsw[3].edge;
    /* base one-way delay: 2 links of 1 us plus an MTU packet's serialisation at 100 Gbps on each */
    simtime_t base = 2 * (T_US + tx_time(s->p.mtu + s->data_hdr, 100000000000ull)), low = base * 13 / 10;
    assert_int_equal(s->data_hdr, HDR_DATA + 9); /* 9 header bytes on the wire, CC none has no INT */
    /* Table II rows: low delay (any utilisation) non-congested; high delay, < 1 undetermined; high, = 1 congested */
    proteus_path_set(s, 2, de, 0, base, 0.2);
    proteus_path_set(s, 2, de, 1, low + 1000, 1.0);
    proteus_path_set(s, 2, de, 2, 2 * base, 0.4);
    proteus_path_set(s, 2, de, 3, low - 1000, 1.0);
    assert_int_equal(proteus_path_class(s, 2, de, 0), 0);
    assert_int_equal(proteus_path_class(s, 2, de, 1), 2);
    assert_int_equal(proteus_path_class(s, 2, de, 2), 1);
    assert_int_equal(proteus_path_class(s, 2, de, 3), 0);
    /* new flow: the non-congested path of least delay; then the other
     * non-congested one, the undetermined, the congested */
    struct pkt p = probe(s, 0);
    assert_int_equal(p.lb.b[0], 0);
    assert_int_equal(p.lb.b[1], 3);
    assert_int_equal(p.lb.b[2], 2);
    assert_int_equal(p.lb.b[3], 1);
    assert_int_equal(p.lb.path, lb_path_word(s, (uint32_t)s->lbsw[2].edge, de, 0));
    assert_int_equal(td_ns(&p), (uint32_t)((low - 1000 - base) / T_NS)); /* d(alt 1) - d(chosen) */
    /* none non-congested: the undetermined path of highest utilisation first */
    proteus_path_set(s, 2, de, 0, 3 * base, 1.0);
    proteus_path_set(s, 2, de, 1, 2 * base, 1.0);
    proteus_path_set(s, 2, de, 2, 4 * base, 0.4);
    proteus_path_set(s, 2, de, 3, 5 * base, 0.7);
    p = probe(s, 1);
    assert_int_equal(p.lb.b[0], 3);
    assert_int_equal(p.lb.b[1], 2);
    assert_int_equal(p.lb.b[2], 1);
    assert_int_equal(p.lb.b[3], 0);
    assert_int_equal(td_ns(&p), 0); /* the alternative is faster: nothing to tolerate */
    /* only congested paths: least delay */
    proteus_path_set(s, 2, de, 2, 4 * base, 0.95);
    proteus_path_set(s, 2, de, 3, 5 * base, 0.95);
    p = probe(s, 2);
    assert_int_equal(p.lb.b[0], 1);
    assert_int_equal(p.lb.b[1], 0);
    assert_int_equal(p.lb.b[2], 2);
    assert_int_equal(p.lb.b[3], 3);
    assert_int_equal(td_ns(&p), (uint32_t)(base / T_NS));
    print_message("Table II: NC/CONG/UNDET/NC as set; picks 0 (alts 3 2 1), 3 (2 1 0), 1 (0 2 3); base %.3f us\n",
                  (double)base / T_US);
    run_free(&r);
}

/* With 5 paths the header still holds 3 alternatives, all distinct. */
static void test_three_alternatives(void **st)
{
    (void)st;
    struct run r;
    two_leaves(&r, 5, "");
    run_add_flow(&r, 0, 1, 1000, T_MS);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    struct pkt p = probe(s, 0);
    bool seen[5] = {false};
    for (int k = 0; k < 4; k++) {
        assert_true(p.lb.b[k] < 5);
        assert_false(seen[p.lb.b[k]]);
        seen[p.lb.b[k]] = true;
    }
    run_free(&r);
    /* alternatives = 1: one, the rest empty */
    two_leaves(&r, 5, "[lb.proteus]\nalternatives = 1\n");
    run_add_flow(&r, 0, 1, 1000, T_MS);
    run_build(&r);
    p = probe(&r.sc.sim, 0);
    assert_true(p.lb.b[1] < 5 && p.lb.b[1] != p.lb.b[0]);
    assert_int_equal(p.lb.b[2], 0xff);
    assert_int_equal(p.lb.b[3], 0xff);
    run_free(&r);
}

/* Algorithm 2 read as rent-or-buy (alg2 = wait, not the paper's text) at
 * leaf 2: path 0 (tolerable delay 5 us to path 1) is paused from the start. A 20-packet flow's packets wait on it; the first one's
 * budget is spent exactly 5 us after it joined the queue, and at that instant
 * it (and, the port now kicked out, every packet behind it) leaves by path 1.
 * With a pause of 3 us nothing moves. */
static void paused_case(simtime_t pause_for, uint64_t *reroutes_out)
{
    struct run r;
    two_leaves(&r, 2, "[lb.proteus]\nalg2 = wait\n");
    run_add_flow(&r, 0, 1, 20000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t de = (uint32_t)s->lbsw[3].edge, u0 = uplink(s, 0), u1 = uplink(s, 1);
    int q = s->flows[0].pg;
    proteus_path_set(s, 2, de, 0, 3 * T_US, 0.5);
    proteus_path_set(s, 2, de, 1, 8 * T_US, 0.5);
    s->ports[u0].paused_mask |= (uint8_t)(1u << q);
    s->ports[u0].paused_since[q] = 0;
    s->p.stop = 2 * T_US;
    sim_run(s);
    struct pkt *head = s->ports[u0].q[q].head;
    assert_non_null(head);
    assert_int_equal(head->seq, 0);
    assert_int_equal(td_ns(head), 5000);
    simtime_t t0 = head->lb.t_enq;
    uint64_t moves, rr, stays;
    if (pause_for) { /* lift the pause before the budget is spent */
        s->p.stop = t0 + pause_for;
        sim_run(s);
        s->ports[u0].paused_mask &= (uint8_t)~(1u << q);
        port_kick(s, u0);
    }
    s->p.stop = t0 + 5 * T_US - 1;
    sim_run(s);
    proteus_counts(s, &moves, &rr, &stays);
    assert_int_equal(rr, 0);
    assert_int_equal(s->ports[u1].tx_bytes, 0);
    if (!pause_for) {
        assert_ptr_equal(s->ports[u0].q[q].head, head); /* still waiting, budget 1 ps */
        s->p.stop = t0 + 5 * T_US;
        sim_run(s);
        proteus_counts(s, &moves, &rr, &stays);
        assert_true(rr >= 1);
        assert_int_equal(s->ports[u0].q[q].n, 0); /* kicked out: nobody waits on it */
        assert_true(s->ports[u1].tx_bytes > 0 || s->ports[u1].q[q].n > 0);
    }
    s->p.stop = 0;
    sim_run(s);
    s->ports[u0].paused_mask &= (uint8_t)~(1u << q); /* the test's pause: no RESUME will come */
    run_check_invariants(&r);
    proteus_counts(s, &moves, &rr, &stays);
    assert_int_equal(s->flows[0].ooo, 0);
    if (pause_for) {
        assert_int_equal(rr, 0);
        assert_int_equal(s->ports[u1].tx_bytes, 0);
    } else {
        assert_int_equal(s->ports[u0].tx_bytes, 0);
        assert_true(s->ports[u1].tx_bytes >= 20000);
    }
    print_message("paused %s: first packet queued at %.3f us, %llu reroutes, path 0 sent %llu B, path 1 %llu B\n",
                  pause_for ? "3 us" : "throughout", (double)t0 / T_US, (unsigned long long)rr,
                  (unsigned long long)s->ports[u0].tx_bytes, (unsigned long long)s->ports[u1].tx_bytes);
    *reroutes_out = rr;
    run_free(&r);
}

static void test_reroute_when_budget_spent(void **st)
{
    (void)st;
    uint64_t rr;
    paused_case(0, &rr);
    assert_true(rr >= 20); /* every packet of the flow */
    paused_case(3 * T_US, &rr);
    assert_int_equal(rr, 0);
}

/* Algorithm 2 as the paper states it (alg2 = predict, the default), at leaf
 * 2 on hand-set delays: path 0 3 us, path 1 8 us, so t_td = 5 us; path 0's
 * uplink is paused from the start. A packet joining it predicts its queueing
 * delay as the bytes ahead of it at 100 Gbps (the least it can be): while
 * t_td exceeds that, it waits; the first packet for which it does not is
 * rerouted to path 1, the port is kicked out, and the flow's later packets
 * take path 1 (here, at its own source edge, Algorithm 1 moves the flow). The
 * ones that chose to wait stay. */
static void test_alg2_predict(void **st)
{
    (void)st;
    struct run r;
    two_leaves(&r, 2, "[transport]\nreorder = buffer\n");
    run_add_flow(&r, 0, 1, 100000, 0); /* 100 packets at line rate */
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t de = (uint32_t)s->lbsw[3].edge, u0 = uplink(s, 0), u1 = uplink(s, 1);
    int q = s->flows[0].pg;
    proteus_path_set(s, 2, de, 0, 3 * T_US, 0.5);
    proteus_path_set(s, 2, de, 1, 8 * T_US, 0.5);
    s->ports[u0].paused_mask |= (uint8_t)(1u << q);
    s->ports[u0].paused_since[q] = 0;
    s->p.stop = 20 * T_US; /* every packet sent; feedback has not changed the delays before the decisions */
    sim_run(s);
    const struct pkt *head = s->ports[u0].q[q].head;
    assert_non_null(head);
    assert_int_equal(td_ns(head), 5000);
    uint32_t size = head->size;
    /* packet j finds j packets ahead: it waits iff 5 us > tx_time(j x size) */
    uint32_t waits = 0;
    while (5 * T_US > tx_time((uint64_t)waits * size, 100000000000ull))
        waits++;
    uint64_t moves, rr, stays;
    proteus_counts(s, &moves, &rr, &stays);
    print_message("Algorithm 2 (predict): %u packets wait on the paused path 0 (expected %u), %llu rerouted, "
                  "path 1 sent %llu B\n", s->ports[u0].q[q].n, waits, (unsigned long long)rr,
                  (unsigned long long)s->ports[u1].tx_bytes);
    assert_true(waits > 1 && waits < 100);
    assert_int_equal(s->ports[u0].q[q].n, waits);
    assert_int_equal(rr, 1); /* the first that could not wait; the flow's next packets follow it at this edge */
    assert_int_equal(s->ports[u1].tx_bytes, (uint64_t)(100 - waits) * size);
    assert_int_equal(s->c.lb_stat[3], waits); /* wait_decisions */
    /* the pause ends: the waiting packets go on path 0 */
    s->ports[u0].paused_mask &= (uint8_t)~(1u << q);
    port_kick(s, u0);
    s->p.stop = 0;
    sim_run(s);
    run_check_invariants(&r);
    assert_int_equal(s->ports[u0].tx_bytes, (uint64_t)waits * size);
    run_free(&r);
}

/* A kicked-out port further along is reported to the source edge (path
 * status lives at the edges, sec. IV-C) and released when its pause ends.
 * k = 4 fat-tree, host 0 (edge 16, pod 0) to host 4 (pod 1): 4 paths, two
 * through each aggregation switch of pod 0. Hand-set delays at edge 16:
 * path A 3 us, the other path B through A's aggregation switch 4 us (t_td =
 * 1 us), the two others 10 us. A's aggregation port toward its core is paused
 * from the start; packets wait there until their predicted delay reaches
 * 1 us, then go on by B, the port is kicked out and edge 16 is told: A is
 * inactive there, the paths through the other core or aggregation are not.
 * Once the pause ends A is active again. */
static void test_kick_reported(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = fattree\nk = 4\n[transport]\ncc = none\n[lb]\nscheme = proteus\n"
                  "[traffic]\npattern = none\n");
    run_add_flow(&r, 0, 4, 100000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t src = s->ports[s->ports[s->nodes[0].port0].peer].node, se = (uint32_t)s->lbsw[src].edge;
    uint32_t dsw = s->ports[s->ports[s->nodes[4].port0].peer].node, de = (uint32_t)s->lbsw[dsw].edge;
    assert_int_equal(lb_path_count(s, se, de), 4);
    uint32_t pa[4][4], A = 0, B = 4;
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(lb_path_ports(s, se, de, lb_path_word(s, se, de, i), pa[i], 4), 4);
    for (uint32_t i = 1; i < 4; i++)
        if (pa[i][0] == pa[A][0])
            B = i;
    assert_true(B < 4);
    for (uint32_t i = 0; i < 4; i++)
        proteus_path_set(s, src, de, i, i == A ? 3 * T_US : i == B ? 4 * T_US : 10 * T_US, 0.5);
    int q = s->flows[0].pg;
    uint32_t agg_up = pa[A][1]; /* A's aggregation switch, its port toward A's core */
    s->ports[agg_up].paused_mask |= (uint8_t)(1u << q);
    s->ports[agg_up].paused_since[q] = 0;
    s->p.stop = 9 * T_US;
    sim_run(s);
    uint64_t moves, rr, stays;
    proteus_counts(s, &moves, &rr, &stays);
    print_message("kick report: %llu rerouted at the aggregation switch, %u wait there, %llu reports; A active %d, B %d\n",
                  (unsigned long long)rr, s->ports[agg_up].q[q].n, (unsigned long long)s->c.lb_stat[4],
                  proteus_path_active(s, src, de, A), proteus_path_active(s, src, de, B));
    assert_true(rr > 0);
    assert_true(s->ports[agg_up].q[q].n > 0);
    assert_int_equal(s->c.lb_stat[4], 1); /* one report: one kick, one source edge */
    assert_false(proteus_path_active(s, src, de, A));
    for (uint32_t i = 0; i < 4; i++)
        if (i != A)
            assert_true(proteus_path_active(s, src, de, i));
    /* the pause ends at 9 us: a poll within 1 us, the report's way back */
    s->ports[agg_up].paused_mask &= (uint8_t)~(1u << q);
    port_kick(s, agg_up);
    s->p.stop = 14 * T_US;
    sim_run(s);
    assert_true(proteus_path_active(s, src, de, A));
    s->p.stop = 0;
    sim_run(s);
    run_check_invariants(&r);
    run_free(&r);
}

/* Algorithm 1 moves flows between paths as measured delays change, and the
 * rule (move only if the gap since the flow's previous packet exceeds the
 * delay saved) keeps every packet in order: 8 hosts at 25 Gbps send trains of
 * flows from leaf 0 to leaf 1 over 2 spines of 100 Gbps, DCQCN, go-back-N,
 * with alg1 = every (every packet may move, so the rule alone decides).
 * With local_queue = off (fed-back delays only) the same case reorders: the
 * source edge's own queue grows faster than the feedback reports it. The
 * default trigger (alg1 = congested) is printed for the record. */
static void rtt_case(const char *local, const char *alg1, uint64_t *moves, uint64_t *ooo)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[run]\nseed = 5\n[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 8\n"
             "host_link = 25Gbps\nfabric_link = 100Gbps\n[transport]\ncc = dcqcn\n[lb]\nscheme = proteus\n"
             "[lb.proteus]\nlocal_queue = %s\nalg1 = %s\n[traffic]\npattern = none\n", local, alg1);
    struct run r;
    run_setup(&r, ini);
    for (uint32_t h = 0; h < 8; h++)
        for (int k = 0; k < 4; k++)
            run_add_flow(&r, h, 8 + h, 300000, (simtime_t)(h * 7 + k * 150) * T_US);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    sim_run(s);
    run_check_invariants(&r);
    uint64_t rr, stays, switches = 0;
    proteus_counts(s, moves, &rr, &stays);
    *ooo = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        *ooo += s->flows[i].ooo;
        switches += s->flows[i].path_switches;
    }
    print_message("Algorithm 1 %-9s, local_queue %-3s: %llu moves to a faster path (%llu path switches at the first hop), "
                  "%llu packets out of order, %llu B resent, %llu PAUSEs\n", alg1, local, (unsigned long long)*moves,
                  (unsigned long long)switches, (unsigned long long)*ooo, (unsigned long long)s->c.bytes_retx,
                  (unsigned long long)s->c.pfc_pause_frames);
    if (!*ooo)
        run_check_clean(&r); /* in order: go-back-N never resent */
    run_free(&r);
}

static void test_rtt_moves_keep_order(void **st)
{
    (void)st;
    uint64_t moves, ooo;
    rtt_case("on", "every", &moves, &ooo);
    assert_true(moves > 0);
    assert_int_equal(ooo, 0);
    rtt_case("off", "every", &moves, &ooo); /* for the record (printed): stale delays */
    assert_true(moves > 0);
    rtt_case("on", "congested", &moves, &ooo); /* for the record */
    rtt_case("off", "congested", &moves, &ooo);
}

/* Algorithm 1's trigger (§III-B.1: "a new flow packet arriving or the
 * current path is congested"), on hand-set delays over 2 paths: flow 0
 * starts on path 0 (the lower delay). Then path 0 reads 10 % above its base
 * delay (non-congested: below 1.3 x base) and path 1 its base, and a packet
 * of the flow comes 5 us after the previous one (more than the 10 % saved,
 * so lines 6-7 would allow the move). By default (alg1 = congested) it stays
 * on path 0; with alg1 = every it moves to path 1. Once path 0 reads
 * congested (above 1.3 x base, fully used) the default moves it too. */
static uint32_t trigger_case(const char *alg1, bool congested)
{
    struct run r;
    char more[64];
    snprintf(more, sizeof more, "[lb.proteus]\nalg1 = %s\n", alg1);
    two_leaves(&r, 2, more);
    run_add_flow(&r, 0, 1, 1000000, T_MS);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t de = (uint32_t)s->lbsw[3].edge;
    simtime_t base = 2 * (T_US + tx_time(s->p.mtu + s->data_hdr, 100000000000ull));
    s->now = 10 * T_US;
    proteus_path_set(s, 2, de, 0, base, 0.1);
    proteus_path_set(s, 2, de, 1, base + base / 5, 0.1);
    struct pkt p = probe(s, 0);
    assert_int_equal(p.lb.b[0], 0);
    s->now += 5 * T_US;
    proteus_path_set(s, 2, de, 0, congested ? base * 3 / 2 : base + base / 10, congested ? 1.0 : 0.5);
    proteus_path_set(s, 2, de, 1, base, 0.1);
    assert_int_equal(proteus_path_class(s, 2, de, 0), congested ? 2 : 0);
    p = probe(s, 0);
    run_free(&r);
    return p.lb.b[0];
}

static void test_alg1_trigger(void **st)
{
    (void)st;
    assert_int_equal(trigger_case("congested", false), 0); /* non-congested path: the flow stays */
    assert_int_equal(trigger_case("every", false), 1);
    assert_int_equal(trigger_case("congested", true), 1);
    assert_int_equal(trigger_case("every", true), 1);
}

/* Every CC, lossless, a small incast across leaves with a cross flow. */
static void test_every_cc_incast(void **st)
{
    (void)st;
    for (int i = 0; cc_registry[i]; i++) {
        if (cc_registry[i]->companion || (run_sanitized() && i % 2))
            continue;
        if (cc_registry[i]->multipath) /* MP-RDMA chooses its own paths through ECMP: refused beside Proteus */
            continue;
        char ini[768];
        snprintf(ini, sizeof ini,
                 "[run]\nseed = 2\n[topology]\ntype = leafspine\nleaves = 3\nspines = 2\nhosts_per_leaf = 6\n"
                 "[switch]\nbuffer = 1MB\n[transport]\ncc = %s\n[lb]\nscheme = proteus\n"
                 "[traffic]\npattern = incast\nfan_in = 12\nsize = 128KB\nreceiver = 0\n"
                 "[flow.x]\nsrc = 7\ndst = 1\nsize = 2MB\n", cc_registry[i]->name);
        struct run r;
        run_setup(&r, ini);
        run_build(&r);
        struct sim *s = &r.sc.sim;
        sim_run(s);
        run_check_invariants(&r);
        assert_int_equal(s->c.packets_dropped, 0);
        uint64_t moves, rr, stays;
        proteus_counts(s, &moves, &rr, &stays);
        print_message("  %-7s %u flows done, %llu PAUSEs, %llu reroutes, no drop\n", cc_registry[i]->name, s->n_flows,
                      (unsigned long long)s->c.pfc_pause_frames, (unsigned long long)rr);
        run_free(&r);
    }
}

/* The experiments' scenario files load, select Proteus and run their first
 * 1.2 ms (the motivation's first burst starts at 1 ms) without a drop; the
 * motivation's topology file is relative to the repository root. */
static void test_scenarios(void **st)
{
    (void)st;
    static const char *files[] = {"scenarios/proteus-motivation.ini", "scenarios/proteus-websearch.ini"};
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(ROCESIM_SOURCE_DIR), 0);
    for (int i = 0; i < 2; i++) {
        struct run r;
        run_setup_file(&r, files[i]);
        run_build(&r);
        struct sim *s = &r.sc.sim;
        assert_string_equal(s->lb->name, "proteus");
        s->p.stop = (i == 0 ? 1200 : 100) * T_US;
        sim_run(s);
        assert_int_equal(s->c.packets_dropped, 0);
        assert_true(s->c.bytes_delivered > 0);
        run_free(&r);
    }
    assert_int_equal(chdir(cwd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_ii_and_select),
        cmocka_unit_test(test_three_alternatives),
        cmocka_unit_test(test_alg2_predict),
        cmocka_unit_test(test_kick_reported),
        cmocka_unit_test(test_reroute_when_budget_spent),
        cmocka_unit_test(test_rtt_moves_keep_order),
        cmocka_unit_test(test_alg1_trigger),
        cmocka_unit_test(test_every_cc_incast),
        cmocka_unit_test(test_scenarios),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
