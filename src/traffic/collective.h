/* Collective communication as flows with dependencies (collective.c): the
 * step schedules of ring and halving-doubling all-reduce, all-gather,
 * reduce-scatter and all-to-all over a group of hosts, and NCCL's bandwidth
 * definitions. */
#ifndef ROCESIM_COLLECTIVE_H
#define ROCESIM_COLLECTIVE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/err.h"
#include "core/rng.h"
#include "core/simtime.h"
#include "traffic/traffic.h"

enum coll_algo { COLL_RING_ALLREDUCE, COLL_HD_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER, COLL_ALLTOALL };
#define COLL_CHOICES "ring_allreduce|hd_allreduce|allgather|reducescatter|alltoall"
enum coll_place { COLL_CONTIGUOUS, COLL_RANDOM, COLL_SPREAD, COLL_RAIL };
#define COLL_PLACE_CHOICES "contiguous|random|spread|rail"
/* On GPU servers (topology.type = rail): one ring per channel in rank order
 * (flat), NCCL's rail-aligned rings (rail), or hierarchical (server). */
enum coll_hier { COLL_FLAT, COLL_HIER_RAIL, COLL_HIER_SERVER };
#define COLL_HIER_CHOICES "flat|rail|server"
enum coll_a2a { COLL_A2A_PAIRWISE, COLL_A2A_ALL };
#define COLL_A2A_CHOICES "pairwise|all"
/* A rank's compute gap between iterations: compute_gap exactly, or drawn per
 * rank and iteration around it (uniform, normal, exponential). */
enum coll_gap_dist { COLL_GAP_FIXED, COLL_GAP_UNIFORM, COLL_GAP_NORMAL, COLL_GAP_EXP };
#define COLL_GAP_DIST_CHOICES "fixed|uniform|normal|exponential"

/* One collective job: what the metrics need (stats/collective.c). */
struct coll_job {
    char name[48];       /* its section: "traffic" or "traffic.NAME" */
    int algo, a2a;       /* enum coll_algo, enum coll_a2a */
    uint32_t n;          /* hosts in the group */
    uint64_t size;       /* S, bytes, as NCCL's tests count it (see collective.c) */
    uint32_t iterations, steps, chunks, channels;
    int hierarchy;       /* enum coll_hier */
    uint32_t gpus;       /* GPUs per server of the group (hierarchy = server), else 0 */
    simtime_t start, gap;
    uint32_t first_rank_host; /* node id of rank 0 */
    size_t first_flow, n_flows; /* its flows in the list: [first_flow, first_flow + n_flows) */
    uint32_t *hosts;     /* rank -> node id, n of them (owned: flow_list_free frees it) */
    /* Stragglers (item 5): the slow rank (UINT32_MAX: none), its compute gap
     * factor, its NIC's rate in bps (0: unchanged; scenario_load applies it
     * to the rank's host link after the traffic is built, nic_nominal is the
     * rate it had), and the gap distribution (enum coll_gap_dist, spread). */
    uint32_t slow_rank;
    double slow_factor;
    uint64_t slow_nic, nic_nominal;
    int gap_dist;
    simtime_t gap_spread;
    double a2a_zipf;     /* MoE all-to-all: Zipf exponent of the destinations' shares (0: none) */
    bool a2a_weighted;   /* all-to-all with per-destination shares (a2a_zipf or a2a_weights) */
};

struct coll_opts {
    const char *name;        /* section, for coll_job.name */
    int algo, placement, a2a, hierarchy;
    uint32_t group;          /* hosts; 0 = every host not taken */
    uint64_t size;
    uint32_t iterations, chunks, channels; /* 0 means 1 */
    simtime_t start, gap;
    uint16_t pg;
    const uint32_t *hosts;   /* explicit group (node ids, in rank order), or NULL: placement */
    size_t n_hosts;
    uint8_t *taken;          /* per host index: in an earlier job's group; updated (may be NULL) */
    /* Chaining (for workloads built of several collectives and compute): per
     * rank, in rank order, one prerequisite of its first messages (iteration
     * 0, step 0, first piece of every channel), a flow index already in the
     * list with at most one FLOW_DEP_* flag, or UINT32_MAX for none; they go
     * after_delay after it (a compute phase). NULL: start at `start`. */
    const uint32_t *after;
    simtime_t after_delay;
    /* Stragglers: a rank's gap between iterations is compute_gap (gap_dist =
     * fixed) or drawn per rank and iteration from the job's generator:
     * uniform on [gap - spread, gap + spread], normal with sigma = spread,
     * gap + an exponential of mean spread (below 0: 0); with `slow`, rank
     * slow_rank's gap is then multiplied by slow_factor, and its NIC runs at
     * slow_nic bps (0: unchanged). */
    int gap_dist;
    simtime_t gap_spread;
    bool slow;
    uint32_t slow_rank;
    double slow_factor;
    uint64_t slow_nic;
    /* MoE all-to-all (algo = alltoall): rank r sends destination d the share
     * w_d / sum(w) of S (the share for itself stays local). w: a2a_weights
     * (n of them, in rank order), or Zipf: the k-th most popular destination
     * gets 1 / (k+1)^a2a_zipf, the popularity order a permutation of the
     * ranks drawn from the generator; neither: S/n each. */
    const double *a2a_weights;
    size_t n_weights;
    double a2a_zipf;
};

/* Appends the job's flows (iteration by iteration, step by step, piece by
 * piece, then by rank) with their dependencies, and the job to out->jobs. */
int traffic_collective(struct flow_list *out, const struct topo *t, const struct coll_opts *o, struct rng *r,
                       struct err *e);
/* Bytes each rank sends to each destination rank d (dst[d], n of them) for
 * the shares above (o->a2a_weights / a2a_zipf, the Zipf order drawn from r);
 * 0 and dst untouched when neither is set. */
int coll_a2a_shares(const struct coll_opts *o, uint32_t n, struct rng *r, uint64_t *dst, struct err *e);
/* Steps of one iteration (flat: the algorithm over n ranks). */
uint32_t coll_steps(int algo, int a2a, uint32_t n);
/* NCCL tests' busbw / algbw: 2(n-1)/n for all-reduce, (n-1)/n otherwise. */
double coll_busbw_factor(int algo, uint32_t n);
const char *coll_name(int algo);

#endif
