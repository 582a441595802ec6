/* SimAI training workloads (simai.c): the text files AICB writes and
 * SimAI's astra-sim frontend reads (Workload::initialize_workload), and the
 * job they describe as collectives with compute between them.
 *
 * The format, as SimAI reads it (SimAI b5ff47c, astra-sim/workload/
 * Workload.cc; docs/Tutorial.md):
 *   line 1  POLICY [key: value]...  POLICY is the parallelism (HYBRID_TRANSFORMER_FWD_IN_BCKWD,
 *           HYBRID_TRANSFORMER, MICRO, DATA, ...); the transformer policies take
 *           model_parallel_NPU_group: (TP), ep:, pp:, vpp:, ga:, all_gpus:,
 *           checkpoints:, checkpoint_initiates:, pp_comm (or pp_comm:)
 *   line 2  the number of layers
 *   then per layer 12 whitespace-separated fields:
 *           name depen fwd_compute fwd_type fwd_size ig_compute ig_type ig_size
 *           wg_compute wg_type wg_size wg_update
 *           (compute times in ns, sizes in bytes; a type is ALLREDUCE, ALLGATHER,
 *           REDUCESCATTER, ALLTOALL, each optionally _EP or _DP_EP, or NONE).
 * Communicators (MockNcclGroup, built with PP_size = 1 whatever pp says):
 * TP groups are TP consecutive GPUs; DP = all_gpus / TP GPUs i, i + TP, ...;
 * EP groups take GPU k of EP consecutive TP groups; DP_EP groups GPU k of TP
 * groups i, i+EP, ... A plain type in the fwd/ig columns runs on TP, in the
 * wg column on DP; _EP on EP, _DP_EP on DP_EP. */
#ifndef ROCESIM_SIMAI_H
#define ROCESIM_SIMAI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/err.h"
#include "core/simtime.h"
#include "traffic/traffic.h"

enum simai_policy { SIMAI_TRANSFORMER_FIB, SIMAI_TRANSFORMER, SIMAI_MICRO, SIMAI_DATA, SIMAI_MODEL };
enum simai_ctype { SIMAI_NONE, SIMAI_ALLREDUCE, SIMAI_ALLGATHER, SIMAI_REDUCESCATTER, SIMAI_ALLTOALL };
enum simai_group { SIMAI_G_NONE, SIMAI_G_TP, SIMAI_G_DP, SIMAI_G_EP, SIMAI_G_DP_EP };
enum simai_phase { SIMAI_FWD, SIMAI_IG, SIMAI_WG }; /* the column order of a layer line */

struct simai_comm {
    uint64_t compute; /* ns */
    uint8_t type;     /* enum simai_ctype */
    uint8_t group;    /* enum simai_group */
    uint64_t size;    /* bytes */
};

struct simai_layer {
    char name[64];
    int64_t depen;
    struct simai_comm c[3]; /* enum simai_phase */
    uint64_t wg_update;     /* ns; read, not used by SimAI's ns-3 loop either */
    int line;
};

struct simai_workload {
    int policy;
    uint32_t tp, ep, pp, vpp, ga, all_gpus;
    uint64_t pp_comm;
    uint32_t n_layers;
    struct simai_layer *layers;
    char fname[256];
};

/* Whether text looks like a SimAI workload: its first token is a parallelism
 * policy SimAI knows (HYBRID_TRANSFORMER_FWD_IN_BCKWD, MICRO, DATA, ...). */
bool simai_looks_workload(const char *text);
/* Parse; errors "fname:line: what is wrong". */
int simai_parse(struct simai_workload *w, const char *text, const char *fname, struct err *e);
int simai_read(struct simai_workload *w, const char *path, struct err *e);
void simai_free(struct simai_workload *w);
const char *simai_ctype_name(int type);
const char *simai_group_name(int group);
/* The GPUs of the communicator of `group` that contains GPU rank r (ranks
 * 0..all_gpus-1), in rank order, into out[]; returns how many (1 = no
 * communication). */
uint32_t simai_group_ranks(const struct simai_workload *w, int group, uint32_t r, uint32_t *out);

/* What a run needs to report a SimAI job as SimAI does (stats/simai.c):
 * per layer and phase the compute time and, for the job's first GPU, the
 * collective job it takes part in (1 + index into flow_list.jobs, 0: none). */
struct simai_rec {
    uint16_t job[3];     /* per phase: its first collective job (one per channel) */
    uint16_t njobs[3];   /* and how many */
    uint32_t gsize[3];   /* its communicator's size */
};
struct simai_sched {
    char name[48];               /* the traffic section */
    struct simai_workload w;     /* the parsed file (layers kept) */
    uint32_t iterations;
    uint32_t rank0_nic, rank0_nvl; /* host nodes of the job's first GPU (nvl = nic without NVLink) */
    uint16_t job_lo, job_hi;     /* the job's collective jobs: [job_lo, job_hi] (1-based), none if lo > hi */
    simtime_t start;
    struct simai_rec *rec;       /* iterations * n_layers */
};

/* How a job is laid out and run. */
struct simai_opts {
    const char *name;          /* its section */
    uint32_t iterations, chunks;
    uint32_t channels;         /* rings per collective across servers; 0 = GPUs per server in the group */
    bool rail_rings;           /* rings leave and enter a server on one rail (else SimAI's order) */
    bool flow_qps;             /* every flow a new queue pair that starts when the flow its data came in on
                                * has completed (SimAI's); else a channel's messages share one, each step
                                * starting when its data arrived (NCCL's) */
    bool recv_hold;            /* flow_qps: a GPU's step to a peer starts no earlier than its previous
                                * one (SimAI posts a step's receive when it issues that step's send) */
    simtime_t start, send_lat;
    simtime_t endpoint_delay;  /* SimAI's system layer endpoint-delay, also before every flow */
    uint16_t pg;
    const uint32_t *gpus;      /* GPU rank -> GPU index (topo_gpu_*), all_gpus of them */
};
/* Appends the job's flows and its schedule record (out->simai). */
int traffic_simai(struct flow_list *out, const struct topo *t, const struct simai_workload *w, const struct simai_opts *o,
                  struct err *e);
void simai_sched_free(struct simai_sched *s);

#endif
