/* Topology generators (leaf-spine, fat-tree, Clos, dumbbell, parking lot,
 * rail-optimised GPU fabrics)
 * from the [topology] section, or an ns-3 topology file; topo_generate then
 * applies the per-link rate and failure keys (faults.c). */
#include "topo/topo.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"

#define TOPO_MAX_NODES ((1u << 28) - 1) /* keeps every node*host product well inside 64 bits */

static int check_size(int64_t v, const char *key, struct err *e)
{
    if (v < 1)
        return errf(e, "topology.%s: must be at least 1 (got %lld)", key, (long long)v);
    if (v > TOPO_MAX_NODES)
        return errf(e, "topology.%s: %lld is too large", key, (long long)v);
    return 0;
}

static int topo_alloc(struct topo *t, uint64_t n_nodes, uint64_t n_links, struct err *e)
{
    if (n_nodes > TOPO_MAX_NODES || n_links > UINT32_MAX / 2)
        return errf(e, "topology: %llu nodes and %llu links is too large (at most %u nodes)",
                    (unsigned long long)n_nodes, (unsigned long long)n_links, TOPO_MAX_NODES);
    t->n_nodes = (uint32_t)n_nodes;
    t->n_links = 0;
    t->nodes = calloc(n_nodes, sizeof *t->nodes);
    t->links = calloc(n_links ? n_links : 1, sizeof *t->links);
    if (!t->nodes || !t->links) {
        topo_free(t);
        return errf(e, "topology: out of memory (%llu nodes)", (unsigned long long)n_nodes);
    }
    return 0;
}

static void set_switches(struct topo *t, uint32_t first, uint32_t n, uint8_t layer)
{
    for (uint32_t i = first; i < first + n; i++)
        t->nodes[i] = (struct topo_node){.is_switch = true, .layer = layer};
}

static void set_names(struct topo *t, int naming, uint32_t first_edge, uint32_t n_edge, uint32_t edge_pp,
                      uint32_t first_agg, uint32_t n_agg, uint32_t agg_pp, uint32_t n_core)
{
    t->naming = naming;
    t->first_edge = first_edge, t->n_edge = n_edge, t->n_edge_pp = edge_pp;
    t->first_agg = first_agg, t->n_agg = n_agg, t->n_agg_pp = agg_pp;
    t->first_core = first_agg + n_agg, t->n_core = n_core;
}

/* Lower-layer end first, like ns-3's fat.txt ("host switch", "tor agg"). */
static void add_link(struct topo *t, uint32_t a, uint32_t b, uint64_t rate, simtime_t delay)
{
    t->links[t->n_links++] = (struct topo_link){.a = a, .b = b, .rate = rate, .delay = delay};
}

/* topology.oversubscription: hosts per edge switch = ratio x uplink capacity
 * / host rate, which must come out whole (3 x 10 x 40G / 40G = 30). */
static int oversub_hosts(const struct cfg_topology *c, int64_t uplinks, const char *key, int64_t *hosts, struct err *e)
{
    double h = c->oversubscription * (double)uplinks * (double)c->fabric_link / (double)c->host_link;
    double r = floor(h + 0.5);
    if (r < 1 || fabs(h - r) > 1e-6 * r)
        return errf(e, "topology.oversubscription: %g x %lld uplinks x fabric_link / host_link = %g hosts per edge "
                       "switch, not a whole number (or set topology.%s instead)",
                    c->oversubscription, (long long)uplinks, h, key);
    if (r > TOPO_MAX_NODES)
        return errf(e, "topology.oversubscription: %g hosts per edge switch is too many", r);
    *hosts = (int64_t)r;
    return 0;
}

/* Hosts, then nl leaves, then c->spines spines, every leaf linked to every
 * spine; host i on leaf i / per. */
static int two_tier(struct topo *t, const struct cfg_topology *c, uint64_t h, uint64_t nl, uint64_t per, struct err *e)
{
    uint64_t ns = (uint64_t)c->spines;
    if (topo_alloc(t, h + nl + ns, h + nl * ns, e))
        return -1;
    uint32_t leaf0 = (uint32_t)h, spine0 = (uint32_t)(h + nl);
    set_switches(t, leaf0, (uint32_t)nl, LAYER_EDGE);
    set_switches(t, spine0, (uint32_t)ns, LAYER_AGG);
    set_names(t, NAMES_LEAFSPINE, leaf0, (uint32_t)nl, 0, spine0, (uint32_t)ns, 0, 0);
    for (uint64_t i = 0; i < h; i++)
        add_link(t, (uint32_t)i, leaf0 + (uint32_t)(i / per), c->host_link, c->link_delay);
    for (uint32_t l = 0; l < nl; l++)
        for (uint32_t s = 0; s < ns; s++)
            add_link(t, leaf0 + l, spine0 + s, c->fabric_link, c->link_delay);
    return 0;
}

static int gen_leafspine(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    int64_t hosts = c->hosts_per_leaf;
    if (check_size(c->leaves, "leaves", e) || check_size(c->spines, "spines", e) ||
        (c->oversubscription > 0 && oversub_hosts(c, c->spines, "hosts_per_leaf", &hosts, e)) ||
        check_size(hosts, "hosts_per_leaf", e))
        return -1;
    uint64_t nl = (uint64_t)c->leaves, hpl = (uint64_t)hosts;
    return two_tier(t, c, nl * hpl, nl, hpl, e);
}

/* k pods of k/2 edge + k/2 agg switches, (k/2)^2 cores, k/2 hosts per edge.
 * Numbering: hosts, edges (pod-major), aggs (pod-major), cores. */
static int gen_fattree(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    if (c->k < 2 || c->k > 1024)
        return errf(e, "topology.k: must be between 2 and 1024 (got %lld)", (long long)c->k);
    if (c->k % 2)
        return errf(e, "topology.k must be even (got %lld)", (long long)c->k);
    uint32_t k = (uint32_t)c->k, hk = k / 2;
    uint64_t h = (uint64_t)k * k * k / 4, ne = (uint64_t)k * hk, nc = (uint64_t)hk * hk;
    if (topo_alloc(t, h + 2 * ne + nc, h + ne * hk + ne * hk, e))
        return -1;
    uint32_t edge0 = (uint32_t)h, agg0 = (uint32_t)(h + ne), core0 = (uint32_t)(h + 2 * ne);
    set_switches(t, edge0, (uint32_t)ne, LAYER_EDGE);
    set_switches(t, agg0, (uint32_t)ne, LAYER_AGG);
    set_switches(t, core0, (uint32_t)nc, LAYER_CORE);
    set_names(t, NAMES_PODS, edge0, (uint32_t)ne, hk, agg0, (uint32_t)ne, hk, (uint32_t)nc);
    for (uint32_t i = 0; i < h; i++)
        add_link(t, i, edge0 + i / hk, c->host_link, c->link_delay);
    for (uint32_t p = 0; p < k; p++)
        for (uint32_t x = 0; x < hk; x++)
            for (uint32_t j = 0; j < hk; j++)
                add_link(t, edge0 + p * hk + x, agg0 + p * hk + j, c->fabric_link, c->link_delay);
    for (uint32_t p = 0; p < k; p++)
        for (uint32_t j = 0; j < hk; j++)
            for (uint32_t i = 0; i < hk; i++)
                add_link(t, agg0 + p * hk + j, core0 + j * hk + i, c->fabric_link, c->link_delay);
    return 0;
}

/* A general 3-tier Clos: P pods of E edge and A aggregation switches (every
 * edge linked to every aggregation of its pod), H hosts per edge, C cores.
 * Standard striping: aggregation j of each pod links to the C/A cores
 * j*C/A .. (j+1)*C/A - 1, so pods meet at every core and each aggregation
 * has C/A uplinks. With E = A = k/2, H = k/2, C = k^2/4 this is the k-ary
 * fat-tree, link for link. Numbering as the fat-tree: hosts, edges, aggs
 * (pod-major), cores. */
static int gen_clos(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    int64_t hosts = c->hosts_per_edge;
    if (check_size(c->pods, "pods", e) || check_size(c->edges_per_pod, "edges_per_pod", e) ||
        check_size(c->aggs_per_pod, "aggs_per_pod", e) || check_size(c->cores, "cores", e) ||
        (c->oversubscription > 0 && oversub_hosts(c, c->aggs_per_pod, "hosts_per_edge", &hosts, e)) ||
        check_size(hosts, "hosts_per_edge", e))
        return -1;
    if (c->cores % c->aggs_per_pod)
        return errf(e, "topology.cores: %lld cores cannot be striped evenly over %lld aggregation switches per pod "
                       "(cores must be a multiple of aggs_per_pod)",
                    (long long)c->cores, (long long)c->aggs_per_pod);
    uint64_t np = (uint64_t)c->pods, ep = (uint64_t)c->edges_per_pod, ap = (uint64_t)c->aggs_per_pod;
    uint64_t nc = (uint64_t)c->cores, hpe = (uint64_t)hosts, up = nc / ap;
    uint64_t ne = np * ep, na = np * ap, h = ne * hpe;
    if (ne > TOPO_MAX_NODES || na > TOPO_MAX_NODES || h > TOPO_MAX_NODES)
        return errf(e, "topology: clos with %llu hosts and %llu switches is too large", (unsigned long long)h,
                    (unsigned long long)(ne + na + nc));
    if (topo_alloc(t, h + ne + na + nc, h + ne * ap + na * up, e))
        return -1;
    uint32_t edge0 = (uint32_t)h, agg0 = (uint32_t)(h + ne), core0 = (uint32_t)(h + ne + na);
    set_switches(t, edge0, (uint32_t)ne, LAYER_EDGE);
    set_switches(t, agg0, (uint32_t)na, LAYER_AGG);
    set_switches(t, core0, (uint32_t)nc, LAYER_CORE);
    set_names(t, NAMES_PODS, edge0, (uint32_t)ne, (uint32_t)ep, agg0, (uint32_t)na, (uint32_t)ap, (uint32_t)nc);
    for (uint32_t i = 0; i < h; i++)
        add_link(t, i, edge0 + (uint32_t)(i / hpe), c->host_link, c->link_delay);
    for (uint32_t p = 0; p < np; p++)
        for (uint32_t x = 0; x < ep; x++)
            for (uint32_t j = 0; j < ap; j++)
                add_link(t, edge0 + p * (uint32_t)ep + x, agg0 + p * (uint32_t)ap + j, c->fabric_link, c->link_delay);
    for (uint32_t p = 0; p < np; p++)
        for (uint32_t j = 0; j < ap; j++)
            for (uint32_t i = 0; i < up; i++)
                add_link(t, agg0 + p * (uint32_t)ap + j, core0 + j * (uint32_t)up + i, c->fabric_link, c->link_delay);
    return 0;
}

/* PCN's Fig. 1: senders on S0, receivers on S1, one S0-S1 bottleneck. */
static int gen_dumbbell(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    if (check_size(c->senders, "senders", e) || check_size(c->receivers, "receivers", e))
        return -1;
    uint64_t ns = (uint64_t)c->senders, h = ns + (uint64_t)c->receivers;
    if (topo_alloc(t, h + 2, h + 1, e))
        return -1;
    uint32_t s0 = (uint32_t)h;
    set_switches(t, s0, 2, LAYER_EDGE);
    set_names(t, NAMES_DUMBBELL, s0, 2, 0, 0, 0, 0, 0);
    for (uint32_t i = 0; i < h; i++)
        add_link(t, i, i < ns ? s0 : s0 + 1, c->host_link, c->link_delay);
    add_link(t, s0, s0 + 1, c->fabric_link, c->link_delay);
    return 0;
}

/* PCN's Fig. 19(a) parking lot: switches s0 - s1 - ... - s(n-1) in a chain,
 * hosts_per_switch hosts on each (numbered switch by switch), so a flow from
 * s0 to the last switch crosses every chain link and others cross one. */
static int gen_parkinglot(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    if (c->chain < 2 || c->chain > 4096)
        return errf(e, "topology.chain: must be between 2 and 4096 (got %lld)", (long long)c->chain);
    if (check_size(c->hosts_per_switch, "hosts_per_switch", e))
        return -1;
    uint64_t ns = (uint64_t)c->chain, hps = (uint64_t)c->hosts_per_switch, h = ns * hps;
    if (topo_alloc(t, h + ns, h + ns - 1, e))
        return -1;
    uint32_t s0 = (uint32_t)h;
    set_switches(t, s0, (uint32_t)ns, LAYER_EDGE);
    set_names(t, NAMES_DUMBBELL, s0, (uint32_t)ns, 0, 0, 0, 0, 0);
    for (uint32_t i = 0; i < h; i++)
        add_link(t, i, s0 + (uint32_t)(i / hps), c->host_link, c->link_delay);
    for (uint32_t i = 0; i + 1 < ns; i++)
        add_link(t, s0 + i, s0 + i + 1, c->fabric_link, c->link_delay);
    return 0;
}

/* Rail-optimised leaf-spine (NVIDIA's DGX SuperPOD and Alibaba HPN layouts,
 * SimAI's templates): servers of G GPUs, each GPU with its own NIC; NIC i of
 * every server sits on rail i's leaf, so GPU i of every server meets GPU i of
 * every other one leaf away. servers_per_leaf (0: all) servers per leaf: with
 * fewer, rail i has one leaf per group of servers. Every leaf links to every
 * spine (traffic between rails, or between groups, crosses one). Numbering:
 * hosts server-major (host m*G + i is GPU i of server m), leaves group-major
 * (leaf g*G + i: rail i of group g), spines. Inside a server the GPUs share
 * an NVSwitch (t->nvlink, nvlink_delay): not links of the graph, see topo.h.
 *
 * NICs with several ports, as SimAI's gen_Topo_Template.py (b5ff47c) wires
 * them: with planes = P each GPU's NIC has P ports, port p on plane p, a copy
 * of the fabric above with its own leaves and spines (Rail_Opti_DualToR_
 * DualPlane: asw_switch_1 link only to psw_switch_1, asw_switch_2 only to
 * psw_switch_2); with dual_tor two ports on a pair of leaves of one plane,
 * every leaf linked to every spine (Rail_Opti_DualToR_SinglePlane,
 * No_Rail_Opti_DualToR). rail_optimised = off puts GPU i on leaf i / (G *
 * servers_per_leaf) instead (No_Rail_Opti_*, DCN+). Each port is a host with
 * one link (topo.h: host p*N + i is port p of GPU i, N = M*G), each port's
 * leaves are a side of their own (leaf p*L + j: leaf j of port p's side),
 * spines plane-major; the order of SimAI's asw_switch_1, asw_switch_2,
 * psw_switch_1, psw_switch_2. */
static int gen_rail(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    if (check_size(c->servers, "servers", e) || check_size(c->gpus_per_server, "gpus_per_server", e) ||
        check_size(c->spines, "spines", e) || check_size(c->planes, "planes", e))
        return -1;
    if (c->nvlink == 0)
        return errf(e, "topology.nvlink: must be a positive rate");
    if (c->nvlink_delay < 0)
        return errf(e, "topology.nvlink_delay: must not be negative");
    if (c->dual_tor && c->planes > 1)
        return errf(e, "topology.dual_tor: with planes = %lld: a dual-plane fabric already gives each of a NIC's ports "
                       "its own plane's leaf (SimAI's AlibabaHPN dual-plane is planes = 2, dual_tor = off); dual_tor is "
                       "two ports on one plane (AlibabaHPN single-plane): choose one", (long long)c->planes);
    uint64_t M = (uint64_t)c->servers, G = (uint64_t)c->gpus_per_server;
    uint64_t spl = c->servers_per_leaf ? (uint64_t)c->servers_per_leaf : M;
    if (M % spl)
        return errf(e, "topology.servers_per_leaf: %llu servers do not split into groups of %llu",
                    (unsigned long long)M, (unsigned long long)spl);
    uint64_t S = c->dual_tor ? 2 : (uint64_t)c->planes; /* NIC ports a GPU: sides */
    uint64_t np = c->dual_tor ? 1 : S, ns = (uint64_t)c->spines, N = M * G;
    uint64_t nl = c->rail_optimised ? M / spl * G : M / spl; /* leaves a side */
    if (N * S > TOPO_MAX_NODES || S * nl * ns > UINT32_MAX / 4)
        return errf(e, "topology.servers: %llu GPUs with %llu ports each is too large", (unsigned long long)N,
                    (unsigned long long)S);
    if (topo_alloc(t, N * S + S * nl + np * ns, N * S + S * nl * ns, e))
        return -1;
    uint32_t leaf0 = (uint32_t)(N * S), spine0 = (uint32_t)(N * S + S * nl);
    set_switches(t, leaf0, (uint32_t)(S * nl), LAYER_EDGE);
    set_switches(t, spine0, (uint32_t)(np * ns), LAYER_AGG);
    set_names(t, NAMES_LEAFSPINE, leaf0, (uint32_t)(S * nl), 0, spine0, (uint32_t)(np * ns), 0, 0);
    for (uint64_t p = 0; p < S; p++)
        for (uint64_t i = 0; i < N; i++) {
            uint64_t leaf = c->rail_optimised ? i / G / spl * G + i % G : i / (G * spl);
            add_link(t, (uint32_t)(p * N + i), leaf0 + (uint32_t)(p * nl + leaf), c->host_link, c->link_delay);
        }
    for (uint64_t l = 0; l < S * nl; l++) {
        uint64_t plane = c->dual_tor ? 0 : l / nl;
        for (uint64_t k = 0; k < ns; k++)
            add_link(t, leaf0 + (uint32_t)l, spine0 + (uint32_t)(plane * ns + k), c->fabric_link, c->link_delay);
    }
    t->gpus_per_server = (uint32_t)G;
    t->nic_ports = S > 1 ? (uint32_t)S : 0;
    t->gpu_hosts = S > 1 ? (uint32_t)N : 0;
    t->nvlink = c->nvlink;
    t->nvlink_delay = c->nvlink_delay;
    return 0;
}

static int topo_base(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    memset(t, 0, sizeof *t);
    if (c->type == TOPO_FILE) {
        if (!c->file[0])
            return errf(e, "topology.file: needed for type=file (an ns-3 HPCC topology file)");
        return topo_read_ns3(t, c->file, e);
    }
    if (c->host_link == 0)
        return errf(e, "topology.host_link: must be a positive rate");
    if (c->fabric_link == 0)
        return errf(e, "topology.fabric_link: must be a positive rate");
    if (c->link_delay < 0)
        return errf(e, "topology.link_delay: must not be negative");
    int rc;
    switch (c->type) {
    case TOPO_LEAFSPINE: rc = gen_leafspine(t, c, e); break;
    case TOPO_FATTREE: rc = gen_fattree(t, c, e); break;
    case TOPO_DUMBBELL: rc = gen_dumbbell(t, c, e); break;
    case TOPO_CLOS: rc = gen_clos(t, c, e); break;
    case TOPO_PARKINGLOT: rc = gen_parkinglot(t, c, e); break;
    case TOPO_RAIL: rc = gen_rail(t, c, e); break;
    default: return errf(e, "topology.type: unknown type %d", c->type);
    }
    return rc ? -1 : topo_finish(t, e);
}

int topo_generate(struct topo *t, const struct cfg_topology *c, struct err *e)
{
    if (topo_base(t, c, e) < 0)
        return -1;
    if (topo_set_link_rates(t, c->link_rate, e) < 0 || topo_parse_fails(t, c->fail, e) < 0 ||
        topo_parse_flaps(t, c->flap, e) < 0 || topo_parse_switch_fails(t, c->switch_fail, e) < 0 ||
        topo_parse_slows(t, c->slow, e) < 0) {
        topo_free(t);
        return -1;
    }
    return 0;
}
