/* Collective metrics (collective.c): per job and iteration the completion
 * time, NCCL's algorithm and bus bandwidth and the straggler; per job the
 * iteration times. Written to collective.csv and summary.json, read back by
 * `rocesim report`. */
#ifndef ROCESIM_STATS_COLLECTIVE_H
#define ROCESIM_STATS_COLLECTIVE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "core/err.h"
#include "scenario/scenario.h"

/* One iteration of one job, from the finished simulation. */
struct coll_iter {
    uint32_t job, iter;
    uint32_t flows, done;
    simtime_t start, end;      /* earliest start; the latest time a flow's data had arrived (its receiver had
                                * the last byte, as a rank's NCCL kernel ends), valid when done == flows */
    uint32_t straggler;        /* the flow whose data arrived last (UINT32_MAX: none arrived) */
    /* The critical path: from the straggler back through the prerequisite
     * met last, within the iteration. Its flows, how many of them were
     * paused / rerouted / retransmitted, and the one that lost most time
     * against its ideal FCT (its excess in ps). */
    uint32_t path_n, path_paused, path_rerouted, path_retx;
    uint32_t path_worst;
    simtime_t path_excess;
    simtime_t path_inherited; /* its first flow's start - the iteration's start: a delay the previous iteration left */
};
/* Per (job, iteration), jobs in order: *n records, malloc'ed (NULL if no job). */
struct coll_iter *coll_iters(const struct scenario *sc, size_t *n);
/* A job's span, from its first flow's start to the end of its last
 * iteration, and nccl-tests' time per iteration: (span - (iterations - 1) *
 * compute_gap) / iterations. Iterations overlap across hosts (a host starts
 * the next one when it is done), so the spans of the iterations add up to
 * more than the job's: this is the time its busbw is reported at. -1 if an
 * iteration of the job is not complete. it: coll_iters' records. */
simtime_t coll_job_span(const struct scenario *sc, const struct coll_iter *it, size_t n, uint32_t job, simtime_t *per_iter);
/* A job's critical path across its iterations (stragglers, issue 37 item 5):
 * from its last arrival back through each flow's prerequisite met last,
 * iteration boundaries included. compute: the gaps on it (a flow held by its
 * compute gap, dep_delay); gap_excess: of those, the part beyond compute_gap
 * (a slow rank, gap_dist's draws); nic: the slow NIC's extra serialisation of
 * the path's flows it sends or receives (payload at slow_nic against the rate
 * it replaced). straggler_host: the host with the most of the two on the
 * path (UINT32_MAX: none), straggler_rank its rank. per_without: nccl-tests'
 * time per iteration with that time taken off the span (an estimate where
 * the path would change without it; exact on an idle fabric for a ring), -1
 * if an iteration is not complete. */
struct coll_jpath {
    uint32_t flows;
    simtime_t compute, gap_excess, nic;
    uint32_t straggler_host, straggler_rank;
    simtime_t straggler_time;
    simtime_t per, per_without;
};
void coll_job_path(const struct scenario *sc, const struct coll_iter *it, size_t n, uint32_t job, struct coll_jpath *p);
/* Why a flow was slow, from its counters: "paused+rerouted+retransmitted" or "none". */
void coll_why(const struct qp *q, char *buf, size_t n);

/* collective.csv in dir, when the scenario has collective jobs. */
int collective_write_csv(const struct scenario *sc, const char *dir, struct err *e);
/* summary.json's "collectives": [...] entry, with the trailing ",\n". */
void collective_write_json(FILE *f, const struct scenario *sc);
/* `rocesim report`: the jobs of each run folder that has a collective.csv. */
void collective_report(FILE *out, const char *const *dirs, int n);

#endif
