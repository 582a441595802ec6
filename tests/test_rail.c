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
#include "traffic/collective.h"

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

/* SimAI's topology templates, built by our generator: the same switches,
 * NIC links and switch links, wired the same way. The numbers are what
 * SimAI's astra-sim-alibabacloud/inputs/topo/gen_Topo_Template.py (b5ff47c)
 * writes for the arguments in each row; over its links, NVLink ones set
 * apart (SimAI's NVSwitch is a node, ours a model: topo.h), "fp" is the sum
 * mod 2^64 of mix(lo << 32 | hi) over every other link, lo < hi its node ids,
 * mix = splitmix64 (add 0x9e3779b97f4a7c15, then its finaliser). Our node ids
 * are mapped to SimAI's: port p of GPU g -> g; our switches in order ->
 * SimAI's ids after its GPUs and one NVSwitch per server (both list the
 * leaves side by side, asw_switch_1 then asw_switch_2, then the spines plane
 * by plane, psw_switch_1 then psw_switch_2). So fp is equal only if every
 * GPU's ports sit on the leaves SimAI gives them and every leaf on the same
 * spines. */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void test_simai_templates(void **st)
{
    (void)st;
    static const struct {
        const char *keys, *simai; /* ours; SimAI's generator arguments */
        uint32_t gpus, nvswitches, switches, links;
        uint64_t fp;
    } c[] = {
        {"servers = 4\nservers_per_leaf = 2\nspines = 4\n", "-topo Spectrum-X -g 32 -gps 8 -npa 2 -psn 4 -asn 16",
         32, 4, 20, 96, 0x8b0de5a2ec7bc1acULL},
        {"servers = 4\nservers_per_leaf = 2\nspines = 4\ndual_tor = on\n",
         "-topo AlibabaHPN -g 32 -gps 8 -npa 2 -psn 4 -asn 32", 32, 4, 36, 192, 0x3a91e6a5eb4fcc9cULL},
        {"servers = 4\nservers_per_leaf = 2\nspines = 4\nplanes = 2\n",
         "-topo AlibabaHPN --dp -g 32 -gps 8 -npa 2 -psn 8 -asn 32", 32, 4, 40, 192, 0xbe067a28a86e4c9bULL},
        {"servers = 4\nservers_per_leaf = 2\nspines = 4\nrail_optimised = off\n",
         "-topo DCN+ -g 32 -gps 8 -npa 16 -psn 4 -asn 2", 32, 4, 6, 40, 0xa967211bfe9f2b5cULL},
        {"servers = 4\nservers_per_leaf = 2\nspines = 4\nrail_optimised = off\ndual_tor = on\n",
         "-topo DCN+ --dt -g 32 -gps 8 -npa 16 -psn 4 -asn 4", 32, 4, 8, 80, 0xaac9b43c35b783abULL},
        {"servers = 16\nspines = 8\nplanes = 2\n", "-topo AlibabaHPN --dp -g 128 -gps 8 -psn 16 -asn 16", 128, 16, 32,
         384, 0xa77200e89754d1a9ULL},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        char ini[512];
        snprintf(ini, sizeof ini, "[topology]\ntype = rail\ngpus_per_server = 8\n%s[traffic]\npattern = none\n", c[k].keys);
        struct run r;
        run_setup(&r, ini);
        const struct topo *t = &r.sc.topo;
        uint32_t N = topo_traffic_hosts(t), sw = 0, M = N / t->gpus_per_server;
        uint64_t fp = 0;
        for (uint32_t n = 0; n < t->n_nodes; n++)
            sw += t->nodes[n].is_switch;
        for (uint32_t l = 0; l < t->n_links; l++) {
            uint64_t ab[2] = {t->links[l].a, t->links[l].b};
            for (int j = 0; j < 2; j++)
                ab[j] = t->host_index[ab[j]] >= 0 ? (uint64_t)t->host_index[ab[j]] % N : N + M + ab[j] - t->n_hosts;
            uint64_t lo = ab[0] < ab[1] ? ab[0] : ab[1], hi = ab[0] ^ ab[1] ^ lo;
            fp += mix64(lo << 32 | hi);
        }
        printf("%s: %u GPUs, %u switches, %u links, fp 0x%016llx\n", c[k].simai, N, sw, t->n_links, (unsigned long long)fp);
        assert_int_equal(N, c[k].gpus);
        assert_int_equal(M, c[k].nvswitches); /* one NVSwitch a server, a port for each of its GPUs */
        assert_int_equal(sw, c[k].switches);
        assert_int_equal(t->n_links, c[k].links);
        assert_true(fp == c[k].fp);
        run_free(&r);
    }
}

/* NCCL's rail-aligned rings on multi-port NICs (4 servers of 4 GPUs, 100
 * Gbps ports, mtu 4000, a 64 MB all-reduce): with C channels each server's
 * exit GPU of channel ch is GPU (ch - m - 1) mod G, so C = 2G gives every GPU
 * two queue pairs to the next server and round-robin puts them on its two
 * ports. busbw is then NCCL's 2 x G x 12.5 GB/s x 4000/4048 (payload per
 * wire byte) on the dual-plane and the dual-ToR fabric alike, and G x 12.5 x
 * 4000/4048 with one queue pair per GPU (C = G) or one port; within 1 %
 * below (the pipeline's fill and drain). Every message between servers
 * stays on one plane at both ends, each QP on its first message's port
 * through both iterations, and the ports carry equal shares. */
static void test_planes_ring_busbw(void **st)
{
    (void)st;
    static const struct {
        const char *keys;
        uint32_t C, ports_used;
    } c[] = {
        {"planes = 2\n", 8, 2}, {"dual_tor = on\n", 8, 2}, {"planes = 2\n", 4, 1},
        {"planes = 1\n", 8, 1}, {"rail_optimised = off\ndual_tor = on\n", 8, 2},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        char ini[512];
        snprintf(ini, sizeof ini, "[topology]\ntype = rail\nservers = 4\ngpus_per_server = 4\nspines = 4\n%s"
                 "[transport]\ncc = none\nmtu = 4000\nack_interval = 16\n"
                 "[traffic]\npattern = collective\nsize = 64MB\nplacement = rail\nhierarchy = rail\nchannels = %u\n"
                 "iterations = 2\n", c[k].keys, c[k].C);
        struct run r;
        double busbw = run_job_busbw(&r, ini, 64e6, COLL_RING_ALLREDUCE, 16);
        double nccl = c[k].ports_used * 4 * 12.5 * 4000.0 / 4048.0;
        printf("%s channels = %u: busbw %.3f GB/s, NCCL's %.3f\n", c[k].keys, c[k].C, busbw, nccl);
        assert_true(busbw <= nccl && busbw > 0.99 * nccl);
        const struct sim *s = &r.sc.sim;
        const struct topo *t = &r.sc.topo;
        uint32_t N = topo_traffic_hosts(t), on[2] = {0, 0};
        for (uint32_t i = 0; i < s->n_flows; i++) {
            const struct qp *f = &s->flows[i];
            uint32_t a = (uint32_t)s->host_index[f->src], b = (uint32_t)s->host_index[f->dst];
            if (f->local) {
                assert_true(a < N && b < N && a / 4 == b / 4); /* NVSwitch: the GPUs themselves */
                continue;
            }
            assert_int_equal(a / N, b / N); /* one port number at both ends */
            assert_true(a / N < 2);
            on[a / N]++;
            const struct flow_spec *fs = &r.sc.flows.v[i];
            for (uint32_t d = 0; d < fs->ndeps; d++) /* a QP's next message: its port */
                if (r.sc.flows.deps[fs->dep0 + d] & FLOW_DEP_QP)
                    assert_int_equal(s->flows[r.sc.flows.deps[fs->dep0 + d] & FLOW_DEP_ID].src, f->src);
        }
        assert_int_equal(on[0] + on[1], 2 * 30 * c[k].C * 4); /* iterations x steps x channels x servers */
        assert_int_equal(on[1], c[k].ports_used == 2 ? on[0] : 0);
        run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rail_ring_threads),
        cmocka_unit_test(test_rail_qp_paths),
        cmocka_unit_test(test_simai_templates),
        cmocka_unit_test(test_planes_ring_busbw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
