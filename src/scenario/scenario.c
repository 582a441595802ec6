#include "scenario/scenario.h"
#include "core/proc.h"
#include "core/setup.h"
#include "core/xalloc.h"
#include "engine/engine.h"
#include "scenario/workload.h"
#include "topo/partition.h"
#include "traffic/collective.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Random streams of link loss: one per port, far from the workload streams. */
#define LOSS_STREAM_BASE 0x10550000000000ULL
#define RED_STREAM_BASE 0x5ed00000000000ULL

#ifndef ROCESIM_SOURCE_DIR
#define ROCESIM_SOURCE_DIR "."
#endif

const char *workloads_dir(void)
{
    static char dir[4200];
    return proc_data_dir("workloads", "ROCESIM_WORKLOADS", ROCESIM_SOURCE_DIR, dir, sizeof dir);
}


int scenario_load(struct scenario *sc, const struct config *cfg, struct err *e)
{
    memset(sc, 0, sizeof *sc);
    sc->cfg = cfg;
    const struct cfg_topology *tc = &cfg->topology;
    /* a topology file, or a generator; then link_rate and fail */
    if (topo_generate(&sc->topo, tc, e) < 0)
        return -1;
    if (tc->type == TOPO_FILE)
        topo_assign_layers(&sc->topo);
    sc->topo.ns3_hop_order = tc->next_hop_order == HOP_ORDER_NS3;
    if (cfg->ns3.link_down_us > 0) { /* HPCC's third.cc: down at 2 s + LINK_DOWN's µs, for good */
        char where[64];
        snprintf(where, sizeof where, "LINK_DOWN %llu %u %u", (unsigned long long)cfg->ns3.link_down_us,
                 cfg->ns3.link_down_a, cfg->ns3.link_down_b);
        if (topo_add_fail(&sc->topo, cfg->ns3.link_down_a, cfg->ns3.link_down_b,
                          2 * T_SEC + (simtime_t)cfg->ns3.link_down_us * T_US, T_NEVER, where, e) < 0)
            return -1;
    }
    /* [traffic], [traffic.NAME]..., [flow.NAME]...: order and seeds in workload.c */
    if (workload_build(&sc->flows, cfg, &sc->topo, e) < 0 || traffic_nic_ports(&sc->flows, &sc->topo, e) < 0)
        return -1;
    /* a collective's slow NIC (traffic.slow_nic): its rank's host link, once placed (every port's, on
     * a fabric of multi-port NICs: host index mod N is the GPU, topo.h) */
    const int32_t *hx = sc->topo.host_index;
    for (size_t j = 0, N = topo_traffic_hosts(&sc->topo); j < sc->flows.n_jobs; j++) {
        struct coll_job *jb = &sc->flows.jobs[j];
        int32_t g = jb->slow_rank != UINT32_MAX && jb->slow_nic ? hx[jb->hosts[jb->slow_rank]] : -1;
        for (uint32_t li = 0; g >= 0 && li < sc->topo.n_links; li++)
            if ((hx[sc->topo.links[li].a] >= 0 && (size_t)hx[sc->topo.links[li].a] % N == (size_t)g) ||
                (hx[sc->topo.links[li].b] >= 0 && (size_t)hx[sc->topo.links[li].b] % N == (size_t)g)) {
                jb->nic_nominal = sc->topo.links[li].rate;
                sc->topo.links[li].rate = jb->slow_nic;
            }
    }
    return 0;
}

static void fmt_bytes(char *buf, size_t n, uint64_t b)
{
    if (b >= 1000000000ULL)
        snprintf(buf, n, "%.1f GB", (double)b / 1e9);
    else if (b >= 1000000ULL)
        snprintf(buf, n, "%.0f MB", (double)b / 1e6);
    else
        snprintf(buf, n, "%.0f KB", (double)b / 1e3);
}

/* The large arrays scenario_build allocates, by the sizes of their records:
 * routing tables (a row per switch id in the switches' span, an entry per
 * edge switch, in routes_build and handed to the simulator), ports (and
 * their links, RED streams, CC port state), nodes (and balancer records),
 * flows (QPs with the CC's and balancer's per-flow state). Next-hop lists
 * are shared between entries and small; packets in flight come later, with
 * the load. */
int scenario_memory_check(struct scenario *sc, struct err *e)
{
    const struct topo *t = &sc->topo;
    const struct config *cfg = sc->cfg;
    const struct cc_ops *cc = cc_find(cfg->transport.cc);
    const struct lb_ops *lb = lb_find(cfg->lb.scheme);
    uint32_t row0 = t->n_nodes, row_end = 0, nsw = 0, edges = 0;
    uint8_t *edge = xcalloc(t->n_nodes + 1, 1);
    for (uint32_t x = 0; x < t->n_nodes; x++)
        if (t->nodes[x].is_switch) {
            row0 = x < row0 ? x : row0;
            row_end = x + 1;
            nsw++;
        }
    for (uint32_t h = 0; h < t->n_hosts; h++) {
        uint32_t n = t->hosts[h];
        for (uint32_t p = t->adj_off[n]; p < t->adj_off[n + 1]; p++) {
            const struct topo_link *l = &t->links[t->adj_link[p]];
            uint32_t o = l->a == n ? l->b : l->a;
            if (t->nodes[o].is_switch && !edge[o])
                edge[o] = 1, edges++;
        }
    }
    free(edge);
    uint64_t rows = row_end > row0 ? row_end - row0 : 0, nports = 2 * (uint64_t)t->n_links, nflows = sc->flows.n;
    uint64_t routing = rows * edges * (sizeof(uint32_t) + sizeof(uint16_t));
    uint64_t ports = nports * (sizeof(struct port) + sizeof(struct port_link) + (cfg->sw.ecn ? sizeof(struct rng) : 0) +
                               (cc ? cc->port_state_size : 0)) +
                     (uint64_t)t->n_nodes * (sizeof(struct node) + sizeof(struct lb_switch) + 4 * sizeof(uint32_t)) +
                     (lb ? nsw * (lb->node_state_size + (uint64_t)edges * lb->node_state_per_edge) : 0);
    uint64_t flows = nflows * (sizeof(struct qp) + sizeof(uint32_t) + (cc ? cc->state_size : 0) +
                               (lb ? lb->flow_state_size : 0));
    uint64_t now = proc_rss();
    sc->mem_estimate = now + routing + ports + flows;
    uint64_t avail = proc_mem_available(), limit = cfg->run.max_memory ? cfg->run.max_memory : avail;
    if (!limit || sc->mem_estimate <= limit)
        return 0;
    char need[32], have[32], rt[32], pt[32], fl[32], in[32];
    fmt_bytes(need, sizeof need, sc->mem_estimate);
    fmt_bytes(have, sizeof have, limit);
    fmt_bytes(rt, sizeof rt, routing);
    fmt_bytes(pt, sizeof pt, ports);
    fmt_bytes(fl, sizeof fl, flows);
    fmt_bytes(in, sizeof in, now);
    return errf(e, "run.max_memory: this fabric needs about %s to set up (routing tables %s: %llu switch rows x %u edge "
                   "switches; ports %s; %llu flows %s; topology and inputs %s), more than %s%s; set run.max_memory "
                   "higher (e.g. --set run.max_memory=%.0fGB) to try anyway, or simulate a smaller fabric",
                need, rt, (unsigned long long)rows, edges, pt, (unsigned long long)nflows, fl, in,
                cfg->run.max_memory ? "the run.max_memory of " : "what this machine has available, ", have,
                (double)sc->mem_estimate / 1e9 + 1);
}

/* Headroom per switch port. ns-3 HPCC sizes it 3 x rate x delay; we take the
 * larger of that and what can physically arrive once PAUSE is decided: the
 * frame may wait behind one packet on our side, then crosses the link; the
 * peer may have just started a packet; plus the packet that triggered the
 * PAUSE itself (see docs/architecture.md, "Lossless means lossless"). */
static uint32_t auto_headroom(uint64_t rate, simtime_t delay, uint32_t max_wire)
{
    uint64_t delay_ns = (uint64_t)(delay / T_NS);
    uint64_t ns3 = rate * delay_ns / 8 / 1000000000ULL * 3;
    uint64_t bdp2 = (uint64_t)(((unsigned __int128)rate * (uint64_t)delay * 2 + 8 * T_SEC - 1) / (8 * (unsigned __int128)T_SEC));
    uint64_t phys = bdp2 + 3ULL * max_wire + 2ULL * PFC_FRAME_BYTES;
    uint64_t h = ns3 > phys ? ns3 : phys;
    return h > UINT32_MAX ? UINT32_MAX : (uint32_t)h;
}

/* The dynamic PFC threshold's shift of a switch port of this rate: one less
 * per doubling above the host-link rate. */
static uint8_t pfc_shift_for(const struct cfg_switch *sw, uint64_t rate, uint64_t nic_rate)
{
    int shift = (int)sw->pfc_shift;
    for (uint64_t r = rate; r > nic_rate && shift > 0; r /= 2)
        shift--;
    return (uint8_t)shift;
}

static int port_ecn(const struct cfg_switch *c, const struct topo_node *nd, struct port *pt, struct err *e)
{
    if (nd->no_ecn) { /* a switch that never marks (topo.h), at any rate */
        pt->kmin = pt->kmax = UINT32_MAX;
        pt->pmax = 0;
        return 0;
    }
    if (c->n_ecn_map > 0) {
        for (int i = 0; i < c->n_ecn_map; i++)
            if (c->ecn_map[i].rate == pt->rate) {
                pt->kmin = (uint32_t)c->ecn_map[i].kmin;
                pt->kmax = (uint32_t)c->ecn_map[i].kmax;
                pt->pmax = c->ecn_map[i].pmax;
                return 0;
            }
        return errf(e, "switch.ecn_map: KMIN_MAP/KMAX_MAP/PMAX_MAP have no entry for %llu bps, the rate of a switch port "
                       "(ns-3 requires one for each link speed)", (unsigned long long)pt->rate);
    }
    pt->kmin = (uint32_t)((unsigned __int128)c->kmin * pt->rate / 100000000000ULL);
    pt->kmax = (uint32_t)((unsigned __int128)c->kmax * pt->rate / 100000000000ULL);
    pt->pmax = c->pmax;
    return 0;
}

/* A rate change of port pid's link at `at`: the ECN thresholds and PFC
 * shift each switch end would have been set up with at that rate. */
static int slow_event(const struct sim *s, const struct topo *t, const struct cfg_switch *sw, uint32_t pid, simtime_t at,
                      uint64_t rate, uint64_t nic_rate, struct sim_link_event *ev, struct err *e)
{
    *ev = (struct sim_link_event){.at = at, .port = pid, .rate = rate};
    for (int i = 0; i < 2; i++) {
        struct port tmp = {.node = sim_port_node(s, i ? sim_port_peer(s, pid) : pid), .rate = rate};
        if (!s->nodes[tmp.node].is_switch)
            continue;
        struct err sub;
        if (port_ecn(sw, &t->nodes[tmp.node], &tmp, &sub) < 0)
            return errf(e, "topology.slow: %s", sub.msg);
        ev->kmin[i] = tmp.kmin;
        ev->kmax[i] = tmp.kmax;
        ev->pfc_shift[i] = pfc_shift_for(sw, rate, nic_rate);
    }
    return 0;
}

/* Source ports: 10000 + the number of earlier flows of the same host pair,
 * as ns-3's portNumder. An open-addressing table keyed by the pair, at setup.
 * A message that continues a queue pair (a collective's next step on the
 * same channel, a flow file's "q" dependency) keeps the first message's port:
 * the QP's 5-tuple, and so its ECMP path, last for the whole job. */
static void assign_sports(struct sim *s)
{
    const uint32_t *prev = s->deps ? s->deps->qp_prev : NULL;
    size_t cap = 16;
    while (cap < 2 * (size_t)s->n_flows)
        cap *= 2;
    uint64_t *keys = xcalloc(cap, sizeof *keys);
    uint16_t *cnt = xcalloc(cap, sizeof *cnt);
    for (uint32_t i = 0; i < s->n_flows; i++) {
        struct qp *f = &s->flows[s->start_order[i]];
        if (prev && prev[f->id] != UINT32_MAX)
            continue; /* below, from the QP's first message */
        uint64_t key = ((uint64_t)f->src << 32 | f->dst) + 1;
        size_t h = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
        while (keys[h] && keys[h] != key)
            h = (h + 1) & (cap - 1);
        keys[h] = key;
        f->sport = (uint16_t)(10000 + cnt[h]++);
    }
    uint32_t *root = prev ? xcalloc(s->n_flows, sizeof *root) : NULL; /* 1 + the chain's first message, 0: unknown */
    for (uint32_t i = 0; prev && i < s->n_flows; i++) {
        uint32_t x = i; /* chains are acyclic (flow_list_check_deps, or built so) */
        while (prev[x] != UINT32_MAX && !root[x])
            x = prev[x];
        uint32_t r = root[x] ? root[x] - 1 : x;
        for (uint32_t y = i; y != x; y = prev[y]) /* path compression */
            root[y] = r + 1;
        s->flows[i].sport = s->flows[r].sport;
    }
    free(root);
    free(keys);
    free(cnt);
}

/* The simulator's routing tables from sc->routes: candidate egress ports per
 * (switch, destination host). Replaces any earlier ones. */
static void sim_routes_fill(struct scenario *sc)
{
    const struct topo *t = &sc->topo;
    struct sim *s = &sc->sim;
    sim_routes_free(s);
    /* routing: candidate egress ports per (switch, destination edge switch) */
    const struct routes *rt = &sc->routes;
    s->n_edges = rt->n_edges;
    s->route_row0 = rt->row0;
    s->route_rows = rt->nrows;
    size_t nent = (size_t)rt->nrows * rt->n_edges;
    /* the offsets and counts are the topology's as they are: the simulator
     * takes those arrays (nent + 1 entries each), which sc->routes keeps
     * reading until the set-up ends (routes_handed_over) */
    s->route_off = rt->off;
    s->route_cnt = rt->cnt;
    size_t nnbr = rt->off[nent];
    s->route_ports = xcalloc(nnbr + 1, sizeof *s->route_ports);
    s->edge_node = xcalloc(rt->n_edges + 1, sizeof *s->edge_node);
    memcpy(s->edge_node, rt->edge_node, rt->n_edges * sizeof *s->edge_node);
    s->host_edge = xcalloc(t->n_hosts + 1, sizeof *s->host_edge);
    memcpy(s->host_edge, rt->host_edge, t->n_hosts * sizeof *s->host_edge);
    s->host_port = xcalloc(t->n_hosts + 1, sizeof *s->host_port);
    uint32_t *port_to = xcalloc(t->n_nodes, sizeof *port_to);
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        struct node *nd = &s->nodes[n];
        if ((n & 255) == 0)
            setup_progress("routing tables (ports)", n, t->n_nodes);
        for (uint32_t k = 0; k < nd->nports; k++)
            port_to[sim_peer_node(s, nd->port0 + k)] = nd->port0 + k;
        for (uint32_t ei = 0; n >= rt->row0 && n - rt->row0 < rt->nrows && ei < rt->n_edges; ei++) {
            size_t i = routes_entry(rt, n, ei);
            for (uint32_t j = 0; j < rt->cnt[i]; j++)
                s->route_ports[rt->off[i] + j] = port_to[rt->nbr[rt->off[i] + j]];
        }
    }
    free(port_to);
    /* each host's port at its edge switch (a host has one link, so one such port) */
    for (uint32_t h = 0; h < t->n_hosts; h++) {
        if (rt->host_edge[h] == UINT32_MAX)
            continue;
        const struct node *nd = &s->nodes[rt->edge_node[rt->host_edge[h]]];
        for (uint32_t k = 0; k < nd->nports; k++)
            if (sim_peer_node(s, nd->port0 + k) == t->hosts[h])
                s->host_port[h] = nd->port0 + k;
    }
}

/* The end of set-up (and of a reroute): the simulator owns the offsets and
 * counts (sim_routes_fill), and its port-id copy of the next hops replaces
 * the node-id one, which nothing reads after set-up (a reroute builds the
 * tables anew from the topology). At k = 48 each of those is 255 MB. */
static void routes_handed_over(struct routes *r)
{
    r->off = NULL;
    r->cnt = NULL;
    free(r->nbr);
    r->nbr = NULL;
}

/* sim's reroute hook: a link failed or recovered, so routes are computed again
 * as at the start, without the failed links (ns-3's TakeDownLink does the
 * same), and swapped in. Setup already built them once, so only running out
 * of memory can fail here. */
static void reroute(void *ctx, struct sim *s, uint32_t port, bool up)
{
    struct scenario *sc = ctx;
    (void)s;
    sc->topo.links[sc->topo.adj_link[port]].down = !up;
    struct routes r;
    struct err e;
    if (routes_build(&r, &sc->topo, &e) < 0) {
        fprintf(stderr, "rocesim: recomputing routes after a link change: %s\n", e.msg);
        exit(1);
    }
    routes_free(&sc->routes);
    sc->routes = r;
    sim_routes_fill(sc);
    routes_handed_over(&sc->routes);
}

/* Distinct host-link facts (delay, serialisation, rate) under one edge switch. */
struct hclass {
    struct path_info pi;
    uint32_t count;
};

static void pair_consider(struct scenario *sc, simtime_t delay, simtime_t tx, uint64_t bw)
{
    simtime_t rtt = 2 * delay + tx;
    uint64_t bdp = (uint64_t)((unsigned __int128)rtt * bw / (8 * (unsigned __int128)T_SEC));
    if (rtt > sc->max_rtt)
        sc->max_rtt = rtt;
    if (bdp > sc->max_bdp)
        sc->max_bdp = bdp;
}

/* ns-3's maxRtt / maxBdp over every ordered host pair, computed over edge
 * pairs and the distinct host links under each edge (usually one kind), so a
 * k = 32 fat-tree needs 512^2 walks, not 8192^2. Same answer: a pair's path is
 * its two host links around the edge-to-edge path along first next hops. */
static void pair_maxima(struct scenario *sc, const struct topo *t)
{
    const struct routes *rt = &sc->routes;
    uint32_t ne = rt->n_edges, mtu = sc->sim.p.mtu;
    uint32_t *ncls = xcalloc(ne + 1, sizeof *ncls);
    struct hclass *cls = xcalloc((size_t)t->n_hosts + 1, sizeof *cls); /* per edge, grouped */
    uint32_t *first = xcalloc(ne + 1, sizeof *first);
    uint32_t *hcount = xcalloc(ne + 1, sizeof *hcount);
    for (uint32_t h = 0; h < t->n_hosts; h++)
        if (rt->host_edge[h] != UINT32_MAX)
            hcount[rt->host_edge[h]]++;
    for (uint32_t e = 0, at = 0; e < ne; e++) {
        first[e] = at;
        at += hcount[e];
    }
    for (uint32_t h = 0; h < t->n_hosts; h++) {
        uint32_t e = rt->host_edge[h];
        if (e == UINT32_MAX) { /* a host-host link: the plain pairwise way, for its few pairs */
            for (uint32_t b = 0; b < t->n_hosts; b++) {
                struct path_info pi;
                if (b != h && routes_path(rt, t, t->hosts[h], t->hosts[b], mtu, &pi) == 0)
                    pair_consider(sc, pi.delay, pi.tx_delay, pi.bw);
                if (b != h && routes_path(rt, t, t->hosts[b], t->hosts[h], mtu, &pi) == 0)
                    pair_consider(sc, pi.delay, pi.tx_delay, pi.bw);
            }
            continue;
        }
        struct path_info pi = {.bw = UINT64_MAX};
        path_info_add_link(&pi, topo_link_between(t, t->hosts[h], rt->edge_node[e]), mtu);
        struct hclass *c = cls + first[e];
        uint32_t k = 0;
        while (k < ncls[e] && !(c[k].pi.delay == pi.delay && c[k].pi.tx_delay == pi.tx_delay && c[k].pi.bw == pi.bw))
            k++;
        if (k == ncls[e])
            c[ncls[e]++] = (struct hclass){.pi = pi};
        c[k].count++;
    }
    for (uint32_t a = 0; a < ne && !setup_progress("path lengths", a, ne); a++) /* (a stop: scenario_build leaves) */
        for (uint32_t b = 0; b < ne; b++) {
            struct path_info mid = {.bw = UINT64_MAX};
            if (a != b && routes_edge_path(rt, t, rt->edge_node[a], b, mtu, &mid) < 0)
                continue;
            for (uint32_t i = 0; i < ncls[a]; i++)
                for (uint32_t j = 0; j < ncls[b]; j++) {
                    const struct hclass *x = cls + first[a] + i, *y = cls + first[b] + j;
                    if (a == b && i == j && x->count < 2)
                        continue; /* the only such pair is a host with itself */
                    uint64_t bw = x->pi.bw < mid.bw ? x->pi.bw : mid.bw;
                    pair_consider(sc, x->pi.delay + mid.delay + y->pi.delay, x->pi.tx_delay + mid.tx_delay + y->pi.tx_delay,
                                  y->pi.bw < bw ? y->pi.bw : bw);
                }
        }
    free(ncls);
    free(cls);
    free(first);
    free(hcount);
}

/* The CC (slot 0) or a companion beside it: its parameters and state arrays. */
static void add_slot(struct sim *s, const struct cc_ops *ops, const void *par)
{
    struct cc_slot *c = &s->slot[s->n_slot++];
    c->ops = ops;
    c->par = par;
    c->stride = (ops->state_size + 7) & ~(size_t)7;
    c->state = xcalloc(s->n_flows ? s->n_flows : 1, c->stride ? c->stride : 8);
    c->rx_stride = (ops->rx_state_size + 7) & ~(size_t)7;
    c->rx_state = c->rx_stride ? xcalloc(s->n_flows ? s->n_flows : 1, c->rx_stride) : NULL;
    c->pstride = (ops->port_state_size + 7) & ~(size_t)7;
    c->pstate = c->pstride ? xcalloc(s->n_ports, c->pstride) : NULL;
    s->n_hold += ops->tx_hold != NULL;
}

/* The load balancer: per-switch records with their state, random stream and
 * timers, per-flow state, the balancer for non-data packets, then each
 * switch's init. */
static void lb_setup(struct scenario *sc, struct sim *s, const struct lb_ops *lb)
{
    const struct config *cfg = sc->cfg;
    s->seed = (uint64_t)cfg->run.seed;
    s->lb_ctl = lb->all_packets ? lb : lb_find("ecmp");
    s->p.sojourn = lb->sojourn;
    s->lb_ctl_par = cfg->lb_params[lb_index(s->lb_ctl->name)];
    simtime_t gap = cfg->lb.flowlet_gap;
    if (!gap && lb->flowlet_gap)
        gap = lb->flowlet_gap(s->lb_par);
    s->p.flowlet_gap = gap ? gap : 100 * T_US;
    /* state for switches only: hosts never meet a hook */
    uint32_t nsw = 0;
    for (uint32_t n = 0; n < s->n_nodes; n++)
        nsw += s->nodes[n].is_switch;
    s->lb_nstride = (lb->node_state_size + (size_t)s->n_edges * lb->node_state_per_edge + 7) & ~(size_t)7;
    s->lb_nstate = s->lb_nstride && nsw ? xcalloc(nsw, s->lb_nstride) : NULL;
    s->lb_fstride = (lb->flow_state_size + 7) & ~(size_t)7;
    s->lb_fstate = s->lb_fstride ? xcalloc(s->n_flows ? s->n_flows : 1, s->lb_fstride) : NULL;
    s->lbsw = xcalloc(s->n_nodes, sizeof *s->lbsw);
    nsw = 0;
    for (uint32_t n = 0; n < s->n_nodes; n++) {
        struct lb_switch *w = &s->lbsw[n];
        w->node = n;
        w->layer = s->nodes[n].layer;
        w->edge = sc->routes.edge_index[n];
        w->port0 = s->nodes[n].port0;
        w->nports = s->nodes[n].nports;
        if (s->lb_nstate && s->nodes[n].is_switch)
            w->st = s->lb_nstate + (size_t)nsw++ * s->lb_nstride;
        rng_seed(&w->rng, s->seed, 0x4c420000ULL + n); /* "LB" streams, one per switch */
        for (int k = 0; k < LB_TIMERS; k++)
            w->timer_at[k] = w->timer_ev[k] = -1;
    }
    if (lb->init)
        for (uint32_t n = 0; n < s->n_nodes; n++)
            if (s->nodes[n].is_switch)
                lb->init(s, &s->lbsw[n], s->lb_par);
    /* the host side: each host's record gets host_state_size zeroed bytes */
    size_t hstride = (lb->host_state_size + 7) & ~(size_t)7;
    uint8_t *hst = hstride && s->n_hosts ? lb_alloc(s, hstride * s->n_hosts) : NULL;
    for (uint32_t h = 0; h < s->n_hosts; h++) {
        struct lb_switch *w = &s->lbsw[s->nics[h].node];
        if (hst)
            w->st = hst + (size_t)h * hstride;
        if (lb->host_init)
            lb->host_init(s, w, s->lb_par);
    }
}

/* ---- scenario_build's steps, in the order it takes them ---- */

/* The run's parameters (struct sim_params) from [transport], [switch], [run]. */
static void build_params(struct sim *s, const struct config *cfg)
{
    const struct cfg_transport *tp = &cfg->transport;
    const struct cfg_switch *sw = &cfg->sw;
    s->p.mtu = (uint32_t)tp->mtu;
    s->p.ack_interval = (uint32_t)tp->ack_interval;
    s->p.chunk = (uint64_t)tp->chunk;
    s->p.back_to_zero = tp->back_to_zero;
    s->p.ack_high_prio = tp->ack_high_prio != ACK_PRIO_OFF;
    s->p.ack_high_prio_switch = tp->ack_high_prio == ACK_PRIO_ON;
    s->p.cnp_packets = tp->cnp == CNP_PACKET;
    s->p.pfc = sw->pfc;
    s->p.ecn = sw->ecn;
    s->p.reserve = sw->reserve;
    s->p.resume_offset = sw->resume_offset;
    s->p.pfc_static = sw->pfc_threshold ? (uint32_t)(sw->pfc_threshold - sw->reserve) : 0;
    s->p.nack_interval = tp->nack_interval;
    s->p.rto = tp->rto ? tp->rto : (sw->pfc ? 10 * T_MS : 1 * T_MS);
    s->p.rto_backoff = (uint32_t)tp->rto_backoff;
    s->p.irn = tp->recovery == REC_IRN;
    s->p.rto_low = tp->rto_low;
    s->p.rto_high = tp->rto_high;
    s->p.irn_n = (uint32_t)tp->irn_n;
    if (s->p.irn) /* the RTO timer starts at the shorter timeout; rto_fire picks per flow */
        s->p.rto = tp->rto_low < tp->rto_high ? tp->rto_low : tp->rto_high;
    s->p.var_win = tp->var_win;
    s->p.stop = cfg->run.stop;
    s->p.ns3_timing = cfg->run.ns3_timing;
    /* same-time events by (kind, object id), an order partitions reproduce
     * (core/eventq.h); ns-3's own insertion order where outputs match ns-3 */
    if (!s->p.ns3_timing)
        evq_order_by_handle(&s->evq);
    s->p.nic_wake_ns3 = tp->nic_wake == NIC_WAKE_NS3 || tp->nic_wake == NIC_WAKE_SIMAI;
    s->p.nic_wake_sent = tp->nic_wake == NIC_WAKE_SIMAI;
    s->dl.timeout = cfg->run.deadlock_timeout;
}

/* The random streams ns-3 HPCC's third.cc has numbered before its first
 * event, where its stream counter (core/mrg32k3a.h) stands when RED and PFC
 * start taking streams. InternetStackHelper gives every node, host or switch,
 * an Ipv4GlobalRouting (one UniformRandomVariable) and five IPv6 extensions
 * (one each); third.cc's shared RateErrorModel takes two (its RanVar
 * attribute's default, then the UniformRandomVariable it is given), and so
 * does the model of each link whose error rate is above 0. Measured in ns-3
 * with every call of RngSeedManager::GetNextStreamIndex logged: 398 on the
 * 66-node incast, 2258 on fat.txt (docs/validation.md, Appendix H). */
static uint64_t ns3_setup_streams(const struct topo *t)
{
    uint64_t n = 6 * (uint64_t)t->n_nodes + 2;
    for (uint32_t i = 0; i < t->n_links; i++)
        n += t->links[i].error_rate > 0 ? 2 : 0;
    return n;
}

/* Nodes and ports: node n's ports are its links in file order. Every port's
 * link (s->plink); the port itself only where this process runs its node
 * (s->node_here), so across MPI ranks another rank's ports are pages never
 * written (xcalloc_pages): memory per rank follows its partitions. */
static void build_ports(struct sim *s, const struct topo *t, const struct config *cfg)
{
    s->n_nodes = t->n_nodes;
    s->n_ports = 2 * t->n_links;
    s->nodes = xcalloc_aligned(s->n_nodes, sizeof *s->nodes, _Alignof(struct node)); /* one line each: partitions write their own */
    s->ports = xcalloc_pages(s->n_ports, sizeof *s->ports); /* page-aligned: a hop's fields in whole cache lines */
    s->plink = xcalloc(s->n_ports, sizeof *s->plink);
    uint32_t *link_port = xcalloc(2 * (size_t)t->n_links, sizeof *link_port);
    bool lossy = false;
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        struct node *nd = &s->nodes[n];
        if ((n & 1023) == 0)
            setup_progress("ports", n, t->n_nodes);
        nd->is_switch = t->nodes[n].is_switch;
        nd->layer = t->nodes[n].layer;
        nd->port0 = t->adj_off[n];
        nd->nports = t->adj_off[n + 1] - t->adj_off[n];
        nd->ip = 0x0b000001u + ((n / 256) << 16) + ((n % 256) << 8);
        for (uint32_t k = 0; k < nd->nports; k++) {
            uint32_t li = t->adj_link[t->adj_off[n] + k];
            const struct topo_link *l = &t->links[li];
            struct port_link *pl = &s->plink[nd->port0 + k];
            pl->node = n;
            pl->rate = l->rate;
            pl->delay = l->delay;
            pl->loss = l->error_rate > 0 ? l->error_rate : cfg->topology.loss;
            lossy |= pl->loss > 0;
            link_port[2 * li + (l->a == n ? 0 : 1)] = nd->port0 + k;
        }
    }
    for (uint32_t li = 0; li < t->n_links; li++) {
        s->plink[link_port[2 * li]].peer = link_port[2 * li + 1];
        s->plink[link_port[2 * li + 1]].peer = link_port[2 * li];
    }
    free(link_port);
    for (uint32_t p = 0; p < s->n_ports; p++) {
        if (!sim_port_here(s, p))
            continue;
        const struct port_link *pl = &s->plink[p];
        struct port *pt = &s->ports[p];
        pt->node = pl->node;
        pt->peer = pl->peer;
        pt->rate = pl->rate;
        pt->delay = pl->delay;
        pt->loss = pl->loss;
        pt->to_host = !s->nodes[s->plink[pl->peer].node].is_switch;
        if ((8 * T_SEC) % pl->rate == 0) /* 100G: 80 ps per byte, exactly */
            pt->ps_per_byte = (uint32_t)((8 * T_SEC) / pl->rate);
    }
    /* each lossy link direction draws from its own stream, so a loss rate on
     * one link does not change what another (or RED, or traffic) sees */
    if (lossy)
        s->loss_rng = xcalloc(s->n_ports, sizeof *s->loss_rng);
    for (uint32_t p = 0; lossy && p < s->n_ports; p++)
        if (s->plink[p].loss > 0 && (sim_port_here(s, p) || sim_port_here(s, s->plink[p].peer))) /* (the receiving end draws) */
            rng_seed(&s->loss_rng[p], (uint64_t)cfg->run.seed, LOSS_STREAM_BASE + p);
    /* and each port its own RED stream (switch.c red_mark), so a switch's
     * marks do not depend on the order of other switches' events; under
     * run.ns3_timing (one process, ns-3's event order) ns-3's draws instead:
     * seed RngSeed, substream RngRun (run.seed), the stream counter where
     * third.cc's set-up leaves it */
    if (s->p.ecn && s->p.ns3_timing) {
        s->red_ns3 = xcalloc(1, sizeof *s->red_ns3);
        if (!ns3_streams_init(s->red_ns3, (uint64_t)cfg->run.ns3_seed, (uint64_t)cfg->run.seed, ns3_setup_streams(t)))
            abort(); /* run.ns3_seed's range is ns-3's (config.c) */
    } else if (s->p.ecn) {
        s->red_rng = xcalloc(s->n_ports, sizeof *s->red_rng);
        for (uint32_t p = 0; p < s->n_ports; p++)
            if (sim_port_here(s, p))
                rng_seed(&s->red_rng[p], (uint64_t)cfg->run.seed, RED_STREAM_BASE + p);
    }
}

static int build_hosts(struct sim *s, const struct topo *t, struct err *e)
{
    s->n_hosts = t->n_hosts;
    if (s->n_hosts == 0)
        return errf(e, "the topology has no hosts");
    s->host_index = xcalloc(t->n_nodes, sizeof *s->host_index);
    memcpy(s->host_index, t->host_index, t->n_nodes * sizeof *s->host_index);
    s->nics = xcalloc(t->n_hosts, sizeof *s->nics);
    for (uint32_t h = 0; h < t->n_hosts; h++) {
        s->nics[h].node = t->hosts[h];
        s->nics[h].port = s->nodes[t->hosts[h]].port0;
    }
    return 0;
}

/* Switch MMU and ECN, per ns-3 HPCC's third.cc. */
static int build_mmu(struct sim *s, const struct topo *t, const struct cfg_switch *sw, uint64_t nic_rate, struct err *e)
{
    uint32_t max_wire = s->p.mtu + s->data_hdr;
    for (uint32_t n = 0; n < s->n_nodes; n++) {
        struct node *nd = &s->nodes[n];
        if (!nd->is_switch)
            continue;
        nd->buffer = sw->buffer;
        for (uint32_t k = 0; k < nd->nports; k++) { /* every switch checked, another rank's on a copy */
            const struct port_link *pl = &s->plink[nd->port0 + k];
            struct port scratch = {.rate = pl->rate}, *pt = sim_node_here(s, n) ? &s->ports[nd->port0 + k] : &scratch;
            if (port_ecn(sw, &t->nodes[n], pt, e) < 0)
                return -1;
            pt->headroom = !sw->pfc ? 0 : sw->headroom ? (uint32_t)sw->headroom : auto_headroom(pl->rate, pl->delay, max_wire);
            pt->pfc_shift = pfc_shift_for(sw, pl->rate, nic_rate);
            nd->total_hdrm += pt->headroom;
            nd->total_rsrv += sw->reserve;
        }
        if (nd->total_hdrm + nd->total_rsrv >= nd->buffer)
            return errf(e, "switch.buffer (%llu B) is smaller than the headroom and reserve switch %u needs (%llu B)",
                        (unsigned long long)nd->buffer, n, (unsigned long long)(nd->total_hdrm + nd->total_rsrv));
    }
    return 0;
}

/* Link failures: one event per change, on the link's port at its a end. */
static int build_link_events(struct sim *s, const struct topo *t, const struct cfg_switch *sw, uint64_t nic_rate,
                             struct err *e)
{
    s->n_link_ev = 0;
    s->link_ev = xcalloc(2 * (size_t)t->n_fails + 1, sizeof *s->link_ev);
    for (uint32_t i = 0; i < t->n_fails; i++) {
        const struct topo_fail *f = &t->fails[i];
        uint32_t a = t->links[f->link].a, pid = t->adj_off[a];
        while (t->adj_link[pid] != f->link)
            pid++;
        if (f->rate) { /* a slowdown, and its end back at the link's own rate */
            if (slow_event(s, t, sw, pid, f->down, f->rate, nic_rate, &s->link_ev[s->n_link_ev++], e) < 0)
                return -1;
            if (f->up != T_NEVER &&
                slow_event(s, t, sw, pid, f->up, t->links[f->link].rate, nic_rate, &s->link_ev[s->n_link_ev++], e) < 0)
                return -1;
            continue;
        }
        s->link_ev[s->n_link_ev++] = (struct sim_link_event){.at = f->down, .port = pid, .up = false};
        if (f->up != T_NEVER)
            s->link_ev[s->n_link_ev++] = (struct sim_link_event){.at = f->up, .port = pid, .up = true};
    }
    return 0;
}

/* The flows as QPs: path facts, windows, ideal FCTs; *max_win the largest window. */
static int build_flows(struct scenario *sc, const struct topo *t, uint64_t *max_win_out, struct err *e)
{
    struct sim *s = &sc->sim;
    const struct cfg_transport *tp = &sc->cfg->transport;
    uint64_t max_win = 0;
    /* every event names its object in 28 bits (core/eventq.h): ports, hosts,
     * flows, link events, and each node's balancer timers */
    if ((uint64_t)s->n_ports > EV_ID_MAX || (uint64_t)s->n_hosts > EV_ID_MAX || (uint64_t)s->n_link_ev > EV_ID_MAX ||
        (uint64_t)s->n_nodes * LB_TIMERS > EV_ID_MAX || (uint64_t)sc->flows.n > EV_ID_MAX)
        return errf(e, "too large to simulate: %u nodes, %u ports, %llu flows, %u link changes (event ids are 28 bits: "
                       "at most %u of each, %u nodes)", s->n_nodes, s->n_ports, (unsigned long long)sc->flows.n,
                    s->n_link_ev, EV_ID_MAX, EV_ID_MAX / LB_TIMERS);
    s->n_flows = (uint32_t)sc->flows.n;
    s->flows = xcalloc_aligned(s->n_flows, sizeof *s->flows, _Alignof(struct qp)); /* sender's and receiver's fields on their own lines */
    s->start_order = xcalloc(s->n_flows, sizeof *s->start_order);
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct flow_spec *fs = &sc->flows.v[i];
        struct qp *f = &s->flows[i];
        if ((i & 4095) == 0 && setup_progress("flows", i, s->n_flows))
            return setup_stopped(e);
        f->id = i;
        f->src = fs->src;
        f->dst = fs->dst;
        f->size = fs->size;
        f->start = fs->start;
        f->pg = (uint8_t)fs->pg;
        f->dport = fs->dport;
        struct path_info pi;
        if (routes_path(&sc->routes, t, f->src, f->dst, s->p.mtu, &pi) < 0)
        {
            if (sc->cfg->topology.type == TOPO_FILE) /* the file at fault, not the scenario that names it */
                return errf(e, "%s: host %u cannot reach host %u (flow %u): no path joins them in this topology file",
                            sc->cfg->topology.file, f->src, f->dst, i);
            return errf(e, "flow %u: host %u cannot reach host %u", i, f->src, f->dst);
        }
        simtime_t pair_rtt = 2 * pi.delay + pi.tx_delay;
        uint64_t pair_bdp = (uint64_t)((unsigned __int128)pair_rtt * pi.bw / (8 * (unsigned __int128)T_SEC));
        f->base_rtt = tp->window_global ? sc->max_rtt : pair_rtt;
        f->hops = (uint8_t)(pi.hops > 255 ? 255 : pi.hops);
        if (tp->window == PARAM_WIN_BDP || (s->p.irn && tp->window == 0)) /* IRN's BDP-FC */
            f->win = tp->window_global ? sc->max_bdp : pair_bdp;
        else
            f->win = tp->window;
        if (f->win > max_win)
            max_win = f->win;
        /* ns-3's "standalone" FCT: pair base RTT plus every byte, with 48 B of
         * headers per packet, at the path's slowest link. */
        uint64_t npkts = (f->size + s->p.mtu - 1) / s->p.mtu;
        f->ideal_fct = pair_rtt + tx_time(f->size + HDR_DATA * npkts, pi.bw);
        f->nack_timer = 0;
        f->rcv_done = T_NEVER;
        /* no timer set: flow_start says so again at the sender, but a receiver's timer
         * (cc_ops.rx_timers) in another MPI rank's process never sees that start */
        for (int k = 0; k <= CC_TIMERS; k++)
            f->timer_at[k] = f->timer_ev[k] = -1;
    }
    if (nvs_setup(s, t->gpus_per_server, t->nvlink, t->nvlink_delay) < 0) /* GPU servers: flows inside one over its NVSwitch */
        return errf(e, "too large to simulate: %u flows inside GPU servers' NVSwitches need 2 event ids each (28 bits)",
                    s->n_flows);
    *max_win_out = max_win;
    return 0;
}

/* The start order, and flows that wait for others. */
static int build_order(struct scenario *sc, struct err *e)
{
    struct sim *s = &sc->sim;
    if (flow_list_order(&sc->flows, s->start_order) < 0) /* qp ids are flow-list indices */
        return errf(e, "out of memory ordering %u flows", s->n_flows);
    _Static_assert(SIM_DEP_SENT == FLOW_DEP_SENT && SIM_DEP_RECV == FLOW_DEP_RECV && SIM_DEP_QP == FLOW_DEP_QP &&
                       SIM_DEP_START == FLOW_DEP_START && SIM_DEP_ID == FLOW_DEP_ID, "one set of flags for both layers");
    if (sc->flows.n_deps) { /* flows that wait for others (collectives, a flow file's dependency column) */
        uint32_t *off = xcalloc((size_t)s->n_flows + 1, sizeof *off), *pre = xcalloc(sc->flows.n_deps, sizeof *pre);
        simtime_t *delay = xcalloc(s->n_flows ? s->n_flows : 1, sizeof *delay);
        for (uint32_t i = 0; i < s->n_flows; i++) {
            const struct flow_spec *fs = &sc->flows.v[i];
            off[i + 1] = off[i] + fs->ndeps;
            for (uint32_t k = 0; k < fs->ndeps; k++)
                pre[off[i] + k] = sc->flows.deps[fs->dep0 + k];
            delay[i] = fs->dep_delay;
        }
        sim_deps_set(s, off, pre, delay);
        free(off);
        free(pre);
        free(delay);
    }
    return 0;
}

/* The receiver's reorder buffer, IRN and bitmap windows. */
static void build_receiver(struct scenario *sc, uint64_t max_win)
{
    struct sim *s = &sc->sim;
    const struct cfg_transport *tp = &sc->cfg->transport;
    /* IRN's ring bitmaps cover twice the largest window, in packets; the
     * reorder buffer's, twice its capacity */
    s->p.reorder = tp->reorder == REORDER_BUFFER && !s->p.irn;
    s->p.reorder_bytes = tp->reorder_bytes;
    s->p.reorder_timeout = tp->reorder_timeout;
    uint64_t ring = s->p.reorder && tp->reorder_bytes > max_win ? tp->reorder_bytes : max_win;
    s->p.irn_bits = 64;
    while (s->p.irn_bits < 2 * (ring / s->p.mtu + 2))
        s->p.irn_bits *= 2;
    s->p.bitmap = tp->reorder == REORDER_BITMAP && !s->p.irn; /* the bounded window: MP-RDMA's L */
    s->p.ooo_window = (uint32_t)tp->ooo_window;
    if (!s->p.ooo_window) /* auto (MP-RDMA's profile bdp): 64 doubled until it holds the largest BDP (106 packets on a 1 us leaf-spine at 100 Gbps) */
        for (s->p.ooo_window = 64; (uint64_t)s->p.ooo_window * s->p.mtu < sc->max_bdp; s->p.ooo_window *= 2)
            ;
    while (s->p.bitmap && s->p.irn_bits < s->p.ooo_window)
        s->p.irn_bits *= 2;
    s->p.rings = s->p.irn || s->p.reorder || s->p.bitmap;
}

#define PARTS_PER_THREAD 4

/* The fabric's partitions for run.partitions, auto (0): at least
 * PARTS_PER_THREAD per thread where the edge switches allow, so that the
 * threads can be balanced (docs/parallel.md). */
static int partition_for(const struct scenario *sc, struct partition *pt, struct err *e)
{
    const struct config *c = sc->cfg;
    int ranks = sc->comm ? sc->comm->size : 1;
    if (topo_partition(pt, &sc->topo, (uint32_t)c->run.partitions, e) < 0)
        return -1;
    uint64_t enough = (uint64_t)c->run.threads * (uint64_t)ranks * PARTS_PER_THREAD;
    if (c->run.partitions == 0 && pt->n_parts < enough) {
        partition_free(pt);
        if (topo_partition(pt, &sc->topo, (uint32_t)enough, e) < 0)
            return -1;
    }
    return 0;
}

/* Across MPI ranks, before the ports are built: which nodes this rank runs
 * (sim.node_here), so that it sets up only their ports. A partitioning that
 * scenario_parallel would refuse leaves every node here; it says why there. */
static void rank_nodes(struct scenario *sc)
{
    struct partition pt;
    struct err ignored;
    if (!sc->comm || sc->comm->size < 2 || partition_for(sc, &pt, &ignored) < 0)
        return;
    if (pt.n_parts >= 2 && pt.lookahead > 0) {
        uint8_t *here = xcalloc(sc->topo.n_nodes, 1);
        for (uint32_t n = 0; n < sc->topo.n_nodes; n++)
            here[n] = eng_rank_of(pt.part[n], pt.n_parts, sc->comm->size) == sc->comm->rank;
        sc->sim.node_here = here;
        sc->part = pt.part;
        pt.part = NULL;
        sc->n_parts = pt.n_parts;
        sc->lookahead = pt.lookahead;
    }
    partition_free(&pt);
}

int scenario_build(struct scenario *sc, struct err *e)
{
    const struct config *cfg = sc->cfg;
    const struct topo *t = &sc->topo;
    struct sim *s = &sc->sim;
    if (routes_build(&sc->routes, t, e) < 0)
        return -1;
    sim_init(s);
    sc->built = true;

    /* The configuration passed config_validate (scenario/validate.c): the
     * schemes exist and fit together, the switch and transport keys agree;
     * nothing of that is checked again here. */
    const struct cc_ops *cc = cc_find(cfg->transport.cc);
    const struct lb_ops *lb = lb_find(cfg->lb.scheme);
    if (!cc || !lb || cc->companion)
        return errf(e, "%s: the configuration was not validated (config_validate)", cfg->source);
    s->lb = lb;
    s->lb_par = cfg->lb_params[lb_index(lb->name)];
    s->data_hdr = HDR_DATA + cc->int_bytes + lb->hdr_bytes;
    {   /* ns-3 pads an ACK's payload so that it is 60 bytes without INT */
        int pad = 60 - HDR_L2 - HDR_IP - (int)(12 + cc->int_bytes);
        s->ack_size = (uint32_t)(pad > 0 ? pad : 0) + 12 + cc->int_bytes + HDR_IP + HDR_L2;
    }

    const struct cfg_transport *tp = &cfg->transport;
    const struct cfg_switch *sw = &cfg->sw;
    build_params(s, cfg);
    rank_nodes(sc);
    build_ports(s, t, cfg);
    if (setup_signal() || build_hosts(s, t, e) < 0)
        return setup_signal() ? setup_stopped(e) : -1;
    uint64_t nic_rate = s->plink[s->nics[0].port].rate;
    if (build_mmu(s, t, sw, nic_rate, e) < 0)
        return -1;
    sim_routes_fill(sc);
    if (build_link_events(s, t, sw, nic_rate, e) < 0)
        return -1;
    s->reroute = reroute;
    s->reroute_ctx = sc;

    /* ns-3's maxRtt / maxBdp over every host pair. A pair's path is its two
     * host links around the edge-to-edge path, so the largest is found over
     * edge pairs with each edge's slowest, longest host link (exact for the
     * maxima: delay and serialisation add, bandwidth is a minimum). */
    pair_maxima(sc, t);
    if (setup_signal())
        return setup_stopped(e);

    uint64_t max_win = 0;
    if (build_flows(sc, t, &max_win, e) < 0 || build_order(sc, e) < 0)
        return -1;
    assign_sports(s);
    build_receiver(sc, max_win);
    /* the CC and its companions first: a balancer's init may ask about its pair (lb_cc_paired) */
    add_slot(s, cc, cfg->cc_params[cc_index(cc->name)]); /* slot 0 */
    for (int k = 0; k < CC_COMPANIONS_MAX && cc_companions[k]; k++) {
        if (tp->companion[k])
            add_slot(s, cc_companions[k], cfg->cc_params[cc_index(cc_companions[k]->name)]);
    }
    lb_setup(sc, s, lb);
    routes_handed_over(&sc->routes);
    return 0;
}

int scenario_parallel(struct scenario *sc, struct err *e)
{
    const struct config *c = sc->cfg;
    int ranks = sc->comm ? sc->comm->size : 1;
    if (c->run.threads <= 1 && ranks <= 1)
        return 0;
    char who[96];
    if (ranks > 1)
        snprintf(who, sizeof who, "%d MPI ranks", ranks);
    else
        snprintf(who, sizeof who, "run.threads = %lld", (long long)c->run.threads);
    const char *fix = ranks > 1 ? "run it in one process (without mpirun, or -np 1)" : "this run must use run.threads = 1";
    const char *why = NULL;
    if (c->output.partition_report)
        why = "output.partition_report = on measures how the serial run would split (set it off to run on threads)";
    else
        why = sim_parallel_refusal(&sc->sim);
    if (why)
        return errf(e, "%s: %s; %s", who, why, fix);
    if (!sc->part) { /* (across ranks rank_nodes found them before the ports were built) */
        struct partition pt;
        if (partition_for(sc, &pt, e) < 0)
            return -1;
        if (pt.n_parts > 1 && pt.lookahead <= 0) {
            bool nv = pt.n_split_servers && sc->topo.nvlink_delay <= 0;
            partition_free(&pt);
            if (nv)
                return errf(e, "%s: GPU servers are split between partitions (their GPUs sit on different leaves) and "
                               "topology.nvlink_delay = 0: an NVSwitch transfer's other end would need no time to "
                               "hear of it, so no window for the partitions to run apart; give nvlink_delay a "
                               "positive value", who);
            return errf(e, "%s: a link between partitions has no delay (topology.link_delay = 0): no window "
                           "for the partitions to run apart", who);
        }
        if (pt.n_parts < 2) {
            partition_free(&pt);
            if (ranks > 1)
                return errf(e, "%s: the fabric has one partition (run.partitions, topo/partition.h): nothing to share; %s", who, fix);
            warnf("%s: the fabric has one partition (run.partitions, topo/partition.h); running serially", who);
            return 0;
        }
        sc->part = pt.part;
        pt.part = NULL;
        sc->n_parts = pt.n_parts;
        sc->lookahead = pt.lookahead;
        partition_free(&pt);
    }
    if (sc->sim.deps && (why = deps_parallel_refusal(&sc->sim, sc->part)) != NULL)
        return errf(e, "%s: %s; %s", who, why, fix);
    unsigned cpus;
    bool bound;
    uint64_t sharing = eng_sharing((uint32_t)c->run.threads, sc->comm, &cpus, &bound);
    if (cpus > 0 && sharing > cpus) {
        if (sharing > (uint64_t)c->run.threads) /* other ranks run on these CPUs too */
            warnf("run.threads = %lld on each of the %d ranks that share this rank's %u CPU%s: %llu threads; they take "
                  "turns (same outputs, slower)",
                  (long long)c->run.threads, sc->comm->node_sharing, cpus, cpus == 1 ? "" : "s",
                  (unsigned long long)sharing);
        else if (bound) /* by the launcher: mpirun binds each of 2 ranks to one core unless told otherwise */
            warnf("run.threads = %lld: more threads than the %u CPU%s this %s may run on (its affinity, as its launcher "
                  "bound it); they take turns (same outputs, slower): give it run.threads CPUs (mpirun --map-by "
                  "slot:PE=%lld, or --bind-to none)",
                  (long long)c->run.threads, cpus, cpus == 1 ? "" : "s", ranks > 1 ? "rank" : "process",
                  (long long)c->run.threads);
        else
            warnf("run.threads = %lld: more threads than the %u CPU%s this process may run on; they take turns (same "
                  "outputs, slower)",
                  (long long)c->run.threads, cpus, cpus == 1 ? "" : "s");
    }
    if (sc->n_parts < (uint32_t)c->run.threads * (uint32_t)ranks)
        warnf("%s%s: only %u partitions (run.partitions) for %lld threads, so some have nothing to run", who,
              ranks > 1 && c->run.threads > 1 ? " and run.threads" : "", sc->n_parts, (long long)c->run.threads * ranks);
    return 0;
}

void scenario_run(struct scenario *sc)
{
    if (sc->part)
        sim_run_parallel(&sc->sim, sc->part, sc->n_parts, (uint32_t)sc->cfg->run.threads, sc->lookahead, sc->comm);
    else
        sim_run(&sc->sim);
}

void scenario_free(struct scenario *sc)
{
    free(sc->part);
    if (sc->routes.off && sc->routes.off == sc->sim.route_off)
        routes_handed_over(&sc->routes); /* set-up stopped after sim_routes_fill: the sim frees them */
    if (sc->built)
        sim_free(&sc->sim);
    routes_free(&sc->routes);
    topo_free(&sc->topo);
    flow_list_free(&sc->flows);
    memset(sc, 0, sizeof *sc);
}
