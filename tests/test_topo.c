/* Topology generators, the ns-3 topology parser and ns-3-style routing. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenario/config.h"
#include "topo/topo.h"
#include "net/lb.h"

#ifndef ROCESIM_SHARED_DIR
#error "ROCESIM_SHARED_DIR must name the shared data folder"
#endif
#define FAT_TXT ROCESIM_SHARED_DIR "/ns3-reference/fat.txt"
#define TOPOLOGY_TXT ROCESIM_SHARED_DIR "/ns3-reference/topology.txt"

static struct cfg_topology cfg(int type)
{
    struct cfg_topology c;
    memset(&c, 0, sizeof c);
    c.type = type;
    c.leaves = 8, c.spines = 8, c.hosts_per_leaf = 16, c.k = 4, c.senders = 2, c.receivers = 2;
    c.host_link = c.fabric_link = 100000000000ULL;
    c.link_delay = T_US;
    return c;
}

/* Structural invariants every topology must satisfy. */
static void check_index(const struct topo *t)
{
    uint32_t h = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        if (t->nodes[i].is_switch) {
            assert_int_equal(t->host_index[i], -1);
            assert_true(t->nodes[i].layer >= LAYER_EDGE && t->nodes[i].layer <= LAYER_CORE);
        } else {
            assert_int_equal(t->host_index[i], h);
            assert_int_equal(t->hosts[h++], i);
            assert_int_equal(t->nodes[i].layer, LAYER_HOST);
        }
    }
    assert_int_equal(h, t->n_hosts);
    assert_int_equal(t->adj_off[t->n_nodes], 2 * t->n_links);
    for (uint32_t i = 0; i < t->n_nodes; i++)
        for (uint32_t p = t->adj_off[i]; p < t->adj_off[i + 1]; p++) {
            const struct topo_link *l = &t->links[t->adj_link[p]];
            assert_true(l->a == i || l->b == i);
            if (p > t->adj_off[i]) /* ports in file order */
                assert_true(t->adj_link[p] > t->adj_link[p - 1]);
            assert_ptr_equal(topo_link_between(t, l->a, l->b), l);
            assert_ptr_equal(topo_link_between(t, l->b, l->a), l);
        }
}

/* Generated layers must agree with what topo_assign_layers derives. */
static void check_layers_derived(struct topo *t)
{
    uint8_t saved[4096];
    assert_true(t->n_nodes <= 4096);
    for (uint32_t i = 0; i < t->n_nodes; i++)
        saved[i] = t->nodes[i].layer;
    topo_assign_layers(t);
    for (uint32_t i = 0; i < t->n_nodes; i++)
        assert_int_equal(t->nodes[i].layer, saved[i]);
}

static void test_leafspine(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_LEAFSPINE);
    struct topo t;
    struct routes r;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_hosts, 128);
    assert_int_equal(t.n_nodes, 144); /* 128 hosts + 8 leaves + 8 spines */
    assert_int_equal(t.n_links, 128 + 64);
    check_index(&t);
    check_layers_derived(&t);
    assert_int_equal(t.nodes[128].layer, LAYER_EDGE);
    assert_int_equal(t.nodes[135].layer, LAYER_EDGE);
    assert_int_equal(t.nodes[136].layer, LAYER_AGG);
    assert_int_equal(t.nodes[143].layer, LAYER_AGG);
    assert_int_equal(t.links[17].a, 17);
    assert_int_equal(t.links[17].b, 129);
    assert_int_equal(routes_build(&r, &t, &e), 0);
    for (uint32_t s = 0; s < 128; s++)
        for (uint32_t d = 0; d < 128; d++) {
            struct path_info p;
            if (s == d) {
                assert_int_equal(routes_path(&r, &t, s, d, 1000, &p), -1);
                continue;
            }
            assert_int_equal(routes_path(&r, &t, s, d, 1000, &p), 0);
            assert_int_equal(p.hops, s / 16 == d / 16 ? 2 : 4);
            assert_int_equal(p.delay, p.hops * T_US);
        }
    int n;
    const uint32_t *nx = routes_next(&r, 128, 16, &n); /* leaf 0 toward host 16 (leaf 1) */
    assert_int_equal(n, 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(nx[i], 136 + i);
    nx = routes_next(&r, 5, 100, &n); /* host -> its leaf */
    assert_int_equal(n, 1);
    assert_int_equal(nx[0], 128);
    nx = routes_next(&r, 136, 100, &n); /* spine -> leaf of host 100 */
    assert_int_equal(n, 1);
    assert_int_equal(nx[0], 128 + 100 / 16);
    nx = routes_next(&r, 129, 16, &n); /* leaf 1 -> its own host */
    assert_int_equal(n, 1);
    assert_int_equal(nx[0], 16);
    routes_next(&r, 16, 16, &n); /* the host itself */
    assert_int_equal(n, 0);
    routes_free(&r);
    topo_free(&t);
}

static void test_fattree(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_FATTREE);
    struct topo t;
    struct routes r;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_hosts, 16);
    assert_int_equal(t.n_nodes - t.n_hosts, 20);
    assert_int_equal(t.n_links, 48);
    check_index(&t);
    check_layers_derived(&t);
    int layers[4] = {0};
    for (uint32_t i = 0; i < t.n_nodes; i++)
        layers[t.nodes[i].layer]++;
    assert_int_equal(layers[LAYER_EDGE], 8);
    assert_int_equal(layers[LAYER_AGG], 8);
    assert_int_equal(layers[LAYER_CORE], 4);
    /* agg j of each pod reaches cores j*2, j*2+1: agg 24 (pod 0, j 0) -> cores 32, 33 */
    assert_non_null(topo_link_between(&t, 24, 32));
    assert_non_null(topo_link_between(&t, 24, 33));
    assert_null(topo_link_between(&t, 24, 34));
    assert_non_null(topo_link_between(&t, 25, 34));
    assert_int_equal(routes_build(&r, &t, &e), 0);
    struct path_info p;
    assert_int_equal(routes_path(&r, &t, 0, 15, 1000, &p), 0);
    assert_int_equal(p.hops, 6);
    assert_int_equal(routes_path(&r, &t, 0, 3, 1000, &p), 0); /* same pod, other edge */
    assert_int_equal(p.hops, 4);
    assert_int_equal(routes_path(&r, &t, 0, 1, 1000, &p), 0);
    assert_int_equal(p.hops, 2);
    int n;
    const uint32_t *nx = routes_next(&r, 16, 15, &n); /* edge 16 toward a pod-3 host: its 2 aggs */
    assert_int_equal(n, 2);
    assert_int_equal(nx[0], 24);
    assert_int_equal(nx[1], 25);
    nx = routes_next(&r, 24, 15, &n); /* agg -> its 2 cores */
    assert_int_equal(n, 2);
    assert_int_equal(nx[0], 32);
    assert_int_equal(nx[1], 33);
    nx = routes_next(&r, 32, 15, &n); /* core -> the one agg in pod 3 */
    assert_int_equal(n, 1);
    assert_int_equal(nx[0], 30);
    routes_free(&r);
    topo_free(&t);

    c.k = 5;
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_string_equal(e.msg, "topology.k must be even (got 5)");
    c.k = 0;
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "topology.k: "));
}

static void test_dumbbell(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_DUMBBELL);
    struct topo t;
    struct routes r;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_nodes, 6);
    assert_int_equal(t.n_links, 5);
    assert_int_equal(t.n_hosts, 4);
    check_index(&t);
    check_layers_derived(&t);
    assert_int_equal(t.links[4].a, 4);
    assert_int_equal(t.links[4].b, 5);
    assert_int_equal(routes_build(&r, &t, &e), 0);
    struct path_info p;
    assert_int_equal(routes_path(&r, &t, 0, 2, 1000, &p), 0);
    assert_int_equal(p.hops, 3);
    assert_int_equal(routes_path(&r, &t, 0, 1, 1000, &p), 0);
    assert_int_equal(p.hops, 2);
    routes_free(&r);
    topo_free(&t);
}

static void test_generator_errors(void **state)
{
    (void)state;
    struct topo t;
    struct err e;
    struct cfg_topology c = cfg(TOPO_LEAFSPINE);
    c.leaves = 0;
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_string_equal(e.msg, "topology.leaves: must be at least 1 (got 0)");
    c = cfg(TOPO_LEAFSPINE);
    c.hosts_per_leaf = 1LL << 40;
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "topology.hosts_per_leaf: "));
    c = cfg(TOPO_LEAFSPINE);
    c.leaves = c.spines = c.hosts_per_leaf = 1 << 20; /* 2^40 hosts */
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "too large"));
    c = cfg(TOPO_DUMBBELL);
    c.receivers = -3;
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_string_equal(e.msg, "topology.receivers: must be at least 1 (got -3)");
    c = cfg(TOPO_DUMBBELL);
    c.host_link = 0;
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "topology.host_link"));
    c = cfg(TOPO_FILE);
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "topology.file"));
    snprintf(c.file, sizeof c.file, "%s", FAT_TXT);
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_hosts, 320);
    topo_free(&t);
    topo_free(&t); /* idempotent */
}

static void test_fat_txt(void **state)
{
    (void)state;
    struct topo t;
    struct routes r;
    struct err e;
    int rc = topo_read_ns3(&t, FAT_TXT, &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_int_equal(t.n_nodes, 376);
    assert_int_equal(t.n_nodes - t.n_hosts, 56);
    assert_int_equal(t.n_links, 480);
    assert_int_equal(t.n_hosts, 320);
    check_index(&t);
    for (uint32_t i = 0; i < 320; i++)
        assert_int_equal(t.hosts[i], i);
    /* 20 ToRs (16 hosts + 4 aggs each), 20 aggs (4 ToRs + 4 cores), 16 cores (5 aggs). */
    int layers[4] = {0};
    for (uint32_t i = 0; i < t.n_nodes; i++)
        layers[t.nodes[i].layer]++;
    assert_int_equal(layers[LAYER_HOST], 320);
    assert_int_equal(layers[LAYER_EDGE], 20);
    assert_int_equal(layers[LAYER_AGG], 20);
    assert_int_equal(layers[LAYER_CORE], 16);
    assert_int_equal(t.nodes[320].layer, LAYER_EDGE);
    assert_int_equal(t.nodes[340].layer, LAYER_AGG);
    assert_int_equal(t.nodes[375].layer, LAYER_CORE);
    assert_int_equal(t.adj_off[321] - t.adj_off[320], 20);
    assert_int_equal(t.links[0].rate, 100000000000ULL);
    assert_int_equal(t.links[479].rate, 400000000000ULL);
    assert_int_equal(t.links[0].delay, 1000 * T_NS);

    assert_int_equal(routes_build(&r, &t, &e), 0);
    struct path_info p;
    /* hosts 0 and 319 sit in different pods: host-ToR-agg-core-agg-ToR-host */
    assert_int_equal(routes_path(&r, &t, 0, 319, 1000, &p), 0);
    assert_int_equal(p.hops, 6);
    assert_int_equal(p.delay, 6 * T_US);
    assert_int_equal(p.bw, 100000000000ULL);
    /* 1000 B: 80 ns on the two 100G host links, 20 ns on the four 400G links */
    assert_int_equal(p.tx_delay, 2 * 80 * T_NS + 4 * 20 * T_NS);
    assert_int_equal(routes_path(&r, &t, 0, 15, 1000, &p), 0); /* same ToR */
    assert_int_equal(p.hops, 2);
    assert_int_equal(routes_path(&r, &t, 0, 16, 1000, &p), 0); /* same pod, other ToR */
    assert_int_equal(p.hops, 4);
    int n;
    const uint32_t *nx = routes_next(&r, 320, t.host_index[319], &n); /* ToR 320: its 4 aggs */
    assert_int_equal(n, 4);
    for (int i = 1; i < n; i++)
        assert_true(nx[i] > nx[i - 1]);
    nx = routes_next(&r, 340, t.host_index[319], &n); /* agg: its 4 cores */
    assert_int_equal(n, 4);
    /* every host pair is reachable */
    for (uint32_t s = 0; s < 320; s++)
        for (uint32_t d = 0; d < 320; d++)
            if (s != d) {
                routes_next(&r, s, d, &n);
                assert_int_equal(n, 1);
            }
    routes_free(&r);
    topo_free(&t);
}

static void test_payload_tx(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_LEAFSPINE);
    struct topo t;
    struct routes r;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(routes_build(&r, &t, &e), 0);
    struct path_info p;
    assert_int_equal(routes_path(&r, &t, 0, 127, 1000, &p), 0);
    assert_int_equal(p.hops, 4);
    assert_int_equal(p.tx_delay, 4 * 80 * T_NS);
    assert_int_equal(p.bw, 100000000000ULL);
    assert_int_equal(routes_path(&r, &t, 0, 128, 1000, &p), -1); /* dst is a switch */
    assert_int_equal(routes_path(&r, &t, 0, 9999, 1000, &p), -1);
    routes_free(&r);
    topo_free(&t);
}

static uint32_t degree(const struct topo *t, uint32_t n) { return t->adj_off[n + 1] - t->adj_off[n]; }

/* FLB's (ATC'25, Fig. 17) 12-pod Clos: 6 edge, 6 aggregation and 84 hosts per
 * pod, 36 cores; the paper counts 36 paths between pods. */
static void test_clos_flb(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_CLOS);
    c.pods = 12, c.edges_per_pod = 6, c.aggs_per_pod = 6, c.hosts_per_edge = 14, c.cores = 36;
    struct topo t;
    struct routes r;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_hosts, 1008);
    assert_int_equal(t.n_nodes, 1008 + 72 + 72 + 36);
    assert_int_equal(t.n_links, 1008 + 12 * 6 * 6 + 72 * 6);
    check_index(&t);
    check_layers_derived(&t);
    uint32_t edge0 = 1008, agg0 = 1008 + 72, core0 = 1008 + 144;
    for (uint32_t i = 0; i < 72; i++) {
        assert_int_equal(t.nodes[edge0 + i].layer, LAYER_EDGE);
        assert_int_equal(degree(&t, edge0 + i), 14 + 6);
        assert_int_equal(t.nodes[agg0 + i].layer, LAYER_AGG);
        assert_int_equal(degree(&t, agg0 + i), 6 + 36 / 6);
    }
    for (uint32_t i = 0; i < 36; i++) {
        assert_int_equal(t.nodes[core0 + i].layer, LAYER_CORE);
        assert_int_equal(degree(&t, core0 + i), 12); /* one aggregation per pod */
    }
    /* striping: aggregation j of every pod reaches cores 6j .. 6j+5 */
    assert_non_null(topo_link_between(&t, agg0 + 6 * 5 + 2, core0 + 12));
    assert_non_null(topo_link_between(&t, agg0 + 6 * 5 + 2, core0 + 17));
    assert_null(topo_link_between(&t, agg0 + 6 * 5 + 2, core0 + 18));
    assert_int_equal(routes_build(&r, &t, &e), 0);
    /* host 0 (pod 0) to host 1007 (pod 11): 6 aggregations x 6 cores = 36 paths */
    uint32_t hi = (uint32_t)t.host_index[1007];
    int n, paths = 0;
    const uint32_t *up = routes_next(&r, edge0, hi, &n);
    assert_int_equal(n, 6);
    for (int i = 0; i < n; i++) {
        int m;
        routes_next(&r, up[i], hi, &m);
        assert_int_equal(m, 6);
        paths += m;
    }
    assert_int_equal(paths, 36);
    routes_next(&r, core0, hi, &n);
    assert_int_equal(n, 1);
    struct path_info p;
    assert_int_equal(routes_path(&r, &t, 0, 1007, 1000, &p), 0);
    assert_int_equal(p.hops, 6);
    /* within a pod, across edges: through the 6 aggregations only */
    assert_int_equal(routes_path(&r, &t, 0, 14, 1000, &p), 0);
    assert_int_equal(p.hops, 4);
    routes_free(&r);
    topo_free(&t);
}

/* With the fat-tree's numbers the Clos is the same graph, link for link. */
static void test_clos_is_fattree(void **state)
{
    (void)state;
    struct cfg_topology f = cfg(TOPO_FATTREE), c = cfg(TOPO_CLOS);
    f.k = 6;
    c.pods = 6, c.edges_per_pod = 3, c.aggs_per_pod = 3, c.hosts_per_edge = 3, c.cores = 9;
    struct topo a, b;
    struct err e;
    assert_int_equal(topo_generate(&a, &f, &e), 0);
    assert_int_equal(topo_generate(&b, &c, &e), 0);
    assert_int_equal(a.n_nodes, b.n_nodes);
    assert_int_equal(a.n_links, b.n_links);
    for (uint32_t l = 0; l < a.n_links; l++) {
        assert_int_equal(a.links[l].a, b.links[l].a);
        assert_int_equal(a.links[l].b, b.links[l].b);
    }
    for (uint32_t i = 0; i < a.n_nodes; i++)
        assert_int_equal(a.nodes[i].layer, b.nodes[i].layer);
    topo_free(&a);
    topo_free(&b);
}

static void test_clos_errors(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_CLOS);
    c.pods = 2, c.edges_per_pod = 2, c.aggs_per_pod = 4, c.hosts_per_edge = 2, c.cores = 6;
    struct topo t;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "topology.cores: 6 cores"));
    c.cores = 8;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    topo_free(&t);
    c.pods = 0;
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "topology.pods"));
}

/* FLB's leaf-spine (ATC'25, sec. 4.3): 10 x 10 at 40 Gbps, 3:1, so 30 hosts per leaf. */
static void test_oversubscription(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_LEAFSPINE);
    c.leaves = 10, c.spines = 10, c.hosts_per_leaf = 1, c.oversubscription = 3;
    c.host_link = c.fabric_link = 40000000000ULL;
    struct topo t;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_hosts, 300);
    assert_int_equal(degree(&t, 300), 30 + 10);
    topo_free(&t);
    c.fabric_link = 100000000000ULL; /* 3 x 10 x 100G / 40G = 75 */
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_hosts, 750);
    topo_free(&t);
    c.oversubscription = 2.5, c.spines = 3, c.fabric_link = c.host_link;
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "7.5 hosts per edge switch, not a whole number"));
    /* clos: per edge, its uplinks are the pod's aggregation switches */
    struct cfg_topology k = cfg(TOPO_CLOS);
    k.pods = 2, k.edges_per_pod = 2, k.aggs_per_pod = 2, k.cores = 2, k.oversubscription = 2;
    assert_int_equal(topo_generate(&t, &k, &e), 0);
    assert_int_equal(t.n_hosts, 2 * 2 * 4);
    topo_free(&t);
}

static void check_names(const struct topo *t)
{
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        char name[64], id[16];
        uint32_t x = UINT32_MAX;
        topo_node_name(t, i, name, sizeof name);
        assert_int_equal(topo_node_find(t, name, &x), 0);
        assert_int_equal(x, i);
        snprintf(id, sizeof id, "%u", i);
        assert_int_equal(topo_node_find(t, id, &x), 0);
        assert_int_equal(x, i);
    }
    uint32_t x;
    char id[16];
    snprintf(id, sizeof id, "%u", t->n_nodes);
    assert_int_equal(topo_node_find(t, id, &x), -1);
    assert_int_equal(topo_node_find(t, "", &x), -1);
    assert_int_equal(topo_node_find(t, "-1", &x), -1);
}

static void test_node_names(void **state)
{
    (void)state;
    struct topo t;
    struct err e;
    uint32_t x;
    char buf[32];
    struct cfg_topology c = cfg(TOPO_LEAFSPINE);
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    check_names(&t);
    assert_int_equal(topo_node_find(&t, "leaf7", &x), 0);
    assert_int_equal(x, 128 + 7);
    assert_int_equal(topo_node_find(&t, "spine0", &x), 0);
    assert_int_equal(x, 136);
    assert_int_equal(topo_node_find(&t, "host127", &x), 0);
    assert_int_equal(x, 127);
    assert_int_equal(topo_node_find(&t, "leaf8", &x), -1);
    assert_int_equal(topo_node_find(&t, "leaf 1", &x), -1);
    assert_int_equal(topo_node_find(&t, "edge0.0", &x), -1);
    topo_free(&t);
    c = cfg(TOPO_FATTREE);
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    check_names(&t);
    topo_node_name(&t, 16 + 3, buf, sizeof buf); /* 4th edge: pod 1, second */
    assert_string_equal(buf, "edge1.1");
    topo_node_name(&t, 16 + 8 + 5, buf, sizeof buf);
    assert_string_equal(buf, "agg2.1");
    topo_node_name(&t, 16 + 16 + 3, buf, sizeof buf);
    assert_string_equal(buf, "core3");
    assert_int_equal(topo_node_find(&t, "edge1.2", &x), -1); /* 2 per pod */
    assert_int_equal(topo_node_find(&t, "edge4.0", &x), -1);
    topo_free(&t);
    c = cfg(TOPO_DUMBBELL);
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    check_names(&t);
    assert_int_equal(topo_node_find(&t, "s1", &x), 0);
    assert_int_equal(x, 5);
    topo_free(&t);
    c = cfg(TOPO_FILE);
    strcpy(c.file, FAT_TXT);
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    check_names(&t);
    assert_int_equal(topo_node_find(&t, "host0", &x), -1); /* files: ids only */
    topo_free(&t);
}

static void test_link_rates(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_LEAFSPINE);
    c.leaves = 2, c.spines = 2, c.hosts_per_leaf = 2;
    strcpy(c.link_rate, " leaf0-spine1:25Gbps, 2-leaf1 : 10G,spine0-leaf1:40Gbps ");
    struct topo t;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(topo_link_between(&t, 4, 7)->rate, 25000000000ULL);
    assert_int_equal(topo_link_between(&t, 7, 4)->rate, 25000000000ULL);
    assert_int_equal(topo_link_between(&t, 2, 5)->rate, 10000000000ULL);
    assert_int_equal(topo_link_between(&t, 5, 6)->rate, 40000000000ULL);
    assert_int_equal(topo_link_between(&t, 4, 6)->rate, 100000000000ULL);
    topo_free(&t);
    static const struct { const char *spec, *msg; } bad[] = {
        {"leaf0-spine2:25Gbps", "no node 'spine2'"},
        {"leaf0-leaf1:25Gbps", "no link between leaf0 (node 4) and leaf1 (node 5)"},
        {"leaf0-spine1", "expected NODE-NODE:RATE"},
        {"leaf0-spine1:fast", "'leaf0-spine1:fast'"},
        {"leaf0-spine1:0", "'leaf0-spine1:0'"},
        {"leaf0:25G", "expected NODE-NODE"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        strcpy(c.link_rate, bad[i].spec);
        assert_int_equal(topo_generate(&t, &c, &e), -1);
        if (!strstr(e.msg, bad[i].msg) || strncmp(e.msg, "topology.link_rate: ", 20) != 0)
            fail_msg("%s: got '%s'", bad[i].spec, e.msg);
    }
}

static void test_fail_spec(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_LEAFSPINE);
    c.leaves = 2, c.spines = 4, c.hosts_per_leaf = 2;
    strcpy(c.fail, "leaf0-spine1@1ms, spine3-leaf1@10us-2.5ms");
    struct topo t;
    struct routes r;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_fails, 2);
    assert_ptr_equal(&t.links[t.fails[0].link], topo_link_between(&t, 4, 7));
    assert_int_equal(t.fails[0].down, T_MS);
    assert_int_equal(t.fails[0].up, T_NEVER);
    assert_ptr_equal(&t.links[t.fails[1].link], topo_link_between(&t, 5, 9));
    assert_int_equal(t.fails[1].down, 10 * T_US);
    assert_int_equal(t.fails[1].up, 2500 * T_US);
    /* routing leaves a failed link out: leaf0 reaches leaf1's hosts by 3 spines, spine1 by a detour */
    t.links[t.fails[0].link].down = true;
    assert_int_equal(routes_build(&r, &t, &e), 0);
    int n;
    routes_next(&r, 4, 2, &n);
    assert_int_equal(n, 3);
    const uint32_t *nx = routes_next(&r, 7, 0, &n); /* spine1 toward host 0 (leaf0): via leaf1 */
    assert_int_equal(n, 1);
    assert_int_equal(nx[0], 5);
    routes_free(&r);
    topo_free(&t);
    static const struct { const char *spec, *msg; } bad[] = {
        {"leaf0-spine1", "expected NODE-NODE@TIME"},
        {"leaf0-spine1@1", "'leaf0-spine1@1'"},
        {"leaf0-spine1@2ms-1ms", "comes back up before it fails"},
        {"leaf0-spine1@1ms-3ms,leaf0-spine1@2ms", "overlaps an earlier failure"},
        {"leaf1-host0@1ms", "no link between"},
        {"leaf0-spine9@1ms", "no node 'spine9'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        strcpy(c.fail, bad[i].spec);
        assert_int_equal(topo_generate(&t, &c, &e), -1);
        if (!strstr(e.msg, bad[i].msg) || strncmp(e.msg, "topology.fail: ", 15) != 0)
            fail_msg("%s: got '%s'", bad[i].spec, e.msg);
    }
    strcpy(c.fail, "leaf0-spine1@1ms-2ms, leaf0-spine1@2ms"); /* back-to-back is fine */
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_fails, 2);
    assert_int_equal(topo_check_fails_connected(&t, &e), 0);
    topo_free(&t);
    /* a host whose only link fails for good could never finish its flows */
    strcpy(c.fail, "leaf1-host3@1ms");
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(topo_check_fails_connected(&t, &e), -1);
    assert_non_null(strstr(e.msg, "cut host3 off from host0"));
    topo_free(&t);
    strcpy(c.fail, "leaf1-host3@1ms-2ms");
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(topo_check_fails_connected(&t, &e), 0);
    topo_free(&t);
    /* every spine of leaf0 gone: partitioned */
    strcpy(c.fail, "leaf0-spine0@1ms, leaf0-spine1@1ms, leaf0-spine2@1ms, leaf0-spine3@2ms");
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(topo_check_fails_connected(&t, &e), -1);
    topo_free(&t);
}

/* PCN's parking lot (Fig. 19(a)): 5 switches in a chain, 2 hosts each. */
static void test_parkinglot(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_PARKINGLOT);
    c.chain = 5, c.hosts_per_switch = 2;
    struct topo t;
    struct routes r;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_hosts, 10);
    assert_int_equal(t.n_nodes, 15);
    assert_int_equal(t.n_links, 10 + 4);
    check_index(&t);
    check_layers_derived(&t);
    check_names(&t);
    assert_int_equal(degree(&t, 10), 3); /* s0: 2 hosts + s1 */
    assert_int_equal(degree(&t, 12), 4); /* s2: 2 hosts + s1 + s3 */
    assert_int_equal(degree(&t, 14), 3);
    assert_int_equal(routes_build(&r, &t, &e), 0);
    struct path_info p;
    assert_int_equal(routes_path(&r, &t, 0, 9, 1000, &p), 0); /* F0: every bottleneck */
    assert_int_equal(p.hops, 2 + 4);
    assert_int_equal(routes_path(&r, &t, 3, 4, 1000, &p), 0); /* F2: s1 -> s2 only */
    assert_int_equal(p.hops, 3);
    routes_free(&r);
    topo_free(&t);
    c.chain = 1;
    assert_int_equal(topo_generate(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "topology.chain"));
}

/* A small valid file: hosts need not be 0..H-1 (switches 0 and 5). */
static const char small_ok[] =
    "6 2 5\n"
    "0 5\n"
    "1 0 100Gbps 1000ns 0\n"
    "2 0 25Gbps 0.001ms 0.000000\n"
    "0 5 400Gbps 1us 0\n"
    "3 5 100Gbps 1us 0\n"
    "5 4 100Gbps 1us 0\n";

static void test_parse_small(void **state)
{
    (void)state;
    struct topo t;
    struct routes r;
    struct err e;
    assert_int_equal(topo_parse_ns3(&t, small_ok, "s.txt", &e), 0);
    assert_int_equal(t.n_hosts, 4);
    uint32_t want[4] = {1, 2, 3, 4};
    for (int i = 0; i < 4; i++)
        assert_int_equal(t.hosts[i], want[i]);
    assert_int_equal(t.host_index[0], -1);
    assert_int_equal(t.host_index[3], 2);
    assert_int_equal(t.nodes[0].layer, LAYER_EDGE);
    assert_int_equal(t.nodes[5].layer, LAYER_EDGE);
    assert_int_equal(t.links[1].rate, 25000000000ULL);
    assert_int_equal(t.links[1].delay, T_US);
    check_index(&t);
    /* ports of switch 0 in file order: links 0, 1, 2 */
    assert_int_equal(t.adj_off[1] - t.adj_off[0], 3);
    assert_int_equal(t.adj_link[t.adj_off[0] + 2], 2);
    assert_int_equal(routes_build(&r, &t, &e), 0);
    struct path_info p;
    assert_int_equal(routes_path(&r, &t, 1, 4, 1000, &p), 0);
    assert_int_equal(p.hops, 3);
    assert_int_equal(p.bw, 100000000000ULL);
    routes_free(&r);
    topo_free(&t);

    /* tokens, not lines: ns-3 reads with >>, so line breaks are free */
    assert_int_equal(topo_parse_ns3(&t, "3 1\n2\n 0\n2\t0 1G 1us\n0 1 0 1G\r\n1us 0\n\n\n", "s.txt", &e), 0);
    assert_int_equal(t.n_links, 2);
    topo_free(&t);

    /* a switch-only file: no hosts, routes are empty */
    assert_int_equal(topo_parse_ns3(&t, "2 2 1\n0 1\n0 1 1G 1us 0\n", "s.txt", &e), 0);
    assert_int_equal(t.n_hosts, 0);
    assert_int_equal(routes_build(&r, &t, &e), 0);
    routes_free(&r);
    topo_free(&t);

    /* disconnected: two islands; cross-island is cnt 0 */
    assert_int_equal(topo_parse_ns3(&t, "6 2 4\n4 5\n0 4 1G 1us 0\n1 4 1G 1us 0\n2 5 1G 1us 0\n3 5 1G 1us 0\n",
                                    "s.txt", &e), 0);
    assert_int_equal(routes_build(&r, &t, &e), 0);
    assert_int_equal(routes_path(&r, &t, 0, 2, 1000, &p), -1);
    assert_int_equal(routes_path(&r, &t, 0, 1, 1000, &p), 0);
    int n;
    routes_next(&r, 4, 2, &n);
    assert_int_equal(n, 0);
    routes_free(&r);
    topo_free(&t);
}

struct bad {
    const char *text;
    const char *msg; /* exact expected message */
};

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct bad cases[] = {
        {"", "f:1: file ends early: expected the node count (the first line is \"nodes switches links\")"},
        {"\n\n", "f:1: file ends early: expected the node count (the first line is \"nodes switches links\")"},
        {"6 2\n", "f:1: file ends early: expected the link count (the first line is \"nodes switches links\")"},
        {"6 x 5\n", "f:1: switch count: expected a whole number, got \"x\""},
        {"-6 2 5\n", "f:1: node count: expected a whole number, got \"-6\""},
        {"0 0 0\n", "f:1: the file declares 0 nodes"},
        {"300000000 0 200000000\n", "f:1: 300000000 nodes is too many (at most 268435455)"},
        {"6 7 5\n", "f:1: 7 switches but only 6 nodes"},
        {"376 56 100\n", "f:1: 376 nodes with 56 switches means 320 hosts, but 100 links can connect at most 200 of "
                         "them (rocesim models one NIC per host: every host needs exactly one link)"},
        /* truncated: reported on the last line, naming what is missing */
        {"6 2 5\n0\n", "f:2: file ends early: expected switch id 2 of 2"},
        {"6 2 5\n0 5\n1 0 100Gbps 1000ns 0\n2 0 25Gbps\n\n",
         "f:4: file ends early: link 2 of 5 is missing its delay"},
        {"6 2 5\n0 5\n1 0 100Gbps 1000ns 0\n2 0 25Gbps 1us 0\n0 5 1G 1us 0\n3 5 1G 1us 0\n",
         "f:6: file ends early: link 5 of 5 is missing its first node"},
        /* switch ids */
        {"6 2 5\n0 6\n", "f:2: switch id 6 does not exist (the file declares 6 nodes, 0..5)"},
        {"6 2 5\n0\n0\n", "f:3: switch 0 is listed twice"},
        {"6 2 5\n0 s\n", "f:2: switch id 2 of 2: expected a node id, got \"s\""},
        /* links */
        {"6 2 5\n0 5\n1 0 100Gbps 1000ns 0\n2 400 1G 1us 0\n",
         "f:4: link 2: node 400 does not exist (the file declares 6 nodes)"},
        {"6 2 5\n0 5\n1 0 100Gbps 1000ns 0\n2 0 1G 1us 0\n5 5 1G 1us 0\n", "f:5: link 3 joins node 5 to itself"},
        {"6 2 6\n0 5\n1 0 1G 1us 0\n2 0 1G 1us 0\n0 5 1G 1us 0\n3 5 1G 1us 0\n5 0 1G 1us 0\n4 5 1G 1us 0\n",
         "f:7: link 5 joins nodes 5 and 0 again (link 3, line 5, already does)"},
        {"6 2 5\n0 5\n1 0 100Gbs 1000ns 0\n",
         "f:3: link 1: bad rate \"100Gbs\": unknown rate unit (use e.g. 100Gbps, 25G, 100Mb/s)"},
        {"6 2 5\n0 5\n1 0 0Gbps 1000ns 0\n",
         "f:3: link 1: bad rate \"0Gbps\": rate out of range (1 bps .. 1000 Tbps)"},
        {"6 2 5\n0 5\n1 0 1G\n1000 0\n", "f:3: link 1 has 3 of its 5 fields (first node, second node, rate, delay, error "
                                           "rate) on this line: is its delay missing? (read on as ns-3 would: f:4: link 1: "
                                           "bad delay \"1000\": time needs a unit (ps, ns, us, ms, s))"},
        /* a line without its error rate: the next line's first node is read as one, and the error is put where it is */
        {"4 1 3\n3\n0 3 1G 1us 0\n1 3 1G 1us\n2 3 1G 1us 0\n", "f:4: link 2 has 4 of its 5 fields (first node, second "
                                                               "node, rate, delay, error rate) on this line: is its error "
                                                               "rate missing? (read on as ns-3 would: f:5: link 2: error "
                                                               "rate \"2\" must be a number from 0 to below 1 (at 1 every "
                                                               "packet is lost and no flow across the link could finish))"},
        {"6 2 5\n0 5\n1 0 1G 2s 0\n", "f:3: link 1: delay \"2s\" is longer than 1 s"},
        {"6 2 5\n0 5\n1 0 1G 1us 1.5\n", "f:3: link 1: error rate \"1.5\" must be a number from 0 to below 1 (at 1 every packet is lost and no flow across the link could finish)"},
        {"6 2 5\n0 5\n1 0 1G 1us nan\n", "f:3: link 1: error rate \"nan\" must be a number from 0 to below 1 (at 1 every packet is lost and no flow across the link could finish)"},
        {"6 2 5\n0 5\n1 0 1G 1us 1\n", "f:3: link 1: error rate \"1\" must be a number from 0 to below 1 (at 1 every packet is lost and no flow across the link could finish)"},
        {"6 2 5\n0 5\n1 0 1G 1us 0\n1 5 1G 1us 0\n",
         "f:4: host 1 has a second link (to 5; its link to 0 is on line 3): rocesim models one NIC per host (or is 1 "
         "missing from the switch ids?)"},
        {"6 2 5\n0 5\n1 0 1G 1us 0\n2 0 1G 1us 0\n0 5 1G 1us 0\n3 5 1G 1us 0\n0 3 1G 1us 0\n",
         "f:7: host 3 has a second link (to 0; its link to 5 is on line 6): rocesim models one NIC per host (or is 3 "
         "missing from the switch ids?)"},
        {"6 2 4\n0 5\n1 0 1G 1us 0\n2 0 1G 1us 0\n0 5 1G 1us 0\n3 5 1G 1us 0\n",
         "f:1: host 4 (not among the switch ids) has no link: rocesim models one NIC per host, so every host needs "
         "exactly one link"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct topo t;
        struct err e = {{0}};
        int rc = topo_parse_ns3(&t, cases[i].text, "f", &e);
        if (rc != -1 || strcmp(e.msg, cases[i].msg) != 0)
            fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, e.msg, cases[i].msg);
        assert_null(t.nodes); /* left empty */
    }
    /* what follows the declared links is ignored (with a warning), as ns-3 does */
    struct topo t;
    struct err e;
    assert_int_equal(topo_parse_ns3(&t, "3 1 2\n0\n1 0 1G 1us 0\n2 0 1G 1us 0\n\n# comment\n", "f", &e), 0);
    assert_int_equal(t.n_links, 2);
    topo_free(&t);
}

static void test_read_errors(void **state)
{
    (void)state;
    struct topo t;
    struct err e;
    assert_int_equal(topo_read_ns3(&t, "/nonexistent/topo.txt", &e), -1);
    assert_string_equal(e.msg, "/nonexistent/topo.txt: cannot open: No such file or directory");
    /* HPCC's topology.txt declares 65 links but lists 256, then prose: ns-3
     * reads the first 65 and stops, and so do we (with a warning). */
    assert_int_equal(topo_read_ns3(&t, TOPOLOGY_TXT, &e), 0);
    assert_int_equal(t.n_nodes, 66);
    assert_int_equal(t.n_links, 65);
    assert_int_equal(t.n_hosts, 65);
    topo_free(&t);
}

/* Set-up scale: tables per (switch, destination edge), so a k = 16 fat-tree
 * (1024 hosts, 128 edges) holds switches x edges entries, not nodes x hosts
 * (hosts, which route by their one link, have no rows). */
static void test_fattree16_scale(void **state)
{
    (void)state;
    struct cfg_topology c = cfg(TOPO_FATTREE);
    c.k = 16;
    struct topo t;
    struct routes r;
    struct err e;
    assert_int_equal(topo_generate(&t, &c, &e), 0);
    assert_int_equal(t.n_hosts, 1024);
    assert_int_equal(t.n_nodes - t.n_hosts, 320);
    assert_int_equal(routes_build(&r, &t, &e), 0);
    assert_int_equal(r.n_edges, 128);
    assert_int_equal(r.nrows, 320); /* the switches' span only */
    size_t entries = (size_t)r.nrows * r.n_edges;
    size_t bytes = entries * (sizeof *r.off + sizeof *r.cnt) + (size_t)r.off[entries] * sizeof *r.nbr;
    print_message("fattree k=16 routes: %zu entries, %.1f MB\n", entries, (double)bytes / 1e6);
    assert_true(bytes < 1u << 19); /* per-host tables were 13 MB; rows for hosts too 2.1 MB; every list written out 1.3 MB */
    struct path_info p;
    assert_int_equal(routes_path(&r, &t, 0, 1023, 1000, &p), 0);
    assert_int_equal(p.hops, 6);
    int n;
    routes_next(&r, 1024, 1023, &n); /* edge -> 8 aggs */
    assert_int_equal(n, 8);
    routes_next(&r, 1024 + 128, 1023, &n); /* agg -> 8 cores */
    assert_int_equal(n, 8);
    routes_free(&r);
    topo_free(&t);
}

/* The per-edge tables answer exactly what one BFS per destination host (ns-3's
 * CalculateRoute, the previous implementation) answers, for every node and
 * host, on generated topologies and HPCC's fat.txt. */
static void check_against_host_bfs(const struct topo *t)
{
    struct routes r;
    struct err e;
    assert_int_equal(routes_build(&r, t, &e), 0);
    int32_t *dis = malloc(t->n_nodes * sizeof *dis);
    uint32_t *q = malloc(t->n_nodes * sizeof *q);
    for (uint32_t hi = 0; hi < t->n_hosts; hi++) {
        uint32_t src = t->hosts[hi];
        for (uint32_t i = 0; i < t->n_nodes; i++)
            dis[i] = -1;
        uint32_t qn = 0;
        dis[src] = 0;
        q[qn++] = src;
        for (uint32_t i = 0; i < qn; i++)
            for (uint32_t k = t->adj_off[q[i]]; k < t->adj_off[q[i] + 1]; k++) {
                const struct topo_link *l = &t->links[t->adj_link[k]];
                uint32_t v = l->a == q[i] ? l->b : l->a;
                if (dis[v] < 0) {
                    dis[v] = dis[q[i]] + 1;
                    if (t->nodes[v].is_switch)
                        q[qn++] = v;
                }
            }
        for (uint32_t x = 0; x < t->n_nodes; x++) {
            uint32_t want[64], nw = 0;
            if (dis[x] > 0)
                for (uint32_t y = 0; y < t->n_nodes; y++)
                    if (dis[y] == dis[x] - 1 && (t->nodes[y].is_switch || y == src) && topo_link_between(t, x, y))
                        want[nw++] = y;
            int n;
            const uint32_t *got = routes_next(&r, x, hi, &n);
            assert_int_equal(n, nw);
            for (uint32_t i = 0; i < nw; i++)
                assert_int_equal(got[i], want[i]);
        }
    }
    free(dis);
    free(q);
    routes_free(&r);
}

/* ns-3's CalculateRoute, literally, per destination host: neighbours in the
 * order its std::map<Ptr<Node>> gives (hosts on the heap below the switches,
 * ascending; each 2 MB SwitchNode in its own mapping below the previous one,
 * so descending), and `now` appended to nextHop[next] as the BFS expands it. */
static void check_against_ns3_bfs(struct topo *t)
{
    t->ns3_hop_order = true;
    struct routes r;
    struct err e;
    assert_int_equal(routes_build(&r, t, &e), 0);
    uint32_t nn = t->n_nodes;
    int32_t *dis = malloc(nn * sizeof *dis);
    uint32_t *q = malloc(nn * sizeof *q), *nb = malloc(nn * sizeof *nb);
    uint32_t(*want)[64] = malloc(nn * sizeof *want);
    uint32_t *nw = malloc(nn * sizeof *nw);
    for (uint32_t hi = 0; hi < t->n_hosts; hi++) {
        uint32_t src = t->hosts[hi], qn = 0;
        for (uint32_t i = 0; i < nn; i++)
            dis[i] = -1, nw[i] = 0;
        dis[src] = 0;
        q[qn++] = src;
        for (uint32_t i = 0; i < qn; i++) {
            uint32_t now = q[i], m = 0;
            for (uint32_t k = 0; k < nn; k++) /* hosts ascending, then switches descending */
                if (!t->nodes[k].is_switch && topo_link_between(t, now, k))
                    nb[m++] = k;
            for (uint32_t k = nn; k-- > 0;)
                if (t->nodes[k].is_switch && topo_link_between(t, now, k))
                    nb[m++] = k;
            for (uint32_t j = 0; j < m; j++) {
                uint32_t next = nb[j];
                if (dis[next] < 0) {
                    dis[next] = dis[now] + 1;
                    if (t->nodes[next].is_switch)
                        q[qn++] = next;
                }
                if (dis[now] + 1 == dis[next])
                    want[next][nw[next]++] = now;
            }
        }
        for (uint32_t x = 0; x < nn; x++) {
            if (!t->nodes[x].is_switch || x == src)
                continue;
            int n;
            const uint32_t *got = routes_next(&r, x, hi, &n);
            assert_int_equal(n, nw[x]);
            for (uint32_t i = 0; i < nw[x]; i++)
                assert_int_equal(got[i], want[x][i]);
        }
    }
    free(dis);
    free(q);
    free(nb);
    free(want);
    free(nw);
    routes_free(&r);
}

/* The switches a packet of sip:sport -> dip:dport crosses with ECMP as
 * ns-3's GetOutDev hashes it (lb/ecmp.c), from host s to host d. */
static int ecmp_path(const struct routes *r, const struct topo *t, uint32_t s, uint32_t d, uint32_t *out)
{
    uint32_t w[3] = {0x0b000001u + (s << 8), 0x0b000001u + (d << 8), 10000u | (100u << 16)};
    int n, k = 0;
    uint32_t x = routes_next(r, s, (uint32_t)t->host_index[d], &n)[0];
    while (x != d) {
        out[k++] = x;
        const uint32_t *c = routes_next(r, x, (uint32_t)t->host_index[d], &n);
        x = c[ecmp_hash((const uint8_t *)w, sizeof w, x) % (uint32_t)n];
    }
    return k;
}

static void test_routes_ns3_order(void **state)
{
    (void)state;
    struct err e;
    struct topo t;
    struct cfg_topology cs[2] = {cfg(TOPO_FATTREE), cfg(TOPO_LEAFSPINE)};
    cs[1].leaves = 3, cs[1].spines = 4, cs[1].hosts_per_leaf = 2;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(topo_generate(&t, &cs[i], &e), 0);
        check_against_ns3_bfs(&t);
        topo_free(&t);
    }
    /* irregular numbering: BFS order is not id order (switch 9 sits between
     * hosts, spine 3 below the leaves) */
    static const char irregular[] = "10 5 10\n3 4 6 8 9\n"
                                    "0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n2 6 100Gbps 1us 0\n5 6 100Gbps 1us 0\n"
                                    "7 9 100Gbps 1us 0\n4 3 100Gbps 1us 0\n4 8 100Gbps 1us 0\n6 3 100Gbps 1us 0\n"
                                    "6 8 100Gbps 1us 0\n9 3 100Gbps 1us 0\n";
    assert_int_equal(topo_parse_ns3(&t, irregular, "irregular", &e), 0);
    check_against_ns3_bfs(&t);
    topo_free(&t);

    assert_int_equal(topo_read_ns3(&t, FAT_TXT, &e), 0);
    check_against_ns3_bfs(&t);
    /* Paths read from ns-3's own packet trace (ENABLE_TRACE on every switch,
     * fat.txt, HPCC commit 9f4be2a): 202 -> 81 and 201 -> 275. */
    struct routes r;
    uint32_t p[8];
    assert_int_equal(routes_build(&r, &t, &e), 0);
    const uint32_t want1[] = {332, 354, 368, 346, 325}, want2[] = {332, 355, 374, 359, 337};
    assert_int_equal(ecmp_path(&r, &t, 202, 81, p), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(p[i], want1[i]);
    assert_int_equal(ecmp_path(&r, &t, 201, 275, p), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(p[i], want2[i]);
    routes_free(&r);
    /* ascending ids (the INI default) take other aggregation switches */
    t.ns3_hop_order = false;
    assert_int_equal(routes_build(&r, &t, &e), 0);
    assert_int_equal(ecmp_path(&r, &t, 202, 81, p), 5);
    assert_int_equal(p[1], 353);
    routes_free(&r);
    topo_free(&t);
}

static void test_routes_equal_host_bfs(void **state)
{
    (void)state;
    struct err e;
    struct topo t;
    enum { N = 3 };
    struct cfg_topology cs[N] = {cfg(TOPO_FATTREE), cfg(TOPO_LEAFSPINE), cfg(TOPO_DUMBBELL)};
    cs[1].leaves = 3;
    cs[1].spines = 2;
    cs[1].hosts_per_leaf = 2;
    for (int i = 0; i < N; i++) {
        assert_int_equal(topo_generate(&t, &cs[i], &e), 0);
        check_against_host_bfs(&t);
        topo_free(&t);
    }
    assert_int_equal(topo_read_ns3(&t, ROCESIM_SHARED_DIR "/ns3-reference/fat.txt", &e), 0);
    check_against_host_bfs(&t);
    topo_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leafspine),     cmocka_unit_test(test_fattree),
        cmocka_unit_test(test_dumbbell),      cmocka_unit_test(test_generator_errors),
        cmocka_unit_test(test_fat_txt),       cmocka_unit_test(test_payload_tx),
        cmocka_unit_test(test_parse_small),   cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_read_errors),   cmocka_unit_test(test_fattree16_scale),
        cmocka_unit_test(test_routes_equal_host_bfs), cmocka_unit_test(test_routes_ns3_order),
        cmocka_unit_test(test_clos_flb),      cmocka_unit_test(test_clos_is_fattree),
        cmocka_unit_test(test_clos_errors),   cmocka_unit_test(test_oversubscription),
        cmocka_unit_test(test_node_names),    cmocka_unit_test(test_link_rates),
        cmocka_unit_test(test_fail_spec),     cmocka_unit_test(test_parkinglot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
