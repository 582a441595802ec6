/* ConWeave (src/lb/conweave.c) and the switch hold queues it parks packets
 * in (net/lb.h lb_hold): a flow rerouted off a slow path reaches its
 * receiver in order only because the destination ToR holds the new path's
 * packets (the same run with reorder = off arrives out of order), held
 * packets stay in the buffer accounting (with held_in_buffer = off, the
 * artifact's VOQs, they leave it while held and the flow still arrives in
 * order); a NOTIFY pauses exactly its path
 * for path_pause; the parameters derived from the fabric's RTT are the
 * artifact's on its fabrics; and the run invariants (lossless never drops,
 * nothing left held) on leaf-spine and fat-tree, lossless and IRN, any CC. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simrun.h"
#include "lb/conweave.h"
#include "net/cc.h"

/* Every flow finished (a stepped run stops there). */
static bool sim_done(const struct sim *s)
{
    return (s->c.flows_completed == s->n_flows && s->next_start == s->n_flows) || evq_empty(&s->evq);
}

/* ------------------------------------------------------------ reordering */

/* Two leaves, two spines, one host each; leaf0 -> spine1 runs at 25 Gbps, so
 * whatever takes it queues there, its RTT_REPLY comes late and the flow is
 * rerouted to the fast spine, whose packets overtake those still queued on
 * the slow one. Three 2 MB flows one after another, so each starts a fresh
 * epoch on a random path. */
static const char asym[] =
    "[run]\nseed = %d\n[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n"
    "link_rate = leaf0-spine1:25Gbps\n[switch]\npfc = on\n[transport]\ncc = none\n"
    "[lb]\nscheme = conweave\n[lb.conweave]\nreorder = %s\nheld_in_buffer = %s\n[traffic]\npattern = none\n";

struct reroute_result {
    uint64_t ooo, switches, held, peak_held_bytes, accounted_when_held;
    struct conweave_counts c;
};

static void reroute_run(int seed, bool reorder, bool in_buffer, struct reroute_result *res)
{
    char ini[1024];
    snprintf(ini, sizeof ini, asym, seed, reorder ? "on" : "off", in_buffer ? "on" : "off");
    struct run r;
    run_setup(&r, ini);
    for (int i = 0; i < 3; i++)
        run_add_flow(&r, 0, 2, 2000000, i * 400 * T_US);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    memset(res, 0, sizeof *res);
    /* step through the run: whenever packets are held at the destination
     * leaf, its ingress accounting is exactly the bytes in its egress queues
     * plus, with held_in_buffer on, the held bytes */
    uint32_t dst = run_edge_switch(s, 1);
    for (simtime_t t = 5 * T_US; !sim_done(s); t += 5 * T_US) {
        s->p.stop = t;
        sim_run(s);
        if (s->lb_held_now) {
            uint64_t held = 0, acc = 0;
            const struct lb_switch *sw = &s->lbsw[dst];
            for (uint32_t k = 0; sw->hold && k < s->lb_nhold; k++)
                for (const struct pkt *p = sw->hold[k].head; p; p = p->next)
                    held += p->size;
            uint64_t queued = 0;
            for (uint32_t k = 0; k < s->nodes[dst].nports; k++) {
                const struct port *in = &s->ports[s->nodes[dst].port0 + k];
                for (int q = 1; q < NQ; q++)
                    acc += in->ingress_bytes[q] + in->hdrm_bytes[q], queued += in->q[q].bytes;
            }
            assert_true(held > 0);
            assert_int_equal(acc, queued + (in_buffer ? held : 0));
            res->accounted_when_held++;
            if (held > res->peak_held_bytes)
                res->peak_held_bytes = held;
        }
    }
    if (reorder)
        run_check_clean(&r); /* nothing resent: the receiver never saw a gap */
    else
        run_check_invariants(&r);
    for (uint32_t i = 0; i < s->n_flows; i++) {
        res->ooo += s->flows[i].ooo;
        res->switches += s->flows[i].path_switches;
    }
    res->held = s->c.lb_held;
    assert_int_equal(s->lb_held_now, 0);
    conweave_counts(s, &res->c);
    run_free(&r);
}

static void test_rerouted_flow_in_order(void **st)
{
    (void)st;
    struct reroute_result on, off;
    reroute_run(1, true, true, &on);
    reroute_run(1, false, true, &off);
    print_message("reorder on : %llu reroutes, %llu path switches, %llu held (peak %llu B), flushes %llu (%llu by "
                  "TAIL), CLEARs %llu, receiver out-of-order %llu\n",
                  (unsigned long long)on.c.reroutes, (unsigned long long)on.switches, (unsigned long long)on.held,
                  (unsigned long long)on.peak_held_bytes, (unsigned long long)on.c.flushes,
                  (unsigned long long)on.c.flushes_by_tail, (unsigned long long)on.c.clears,
                  (unsigned long long)on.ooo);
    print_message("reorder off: %llu reroutes, %llu path switches, receiver out-of-order %llu\n",
                  (unsigned long long)off.c.reroutes, (unsigned long long)off.switches, (unsigned long long)off.ooo);
    /* the path did change, packets of the new path were held and released by
     * the TAIL, the source heard the CLEAR; and the receiver saw no gap */
    assert_true(on.c.reroutes > 0);
    assert_true(on.switches > 0);
    assert_true(on.held > 0 && on.accounted_when_held > 0);
    assert_true(on.c.flushes_by_tail > 0);
    assert_true(on.c.clears > 0);
    assert_int_equal(on.c.queue_full, 0);
    assert_int_equal(on.ooo, 0);
    /* without the reorder queues the same reroutes reorder at the receiver */
    assert_true(off.c.reroutes > 0);
    assert_int_equal(off.held, 0);
    assert_true(off.ooo > 0);
}

/* held_in_buffer = off (the artifact's VOQs beside the MMU): the same
 * reroutes, the same holding, the flow still in order, nothing resent or
 * dropped, but the held bytes are outside the ingress accounting while held
 * (reroute_run asserts accounting == queued bytes at every step). */
static void test_held_outside_buffer(void **st)
{
    (void)st;
    struct reroute_result in, out;
    reroute_run(1, true, true, &in);
    reroute_run(1, true, false, &out);
    print_message("held in buffer: %llu held (peak %llu B); outside: %llu held (peak %llu B), receiver ooo %llu\n",
                  (unsigned long long)in.held, (unsigned long long)in.peak_held_bytes, (unsigned long long)out.held,
                  (unsigned long long)out.peak_held_bytes, (unsigned long long)out.ooo);
    assert_true(out.c.reroutes > 0 && out.held > 0 && out.accounted_when_held > 0);
    assert_int_equal(out.ooo, 0);
    assert_int_equal(out.c.queue_full, 0);
}

/* ------------------------------------------------------------ NOTIFY */

/* ECN-marked data at the destination ToR sends NOTIFY; the source ToR pauses
 * that path for path_pause (16 us), and exactly that path. End to end: an
 * incast-free 2 -> 1 contention across two leaves with a low marking
 * threshold; stepped in 1 us until the first NOTIFY arrives, when one of the
 * pair's paths must be paused and no longer once path_pause has passed
 * without further NOTIFY for it. */
static void test_notify_pauses_path(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[run]\nseed = 1\n[topology]\ntype = leafspine\nleaves = 2\nspines = 4\nhosts_per_leaf = 4\n"
                  "[switch]\npfc = on\nkmin = 5KB\nkmax = 20KB\npmax = 1\n[transport]\ncc = dcqcn\n"
                  "[lb]\nscheme = conweave\n[traffic]\npattern = none\n");
    for (uint32_t h = 0; h < 4; h++)
        run_add_flow(&r, h, 4, 1000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    uint32_t src = run_edge_switch(s, 0);
    struct conweave_counts c;
    simtime_t t = 0;
    do {
        t += T_US;
        s->p.stop = t;
        sim_run(s);
        conweave_counts(s, &c);
    } while (c.notifies_rx == 0 && !sim_done(s));
    assert_true(c.notifies_rx > 0);
    int paused = 0;
    for (uint32_t i = 0; i < 4; i++)
        paused += conweave_path_paused(s, src, 1, i) == 1;
    assert_true(paused >= 1);
    /* the pause is a deadline, not a state: a direct NOTIFY for path 2 of a
     * quiet pair pauses only it, for exactly 16 us */
    struct pkt *n = pkt_alloc(s);
    memset(&n->lb, 0, sizeof n->lb);
    n->type = PKT_CTRL;
    n->lb.proto = 3; /* CW_NOTIFY */
    uint32_t de = 1, idx = 2;
    memcpy(n->lb.b, &de, 4);
    memcpy(n->lb.b + 4, &idx, 4);
    simtime_t now = s->now;
    s->lb->on_ctrl(s, &s->lbsw[src], s->lb_par, n);
    pkt_free(s, n);
    assert_int_equal(conweave_path_paused(s, src, 1, 2), 1);
    s->now = now + 16 * T_US - 1;
    assert_int_equal(conweave_path_paused(s, src, 1, 2), 1);
    s->now = now + 16 * T_US;
    assert_int_equal(conweave_path_paused(s, src, 1, 2), 0);
    s->now = now;
    s->p.stop = 0;
    sim_run(s);
    run_check_invariants(&r);
    conweave_counts(s, &c);
    assert_int_equal(c.notifies_sent + 1, c.notifies_rx); /* every NOTIFY reached its source ToR (and ours) */
    run_free(&r);
}

/* ------------------------------------------------------------ parameters */

static void derived(const char *topo, const char *extra, simtime_t want[3])
{
    char ini[512];
    snprintf(ini, sizeof ini, "[topology]\n%s\n%s\n[lb]\nscheme = conweave\n[traffic]\npattern = none\n", topo, extra);
    struct run r;
    run_setup(&r, ini);
    run_add_flow(&r, 0, 1, 1000, 0);
    run_build(&r);
    simtime_t t[3];
    conweave_derived(&r.sc.sim, run_edge_switch(&r.sc.sim, 0), t);
    for (int i = 0; i < 3; i++)
        assert_int_equal(t[i], want[i]);
    run_free(&r);
}

/* The artifact's run.py values on its fabrics (1 us links), and twice them
 * with 2 us links (the fabric RTT doubles). */
static void test_derived_parameters(void **st)
{
    (void)st;
    const char *ls = "type = leafspine\nleaves = 4\nspines = 2\nhosts_per_leaf = 2\nlink_delay = 1us";
    const char *ls2 = "type = leafspine\nleaves = 4\nspines = 2\nhosts_per_leaf = 2\nlink_delay = 2us";
    const char *ft = "type = fattree\nk = 4\nlink_delay = 1us";
    derived(ls, "[switch]\npfc = on", (simtime_t[3]){300 * T_US, 16 * T_US, 200 * T_US});
    derived(ls, "[switch]\npfc = off\n[transport]\nrecovery = irn", (simtime_t[3]){300 * T_US, 16 * T_US, 200 * T_US});
    derived(ls2, "[switch]\npfc = on", (simtime_t[3]){600 * T_US, 32 * T_US, 400 * T_US});
    derived(ft, "[switch]\npfc = on", (simtime_t[3]){1000 * T_US, 64 * T_US, 600 * T_US});
    derived(ft, "[switch]\npfc = off\n[transport]\nrecovery = irn", (simtime_t[3]){1000 * T_US, 16 * T_US, 300 * T_US});
    /* set by hand: taken as given */
    derived(ft, "[switch]\npfc = on\n[lb.conweave]\ntx_expiry = 77us\nvoq_flush_extra = 5us\nvoq_default_wait = 9us",
            (simtime_t[3]){77 * T_US, 5 * T_US, 9 * T_US});
}

/* ------------------------------------------------------------ invariants */

static void inv_run(const char *name, const char *topo, const char *cc, bool irn)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[run]\nseed = 5\n[topology]\n%s\n[switch]\npfc = %s\n[transport]\ncc = %s\n%s"
             "[lb]\nscheme = conweave\n"
             "[traffic]\npattern = poisson\ncdf = ali_storage\nload = 0.8\nduration = %s\n",
             topo, irn ? "off" : "on", cc, irn ? "recovery = irn\n" : "", run_sanitized() ? "100us" : "250us");
    struct run r;
    run_setup(&r, ini);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    sim_run(s);
    run_check_invariants(&r);
    assert_int_equal(s->lb_held_now, 0);
    struct conweave_counts c;
    conweave_counts(s, &c);
    assert_true(c.replies_timely + c.clears > 0); /* the control loop ran */
    uint64_t ooo = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        ooo += s->flows[i].ooo;
    print_message("  %-9s %-6s %-8s: %u flows, %llu reroutes, %llu held, %llu NOTIFY, receiver ooo %llu, drops %llu\n",
                  name, cc, irn ? "IRN" : "lossless", s->n_flows, (unsigned long long)c.reroutes,
                  (unsigned long long)c.held, (unsigned long long)c.notifies_sent, (unsigned long long)ooo,
                  (unsigned long long)s->c.packets_dropped);
    run_free(&r);
}

static const char leafspine[] = "type = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 4";
static const char fattree[] = "type = fattree\nk = 4";

static void test_invariants(void **st)
{
    (void)st;
    for (int t = 0; t < 2; t++)
        for (int irn = 0; irn < 2; irn++)
            inv_run(t ? "fattree" : "leafspine", t ? fattree : leafspine, "dcqcn", irn);
    for (int i = 0; cc_registry[i]; i++)
        if ((!run_sanitized() || i % 2 == 0) && !cc_registry[i]->companion && !cc_registry[i]->multipath && strcmp(cc_registry[i]->name, "dcqcn") != 0)
            inv_run("leafspine", leafspine, cc_registry[i]->name, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rerouted_flow_in_order),
        cmocka_unit_test(test_held_outside_buffer),
        cmocka_unit_test(test_notify_pauses_path),
        cmocka_unit_test(test_derived_parameters),
        cmocka_unit_test(test_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
