#include "simrun.h"
#include "testutil.h"
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include "stats/collective.h"
#include "traffic/collective.h"

void run_setup(struct run *r, const char *ini)
{
    struct err e;
    memset(r, 0, sizeof *r);
    assert_int_equal(config_init(&r->cfg), 0);
    if (config_load_ini(&r->cfg, ini, "test.ini", &e) < 0 || config_validate(&r->cfg, &e) < 0)
        fail_msg("%s", e.msg);
    if (scenario_load(&r->sc, &r->cfg, &e) < 0)
        fail_msg("%s", e.msg);
}

void run_setup_file(struct run *r, const char *path)
{
    struct err e;
    memset(r, 0, sizeof *r);
    assert_int_equal(config_init(&r->cfg), 0);
    if (config_load_file(&r->cfg, path, &e) < 0 || config_validate(&r->cfg, &e) < 0)
        fail_msg("%s", e.msg);
    if (scenario_load(&r->sc, &r->cfg, &e) < 0)
        fail_msg("%s", e.msg);
}

void run_add_flow(struct run *r, uint32_t src, uint32_t dst, uint64_t size, simtime_t start)
{
    struct flow_spec f = { .src = src, .dst = dst, .size = size, .start = start, .pg = 3, .dport = 100 };
    assert_int_equal(flow_list_push(&r->sc.flows, &f), 0);
}

void run_build(struct run *r)
{
    struct err e;
    if (scenario_build(&r->sc, &e) < 0)
        fail_msg("%s", e.msg);
    sim_start(&r->sc.sim);
}

void run_free(struct run *r)
{
    scenario_free(&r->sc);
    config_load_free(&r->cfg);
    config_free(&r->cfg);
}

void run_check_invariants(const struct run *r)
{
    const struct sim *s = &r->sc.sim;
    assert_int_equal(s->c.flows_completed, s->n_flows);
    if (s->p.pfc) /* lossless: the only drops are injected link corruption */
        assert_int_equal(s->c.packets_dropped - s->c.packets_corrupted, 0);
    assert_int_equal(s->c.bytes_delivered, s->c.bytes_sent);
    uint64_t total = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        total += s->flows[i].local ? 0 : s->flows[i].size; /* inside a GPU server: no packets (deps.c) */
    assert_int_equal(s->c.bytes_sent, total);
    assert_int_equal(sim_packets_in_network(s), 0);
    assert_int_equal(s->pool.in_use, 0);
    for (uint32_t n = 0; n < s->n_nodes; n++)
        if (s->nodes[n].is_switch)
            assert_int_equal(s->nodes[n].shared_used, 0);
    /* The MMU's books are back to zero and PFC has settled: every PAUSE was
     * followed by a RESUME that arrived, nothing is left paused. */
    for (uint32_t i = 0; i < s->n_ports; i++) {
        const struct port *pt = &s->ports[i];
        for (int q = 0; q < NQ; q++) {
            if (pt->ingress_bytes[q] || pt->hdrm_bytes[q] || pt->pause_sent[q])
                fail_msg("port %u (node %u) queue %d: ingress %u B, headroom %u B, pause_sent %d after the run", i,
                         pt->node, q, pt->ingress_bytes[q], pt->hdrm_bytes[q], pt->pause_sent[q]);
        }
        if (pt->paused_mask)
            fail_msg("port %u (node %u) still paused (mask 0x%x) after the run", i, pt->node, pt->paused_mask);
    }
    assert_int_equal(s->c.pfc_pause_frames, s->c.pfc_resume_frames);
    for (uint32_t h = 0; h < s->n_hosts; h++)
        assert_int_equal(s->nics[h].nqps, 0);
}

void run_check_clean(const struct run *r)
{
    run_check_invariants(r);
    assert_int_equal(r->sc.sim.c.timeouts, 0);
    assert_int_equal(r->sc.sim.c.bytes_retx, 0);
}

uint32_t run_dumbbell_bottleneck(const struct sim *s)
{
    uint32_t sw0 = s->n_hosts, sw1 = s->n_hosts + 1;
    const struct node *n = &s->nodes[sw0];
    assert_true(n->is_switch && s->nodes[sw1].is_switch);
    for (uint32_t k = 0; k < n->nports; k++) {
        uint32_t pid = n->port0 + k;
        if (s->ports[s->ports[pid].peer].node == sw1)
            return pid;
    }
    fail_msg("no bottleneck port");
    return 0;
}

void run_pair_start(struct run *r, const char *cc, const char *extra, simtime_t start2, uint64_t size)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = dumbbell\nsenders = 2\nreceivers = 1\n"
             "[transport]\ncc = %s\n%s\n[traffic]\npattern = none\n",
             cc, extra ? extra : "");
    run_setup(r, ini);
    run_add_flow(r, 0, 2, size, 0);
    run_add_flow(r, 1, 2, size, start2);
    run_build(r);
}

void run_pair_measure(struct run *r, simtime_t warm, simtime_t span, struct pair_result *res)
{
    struct sim *s = &r->sc.sim;
    uint32_t bp = run_dumbbell_bottleneck(s);
    s->p.stop = warm;
    sim_run(s);
    uint64_t a0 = s->flows[0].rcv_nxt, b0 = s->flows[1].rcv_nxt, tx0 = s->ports[bp].tx_bytes;
    uint64_t qmax = 0;
    double qsum = 0;
    int n = 0;
    for (simtime_t t = warm + 5 * T_US; t <= warm + span; t += 5 * T_US) {
        s->p.stop = t;
        sim_run(s);
        assert_true(s->stopped); /* the flows must outlast the window */
        uint64_t q = s->ports[bp].q[3].bytes;
        if (q > qmax)
            qmax = q;
        qsum += (double)q;
        n++;
    }
    double secs = (double)span / T_SEC;
    res->gput[0] = (double)(s->flows[0].rcv_nxt - a0) * 8 / secs / 1e9;
    res->gput[1] = (double)(s->flows[1].rcv_nxt - b0) * 8 / secs / 1e9;
    res->util = (double)(s->ports[bp].tx_bytes - tx0) * 8 / secs / 100e9;
    res->max_q_kb = (double)qmax / 1e3;
    res->mean_q_kb = qsum / n / 1e3;
}

double run_pair_jain(const struct pair_result *res)
{
    double sum = res->gput[0] + res->gput[1];
    return sum * sum / (2 * (res->gput[0] * res->gput[0] + res->gput[1] * res->gput[1]));
}

void run_pair_assert_fair(const struct pair_result *res, double tol)
{
    double half = (res->gput[0] + res->gput[1]) / 2;
    for (int i = 0; i < 2; i++)
        assert_true(fabs(res->gput[i] - half) / half < tol);
}

bool run_sanitized(void)
{
    const char *e = getenv("ROCESIM_SANITIZED");
    return e && *e == '1';
}

void run_topo_file(char *path, size_t n, const char *text)
{
    snprintf(path, n, "/tmp/rocesim_test_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

uint32_t run_edge_switch(const struct sim *s, int32_t edge)
{
    for (uint32_t n = 0; n < s->n_nodes; n++)
        if (s->nodes[n].is_switch && s->lbsw[n].edge == edge)
            return n;
    fail_msg("no edge switch %d", edge);
    return 0;
}

uint32_t run_port_to(const struct sim *s, uint32_t node, uint32_t peer)
{
    const struct node *nd = &s->nodes[node];
    for (uint32_t k = 0; k < nd->nports; k++)
        if (s->ports[s->ports[nd->port0 + k].peer].node == peer)
            return nd->port0 + k;
    fail_msg("no port from %u to %u", node, peer);
    return 0;
}

double run_job_busbw(struct run *r, const char *ini, double size, int algo, uint32_t n)
{
    run_setup(r, ini);
    run_build(r);
    sim_run(&r->sc.sim);
    run_check_invariants(r);
    size_t k;
    struct coll_iter *it = coll_iters(&r->sc, &k);
    simtime_t per;
    assert_true(coll_job_span(&r->sc, it, k, 0, &per) > 0);
    free(it);
    return size / ((double)per / T_NS) * coll_busbw_factor(algo, n);
}
