/* From a config to a ready-to-run network: topology, routing tables, flows,
 * switch and NIC parameters, schemes. */
#ifndef ROCESIM_SCENARIO_H
#define ROCESIM_SCENARIO_H
#include "core/err.h"
#include "net/net.h"
#include "scenario/config.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

struct scenario {
    const struct config *cfg;
    struct topo topo;
    struct routes routes;
    struct flow_list flows; /* in flow-id order (file order, or generation order) */
    struct sim sim;
    simtime_t max_rtt;      /* ns-3's maxRtt: largest host-pair base RTT */
    uint64_t max_bdp;       /* ns-3's maxBdp */
    bool built;
    /* run.threads > 1 or MPI ranks (scenario_parallel): node -> partition, and the window */
    uint32_t *part, n_parts;
    simtime_t lookahead;
    /* MPI ranks (the CLI sets it before scenario_parallel when run under
     * mpirun with more than one rank); NULL: one process */
    const struct eng_comm *comm;
};

/* Topology and flows only (enough for `rocesim flows`). */
int scenario_load(struct scenario *sc, const struct config *cfg, struct err *e);
/* Everything: routes, ports, MMU and ECN settings, flows as QPs. */
int scenario_build(struct scenario *sc, struct err *e);
void scenario_free(struct scenario *sc);
/* run.threads > 1 or MPI ranks (sc->comm): partitions the fabric, or says
 * why this run must stay serial ("run.threads = N: ..."). 0 and nothing to do
 * at run.threads = 1 in one process. */
int scenario_parallel(struct scenario *sc, struct err *e);
/* sim_run, or the parallel run scenario_parallel prepared. */
void scenario_run(struct scenario *sc);

/* Where named flow-size CDFs live: $ROCESIM_WORKLOADS, else the repository's
 * workloads/ folder. */
const char *workloads_dir(void);

#endif
