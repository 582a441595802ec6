/* Topologies as plain graphs, and the shortest-path routing ns-3 HPCC uses.
 * Node ids are dense 0..n_nodes-1. Generated topologies number hosts first
 * (0..H-1), then switches, like ns-3's fat.txt. A node's ports are its links
 * in the order they appear in `links` (ns-3's ifIndex = that order + 1). */
#ifndef ROCESIM_TOPO_H
#define ROCESIM_TOPO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/err.h"
#include "core/param.h"
#include "core/simtime.h"

/* Switch layers: 1 edge/ToR/leaf, 2 aggregation/spine, 3 core. Hosts are 0. */
enum { LAYER_HOST = 0, LAYER_EDGE = 1, LAYER_AGG = 2, LAYER_CORE = 3 };

enum topo_type { TOPO_LEAFSPINE, TOPO_FATTREE, TOPO_DUMBBELL, TOPO_CLOS, TOPO_PARKINGLOT, TOPO_FILE, TOPO_RAIL };
#define TOPO_CHOICES "leafspine|fattree|dumbbell|clos|parkinglot|file|rail"
/* the order of a switch's equal-cost next hops, which ECMP's hash indexes */
enum hop_order { HOP_ORDER_ID, HOP_ORDER_NS3 };
#define HOP_ORDER_CHOICES "id|ns3"

/* The [topology] section (scenario/config.c holds its key table): what the
 * generators build from. */
struct cfg_topology {
    int type;
    int64_t leaves, spines, hosts_per_leaf; /* leafspine */
    int64_t k;                              /* fattree */
    int64_t senders, receivers;             /* dumbbell */
    int64_t pods, edges_per_pod, aggs_per_pod, hosts_per_edge, cores; /* clos */
    double oversubscription;                /* leafspine, clos: > 0 derives the hosts per edge switch */
    int64_t chain, hosts_per_switch;        /* parkinglot */
    int64_t servers, gpus_per_server, servers_per_leaf; /* rail (spines: leafspine's) */
    int64_t planes;                         /* rail: NIC ports per GPU, each on its own plane */
    bool dual_tor;                          /* rail: two NIC ports per GPU on a ToR pair of one plane */
    bool rail_optimised;                    /* rail: NIC i on rail i's leaf (off: a server's NICs on one leaf) */
    uint64_t nvlink;                        /* rail: a GPU's bandwidth into its server's NVSwitch, bps */
    simtime_t nvlink_delay;                 /* rail: its latency, end to end */
    uint64_t host_link, fabric_link;        /* bps */
    simtime_t link_delay;
    double loss;                            /* per-packet corruption probability of every link */
    char file[PARAM_STR_MAX];               /* file: ns-3 HPCC topology */
    char link_rate[PARAM_STR_MAX];          /* "A-B:RATE, ...": per-link rate overrides (faults.c) */
    char fail[PARAM_STR_MAX];               /* "A-B@T" or "A-B@T1-T2, ...": link failures (faults.c) */
    char flap[PARAM_STR_MAX];               /* "A-B@FROM-UNTIL:every=P[:down=D], ...": flapping links (faults.c) */
    char switch_fail[PARAM_STR_MAX];        /* "SW@T[-T2], ...": every link of a switch down (faults.c) */
    char slow[PARAM_STR_MAX];               /* "A-B:RATE@T[-T2], ...": a link's rate cut (faults.c) */
    int next_hop_order;                     /* enum hop_order */
};

struct topo_node {
    bool is_switch;
    uint8_t layer;
    bool no_ecn;   /* its ports never mark ECN, whatever [switch] says: a SimAI NVSwitch (simaitopo.c), as SimAI's NVSwitchNode */
};

struct topo_link {
    uint32_t a, b;
    uint64_t rate;     /* bps */
    simtime_t delay;   /* ps */
    double error_rate; /* ns-3 column 5; 0 for generated links */
    bool down;         /* failed: routes_build leaves it out (ports keep their numbers) */
};

/* A link failure (topology.fail, flap, switch_fail; ns-3 LINK_DOWN): down at
 * `down`, back at `up` (T_NEVER: stays down). With rate > 0 it is a slowdown
 * instead (topology.slow): the link runs at `rate` over [down, up). */
struct topo_fail {
    uint32_t link;
    simtime_t down, up;
    uint64_t rate;
};

/* How a generator's nodes are named (topo_node_name / topo_node_find). Every
 * topology also takes plain node ids. */
enum topo_naming {
    NAMES_IDS,       /* ns-3 topology files: node ids only */
    NAMES_LEAFSPINE, /* hostN, leafI, spineJ */
    NAMES_PODS,      /* fattree, clos: hostN, edgeP.I, aggP.J, coreC (P = pod) */
    NAMES_DUMBBELL,  /* dumbbell, parkinglot: hostN, sN (dumbbell: s0 senders, s1 receivers) */
};

struct topo {
    uint32_t n_nodes;
    struct topo_node *nodes;
    uint32_t n_links;
    struct topo_link *links;
    uint32_t n_hosts;
    uint32_t *hosts;      /* host node ids, ascending */
    int32_t *host_index;  /* node id -> index in hosts[], or -1 for a switch */
    /* Links of node n in file order (its ports): adj_link[adj_off[n] .. adj_off[n+1]).
     * Port p of node n (0-based) is links[adj_link[adj_off[n] + p]]. */
    uint32_t *adj_off;    /* n_nodes + 1 entries */
    uint32_t *adj_link;   /* 2 * n_links entries: link indices */
    /* Generated topologies: names. Edge switches are first_edge.. (pod-major,
     * n_edge_pp per pod), aggregation/spine first_agg.., core first_core.. */
    int naming;
    uint32_t n_edge, n_agg, n_core, n_edge_pp, n_agg_pp;
    uint32_t first_edge, first_agg, first_core;
    /* Link failures in the order given (topology.fail, LINK_DOWN). */
    struct topo_fail *fails;
    uint32_t n_fails;
    /* GPU servers (type = rail): hosts are GPUs, each with its own NIC,
     * gpus_per_server consecutive host ids to a server (0: no servers); a
     * transfer between two GPUs of one server goes over its NVSwitch, a
     * non-blocking switch with nvlink bps per GPU port and nvlink_delay. */
    uint32_t gpus_per_server;
    /* NICs with several ports (type = rail with planes > 1 or dual_tor):
     * nic_ports ports per GPU, each port a host of its own with one link: port
     * p of GPU g is host p * gpu_hosts + g, so hosts 0 .. gpu_hosts - 1 (port
     * 0) stand for the GPUs themselves (traffic names them, the NVSwitch joins
     * them) and a queue pair between two servers is moved onto one port at
     * each end (traffic/nicports.c). nic_ports 0: one port, every host a GPU. */
    uint32_t nic_ports, gpu_hosts;
    uint64_t nvlink;
    simtime_t nvlink_delay;
    /* routes_build: order each node's equal-cost next hops as ns-3 HPCC does
     * (topology.next_hop_order = ns3) instead of ascending by id. */
    bool ns3_hop_order;
    /* SimAI topologies (simaitopo.c): GPU g's NIC is host gpu_nic[g] and, in a
     * server with an NVSwitch, its NVLink port is host gpu_nvl[g] (UINT32_MAX:
     * none); n_gpus = 0 for other topologies (every host is a GPU, no NVLink).
     * simai_gps: GPUs per server of the SimAI file (not gpus_per_server above,
     * whose servers are runs of consecutive host ids: here each GPU is two hosts). */
    uint32_t n_gpus, simai_gps;
    uint32_t *gpu_nic, *gpu_nvl;
    char gpu_type[16];
};

/* Build leafspine / fattree / clos / dumbbell from the [topology] section
 * (type=file reads c->file as given, via topo_read_ns3), then apply
 * c->link_rate and parse c->fail. On error *t is left empty. */
int topo_generate(struct topo *t, const struct cfg_topology *c, struct err *e);
/* The two list keys on their own (topo_generate calls them; the config
 * checks call them apart to blame the right key). Errors name the key.
 * "A-B:RATE, ..." sets those links' rates (both directions). */
int topo_set_link_rates(struct topo *t, const char *spec, struct err *e);
/* "A-B@T" (down from T on) or "A-B@T1-T2" (down at T1, up at T2), comma-
 * separated; appends to t->fails. Rejects unknown nodes, non-links,
 * T2 <= T1 and overlapping failures of one link. */
int topo_parse_fails(struct topo *t, const char *spec, struct err *e);
/* "A-B@FROM-UNTIL:every=PERIOD[:down=TIME]" (outages at FROM, FROM+PERIOD,
 * ... before UNTIL, each TIME long, default PERIOD/2, cut at UNTIL);
 * "SW@T[-T2]" (every link of switch SW); "A-B:RATE@T[-T2]" (slowdowns, RATE
 * below the link's rate). Comma-separated; append to t->fails; errors name
 * the key (topology.flap, switch_fail, slow). */
int topo_parse_flaps(struct topo *t, const char *spec, struct err *e);
int topo_parse_switch_fails(struct topo *t, const char *spec, struct err *e);
int topo_parse_slows(struct topo *t, const char *spec, struct err *e);
/* Add one failure (ns-3 LINK_DOWN): `where` prefixes errors. */
int topo_add_fail(struct topo *t, uint32_t a, uint32_t b, simtime_t down, simtime_t up, const char *where,
                  struct err *e);
/* After every failure that never recovers, can every host still reach every
 * other? If not, -1 naming a cut-off host and the failure that did it. */
int topo_check_fails_connected(const struct topo *t, struct err *e);
/* Node names: see enum topo_naming. find: 0, or -1 if no node has that name. */
int topo_node_find(const struct topo *t, const char *name, uint32_t *id);
void topo_node_name(const struct topo *t, uint32_t id, char *buf, size_t n);
/* The names a topology accepts, for error messages ("node ids, hostN, ..."). */
const char *topo_naming_help(const struct topo *t);
/* Parse an ns-3 HPCC topology file: "N S L", the S switch ids, then L lines
 * "a b rate delay error_rate". `fname` is used in "fname:line: ..." errors.
 * Rejects: missing nodes, ids out of range, self-links, duplicate links,
 * hosts with other than exactly one link, bad units, delays over 1 s, error
 * rates outside [0,1], anything after the L links.
 * Node ids are used as they are; layers are assigned (topo_assign_layers). */
int topo_parse_ns3(struct topo *t, const char *text, const char *fname, struct err *e);
/* SimAI's topology files (gen_Topo_Template.py), simaitopo.c: "N GPS NV S L
 * GPU_TYPE", the NV NVSwitch ids then the S switch ids, then L lines
 * "a b rate delay error_rate". Nodes keep their ids; each GPU's NVLink
 * becomes a host of its own (ids N, N+1, ...) on the NVSwitch, so a GPU is
 * two one-link hosts: its NIC (id as in the file) and its NVLink port.
 * topo_read_ns3 reads either format, told apart by the first line (six
 * fields, the last a GPU type, for SimAI). */
bool topo_looks_simai(const char *text);
int topo_parse_simai(struct topo *t, const char *text, const char *fname, struct err *e);
/* The hosts traffic may name: every host, except on a fabric with
 * multi-port NICs, where hosts 0 .. gpu_hosts - 1 are the GPUs and the rest
 * their other ports. */
static inline uint32_t topo_traffic_hosts(const struct topo *t)
{
    return t->nic_ports > 1 ? t->gpu_hosts : t->n_hosts;
}
/* GPUs: of a SimAI topology, else every host (in id order, no NVLink). */
uint32_t topo_n_gpus(const struct topo *t);
uint32_t topo_gpu_nic(const struct topo *t, uint32_t g);
uint32_t topo_gpu_nvl(const struct topo *t, uint32_t g); /* UINT32_MAX: none */
uint32_t topo_gpu_server(const struct topo *t, uint32_t g);
int topo_read_ns3(struct topo *t, const char *path, struct err *e);
/* Fill nodes[].layer for switches from their distance to hosts: a switch next
 * to a host is edge; others by switch-hop distance from the nearest edge
 * switch: 1 agg, >= 2 core (also core: switches no edge switch reaches). */
void topo_assign_layers(struct topo *t);
void topo_free(struct topo *t);
/* For builders (generators, parser): given n_nodes, nodes[] and links[],
 * fill hosts[], host_index[] and the adjacency index. On error frees *t. */
int topo_finish(struct topo *t, struct err *e);

/* Equal-cost next hops, as ns-3 HPCC's CalculateRoute: for every node and
 * destination host the neighbours on shortest paths that expand only through
 * switches, ascending by node id (or, with t->ns3_hop_order, in the order
 * ns-3's BFS appends them, below). Every host hangs off one switch (its edge),
 * so a switch's next hops toward a host are those toward the host's edge
 * switch: the tables are kept per (node, destination edge), one BFS per edge
 * switch, so set-up is linear in nodes x edges rather than nodes x hosts. */
struct routes {
    uint32_t n_nodes, n_hosts, n_edges;
    uint32_t *edge_node;  /* edge index -> switch node id */
    int32_t *edge_index;  /* node id -> edge index, or -1 */
    uint32_t *host_edge;  /* host index -> edge index of its switch, or UINT32_MAX (a host-host link) */
    uint32_t *host_node;  /* host index -> node id */
    uint32_t *host_nbr;   /* host index -> the node at the far end of its one link (UINT32_MAX: none) */
    int32_t *host_index;  /* node id -> host index, or -1 */
    /* Rows only for the span of node ids that holds every switch (hosts
     * route by their one link): row0 .. row0 + nrows - 1. */
    uint32_t row0, nrows;
    uint32_t *off;        /* [(node - row0) * n_edges + edge] -> first entry in nbr[] */
    uint16_t *cnt;        /* number of next hops (0: unreachable, or node is that edge) */
    uint32_t *nbr;        /* neighbour node ids */
};
int routes_build(struct routes *r, const struct topo *t, struct err *e);
void routes_free(struct routes *r);
/* Next hops of `node` toward the host with index host_idx (same answers as a
 * table per destination host). */
const uint32_t *routes_next(const struct routes *r, uint32_t node, uint32_t host_idx, int *n);
/* The entry of switch `node` toward edge switch index `edge` in cnt[] and off[]
 * (rows for the switches' span of node ids, from row0). */
static inline size_t routes_entry(const struct routes *r, uint32_t node, uint32_t edge)
{
    return (size_t)(node - r->row0) * r->n_edges + edge;
}
/* Next hops of switch `node` toward edge switch index `edge` (node != that edge). */
static inline const uint32_t *routes_next_edge(const struct routes *r, uint32_t node, uint32_t edge, int *n)
{
    size_t i = routes_entry(r, node, edge);
    *n = r->cnt[i];
    return *n ? r->nbr + r->off[i] : r->nbr; /* (an entry without hops has no offset; nbr is NULL if none has) */
}

/* Path facts between two hosts along the first next hop at every step (ns-3's
 * pairDelay / pairTxDelay / pairBw): total propagation delay, total
 * serialisation time of one `payload`-byte packet per hop, and the smallest
 * link rate. Returns -1 if dst is unreachable, not a host, or src == dst. */
struct path_info {
    simtime_t delay;
    simtime_t tx_delay;
    uint64_t bw;
    int hops;
};
int routes_path(const struct routes *r, const struct topo *t, uint32_t src, uint32_t dst, uint32_t payload,
                struct path_info *out);
/* The same facts from switch `from` to edge switch index `edge` (along the
 * first next hop), and the step that adds one link to them. */
int routes_edge_path(const struct routes *r, const struct topo *t, uint32_t from, uint32_t edge, uint32_t payload,
                     struct path_info *out);
void path_info_add_link(struct path_info *p, const struct topo_link *l, uint32_t payload);

/* The link between two adjacent nodes, or NULL; O(degree of a). */
const struct topo_link *topo_link_between(const struct topo *t, uint32_t a, uint32_t b);

#endif
