/* topo/partition.c: which node goes where, which links are cut, the lookahead. */
#include "testutil.h"
#include <stdlib.h>
#include <string.h>
#include "topo/partition.h"
#include "topo/topo.h"

#ifndef ROCESIM_SHARED_DIR
#error "ROCESIM_SHARED_DIR must name the shared data folder"
#endif
#define FAT_TXT ROCESIM_SHARED_DIR "/ns3-reference/fat.txt"

static struct topo make(int type, int64_t k)
{
    struct cfg_topology c;
    memset(&c, 0, sizeof c);
    c.type = type;
    c.k = k;
    c.leaves = 8, c.spines = 4, c.hosts_per_leaf = 4, c.senders = 2, c.receivers = 2;
    c.pods = 3, c.edges_per_pod = 2, c.aggs_per_pod = 2, c.hosts_per_edge = 2, c.cores = 4;
    c.host_link = c.fabric_link = 100000000000ULL;
    c.link_delay = T_US;
    struct topo t;
    struct err e;
    if (topo_generate(&t, &c, &e))
        fail_msg("%s", e.msg);
    return t;
}

/* Invariants of every partitioning: hosts sit with their switch, every
 * partition holds an edge switch, the cut list is exactly the links whose
 * ends differ, the lookahead is the smallest delay among them. */
static void check_common(const struct topo *t, const struct partition *pt)
{
    uint32_t *edges = calloc(pt->n_parts, sizeof *edges), hosts = 0, nodes = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        assert_true(pt->part[i] < pt->n_parts);
        if (t->nodes[i].is_switch && t->nodes[i].layer == LAYER_EDGE)
            edges[pt->part[i]]++;
    }
    for (uint32_t p = 0; p < pt->n_parts; p++) {
        assert_true(edges[p] > 0);
        hosts += pt->hosts[p], nodes += pt->nodes[p];
    }
    free(edges);
    assert_int_equal(hosts, t->n_hosts);
    assert_int_equal(nodes, t->n_nodes);
    for (uint32_t h = 0; h < t->n_hosts; h++) {
        uint32_t n = t->hosts[h];
        const struct topo_link *l = &t->links[t->adj_link[t->adj_off[n]]];
        assert_int_equal(pt->part[n], pt->part[l->a == n ? l->b : l->a]);
    }
    uint32_t c = 0;
    simtime_t la = T_NEVER;
    for (uint32_t l = 0; l < t->n_links; l++)
        if (pt->part[t->links[l].a] != pt->part[t->links[l].b]) {
            assert_true(c < pt->n_cut);
            assert_int_equal(pt->cut[c++], l);
            if (t->links[l].delay < la)
                la = t->links[l].delay;
        }
    assert_int_equal(c, pt->n_cut);
    assert_int_equal(pt->lookahead, la);
}

static uint32_t pod_of(const struct topo *t, uint32_t n)
{
    if (t->nodes[n].layer == LAYER_EDGE)
        return (n - t->first_edge) / t->n_edge_pp;
    return (n - t->first_agg) / t->n_agg_pp;
}

/* k = 4 fat-tree, auto: one partition per pod (its 2 edge, 2 agg switches and
 * 4 hosts), the 4 cores one per partition; only agg-core links are cut, all
 * but the one from each core into its own partition: 16 - 4 = 12. */
static void test_fattree_pods(void **state)
{
    (void)state;
    struct topo t = make(TOPO_FATTREE, 4);
    struct partition pt;
    struct err e;
    assert_int_equal(topo_partition(&pt, &t, 0, &e), 0);
    check_common(&t, &pt);
    assert_int_equal(pt.n_parts, 4);
    for (uint32_t n = t.first_edge; n < t.first_core; n++)
        assert_int_equal(pt.part[n], pod_of(&t, n));
    for (uint32_t c = 0; c < t.n_core; c++)
        assert_int_equal(pt.part[t.first_core + c], c);
    for (uint32_t p = 0; p < 4; p++) {
        assert_int_equal(pt.hosts[p], 4);
        assert_int_equal(pt.nodes[p], 4 + 4 + 1);
    }
    assert_int_equal(pt.n_cut, 12);
    for (uint32_t i = 0; i < pt.n_cut; i++) {
        const struct topo_link *l = &t.links[pt.cut[i]];
        uint8_t la = t.nodes[l->a].layer, lb = t.nodes[l->b].layer;
        assert_true((la == LAYER_AGG && lb == LAYER_CORE) || (la == LAYER_CORE && lb == LAYER_AGG));
    }
    assert_int_equal(pt.lookahead, T_US);
    partition_free(&pt);

    /* the lookahead is the cut links' delay, not the others': slow agg-core
     * links to 3 us and it follows them; cutting inside pods brings it back */
    for (uint32_t l = 0; l < t.n_links; l++)
        if (t.nodes[t.links[l].a].layer + t.nodes[t.links[l].b].layer == LAYER_AGG + LAYER_CORE)
            t.links[l].delay = 3 * T_US;
    assert_int_equal(topo_partition(&pt, &t, 4, &e), 0);
    assert_int_equal(pt.lookahead, 3 * T_US);
    partition_free(&pt);
    assert_int_equal(topo_partition(&pt, &t, 8, &e), 0);
    check_common(&t, &pt);
    assert_int_equal(pt.n_parts, 8); /* one edge switch each */
    assert_int_equal(pt.lookahead, T_US);
    /* each pod's two aggs spread over its two edge groups */
    for (uint32_t a = 0; a < t.n_agg; a++)
        assert_int_equal(pt.part[t.first_agg + a], a);
    partition_free(&pt);
    topo_free(&t);
}

/* Fewer partitions than pods: contiguous pods; more than edges: capped. */
static void test_fattree_counts(void **state)
{
    (void)state;
    struct topo t = make(TOPO_FATTREE, 8); /* 8 pods, 32 edges, 16 cores */
    struct partition pt;
    struct err e;
    assert_int_equal(topo_partition(&pt, &t, 2, &e), 0);
    check_common(&t, &pt);
    assert_int_equal(pt.n_parts, 2);
    for (uint32_t n = t.first_edge; n < t.first_core; n++)
        assert_int_equal(pt.part[n], pod_of(&t, n) / 4);
    assert_int_equal(pt.hosts[0], 64);
    assert_int_equal(pt.hosts[1], 64);
    for (uint32_t c = 0; c < t.n_core; c++) /* round-robin */
        assert_int_equal(pt.part[t.first_core + c], c % 2);
    partition_free(&pt);
    assert_int_equal(topo_partition(&pt, &t, 1000, &e), 0);
    assert_int_equal(pt.n_parts, 32);
    check_common(&t, &pt);
    partition_free(&pt);
    assert_int_equal(topo_partition(&pt, &t, 1, &e), 0);
    assert_int_equal(pt.n_parts, 1);
    assert_int_equal(pt.n_cut, 0);
    assert_int_equal(pt.lookahead, T_NEVER);
    partition_free(&pt);
    topo_free(&t);
}

/* Leaf-spine: groups of leaves with their hosts, spines spread. */
static void test_leafspine(void **state)
{
    (void)state;
    struct topo t = make(TOPO_LEAFSPINE, 0); /* 8 leaves, 4 spines */
    struct partition pt;
    struct err e;
    assert_int_equal(topo_partition(&pt, &t, 0, &e), 0);
    assert_int_equal(pt.n_parts, 8);
    check_common(&t, &pt);
    assert_int_equal(pt.n_cut, 8 * 4 - 4); /* every leaf-spine link but each spine's own */
    partition_free(&pt);
    assert_int_equal(topo_partition(&pt, &t, 2, &e), 0);
    check_common(&t, &pt);
    for (uint32_t i = 0; i < 8; i++)
        assert_int_equal(pt.part[t.first_edge + i], i / 4);
    for (uint32_t s = 0; s < 4; s++)
        assert_int_equal(pt.part[t.first_agg + s], s % 2);
    assert_int_equal(pt.n_cut, 4 * 4); /* each spine reaches the 4 leaves of the other half */
    partition_free(&pt);
    topo_free(&t);
}

/* Clos and dumbbell take the same rule. */
static void test_clos_dumbbell(void **state)
{
    (void)state;
    struct topo t = make(TOPO_CLOS, 0);
    struct partition pt;
    struct err e;
    assert_int_equal(topo_partition(&pt, &t, 0, &e), 0);
    assert_int_equal(pt.n_parts, 3);
    check_common(&t, &pt);
    for (uint32_t n = t.first_edge; n < t.first_core; n++)
        assert_int_equal(pt.part[n], pod_of(&t, n));
    partition_free(&pt);
    topo_free(&t);
    t = make(TOPO_DUMBBELL, 0);
    assert_int_equal(topo_partition(&pt, &t, 0, &e), 0);
    assert_int_equal(pt.n_parts, 2);
    check_common(&t, &pt);
    assert_int_equal(pt.n_cut, 1); /* the bottleneck */
    partition_free(&pt);
    topo_free(&t);
}

/* An ns-3 topology file (HPCC's fat.txt: 20 ToRs of 16 hosts): the fallback
 * groups ToRs in id order. */
static void test_ns3_file(void **state)
{
    (void)state;
    struct topo t;
    struct partition pt;
    struct err e;
    if (topo_read_ns3(&t, FAT_TXT, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(topo_partition(&pt, &t, 0, &e), 0);
    assert_int_equal(pt.n_parts, 20);
    check_common(&t, &pt);
    for (uint32_t p = 0; p < 20; p++)
        assert_int_equal(pt.hosts[p], 16);
    assert_int_equal(pt.lookahead, 1000 * T_NS);
    partition_free(&pt);
    assert_int_equal(topo_partition(&pt, &t, 4, &e), 0);
    check_common(&t, &pt);
    for (uint32_t p = 0; p < 4; p++)
        assert_int_equal(pt.hosts[p], 80);
    partition_free(&pt);
    topo_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fattree_pods), cmocka_unit_test(test_fattree_counts),
        cmocka_unit_test(test_leafspine),    cmocka_unit_test(test_clos_dumbbell),
        cmocka_unit_test(test_ns3_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
