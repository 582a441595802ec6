/* MP-RDMA (NSDI'18) and the bounded-window receiver it needs: a lone flow
 * spread over many virtual paths still runs at line rate (FCT = the analytic
 * one); with one slow spine uplink it prunes the paths that deliver beyond Δ
 * and so moves its bytes off that link, which is what keeps it fast; the
 * bitmap receiver takes exactly the packets within its window, drops and
 * NACKs those beyond, ACKs every packet with its sACK and path; an incast is
 * lossless with PFC and completes without it; the configuration refuses a
 * contradicting balancer or receiver. */
#include "ccfix.h"
#include "simrun.h"
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net/net.h"
#include "net/net_impl.h"

extern const struct cc_ops cc_mprdma;

static const char *two_leaves = "[topology]\ntype = leafspine\nleaves = 2\nspines = %d\nhosts_per_leaf = 1\n%s"
                                "[transport]\ncc = mprdma\n%s[traffic]\npattern = none\n";

static void setup_pair(struct run *r, int spines, const char *topo_extra, const char *tp_extra)
{
    char ini[512];
    snprintf(ini, sizeof ini, two_leaves, spines, topo_extra, tp_extra);
    run_setup(r, ini);
}

/* 10 MB alone from host 0 to host 1 over 4 spines, built, not yet run. */
static const struct sim *lone_flow(struct run *r, const char *tp_extra)
{
    setup_pair(r, 4, "", tp_extra);
    run_add_flow(r, 0, 1, 10000000, 0);
    run_build(r);
    return &r->sc.sim;
}

/* profile = bdp (a one-BDP line-rate start, L raised to hold the BDP):
 * the lone flow sends every byte at line rate (ideal FCT, ns-3's standalone
 * formula), spread over many VPs, nothing pruned, resent or NACKed. */
static void test_lone_flow_line_rate(void **state)
{
    (void)state;
    struct run r;
    const struct sim *s = lone_flow(&r, "[cc.mprdma]\nprofile = bdp\n");
    assert_string_equal(s->slot[0].ops->name, "mprdma");
    assert_string_equal(s->lb->name, "ecmp");
    assert_true(s->p.bitmap);
    assert_int_equal(s->p.ooo_window, 128); /* profile bdp, auto: 64 doubled until it holds the 106 KB BDP */
    sim_run(&r.sc.sim);
    run_check_clean(&r);
    const struct qp *f = &s->flows[0];
    double sd = (double)(f->finish - f->start) / (double)f->ideal_fct;
    print_message("lone flow: slowdown %.5f, %u VPs, %u path switches at the first switch\n", sd, f->paths_used,
                  f->path_switches);
    assert_true(sd < 1.01);
    assert_true(f->paths_used > 16);
    assert_true(f->path_switches > 100); /* it really spreads: the first switch sends it out of all 4 uplinks */
    assert_int_equal(f->paths_pruned, 0);
    assert_int_equal(s->c.nacks, 0);
    assert_int_equal(s->c.ooo_window_drops, 0);
    run_free(&r);
}

/* The defaults (profile = paper, the public MP-RDMA simulators' reading):
 * L = 64 packets, whatever the BDP, so the lone flow on the 1 us
 * 100 Gbps leaf-spine (BDP 106 packets) moves at most L packets per base
 * RTT: its FCT is at least size / (L·MTU) base RTTs, far above the
 * line-rate ideal; it still completes clean. */
static void test_paper_L(void **state)
{
    (void)state;
    struct run r;
    const struct sim *s = lone_flow(&r, "");
    assert_int_equal(s->p.ooo_window, 64);
    sim_run(&r.sc.sim);
    run_check_clean(&r);
    const struct qp *f = &s->flows[0];
    double rtts = (double)(f->finish - f->start) / (double)f->base_rtt;
    double bound = 10000000.0 / (64.0 * s->p.mtu);
    print_message("L = 64: FCT %.1f base RTTs (bound %.1f), slowdown %.3f\n", rtts, bound,
                  (double)(f->finish - f->start) / (double)f->ideal_fct);
    assert_true(rtts >= bound);
    assert_true((double)(f->finish - f->start) > 1.5 * (double)f->ideal_fct);
    assert_int_equal(s->c.ooo_window_drops, 0);
    run_free(&r);
}

/* The sender alone (tests/ccfix.h: 100 Gbps, base RTT 10 us, a BDP of 125
 * packets; the receiver's window L = 64): by default a flow starts with one
 * packet; profile bdp's cwnd_init = 1 starts with a BDP, capped at L. */
static void test_initial_window(void **state)
{
    (void)state;
    struct fix f;
    fix_init(&f, &cc_mprdma, 100000000000ULL);
    f.s.p.ooo_window = 64;
    f.qp.size = 10000000;
    fix_start(&f);
    assert_int_equal(f.qp.win, 1000);
    fix_free(&f);
    fix_init(&f, &cc_mprdma, 100000000000ULL);
    f.s.p.ooo_window = 64;
    f.qp.size = 10000000;
    fix_params(&f, "cwnd_init", "1");
    fix_start(&f);
    assert_int_equal(f.qp.win, 64000);
    fix_free(&f);
}

/* Send what the window released (on_send per packet, as the NIC would). */
static void fix_send_released(struct fix *f)
{
    while (f->qp.snd_nxt < f->qp.snd_una + f->qp.win && f->qp.snd_nxt < f->qp.size) {
        struct pkt pk = {.type = PKT_DATA, .seq = f->qp.snd_nxt, .size = 1000 + HDR_DATA};
        f->cc->on_send(&f->s, &f->qp, f->st, f->par, &pk);
        f->qp.snd_nxt += 1000;
    }
}

/* At most `burst` (2) packets per ACK: 8 packets in flight, one cumulative
 * ACK frees all 8 slots (and cwnd grows by 1/8), yet the ACK releases 2 and
 * arms the burst timer for the rest; with burst = 0 (no limit, profile bdp)
 * it releases all 8. */
static uint64_t released_by_ack(const char *burst)
{
    struct fix f;
    fix_init(&f, &cc_mprdma, 100000000000ULL);
    f.s.p.ooo_window = 64;
    f.s.data_hdr = HDR_DATA;
    f.qp.size = 10000000;
    fix_params(&f, "iw", "8");
    fix_params(&f, "probe", "0");
    if (burst)
        fix_params(&f, "burst", burst);
    fix_start(&f);
    assert_int_equal(f.qp.win, 8000); /* the initial window goes at once */
    fix_send_released(&f);
    assert_int_equal(f.qp.snd_nxt, 8000);
    f.s.now += 10 * T_US;
    f.qp.snd_una = 8000;
    struct pkt a = {.type = PKT_ACK, .seq = 8000, .aux = 7000, .ts = f.s.now - 10 * T_US};
    f.cc->on_ack(&f.s, &f.qp, f.st, f.par, &a);
    uint64_t rel = (f.qp.snd_una + f.qp.win - f.qp.snd_nxt) / 1000;
    if (!burst)
        assert_int_equal(f.qp.timer_at[0], f.s.now + T_US); /* the rest by the burst timer, 1 us on */
    else
        assert_int_equal(f.qp.timer_at[0], -1);
    fix_free(&f);
    return rel;
}

static void test_burst_limit(void **state)
{
    (void)state;
    assert_int_equal(released_by_ack(NULL), 2);
    assert_int_equal(released_by_ack("0"), 8);
}

/* The uplink of host 0's leaf with the lower rate (the slow path). */
static void uplinks(const struct sim *s, uint32_t *slow, uint32_t *fast)
{
    const struct node *leaf = &s->nodes[s->edge_node[s->host_edge[0]]];
    *slow = *fast = UINT32_MAX;
    for (uint32_t k = 0; k < leaf->nports; k++) {
        const struct port *pt = &s->ports[leaf->port0 + k];
        if (pt->to_host)
            continue;
        if (pt->rate < 100000000000ULL)
            *slow = leaf->port0 + k;
        else
            *fast = leaf->port0 + k;
    }
    assert_true(*slow != UINT32_MAX && *fast != UINT32_MAX);
}

/* One spine uplink at 10 Gbps: its packets arrive late. With Δ = 32 MP-RDMA
 * prunes those paths, so the slow link carries a small share of the bytes and
 * the flow finishes far sooner than with pruning off (Δ beyond the window). */
static void slow_run(int64_t delta, double *fct_ratio, double *slow_share, uint32_t *pruned)
{
    struct run r;
    char tp[64];
    snprintf(tp, sizeof tp, "[cc.mprdma]\ndelta = %lld\n", (long long)delta);
    setup_pair(&r, 2, "link_rate = leaf0-spine1:10Gbps\n", tp);
    run_add_flow(&r, 0, 1, 10000000, 0);
    run_build(&r);
    const struct sim *s = &r.sc.sim;
    uint32_t slow, fast;
    uplinks(s, &slow, &fast);
    sim_run(&r.sc.sim);
    run_check_clean(&r);
    const struct qp *f = &s->flows[0];
    *fct_ratio = (double)(f->finish - f->start) / (double)f->ideal_fct;
    *slow_share = (double)s->ports[slow].tx_bytes / (double)(s->ports[slow].tx_bytes + s->ports[fast].tx_bytes);
    *pruned = f->paths_pruned;
    assert_int_equal(s->c.ooo_window_drops, 0); /* the sender never sends beyond the receiver's bitmap */
    run_free(&r);
}

static void test_prunes_slow_path(void **state)
{
    (void)state;
    double sd_on, sd_off, share_on, share_off;
    uint32_t pr_on, pr_off;
    slow_run(32, &sd_on, &share_on, &pr_on);
    slow_run(1000, &sd_off, &share_off, &pr_off);
    print_message("slow uplink, pruning (delta 32): slowdown %.3f, %.2f %% of bytes on it, %u prunes; "
                  "off: %.3f, %.2f %%, %u\n",
                  sd_on, 100 * share_on, pr_on, sd_off, 100 * share_off, pr_off);
    assert_true(pr_on > 10);
    assert_int_equal(pr_off, 0);
    assert_true(share_on < share_off / 2);
    assert_true(sd_on < sd_off / 2);
}

/* The receiver alone: ooo_window = 8, packets handed to it by hand. The
 * reply each makes leaves on the receiver's idle NIC port (the clock is moved
 * on so the port is idle every time): the wire's tail. */
struct rx {
    struct run r;
    struct sim *s;
    struct qp *f;
    struct port *np;
};

static const struct pkt *deliver(struct rx *x, uint64_t k, uint8_t flags)
{
    struct sim *s = x->s;
    s->now += 10 * T_US;
    uint32_t before = x->np->wire.n;
    struct pkt *p = pkt_alloc(s);
    p->type = PKT_DATA;
    p->flow = x->f->id;
    p->src = x->f->src;
    p->dst = x->f->dst;
    p->sport = (uint16_t)(x->f->sport ^ (k << 8)); /* a VP per packet: the reply must echo it */
    p->dport = x->f->dport;
    p->prio = x->f->pg;
    p->seq = k * 1000;
    p->size = 1048;
    p->flags = flags;
    p->ts = s->now;
    host_receive(s, p);
    if (x->np->wire.n == before)
        return NULL;
    const struct pkt *a = x->np->wire.tail;
    assert_int_equal(a->dport, (uint16_t)(x->f->sport ^ (k << 8)));
    assert_int_equal(a->sport, x->f->dport);
    assert_int_equal(a->aux, k * 1000);
    return a;
}

static void test_bitmap_receiver(void **state)
{
    (void)state;
    struct rx x;
    run_setup(&x.r, "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n"
                    "[transport]\ncc = none\nreorder = bitmap\nooo_window = 8\n[traffic]\npattern = none\n");
    run_add_flow(&x.r, 0, 1, 100000, 0);
    run_build(&x.r);
    x.s = &x.r.sc.sim;
    x.f = &x.s->flows[0];
    flow_start(x.s, x.f); /* the receiver's bitmap */
    x.np = &x.s->ports[x.s->nics[x.s->host_index[x.f->dst]].port];
    const struct pkt *a;
    a = deliver(&x, 0, 0); /* in order */
    assert_int_equal(a->type, PKT_ACK);
    assert_int_equal(a->seq, 1000);
    a = deliver(&x, 2, PF_ECN); /* held; its CE mark echoed */
    assert_int_equal(a->type, PKT_ACK);
    assert_int_equal(a->seq, 1000);
    assert_true(a->flags & PF_ECN_ECHO);
    assert_true(a->flags & PF_CNP);
    a = deliver(&x, 8, 0); /* 7 beyond rcv_nxt (packet 1): the window's last slot */
    assert_int_equal(a->type, PKT_ACK);
    assert_int_equal(x.s->c.ooo_window_drops, 0);
    a = deliver(&x, 9, 0); /* 8 beyond: dropped, NACK of rcv_nxt */
    assert_int_equal(a->type, PKT_NACK);
    assert_int_equal(a->seq, 1000);
    assert_int_equal(x.s->c.ooo_window_drops, 1);
    assert_null(deliver(&x, 10, 0)); /* dropped, no second NACK for the same rcv_nxt within nack_interval */
    assert_int_equal(x.s->c.ooo_window_drops, 2);
    a = deliver(&x, 1, 0); /* fills the gap: 0, 1, 2 delivered */
    assert_int_equal(a->type, PKT_ACK);
    assert_int_equal(a->seq, 3000);
    a = deliver(&x, 1, 0); /* a duplicate is ACKed too (it clocks the sender) */
    assert_int_equal(a->type, PKT_ACK);
    assert_int_equal(a->seq, 3000);
    a = deliver(&x, 10, 0); /* 7 beyond the new rcv_nxt: taken now */
    assert_int_equal(a->type, PKT_ACK);
    assert_int_equal(x.s->c.ooo_window_drops, 2);
    for (uint64_t k = 3; k < 8; k++)
        deliver(&x, k, 0);
    assert_int_equal(x.f->rcv_nxt, 9000); /* 0-8 in order; 9 was dropped, 10 is held */
    a = deliver(&x, 9, 0);
    assert_int_equal(a->seq, 11000);
    assert_int_equal(x.s->c.bytes_delivered, 11000);
    assert_int_equal(x.f->ooo_max, 9); /* the dropped packet 10 arrived 9 beyond rcv_nxt */
    run_free(&x.r);
}

/* 16 -> 1 incast of 200 KB flows over 4 spines, each starting with a
 * one-BDP window at line rate (profile bdp, so that 16 starts overflow the
 * lossy run's 1 MB buffer): with PFC not one drop and every byte delivered
 * once; without PFC (lossy) the drops are recovered and every flow
 * completes. */
static void incast(bool pfc, uint64_t *drops, uint64_t *retx)
{
    struct run r;
    char ini[512];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = 2\nspines = 4\nhosts_per_leaf = 16\n"
             "[switch]\npfc = %s\nbuffer = %s\n[transport]\ncc = mprdma\n[cc.mprdma]\nprofile = bdp\n"
             "[traffic]\npattern = none\n",
             pfc ? "on" : "off", pfc ? "4MB" : "1MB");
    run_setup(&r, ini);
    for (uint32_t i = 0; i < 16; i++)
        run_add_flow(&r, i, 16, 200000, (simtime_t)i * 100 * T_NS);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    *drops = r.sc.sim.c.packets_dropped;
    *retx = r.sc.sim.c.bytes_retx;
    run_free(&r);
}

static void test_incast(void **state)
{
    (void)state;
    uint64_t d_on, r_on, d_off, r_off;
    incast(true, &d_on, &r_on);
    incast(false, &d_off, &r_off);
    print_message("incast 16 -> 1: PFC on %llu drops, %llu B resent; PFC off %llu drops, %llu B resent\n",
                  (unsigned long long)d_on, (unsigned long long)r_on, (unsigned long long)d_off,
                  (unsigned long long)r_off);
    assert_int_equal(d_on, 0);
    assert_true(d_off > 0); /* the lossy run did lose packets, and recovered them */
    assert_true(r_off > 0);
}

/* A balancer or receiver that contradicts MP-RDMA is refused with the key's
 * place; left unset, the receiver is implied. */
static void test_config(void **state)
{
    (void)state;
    struct config c;
    struct err e;
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load_ini(&c, "[transport]\ncc = mprdma\n[lb]\nscheme = spray\n", "t.ini", &e), 0);
    assert_int_equal(config_validate(&c, &e), -1);
    assert_non_null(strstr(e.msg, "t.ini:4"));
    assert_non_null(strstr(e.msg, "lb.scheme=ecmp"));
    config_load_free(&c);
    config_free(&c);
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load_ini(&c, "[transport]\ncc = mprdma\nreorder = buffer\n", "t.ini", &e), 0);
    assert_int_equal(config_validate(&c, &e), -1);
    assert_non_null(strstr(e.msg, "t.ini:3"));
    assert_non_null(strstr(e.msg, "reorder=bitmap"));
    config_load_free(&c);
    config_free(&c);
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load_ini(&c, "[transport]\ncc = mprdma\n", "t.ini", &e), 0);
    assert_int_equal(config_validate(&c, &e), 0);
    assert_int_equal(c.transport.reorder, REORDER_BITMAP);
    config_load_free(&c);
    config_free(&c);
}

/* scenarios/mprdma.ini loads and runs its first 300 us without a drop. */
static void test_scenario(void **state)
{
    (void)state;
    struct run r;
    run_setup_file(&r, ROCESIM_SOURCE_DIR "/scenarios/mprdma.ini");
    run_build(&r);
    const struct sim *s = &r.sc.sim;
    assert_string_equal(s->slot[0].ops->name, "mprdma");
    assert_true(s->p.bitmap);
    r.sc.sim.p.stop = 300 * T_US;
    sim_run(&r.sc.sim);
    assert_int_equal(s->c.packets_dropped, 0);
    assert_true(s->c.flows_completed > 0);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lone_flow_line_rate),
        cmocka_unit_test(test_paper_L),
        cmocka_unit_test(test_initial_window),
        cmocka_unit_test(test_burst_limit),
        cmocka_unit_test(test_prunes_slow_path),
        cmocka_unit_test(test_bitmap_receiver),
        cmocka_unit_test(test_incast),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_scenario),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
