#include "simrun.h"
#include "testutil.h"
#include <string.h>

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
    if (s->p.pfc)
        assert_int_equal(s->c.packets_dropped, 0);
    assert_int_equal(s->c.bytes_delivered, s->c.bytes_sent);
    uint64_t total = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        total += s->flows[i].size;
    assert_int_equal(s->c.bytes_sent, total);
    assert_int_equal(sim_packets_in_network(s), 0);
    assert_int_equal(s->pool.in_use, 0);
    for (uint32_t n = 0; n < s->n_nodes; n++)
        if (s->nodes[n].is_switch)
            assert_int_equal(s->nodes[n].shared_used, 0);
}
