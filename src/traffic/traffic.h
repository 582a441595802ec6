/* Flows to simulate: flow-size CDFs, generators and ns-3 flow files. */
#ifndef ROCESIM_TRAFFIC_H
#define ROCESIM_TRAFFIC_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/err.h"
#include "core/rng.h"
#include "core/simtime.h"

struct topo;
struct coll_job;
struct simai_sched;

struct flow_spec {
    uint32_t src, dst; /* host node ids */
    uint64_t size;     /* bytes */
    simtime_t start;
    uint16_t pg;       /* priority group */
    uint16_t dport;    /* ns-3 flow files carry it; generators use 100 like traffic_gen.py */
    uint16_t source;   /* which section made it: 0 [traffic], 1 + i [traffic.NAME] number i, FLOW_SOURCE_NAMED [flow.NAME] */
    /* Dependencies: the flow starts dep_delay after the last of its ndeps
     * prerequisites (flow_list.deps[dep0 .. dep0+ndeps), flow indices) has
     * finished, and not before `start`. ndeps = 0: it starts at `start`. */
    uint32_t ndeps, dep0;
    simtime_t dep_delay;
    /* In flow_list.deps, a prerequisite's id with at most one of these flags;
     * none: met when the flow completes (its sender has the last ACK). */
#define FLOW_DEP_SENT 0x80000000u /* met when the flow's last byte left its sender (not its ACK) */
#define FLOW_DEP_RECV 0x40000000u /* met when the flow's receiver has its last byte (the data arrived) */
#define FLOW_DEP_QP 0x20000000u   /* the previous message on this flow's queue pair: met when its last byte
                                   * left the sender; this flow continues that QP (same source port, the
                                   * CC's and the balancer's state carried over: docs/collectives.md) */
#define FLOW_DEP_START 0x10000000u /* met when the flow starts; the dependent starts no earlier than it did
                                    * (its dep_delay counts from its other prerequisites only) */
#define FLOW_DEP_FLAGS (FLOW_DEP_SENT | FLOW_DEP_RECV | FLOW_DEP_QP | FLOW_DEP_START)
#define FLOW_DEP_ID 0x0fffffffu
    /* Collectives (collective.c): 1 + index into flow_list.jobs, 0 = none;
     * the iteration and the step of the algorithm it belongs to. */
    uint16_t job;
    uint16_t step;
    uint32_t iter;
};
#define FLOW_SOURCE_NAMED 0xffff

#define FLOW_NAME_MAX 32 /* bytes, with the NUL */

/* Flows, and the names of named flows ([flow.NAME]) kept beside them: use
 * the functions below (and only flow_list_sort to reorder v) so they stay
 * in step; truncating n is fine. */
struct flow_list {
    struct flow_spec *v;
    size_t n, cap;
    uint32_t *name_of;            /* NULL until a named flow; else per flow 1 + index into names, 0 = unnamed */
    char (*names)[FLOW_NAME_MAX];
    size_t n_names, cap_names;
    uint32_t *deps;               /* prerequisites of every flow with ndeps > 0, as flow indices (kept right by flow_list_sort) */
    size_t n_deps, cap_deps;
    struct coll_job *jobs;        /* collective jobs (collective.h), flow_spec.job - 1 indexes it */
    size_t n_jobs;
    struct simai_sched *simai;    /* SimAI training jobs (simai.h): what their report needs */
    size_t n_simai;
};
/* On a fabric of multi-port NICs (topo.nic_ports > 1): each queue pair
 * between two servers onto one port of its GPUs, round-robin per sending GPU
 * (nicports.c). Refuses a flow naming a port host other than port 0. */
int traffic_nic_ports(struct flow_list *fl, const struct topo *t, struct err *e);
/* Appends a copy of *f, unnamed. */
int flow_list_push(struct flow_list *l, const struct flow_spec *f);
/* Appends a copy of *f named `name` (at most FLOW_NAME_MAX - 1 bytes kept). */
int flow_list_push_named(struct flow_list *l, const struct flow_spec *f, const char *name);
/* The name of flow i, or NULL if it has none. Names survive flow_list_sort. */
const char *flow_list_name(const struct flow_list *l, size_t i);
void flow_list_free(struct flow_list *l);
/* Appends n prerequisite flow indices and returns where they start (for
 * flow_spec.dep0), or -1 if out of memory. */
int64_t flow_list_add_deps(struct flow_list *l, const uint32_t *ids, size_t n);
/* Checks flows [from, l->n): every prerequisite is an earlier or later flow
 * of that range, not the flow itself, and no cycle. 0, or -1 with *bad the
 * flow at fault and *why what is wrong (a static message; for a cycle *bad
 * is a flow on it). */
int flow_list_check_deps(const struct flow_list *l, size_t from, size_t *bad, const char **why);
/* Stable sort by start time (ties keep their order). */
void flow_list_sort(struct flow_list *l);
/* order[0..n-1] = the flows' indices in stable start-time order; -1 if out of memory. */
int flow_list_order(const struct flow_list *l, uint32_t *order);

/* A flow-size CDF: points (x bytes, p in [0,1]), p non-decreasing from 0 to 1.
 * Both formats are read: ours ("size prob", '#' comments) and ns-3
 * traffic_gen's ("size percent", last value 100), told apart by the last value. */
struct cdf {
    int n;
    double *x, *p;
    double mean_linear; /* mean when sampling interpolates between points (ns-3) */
    double mean_step;   /* mean when sampling takes the upper point of a step */
    char name[256];
};
int cdf_parse(struct cdf *c, const char *text, const char *fname, struct err *e);
/* `spec` is a name from the workloads folder ("web_search") or a path. */
int cdf_load(struct cdf *c, const char *spec, const char *workloads_dir, struct err *e);
void cdf_free(struct cdf *c);
/* sampling: 0 = linear (CDF_LINEAR), 1 = step (CDF_STEP); result >= 1 byte. */
uint64_t cdf_sample(const struct cdf *c, struct rng *r, int sampling);
double cdf_mean(const struct cdf *c, int sampling);

/* Poisson arrivals per host at `load` of that host's link rate, sizes from the
 * CDF, destinations uniform among the other hosts; arrivals in
 * [start, start+duration), start times rounded to whole nanoseconds. Appends
 * to `out` in (start, src) order, as ns-3's traffic_gen.py emits them. */
int traffic_poisson(struct flow_list *out, const struct topo *t, const struct cdf *c, int sampling,
                    double load, simtime_t start, simtime_t duration, uint16_t pg, struct rng *r,
                    struct err *e);

/* Same, with a share of destinations inside the sender's rack: intra_rack < 0
 * is the uniform choice above (same random draws); 0 <= intra_rack <= 1 picks
 * a host of the sender's rack (its edge switch, traffic_racks) with that
 * probability, else a host of another rack, each uniformly. A sender alone
 * in its rack always goes to another rack, and in a single-rack topology
 * every destination is in the rack. Draws per flow: one uniform (intra or
 * not), the destination (inter: rejection until outside the rack), size, gap. */
int traffic_poisson_rack(struct flow_list *out, const struct topo *t, const struct cdf *c, int sampling,
                         double load, double intra_rack, simtime_t start, simtime_t duration, uint16_t pg,
                         struct rng *r, struct err *e);

/* Poisson arrivals per receiver, each bringing an incast (PCN sec. 7.4's
 * "random in-cast ratio ranging from 1 to 15"): a uniform k in [lo, hi]
 * distinct other hosts each send one flow, sized from the CDF, to the
 * receiver at the arrival time. The mean gap, (lo+hi)/2 * mean_size * 8 /
 * (rate * load), offers `load` of each receiver's link. Output in (start,
 * receiver) order, an arrival's flows by ascending sender. Draws: one gap
 * per host, then per arrival: k, the k senders (partial Fisher-Yates), the k
 * sizes, the next gap. Needs hi < number of hosts. */
int traffic_poisson_incast(struct flow_list *out, const struct topo *t, const struct cdf *c, int sampling,
                           double load, uint32_t lo, uint32_t hi, simtime_t start, simtime_t duration, uint16_t pg,
                           struct rng *r, struct err *e);
/* traffic.incast_ratio: "8" (lo = hi = 8) or "1-15". 0, or -1 with *why. */
int traffic_incast_ratio_parse(const char *s, uint32_t *lo, uint32_t *hi, const char **why);

/* ---- patterns (patterns.c). Generated flows use dport 100, as traffic_gen.py. */

/* A host's rack: the node at the other end of its (first) link, its ToR.
 * rack[i] for hosts[i]; UINT32_MAX for a host without a link. */
void traffic_racks(const struct topo *t, uint32_t *rack);
/* Sum of the hosts' link rates (bps): the "total host capacity" loads refer to. */
double traffic_host_capacity(const struct topo *t);
/* The fabric's core capacity (bps), what traffic.load_of = core refers to:
 * the smallest total rate of the links joining switch layer L to layer L+1,
 * over the layers present (leaf-spine: the leaves' uplinks; three tiers: the
 * smaller of edge-agg and agg-core); with one switch layer (dumbbell,
 * parking lot) the total rate of the switch-to-switch links; 0 without any. */
double traffic_core_capacity(const struct topo *t);

/* Host id lists: "2-15", "2,3,4", "0-3, 8, 10-12". Ids are decimal, ranges
 * inclusive and ascending, no id twice, at most HOST_LIST_MAX ids. Returns 0
 * with *ids (malloc'ed, in the order written; NULL if n = 0) and *n, or -1
 * with *why (a static or thread-local message). An empty or blank string is
 * the empty list. */
#define HOST_LIST_MAX (1u << 20)
int host_list_parse(const char *s, uint32_t **ids, size_t *n, const char **why);

/* fan_in distinct random senders, never the receiver, each send `size`
 * bytes to one receiver (a random host, or `receiver` if >= 0). With
 * load <= 0: one incast at `start`. With load > 0: incasts are a Poisson
 * process in [start, start+duration) whose offered bytes are `load` of the
 * total host capacity: mean gap = fan_in*size*8 / (load*capacity); times
 * rounded to whole ns like traffic_poisson. Each incast's flows are listed
 * by ascending sender. Draws per incast: receiver (if random), fan_in
 * sender picks (partial Fisher-Yates), next gap. */
struct incast_opts {
    uint32_t fan_in;
    uint64_t size;
    int64_t receiver; /* host node id, or -1 = random per incast */
    simtime_t start, duration;
    double load;      /* <= 0: once */
    uint16_t pg;
};
int traffic_incast(struct flow_list *out, const struct topo *t, const struct incast_opts *o, struct rng *r,
                   struct err *e);

/* Every host sends `size` bytes to another, each host receiving exactly one
 * flow: a uniformly random derangement (shuffles until no fixed point), all
 * at `start`, listed by source host. */
int traffic_permutation(struct flow_list *out, const struct topo *t, uint64_t size, simtime_t start,
                        uint16_t pg, struct rng *r, struct err *e);

/* Each sender sends `count` flows of `size` to one receiver at `start`,
 * and again every `interval` while before start+duration (interval 0: once).
 * Senders: the given host ids, or (n_senders = 0) fan_in distinct random
 * hosts other than the receiver, drawn once. Receiver: `receiver` if >= 0,
 * else a random host outside the senders, drawn once (before the senders).
 * Flows of one burst are listed sender by sender, in the senders' order. */
struct burst_opts {
    const uint32_t *senders; /* host node ids */
    size_t n_senders;
    uint32_t fan_in;         /* used when n_senders = 0 */
    int64_t receiver;
    uint64_t count, size;
    simtime_t start, interval, duration;
    uint16_t pg;
};
int traffic_burst(struct flow_list *out, const struct topo *t, const struct burst_opts *o, struct rng *r,
                  struct err *e);

/* ns-3 flow file: first line the count, then "src dst pg dport size start_s".
 * Errors name fname:line (a non-host endpoint, src == dst, bad numbers, fewer
 * lines than the count, size 0). */
int flowfile_parse(struct flow_list *out, const char *text, const char *fname, const struct topo *t,
                   struct err *e);
int flowfile_read(struct flow_list *out, const char *path, const struct topo *t, struct err *e);
/* Writes the same format (start in seconds with 9 decimals). */
void flowfile_write(FILE *f, const struct flow_list *l);
/* The start ns-3 gives a flow file's start time (exact picoseconds in): it
 * reads a double and converts with Seconds(), which truncates in 64.64 fixed
 * point, so most starts land 1 ns early ("0.00001" starts at 9 999 ns). */
simtime_t flowfile_ns3_start(simtime_t start);

/* Whole file into a NUL-terminated buffer (caller frees); -1 with "path: why". */
int read_text_file(const char *path, char **out, struct err *e);

#endif
