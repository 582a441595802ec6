/* Rail-optimised GPU fabrics (issue 37, the "done means"): a ring all-reduce
 * over 16 servers of 8 GPUs runs on 2 threads with the serial run's results,
 * NVSwitch transfers included (net/nvswitch.c: every server is split over the
 * partitions, one rail leaf each); and its queue pairs keep their source port
 * and their path through the fabric for the whole job. NCCL's busbw for the
 * rail-aligned ring, with its arithmetic, is test_collective.c's
 * test_rail_ring_busbw. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simrun.h"

#define RAIL16 "[topology]\ntype = rail\nservers = 16\ngpus_per_server = 8\nspines = 16\n" \
               "[transport]\ncc = none\nmtu = 4000\nack_interval = 16\n"                    \
               "[traffic]\npattern = collective\nplacement = rail\nchannels = 8\n"

/* NCCL's rail-aligned rings (NVLink hops inside each server between the rail
 * hops), serially and on 2 threads: every flow starts, is received and
 * finishes at the same picosecond, on the same source port. */
static void test_rail_ring_threads(void **st)
{
    (void)st;
    const char *ini = RAIL16 "size = 4MB\nhierarchy = rail\n";
    char par[512];
    snprintf(par, sizeof par, "%s[run]\nthreads = 2\n", ini);
    struct run a, b;
    run_setup(&a, ini);
    run_build(&a);
    sim_run(&a.sc.sim);
    run_check_invariants(&a);
    run_setup(&b, par);
    run_build(&b);
    struct err e = {{0}};
    assert_int_equal(scenario_parallel(&b.sc, &e), 0);
    assert_true(b.sc.n_parts >= 2); /* (one rail leaf or more each: every server split) */
    scenario_run(&b.sc);
    const struct sim *s = &a.sc.sim, *p = &b.sc.sim;
    assert_int_equal(s->n_flows, p->n_flows);
    uint32_t local = 0, split = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct qp *f = &s->flows[i], *g = &p->flows[i];
        assert_int_equal(g->state, FLOW_DONE);
        assert_int_equal(f->start, g->start);
        assert_int_equal(f->finish, g->finish);
        assert_int_equal(f->rcv_done, g->rcv_done);
        assert_int_equal(f->sport, g->sport);
        if (f->local) {
            local++;
            split += b.sc.part[f->src] != b.sc.part[f->dst]; /* (node ids) */
        }
    }
    assert_int_equal(local, 254 * 8 * 16 * 7); /* per step and channel, 7 NVLink hops in each of 16 servers */
    assert_int_equal(split, local);           /* each between two partitions */
    run_free(&a);
    run_free(&b);
}

/* The flat ring's hop between servers leaves by GPU 7's NIC and crosses a
 * spine, chosen by ECMP from the QP's 5-tuple. A QP (a host pair and channel)
 * keeps its source port and the spine its first message took, for every
 * message of both iterations; and the QPs do spread over the spines (so the
 * path is a choice that could change). */
static void test_rail_qp_paths(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, RAIL16 "size = 1MB\nhierarchy = flat\niterations = 2\ncompute_gap = 5us\n");
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct sim *s = &r.sc.sim;
    /* every message of a QP: the first one's port, and the first switch's out port */
    uint32_t n = 128, C = 8, *sport = malloc((size_t)n * n * C * sizeof *sport),
             *out = malloc((size_t)n * n * C * sizeof *out), *seen = calloc((size_t)n * n * C, sizeof *seen);
    uint32_t ports = 0, port[64], across = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct qp *f = &s->flows[i];
        assert_int_equal(f->path_switches, 0);
        /* listed step by step, each step channel by channel, n transfers each */
        assert_int_equal(r.sc.flows.v[i].step, i / (n * C) % 254);
        if (f->local)
            continue;
        across++;
        size_t k = ((size_t)s->host_index[f->src] * n + (size_t)s->host_index[f->dst]) * C + i / n % C;
        if (!seen[k]) {
            seen[k] = 1;
            sport[k] = f->sport;
            out[k] = f->lb_out;
            uint32_t j = 0;
            while (j < ports && port[j] != f->lb_out)
                j++;
            if (j == ports && ports < 64)
                port[ports++] = f->lb_out;
        } else {
            assert_int_equal(f->sport, sport[k]);
            assert_int_equal(f->lb_out, out[k]);
        }
    }
    assert_int_equal(across, 2 * 254 * 8 * 16); /* per iteration, step and channel: 16 hops between servers */
    assert_true(ports > 4); /* of the 16 uplinks of rail 7's leaf */
    free(sport);
    free(out);
    free(seen);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rail_ring_threads),
        cmocka_unit_test(test_rail_qp_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
